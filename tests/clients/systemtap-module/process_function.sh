#!/bin/bash
# process().function(), .return and .statement() on the client program,
# in a SystemTap module: 10 calls of target_work(i), i = 1..10, their
# arguments (55), returns (10, summing to 455) and body line hits (10);
# the program's output unchanged.
. ../lib.sh
. ./stapmod_lib.sh
need staprun
want=$($TARGET work 10)
stapmod_run process_function "$TARGET work 10"
[ "$(value calls "$out")" = 10 ] || fail "expected 10 calls"
[ "$(value args "$out")" = 55 ] || fail "expected arguments summing to 55"
[ "$(value returns "$out")" = 10 ] || fail "expected 10 returns"
[ "$(value rets "$out")" = 455 ] || fail "expected return values summing to 455"
[ "$(value lines "$out")" = 10 ] || fail "expected 10 hits of the body line"
echo "$out" | grep -qx "$want" || fail "the program printed something else than '$want'"
pass "the SystemTap module saw 10 calls, returns and line hits with their values"
