#!/bin/bash
# `make check`: the clean-room check, then build, boot and test every arch in
# ARCHES for $VARIANT, then the client cases (bpftrace, perf, trace-cmd,
# SystemTap, BCC on the Debian guest; CLIENTS=0 leaves them out), then one
# verdict over all of it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$top/scripts/clients-lib.sh"

ARCHES=${ARCHES:-x86_64 arm64}
CLIENTS=${CLIENTS:-1}
extra=0
t0=$(date +%s)

echo "== harness self-test"
"$top/tests/harness/run.sh" || extra=$((extra + 1))

echo "== clean-room check"
checker=$top/../shared/tools/originality-check
seeds=$top/../shared/seeds
[ -d "$seeds" ] || seeds=
if [ ! -x "$checker" ]; then
	echo "   SKIPPED: $checker not found; the clean-room check did not run"
elif "$checker" --base "$out/base/linux" ${seeds:+--extra-ref "$seeds"} \
	"$top/linux" > "$out/originality.txt" 2>&1; then
	tail -n1 "$out/originality.txt"
else
	grep -E '^FAIL|^originality' "$out/originality.txt"
	echo "   FAIL clean-room check (full report: out/originality.txt)"
	extra=$((extra + 1))
fi

specs=()
for a in $ARCHES; do
	echo "== $VARIANT $a"
	if ! ARCH=$a "$top/scripts/build.sh"; then
		echo "   FAIL build of $VARIANT $a"
		extra=$((extra + 1))
		continue
	fi
	clients=$CLIENTS
	if [ "$clients" = 1 ] && ! clients_prepare "$a"; then
		extra=$((extra + 1))
		clients=0
	fi
	if ! ARCH=$a "$top/scripts/mkinitramfs.sh"; then
		echo "   FAIL initramfs of $VARIANT $a"
		extra=$((extra + 1))
		continue
	fi
	# The verdict reads the log whatever the boot's exit status says; a
	# timeout or crash shows up there as an unfinished run.
	ARCH=$a "$top/scripts/boot.sh" check || true
	t=$(ARCH=$a bash -c ". '$top/scripts/lib.sh' && echo \$tag")
	specs+=("$VARIANT $a:$out/logs/$t.log:$top/tests/expect/$a")
	[ "$clients" = 1 ] && specs+=("$(clients_boot "$a")")
done

echo "== results ($(($(date +%s) - t0)) s)"
for a in $ARCHES; do
	tr=$top/configs/transition/$VARIANT-$a.config
	[ -f "$tr" ] && echo "NOTE: $VARIANT $a is built with kprobes OFF until its port lands" \
		"($(sed -n 's/^# waive //p' "$tr" | wc -l) options waived, see ${tr#$top/})"
done
python3 "$top/scripts/verdict.py" --extra-failed "$extra" "${specs[@]}"
