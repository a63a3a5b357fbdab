#!/bin/bash
# process().function() and its .return on the client program, run by
# stapbpf: 10 calls of target_work(i), arguments summing to 55 and return
# values (i * i + 7) to 455, the program's output unchanged.
. ../lib.sh
. ./stap_lib.sh
need stapbpf
bo=$(stap_program process_function) || { echo "$bo"; exit 1; }
want=$($TARGET work 10)
out=$(stapbpf -c "$TARGET work 10" "$bo" 2>&1)
echo "$out"
[ "$(value calls "$out")" = 10 ] || fail "expected 10 calls"
[ "$(value args "$out")" = 55 ] || fail "expected arguments summing to 55"
[ "$(value rets "$out")" = 455 ] || fail "expected return values summing to 455"
echo "$out" | grep -qx "$want" || fail "the program printed something else than '$want'"
pass "stapbpf saw 10 calls, their arguments and return values; output unchanged"
