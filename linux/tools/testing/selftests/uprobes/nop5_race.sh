#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A hit that came in by the jump on a 5-byte nop (x86_64, ours:
# uprobes.nop5_jump), held in its handler by uprobes_race_test while the
# other CPU takes the probe away, and then while it puts a new probe in
# its place.  The first hit of each run only passes (it is the trap that
# writes the jump); the second comes through the stub and is held.
# Released, the held call must return its right value and go on past
# the nop, the gone probe must set up no return, the nop must be a nop
# again (drop) or trap for the new probe and take the jump after (replace),
# and the new probe must count only the calls made after the held one.
. "$(dirname "$0")/module_lib.sh"
need_uprobes_kernel
[ "$(uname -m)" = x86_64 ] || ksft_skip "the nop5 jump is x86_64's"
KNOB=/sys/module/uprobes/parameters/nop5_jump
[ -w "$KNOB" ] || ksft_skip "no uprobes.nop5_jump in this kernel"
echo 1 > "$KNOB"
PATTERN='refcount_t|use-after-free|WARNING:|BUG:'
warnings() { dmesg | grep -c -E "$PATTERN"; }
before=$(warnings)

# held CMD: arm at work5(), let one hit write the jump, hold the next
# and run CMD (drop or replace) under it.
held() {
	serve_pid_target uprobes_race_test
	read -r WORK DEAD <&4 || fail "no addresses from $PROG"
	ask nop5
	NOP5=$REPLY
	ask site5
	[ "$REPLY" = 0f ] || fail "work5() does not begin with the nop: $REPLY"
	echo $TPID > $PARAMS/pid
	echo $((NOP5)) > $PARAMS/vaddr
	echo 1 > $PARAMS/pass
	echo arm > $PARAMS/cmd
	expect arm_result 0 "registration"
	ask call5 1
	[ "$REPLY" = 1 ] || fail "the first call returned $REPLY, not 1"
	ask site5
	[ "$REPLY" = e9 ] || fail "no jump after the first hit: the nop begins with $REPLY"

	echo "call5 1" >&3
	echo "$1" > $PARAMS/cmd
	expect "$1_result" 0 "the handler was entered"
	expect held 1 "$1 ran while the hit was held"
	read -r REPLY <&4 || fail "the target did not answer"
	[ "$REPLY" = 1 ] || fail "the held call returned $REPLY, not 1"
	expect hits 2 "one hit by the trap, one by the jump"
	# The first call's, and none for the hit that outlived its probe.
	expect returns 1 "a return probe set up on a probe that was gone"
}

held drop
ask site5
[ "$REPLY" = 0f ] || fail "the nop is not back after the probe went: $REPLY"
ask call5 3
[ "$REPLY" = 12 ] || fail "later calls returned $REPLY, not 12"
expect hits 2 "the probe is gone"
finish

held replace
expect new_hits 0 "the held call, past the nop, hit the new probe"
ask site5
[ "$REPLY" = cc ] || fail "the new probe's breakpoint is not at the nop: $REPLY"
ask call5 3
[ "$REPLY" = 12 ] || fail "later calls returned $REPLY, not 12"
expect new_hits 3 "the new probe counts the later calls"
ask site5
[ "$REPLY" = e9 ] || fail "the new probe did not take the jump: $REPLY"
expect hits 2 "the old probe is gone"
finish

after=$(warnings)
[ "$after" = "$before" ] ||
	ksft_fail "the kernel warned: $(dmesg | grep -E "$PATTERN" | tail -n 3)"
ksft_pass "a hit held in the stub's syscall across the probe's removal" \
	"and replacement finished cleanly"
