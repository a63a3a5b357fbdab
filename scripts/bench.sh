#!/bin/bash
# `make bench`: build both variants for each arch in ARCHES, boot each
# twice under TCG (-icount shift=0,sleep=off, then plain wall clock) with
# the benchmark job, count the atomic read-modify-writes of each hit path
# with the instruction profiler (mode "atomics"), and report ours against
# upstream: a table on stdout, out/bench/results.csv and
# out/bench/ratios.png.
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
BENCH_MODES=${BENCH_MODES:-icount wall atomics}
# What the atomics mode profiles (scripts/profile.sh kinds), and the row
# each one fills.
ATOMIC_KINDS="entry:uprobe_entry ret:uretprobe step:uprobe_out_of_line
pid:uprobe_process_probe kprobe:entry:kprobe_entry kprobe:body:kprobe_body
kprobe:kretprobe:kretprobe"
bench=$out/bench
mkdir -p "$bench"
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
raw=$bench/raw-$stamp.txt
: > "$raw"

# The atomic read-modify-writes per hit of each path in ATOMIC_KINDS,
# counted by the instruction profiler (scripts/profile.sh): one raw row
# per path, and as its "mechanism" the functions they are in.
bench_atomics() { # VARIANT ARCH
	local v=$1 a=$2 sd=$bench/atomics-$1-$2 kinds= ka k m f
	local logf=$out/logs/bench-atomics-$1-$2.log
	for ka in $ATOMIC_KINDS; do kinds="$kinds ${ka%:*}"; done
	echo "== $v $a: atomic read-modify-writes per hit (profiler, log in ${logf#$top/})"
	rm -rf "$sd"
	if ! VARIANT=$v ARCH=$a PROFILE_SUMMARY=$sd "$top/scripts/profile.sh" \
		$kinds > "$logf" 2>&1; then
		echo "$v $a atomics note the profiled guests did not finish: see $logf" >> "$raw"
		return
	fi
	for ka in $ATOMIC_KINDS; do
		k=${ka%:*} m=${ka##*:}
		case "$k" in
		kprobe:*) f=$sd/kprofile-${k#kprobe:}.txt ;;
		pid) f=$sd/pprofile-pid.txt ;;
		*) f=$sd/uprofile-$k.txt ;;
		esac
		if [ ! -f "$f" ]; then
			echo "$v $a atomics note no profile of $k" >> "$raw"
			continue
		fi
		awk -v p="$v $a atomics" -v m="$m" '
			$1 == "atomics" { n = $2 }
			$1 == "atomic" { w = w (w ? ";" : "") $2 "=" sprintf("%.1f", $3) }
			END { print p, m, n, "count"; print p, "mech", m, (w ? w : "none") }
		' "$f" >> "$raw"
	done
	grep -a 'BENCH-ERROR' "$logf" | sed "s/^/$v $a atomics note /" >> "$raw" || true
}

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
			if [ "$mode" = atomics ]; then
				bench_atomics "$v" "$a"
				continue
			fi
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
