#!/bin/bash
# `make torture [DURATION=seconds] [ARCH=...] [FLAVOR=...]`: kprobetorture for
# DURATION seconds (default 600), the allocation-failure sweeps, the hostile
# argument sweep and the input fuzzer, then a kmemleak scan, on every arch
# in ARCHES, by default in FLAVOR=debug (lockdep, KASAN on x86_64,
# atomic-sleep, debugobjects, kmemleak).  One verdict over all of it: any
# failed case, kernel report or unfinished guest fails the run.
set -uo pipefail
export FLAVOR=${FLAVOR:-debug}
. "$(dirname "$0")/lib.sh"

ARCHES=${ARCHES:-x86_64 arm64}
DURATION=${DURATION:-600}
case $DURATION in '' | *[!0-9]*) die "DURATION must be a number of seconds" ;; esac
failed=0
specs=()
for a in $ARCHES; do
	echo "== torture $VARIANT $a ($FLAVOR, $DURATION s)"
	if ! ARCH=$a "$top/scripts/build.sh" || ! ARCH=$a "$top/scripts/mkinitramfs.sh"; then
		echo "   FAIL build of $VARIANT $a"
		failed=$((failed + 1))
		continue
	fi
	# The runs, the sweeps (a few minutes under KASAN and TCG) and boot.
	# The debug flavor has kmemleak: the guest's leak checks then must
	# find it, not pass having looked at nothing.
	kl=0
	[ "$FLAVOR" = debug ] && kl=1
	ARCH=$a LOG_SUFFIX=-torture BOOT_TIMEOUT=$((DURATION * 2 + 1500)) \
		"$top/scripts/boot.sh" torture "harness.duration=$DURATION" \
		"harness.kmemleak=$kl" >/dev/null
	t=$(ARCH=$a bash -c ". '$top/scripts/lib.sh' && echo \$tag")
	specs+=("torture $VARIANT $a:$out/logs/$t-torture.log:$top/tests/expect-torture/$a")
	grep -E 'kprobetorture: (calls|verdict)|sweep|fuzz|hostile.*done|kmemleak:' \
		"$out/logs/$t-torture.log" | sed 's/^/   /'
done
python3 "$top/scripts/verdict.py" --extra-failed "$failed" "${specs[@]}"
