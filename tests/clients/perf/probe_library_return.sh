#!/bin/bash
# perf probe -x on a function of our shared library and on its return
# with $retval: perf stat counts both, perf record/script shows the
# values (lib_work(i) = 3 * i + 1).
. ../lib.sh
. ../perf_lib.sh
perf probe -x "$LIBTARGET" -a lib_work || fail "perf probe -x $LIBTARGET lib_work failed"
perf probe -x "$LIBTARGET" -a 'lib_work%return $retval' ||
	fail "perf probe -x $LIBTARGET on the return of lib_work failed"
events=$(perf probe -l 2>/dev/null | awk '/probe_libtarget:/ { print $1 }' | xargs)
[ "$(echo "$events" | wc -w)" = 2 ] || fail "perf probe -l shows '$events', expected two events"
set -- $events
out=$(perf stat -x ' ' -e "$1" -e "$2" -- "$TARGET" work 8 2>&1)
echo "$out"
[ "$(stat_count "$1" "$out")" = 8 ] || fail "$1: expected 8 hits"
[ "$(stat_count "$2" "$out")" = 8 ] || fail "$2: expected 8 hits"
cd /tmp && rm -f perf.data
perf record -q -e "$1" -e "$2" -o /tmp/perf.data -- "$TARGET" work 3 2>&1
out=$(perf script -i /tmp/perf.data 2>&1)
echo "$out"
[ "$(echo "$out" | grep -c 'probe_libtarget:')" = 6 ] || fail "expected 6 samples"
for r in 0x4 0x7 0xa; do
	echo "$out" | grep -q "arg1=$r" || fail "no sample with the return value $r"
done
pass "8 calls and returns counted; 3 returns recorded with 4, 7 and 10"
