#!/bin/bash
# process().function() and its .return on the client program, run by
# stapbpf: 10 calls of target_work(i) counted at entry and return, the
# program's output unchanged (the values: process_function_values).
. ../lib.sh
. ./stap_lib.sh
need stapbpf
want=$($TARGET work 10)
stap_target process_function
[ "$(value calls "$out")" = 10 ] || fail "expected 10 calls"
[ "$(value returns "$out")" = 10 ] || fail "expected 10 returns"
echo "$out" | grep -qx "$want" || fail "the program printed something else than '$want'"
pass "stapbpf saw 10 calls and 10 returns; output unchanged"
