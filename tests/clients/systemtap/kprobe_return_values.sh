#!/bin/bash
# The return values kprobe_return.stp sees ($return): 5, 10, 26 and 50,
# summing to 91.
. ../lib.sh
. ./stap_lib.sh
need stapbpf
stap_kcalls kprobe_return
[ "$(value rets "$out")" = 4 ] || fail "expected 4 returns"
[ "$(value sum "$out")" = 91 ] || fail "expected return values summing to 91"
pass "stapbpf saw the 4 return values"
