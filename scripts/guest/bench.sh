#!/bin/sh
# The benchmark job of the guest (harness=bench): load kprobes_bench.ko,
# feed it probe targets, run its commands and print its results as
# "BENCH <metric> <value> <unit>" lines for the host.
# Kernel command line: bench_scale=1000,10000 (registration sizes),
# bench_only=cmd,... (run only these commands; default all).
B=/sys/kernel/debug/kprobes_bench
OPT=/proc/sys/debug/kprobes-optimization

scale=1000,10000
only=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bench_scale=*) scale=${arg#bench_scale=} ;;
	bench_only=*) only=${arg#bench_only=} ;;
	esac
done

# Print what the module reported since the last call, so a run that dies
# later still leaves these results on the console.
report() {
	dmesg -c > /tmp/dmesg.new
	sed -n 's/.*kprobes_bench: RESULT /BENCH /p' /tmp/dmesg.new
	sed -n 's/.*kprobes_bench: INFO /BENCH-INFO /p' /tmp/dmesg.new
	grep 'kprobes_bench: ' /tmp/dmesg.new | grep -v 'RESULT\|INFO\|taints kernel' |
		sed 's/^/BENCH-ERROR /'
}

cmd() {
	case ",${only:-$1}," in *",$1,"*) ;; *) return ;; esac
	echo "BENCH-INFO running: $*"
	echo "$*" > $B/run || echo "BENCH-ERROR '$*' failed"
	report
}

echo "BENCH-INFO kernel $(uname -r)"
echo "BENCH-INFO arch $(uname -m)"
dmesg -n 1
dmesg -c > /dev/null
insmod /bench/kprobes_bench.ko || { echo "BENCH-ERROR cannot load the module"; exit 0; }
report

# Targets: traceable function entries with a unique name, not blacklisted,
# and not our own.
cut -d' ' -f1 /sys/kernel/tracing/available_filter_functions |
	grep -v '[.]' | sort | uniq -u > /tmp/funcs
awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist | sort -u > /tmp/black
grep -vxF -f /tmp/black /tmp/funcs | grep -v '^bench_\|kprobes_bench' > /tmp/targets
echo "BENCH-INFO targets $(wc -l < /tmp/targets)"
cat /tmp/targets > $B/targets

cmd hits
if [ -n "$only" ] && ! echo ",$only," | grep -q ',body,'; then
	:
elif [ -w $OPT ]; then
	echo 0 > $OPT
	cmd body
	echo 1 > $OPT
else
	echo "BENCH-INFO no $OPT: the body probe is never optimized"
	cmd body
fi
for n in $(echo "$scale" | tr ',' ' '); do
	cmd reg "$n"
done
for n in $(echo "$scale" | tr ',' ' '); do
	cmd mem "$n"
done

rmmod kprobes_bench
