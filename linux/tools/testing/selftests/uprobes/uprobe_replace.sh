#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A consumer that asks to leave the process (UPROBE_HANDLER_REMOVE) after
# it was unregistered must not take out the breakpoint of the probe that
# replaced it at the same file offset.  Forced, not hoped for: the
# uprobes_race_test module holds a thread of uprobe_pid_target in the
# handler while this script unregisters that consumer (the probe's last
# reference) and registers a new one at the same place; then the handler
# returns UPROBE_HANDLER_REMOVE.  The new consumer must go on seeing
# every call.
. "$(dirname "$0")/module_lib.sh"
need_uprobes_kernel
serve_pid_target uprobes_race_test
PATTERN='refcount_t|use-after-free|WARNING:'
warnings() { dmesg | grep -c -E "$PATTERN"; }

read -r WORK DEAD <&4 || fail "no addresses from $PROG"
before=$(warnings)
echo $TPID > $PARAMS/pid
echo $((WORK)) > $PARAMS/vaddr
echo 1 > $PARAMS/remove
echo arm > $PARAMS/cmd
expect arm_result 0 "registration"

# One call, held in the handler while the probe is replaced under it.
echo "call 1" >&3
echo replace > $PARAMS/cmd
expect replace_result 0 "the handler was entered, the new probe registered"
expect held 1 "replaced while the hit was held"
read -r REPLY <&4 || fail "the target did not answer"
[ "$REPLY" = 1 ] || fail "the held call returned $REPLY, not 1"
expect hits 1 "one hit of the old consumer"
# The held call itself may or may not run into the new breakpoint (the
# old hit may have emulated the instruction already): count from here.
seen=$(param new_hits)

echo "call 3" >&3
read -r REPLY <&4 || fail "the target did not answer"
[ "$REPLY" = 12 ] || fail "later calls returned $REPLY, not 12"
expect hits 1 "the old consumer is gone"
expect new_hits $((seen + 3)) \
	"the new probe saw every later call: its breakpoint is still there"
after=$(warnings)
[ "$after" = "$before" ] ||
	fail "the kernel warned: $(dmesg | grep -E "$PATTERN" | tail -n 3)"
finish
ksft_pass "a removal asked by an unregistered consumer left the new probe armed"
