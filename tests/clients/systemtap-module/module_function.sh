#!/bin/bash
# The test module's function probed from its debuginfo by a SystemTap
# module, around 4 calls with 2, 3, 5 and 7: 4 entries with $n summing
# to 17; 4 returns with $return summing to 91 (5+10+26+50) and
# @entry($n) to 17; 4 hits of a line in the body, $n summing to 17.
. ../lib.sh
. ./stapmod_lib.sh
need staprun
stapmod_kcalls module_function
[ "$(value calls "$out")" = 4 ] || fail "expected 4 calls"
[ "$(value args "$out")" = 17 ] || fail "expected arguments summing to 17"
[ "$(value rets "$out")" = 4 ] || fail "expected 4 returns"
[ "$(value sum "$out")" = 91 ] || fail "expected return values summing to 91"
[ "$(value entries "$out")" = 17 ] || fail "expected entry arguments summing to 17"
[ "$(value lines "$out")" = 4 ] || fail "expected 4 hits of the line"
[ "$(value line_args "$out")" = 17 ] || fail "expected \$n at the line summing to 17"
pass "entry, return and line probes: exact counts, arguments and return values"
