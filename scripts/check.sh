#!/bin/bash
# `make check`: the clean-room check, then build, boot and test every arch in
# ARCHES for $VARIANT, with the client cases (bpftrace, perf, trace-cmd,
# SystemTap, BCC on the Debian guest; CLIENTS=0 leaves them out), then one
# verdict over all of it.
#
# The steps are overlapped so that the host's cores stay busy while a
# guest waits on its own timers: an arch's check boot and client boot run side by
# side, the next arch builds behind them at a lower priority, and the
# Debian roots are unpacked behind the first build.  At most two guests
# run at once; each has its hard timeout.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$top/scripts/clients-lib.sh"

ARCHES=${ARCHES:-x86_64 arm64}
# FLAVOR=defconfig is about the boot and its suites on a distribution-like
# config: the client guest stays out unless CLIENTS=1 asks for it.
clients_default=1
[ "$FLAVOR" = defconfig ] && clients_default=0
CLIENTS=${CLIENTS:-$clients_default}
expect_dir=$top/tests/expect
boot_args=()
if [ "$FLAVOR" = kcsan ]; then
	# The data-race detector over the race and torture cases only
	# (tests/expect-kcsan/), x86_64 only, without the client guest.
	for a in $ARCHES; do
		[ "$a" = x86_64 ] || die "FLAVOR=kcsan is for x86_64 only (ARCH=x86_64)"
	done
	CLIENTS=0
	expect_dir=$top/tests/expect-kcsan
	only=$(sed 's/#.*//' "$expect_dir/tests" | xargs | tr ' ' ,)
	boot_args=("harness.only=$only")
	# KCSAN's watchpoints slow a TCG guest down severalfold.
	export BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400}
fi

# KASAN, lockdep and the other checks of the debug flavor slow a TCG
# guest down about fourfold: the default bound would cut its run short.
[ "$FLAVOR" = debug ] && export BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400}
# A defconfig kernel ticks at 1000 Hz, may be preempted and carries the
# distribution's mitigations and drivers: its suites run severalfold
# slower under TCG than the project config's.
[ "$FLAVOR" = defconfig ] && export BOOT_TIMEOUT=${BOOT_TIMEOUT:-1800}

# The source files KCSAN reports are judged by: ours, and the upstream
# files they replace (the same set for both variants).
probe_files() {
	(cd "$top/linux" && find . -type f | sed 's|^\./||')
	sed 's/#.*//' "$top/base/removed-files" | while read -r p; do
		[ -n "$p" ] || continue
		case "$p" in
		*/) (cd "$out/base/linux" && find "$p" -type f 2>/dev/null) ;;
		*) echo "$p" ;;
		esac
	done
}

# Boot the check job; under KCSAN, sort the reports afterwards.
check_boot() {
	local a=$1 t objtree
	ARCH=$a "$top/scripts/boot.sh" check "${boot_args[@]}"
	[ "$FLAVOR" = kcsan ] || return 0
	t=$(ARCH=$a bash -c ". '$top/scripts/lib.sh' && echo \$tag")
	objtree=$(ARCH=$a bash -c ". '$top/scripts/lib.sh' && echo \$objtree")
	probe_files | sort -u > "$out/logs/$t.probe-files"
	python3 "$top/scripts/kcsan_reports.py" --log "$out/logs/$t.log" \
		--objtree "$objtree" --files "$out/logs/$t.probe-files"
}
extra=0
t0=$(date +%s)
mkdir -p "$out/logs"
step() { echo "   ($1: $(($(date +%s) - $2)) s)"; }

echo "== harness self-test"
"$top/tests/harness/run.sh" || extra=$((extra + 1))

echo "== clean-room check"
checker=$top/../shared/tools/originality-check
seeds=$top/../shared/seeds
[ -d "$seeds" ] || seeds=
if [ ! -x "$checker" ] && [ "${CI:-}" = true ]; then
	# CI must never land a tree whose clean-room check did not run.
	echo "   FAIL clean-room check: $checker not found (CI=true)"
	extra=$((extra + 1))
elif [ ! -x "$checker" ]; then
	echo "   SKIPPED: $checker not found; the clean-room check did not run"
elif "$checker" --base "$out/base/linux" ${seeds:+--extra-ref "$seeds"} \
	"$top/linux" > "$out/originality.txt" 2>&1; then
	tail -n1 "$out/originality.txt"
else
	grep -E '^FAIL|^originality' "$out/originality.txt"
	echo "   FAIL clean-room check (full report: out/originality.txt)"
	extra=$((extra + 1))
fi

declare -A rootfs_job
if [ "$CLIENTS" = 1 ]; then
	for a in $ARCHES; do
		# The Debian 13 environment in which SystemTap compiles its
		# cases too (tests/clients/systemtap/build.sh).
		{
			ARCH=$a nice -n 10 "$top/scripts/mkrootfs.sh" &&
				{ [ "$DEBIAN" != trixie ] || nice -n 10 "$top/scripts/hostenv.sh"; }
		} > "$out/logs/rootfs-$a.txt" 2>&1 &
		rootfs_job[$a]=$!
	done
fi

guests=()
specs=()
for a in $ARCHES; do
	echo "== $VARIANT $a"
	ta=$(date +%s)
	# Behind the previous arch's guests, the build takes what they leave.
	prio=()
	[ ${#guests[@]} -gt 0 ] && prio=(nice -n 10)
	if ! ARCH=$a "${prio[@]}" "$top/scripts/build.sh"; then
		echo "   FAIL build of $VARIANT $a"
		extra=$((extra + 1))
		continue
	fi
	step "build" "$ta"
	clients=$CLIENTS
	if [ "$clients" = 1 ]; then
		# Its own run reports why it failed; clients_prepare tries again.
		wait "${rootfs_job[$a]}" || cat "$out/logs/rootfs-$a.txt"
		if ! clients_prepare "$a"; then
			extra=$((extra + 1))
			clients=0
		fi
	fi
	if ! ARCH=$a "$top/scripts/mkinitramfs.sh"; then
		echo "   FAIL initramfs of $VARIANT $a"
		extra=$((extra + 1))
		continue
	fi
	[ ${#guests[@]} -gt 0 ] && wait "${guests[@]}"
	guests=()
	# The verdict reads the logs whatever a boot's exit status says; a
	# timeout or crash shows up there as an unfinished run.
	t=$(ARCH=$a bash -c ". '$top/scripts/lib.sh' && echo \$tag")
	rm -f "$out/logs/$t.log.kcsan"
	check_boot "$a" &
	guests+=($!)
	specs+=("$VARIANT $a $FLAVOR:$out/logs/$t.log:$expect_dir/$a")
	if [ "$clients" = 1 ]; then
		clients_run "$a" &
		guests+=($!)
		specs+=("$(clients_spec "$a")")
	fi
	step "to the guests' start" "$ta"
done
# The guests, and any Debian root an arch that failed to build left going.
wait

echo "== results ($(($(date +%s) - t0)) s)"
for a in $ARCHES; do
	tr=$top/configs/transition/$VARIANT-$a.config
	[ -f "$tr" ] && echo "NOTE: $VARIANT $a is built with kprobes OFF until its port lands" \
		"($(sed -n 's/^# waive //p' "$tr" | wc -l) options waived, see ${tr#$top/})"
done
python3 "$top/scripts/verdict.py" --extra-failed "$extra" "${specs[@]}"
