#!/bin/bash
# The return values kprobe_return.stp sees ($return): calls with 2, 3, 5
# and 7 return N * N + 1, summing to 91.
. ../lib.sh
. ./stap_lib.sh
need stapbpf
bo=$(stap_program kprobe_return) || { echo "$bo"; exit 1; }
load_kernel_target
out=$(stapbpf -c "$CLIENTS/kcall 2 3 5 7" "$bo" 2>&1)
echo "$out"
[ "$(value rets "$out")" = 4 ] || fail "expected 4 returns"
[ "$(value sum "$out")" = 91 ] || fail "expected return values summing to 91"
pass "stapbpf saw the 4 return values"
