#!/bin/bash
# perf probe -x on a function of a program, counted by perf stat on that
# program alone.
. ../lib.sh
. ../perf_lib.sh
perf probe -x "$TARGET" -a target_work || fail "perf probe -x $TARGET failed"
out=$(perf stat -x ' ' -e probe_target:target_work -- "$TARGET" work 12 2>&1)
echo "$out"
[ "$(stat_count probe_target:target_work "$out")" = 12 ] || fail "expected 12 hits"
pass "perf stat counted 12 calls of target_work"
