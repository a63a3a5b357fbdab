#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A hit whose lookup finds no probe reads the text back: a breakpoint
# still there is the program's own (SIGTRAP), none means the probe just
# went (run the instruction again).  Forced, with the hooks of
# CONFIG_UPROBES_RACE_HOOKS: uprobes_miss_test holds a thread of
# uprobe_pid_target that trapped on probe A before its lookup while A is
# unregistered, then after the lookup missed while (swap) probe B is
# registered at the same file offset.  B's breakpoint is no reason for a
# SIGTRAP: the hit must run B.  Without B (drop) the call runs unprobed.
. "$(dirname "$0")/module_lib.sh"
need_uprobes_kernel
serve_pid_target uprobes_miss_test

read -r WORK DEAD <&4 || fail "no addresses from $PROG"
echo $TPID > $PARAMS/pid
echo $((WORK)) > $PARAMS/vaddr

# call: one call held through the window CMD; it must return 1.
held_call() {
	echo arm > $PARAMS/cmd
	expect arm_result 0 "registration of A ($1)"
	echo hook > $PARAMS/cmd
	expect hook_result 0 "hook ($1)"
	echo "call 1" >&3
	echo "$1" > $PARAMS/cmd
	expect window_result 0 "A went before the lookup, which then missed ($1)"
	expect points 3 "the held hit passed both points ($1)"
	read -r REPLY <&4 ||
		fail "the target died in the window ($1): $(dmesg | tail -n 3)"
	[ "$REPLY" = 1 ] || fail "the held call returned $REPLY, not 1 ($1)"
	expect timeouts 0 "no hold ran out ($1)"
}

held_call drop
expect a_hits 0 "A was gone before its lookup"
expect b_hits 0 "no B yet"

held_call swap
expect a_hits 0 "A was gone before its lookup"
expect b_hits 1 "the held hit found B on its second look"
echo "call 3" >&3
read -r REPLY <&4 || fail "the target did not answer"
[ "$REPLY" = 12 ] || fail "later calls returned $REPLY, not 12"
expect b_hits 4 "B saw every later call"
finish
ksft_pass "a missed lookup: a breakpoint just gone ran the instruction, a new probe's was run"
