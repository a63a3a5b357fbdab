#!/bin/bash
# begin, a 100 ms timer that ends the session at its fifth tick, and end,
# in a SystemTap module: each ran, the timer exactly 5 times.
. ../lib.sh
. ./stapmod_lib.sh
need staprun
stapmod_run begin_timer_end
echo "$out" | grep -qx begin || fail "probe begin did not run"
echo "$out" | grep -qx end || fail "probe end did not run"
[ "$(value ticks "$out")" = 5 ] || fail "expected 5 timer ticks"
pass "begin, 5 ticks, end"
