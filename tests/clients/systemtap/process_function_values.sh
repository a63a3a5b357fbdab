#!/bin/bash
# The values process_function.stp sees: arguments ($n) i = 1..10 summing
# to 55 and return values ($return) summing to 455.
. ../lib.sh
. ./stap_lib.sh
need stapbpf
stap_target process_function
[ "$(value calls "$out")" = 10 ] || fail "expected 10 calls"
[ "$(value args "$out")" = 55 ] || fail "expected arguments summing to 55"
[ "$(value rets "$out")" = 455 ] || fail "expected return values summing to 455"
pass "stapbpf saw the arguments and return values of 10 calls"
