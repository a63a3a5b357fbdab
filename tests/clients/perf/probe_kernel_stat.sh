#!/bin/bash
# perf probe on a kernel function, counted by perf stat.
. ../lib.sh
. ../perf_lib.sh
load_kernel_target
perf probe -m "$KMOD" -a "$KFUNC" || fail "perf probe -a $KFUNC failed"
out=$(perf stat -x ' ' -e "probe:$KFUNC" -a -- "$CLIENTS/kcall" 1 2 3 4 5 6 2>&1)
echo "$out"
[ "$(stat_count "probe:$KFUNC" "$out")" = 6 ] || fail "expected 6 hits"
pass "perf stat counted 6 hits of probe:$KFUNC"
