#!/bin/bash
# A kernel function probed from vmlinux's debuginfo by a SystemTap module,
# around 4 writes of the test module's parameter ("2\n", "3\n", "5\n",
# "7\n"): 4 entries with $len summing to 8 and the strings at $buf to
# 17; 4 returns with $return and the entry's $len summing to 8; 4 hits
# of a line in the body with $len summing to 8.
. ../lib.sh
. ./stapmod_lib.sh
need staprun
stapmod_kcalls kernel_function
[ "$(value calls "$out")" = 4 ] || fail "expected 4 calls"
[ "$(value bytes "$out")" = 8 ] || fail "expected \$len summing to 8"
[ "$(value values "$out")" = 17 ] || fail "expected the strings at \$buf summing to 17"
[ "$(value rets "$out")" = 4 ] || fail "expected 4 returns"
[ "$(value sum "$out")" = 8 ] || fail "expected \$return summing to 8"
[ "$(value entries "$out")" = 8 ] || fail "expected the entry's \$len summing to 8"
[ "$(value lines "$out")" = 4 ] || fail "expected 4 hits of the line"
[ "$(value line_bytes "$out")" = 8 ] || fail "expected \$len at the line summing to 8"
pass "entry, return and line probes in vmlinux: exact counts, arguments and return values"
