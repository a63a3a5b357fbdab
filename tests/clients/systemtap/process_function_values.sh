#!/bin/bash
# The values process_function.stp sees: target_work(i) for i = 1..10,
# arguments ($n) summing to 55 and return values ($return, i * i + 7) to
# 455.
. ../lib.sh
. ./stap_lib.sh
need stapbpf
bo=$(stap_program process_function) || { echo "$bo"; exit 1; }
out=$(stapbpf -c "$TARGET work 10" "$bo" 2>&1)
echo "$out"
[ "$(value calls "$out")" = 10 ] || fail "expected 10 calls"
[ "$(value args "$out")" = 55 ] || fail "expected arguments summing to 55"
[ "$(value rets "$out")" = 455 ] || fail "expected return values summing to 455"
pass "stapbpf saw the arguments and return values of 10 calls"
