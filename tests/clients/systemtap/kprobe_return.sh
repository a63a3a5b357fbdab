#!/bin/bash
# A return probe on the test module's function, run by stapbpf: 4 calls
# made, 4 returns counted (their values: kprobe_return_values).
. ../lib.sh
. ./stap_lib.sh
need stapbpf
bo=$(stap_program kprobe_return) || { echo "$bo"; exit 1; }
load_kernel_target
out=$(stapbpf -c "$CLIENTS/kcall 2 3 5 7" "$bo" 2>&1)
echo "$out"
[ "$(value rets "$out")" = 4 ] || fail "expected 4 returns"
pass "stapbpf saw 4 returns"
