#!/bin/bash
# `make bench`: build both variants for each arch in ARCHES, boot each
# twice under TCG (-icount shift=0,sleep=off, then plain wall clock) with
# the benchmark job, and report ours against upstream: a table on stdout,
# out/bench/results.csv and out/bench/ratios.png.
# BENCH_SCALE (default 1000,10000): registration sizes.
# BENCH_ONLY (default all): comma-separated bench commands (hits, body,
# reg, mem) to run; BENCH_VARIANTS, BENCH_MODES narrow the runs too.
# The icount run has one host thread for all vCPUs (-icount needs it);
# the wall-clock run one per vCPU, so that its two-CPU figure has two
# CPUs that really run at once.
set -uo pipefail
# Both variants from one config: ours without its test suites (the
# KUnit suites, the torture modules, the uprobes race hooks).
export FLAVOR=bench
. "$(dirname "$0")/lib.sh"

ARCHES=${ARCHES:-x86_64}
BENCH_SCALE=${BENCH_SCALE:-1000,10000}
BENCH_ONLY=${BENCH_ONLY:-}
BENCH_VARIANTS=${BENCH_VARIANTS:-upstream ours}
BENCH_MODES=${BENCH_MODES:-icount wall}
bench=$out/bench
mkdir -p "$bench"
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
raw=$bench/raw-$stamp.txt
: > "$raw"

for a in $ARCHES; do
	for v in $BENCH_VARIANTS; do
		tr=$top/configs/transition/$v-$a.config
		if [ -f "$tr" ]; then
			echo "== $v $a: kprobes are off in this build (${tr#$top/}), skipped"
			continue
		fi
		echo "== $v $a: build"
		VARIANT=$v ARCH=$a "$top/scripts/build.sh" || exit 1
		VARIANT=$v ARCH=$a "$top/scripts/mkinitramfs.sh" || exit 1
		for mode in $BENCH_MODES; do
			extra= threads=multi
			[ "$mode" = icount ] && extra="-icount shift=0,sleep=off" threads=single
			echo "== $v $a: benchmark ($mode)"
			# boot.sh names the log after the build's tag (ours-ARCH-bench).
			t=$(VARIANT=$v ARCH=$a bash -c ". '$top/scripts/lib.sh' && echo \$tag")
			logf=$out/logs/$t-bench-$mode.log
			# A run that crashes or hangs keeps what it printed so far.
			if ! QEMU_EXTRA="$extra" LOG_SUFFIX="-bench-$mode" \
				TCG_THREAD=$threads \
				BOOT_TIMEOUT=${BENCH_TIMEOUT:-5400} VARIANT=$v ARCH=$a \
				"$top/scripts/boot.sh" bench tsc=reliable clocksource=tsc \
				kunit.enable=0 bench_scale="$BENCH_SCALE" \
				${BENCH_ONLY:+bench_only=$BENCH_ONLY}; then
				what=$(grep -a -m1 -E 'Oops|BUG:|panic|TIMEOUT' "$logf" | tr -d '\r')
				echo "$v $a $mode note the guest did not finish: ${what:-see $logf}" >> "$raw"
			fi
			if grep -a '^BENCH-ERROR' "$logf"; then
				echo "   (errors above, see $logf)"
				sed -n "s/^BENCH-ERROR \(.*\)\r\{0,1\}$/$v $a $mode note \1/p" "$logf" |
					tr -d '\r' >> "$raw"
			fi
			sed -n "s/^BENCH \(.*\)\r\{0,1\}$/$v $a $mode \1/p" "$logf" | tr -d '\r' >> "$raw"
			# How each row's probe was reached (ftrace, optimized, ...).
			sed -n "s/^BENCH-INFO mech \(.*\)\r\{0,1\}$/$v $a $mode mech \1/p" "$logf" |
				tr -d '\r' >> "$raw"
			kver=$(sed -n 's/^BENCH-INFO kernel \(.*\)\r\{0,1\}$/\1/p' "$logf" | tr -d '\r')
			echo "$v $a $mode kernel $kver" >> "$raw"
		done
	done
done
python3 "$top/scripts/bench_report.py" --raw "$raw" --date "$stamp" --out "$bench"
