#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A uprobe hit that outlives its probe, forced rather than hoped for: the
# uprobes_race_test module's handler holds a thread of uprobe_pid_target
# inside the hit while this script unregisters the only consumer, which
# drops the probe's last reference.  Released, the hit must neither set
# up the return probe nor step the instruction through the dead probe:
# the call returns its right value, no return is reported, later calls
# run unprobed, and the kernel logs no reference-count warning.
. "$(dirname "$0")/module_lib.sh"
need_uprobes_kernel
serve_pid_target uprobes_race_test
PATTERN='refcount_t|use-after-free|WARNING:'
warnings() { dmesg | grep -c -E "$PATTERN"; }

read -r WORK DEAD <&4 || fail "no addresses from $PROG"
before=$(warnings)
echo $TPID > $PARAMS/pid
echo $((WORK)) > $PARAMS/vaddr
echo arm > $PARAMS/cmd
expect arm_result 0 "registration"

# One call, held in the handler while the probe goes away under it.
echo "call 1" >&3
echo drop > $PARAMS/cmd
expect drop_result 0 "the handler was entered"
expect held 1 "unregistered while the hit was held"
read -r REPLY <&4 || fail "the target did not answer"
[ "$REPLY" = 1 ] || fail "the held call returned $REPLY, not 1"
expect hits 1 "one hit"
expect returns 0 "no return probe set up on a probe that was gone"

echo "call 3" >&3
read -r REPLY <&4 || fail "the target did not answer"
[ "$REPLY" = 12 ] || fail "later calls returned $REPLY, not 12"
expect hits 1 "the probe is gone"
after=$(warnings)
[ "$after" = "$before" ] ||
	fail "the kernel warned: $(dmesg | grep -E "$PATTERN" | tail -n 3)"
finish
ksft_pass "a hit held across the probe's last reference finished cleanly"
