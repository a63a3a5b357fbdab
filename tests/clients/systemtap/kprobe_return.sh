#!/bin/bash
# A return probe on the test module's function, run by stapbpf: 4 calls
# made, 4 returns counted (their values: kprobe_return_values).
. ../lib.sh
. ./stap_lib.sh
need stapbpf
stap_kcalls kprobe_return
[ "$(value rets "$out")" = 4 ] || fail "expected 4 returns"
pass "stapbpf saw 4 returns"
