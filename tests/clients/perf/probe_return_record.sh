#!/bin/bash
# perf probe on a function's return, with the return value, recorded by
# perf record and read back by perf script.
. ../lib.sh
. ../perf_lib.sh
load_kernel_target
perf probe -m "$KMOD" -a "$KFUNC%return \$retval" || fail "perf probe on the return failed"
event=$(perf probe -l 2>/dev/null | awk '/probe:/ { print $1; exit }')
[ -n "$event" ] || fail "perf probe -l shows no return probe"
cd /tmp && rm -f perf.data
perf record -q -e "$event" -a -o /tmp/perf.data -- "$CLIENTS/kcall" 2 3 4 2>&1
out=$(perf script -i /tmp/perf.data 2>&1)
echo "$out"
[ "$(echo "$out" | grep -c "$event")" = 3 ] || fail "expected 3 samples"
for r in 0x5 0xa 0x11; do
	echo "$out" | grep -q "arg1=$r" || fail "no sample with return value $r"
done
pass "3 samples of $event with the return values 5, 10 and 17"
