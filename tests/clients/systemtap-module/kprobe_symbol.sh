#!/bin/bash
# Probes by symbol alone (no debuginfo) in a SystemTap module, around 4
# writes of the test module's parameter ("2\n", "3\n", ...): the kernel's
# parameter store entered and returned 4 times, 2 bytes each (8).
. ../lib.sh
. ./stapmod_lib.sh
need staprun
stapmod_kcalls kprobe_symbol
[ "$(value stores "$out")" = 4 ] || fail "expected 4 parameter stores by the command"
[ "$(value rets "$out")" = 4 ] || fail "expected 4 returns"
[ "$(value bytes "$out")" = 8 ] || fail "expected return values summing to 8"
pass "symbol probes: 4 entries and returns of 2 bytes"
