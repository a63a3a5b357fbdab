#!/bin/bash
# perf probe on function+offset.
. ../lib.sh
. ../perf_lib.sh
load_kernel_target
off=$(first_offset "$KFUNC") || fail "no offset in the body of $KFUNC takes a probe"
perf probe -m "$KMOD" -a "at_offset=$KFUNC+$off" || fail "perf probe -a $KFUNC+$off failed"
out=$(perf stat -x ' ' -e probe:at_offset -a -- "$CLIENTS/kcall" 7 8 9 2>&1)
echo "$out"
[ "$(stat_count probe:at_offset "$out")" = 3 ] || fail "expected 3 hits at $KFUNC+$off"
pass "perf stat counted 3 hits at $KFUNC+$off"
