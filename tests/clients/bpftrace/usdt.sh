#!/bin/bash
# USDT probes: target:tick without a semaphore, target:tick5 on a 5-byte
# nop (on x86_64 entered by a jump after its first hit), and
# target:guarded behind a semaphore that the kernel sets while the probe
# is attached (the program counts the hits that found it set).
. ../lib.sh
need bpftrace
out=$(bpftrace -e "usdt:$TARGET:target:tick { @tick = count(); @ticks = sum(arg0); }
	usdt:$TARGET:target:tick5 { @tick5 = count(); @ticks5 = sum(arg0); }
	usdt:$TARGET:target:guarded { @guarded = count(); @twice = sum(arg1); }" \
	-c "$TARGET usdt 20" 2>&1)
echo "$out"
[ "$(value @tick "$out")" = 20 ] || fail "expected 20 ticks"
[ "$(value @ticks "$out")" = 210 ] || fail "expected tick arguments summing to 210"
[ "$(value @tick5 "$out")" = 20 ] || fail "expected 20 hits on the 5-byte nop"
[ "$(value @ticks5 "$out")" = 210 ] || fail "expected tick5 arguments summing to 210"
[ "$(value @guarded "$out")" = 20 ] || fail "expected 20 guarded hits"
[ "$(value @twice "$out")" = 420 ] || fail "expected guarded arguments summing to 420"
echo "$out" | grep -qx "guarded-enabled 20" || fail "the semaphore was not set for every hit"
plain=$($TARGET usdt 20)
echo "$plain" | grep -qx "guarded-enabled 0" || fail "the semaphore is set with nothing attached"
pass "20 hits each (tick5 on its nop5 too), semaphore set only while attached"
