#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The process-probe state machine where two parties act on one probe at
# once, each window held open by the uprobes_pid_race module rather than
# hoped for (its header says how):
#  - two threads released together inside handlers both register one
#    probe: one call is queued, the other gets -EBUSY, one callback;
#  - a handler queues the registration of a kmalloc'd probe and waits
#    while the probe is unregistered and freed: the queued call is
#    cancelled, never runs and never touches the freed probe;
#  - a handler registers a probe and then unregisters it: the second
#    call is ignored, the registration completes, the probe cycles;
#  - a handler waits while another process execs, which drops its probe:
#    registering that probe from the handler is refused, and afterwards
#    it unregisters and registers again on the new image;
#  - a return probe registered and unregistered over and over while the
#    process forks: no child keeps the breakpoint;
#  - a fork held, breakpoint copied, until the return probe's
#    unregistration has started, and that unregistration's walk then held
#    before it reaches the child: the child waits for it before it runs,
#    and never sees the breakpoint.
. "$(dirname "$0")/module_lib.sh"
need_uprobes_kernel
serve_pid_target uprobes_pid_race
# Every case runs even after one failed, so that a run tells which
# windows are broken; the verdict comes at the end.
FAILED=
fail() { echo "FAIL: $*"; FAILED="$FAILED; $*"; }
stop() { finish; ksft_fail "$*"; }
PATTERN='BUG:|WARNING:|use-after-free|list_add corruption|list_del corruption'
warnings() { dmesg | grep -c -E "$PATTERN"; }
before=$(warnings)

read -r WORK DEAD <&4 || stop "no addresses from $PROG"
echo $TPID > $PARAMS/pid
echo $((WORK)) > $PARAMS/work
echo arm > $PARAMS/cmd
expect arm_result 0 "registration of the probe whose handler acts"

# Wait (bounded) until the handler holds its thread.
wait_held() {
	for _ in $(seq 40); do
		[ "$(param held)" = 1 ] && return 0
		sleep 0.5
	done
	stop "the handler was not entered"
}

# 1. Two threads, one probe, both registering it from their handlers.
echo twin > $PARAMS/cmd
ask threads 2 1
[ "$REPLY" = 2 ] || fail "twin: the threads computed $REPLY"
res=$(param res)
case "$res" in
-115,-16 | -16,-115) ;;
*) fail "twin: register from two handlers gave $res, not -EINPROGRESS and -EBUSY" ;;
esac
expect callbacks 1 "twin: one queued call, one callback"
expect cb_result 0 "twin: the queued registration"
# A thread released from the handler may pass the probe again on its way
# out (a restarted hit): count from here.
seen=$(param hits_x)
ask call 3
expect hits_x $((seen + 3)) "twin: the probe two handlers registered"
seen=$(param hits_x)
echo twin_end > $PARAMS/cmd

# 2. A queued registration, its probe unregistered and freed meanwhile.
echo cancel > $PARAMS/cmd
echo "call 2" >&3
wait_held
expect res "-115,1" "cancel: register from a handler"
echo unreg_free > $PARAMS/cmd
read -r REPLY <&4 || fail "cancel: the target did not answer"
[ "$REPLY" = 5 ] || fail "cancel: the held call returned $REPLY"
ask call 4
expect callbacks 0 "cancel: a cancelled call reports nothing"
expect hits_x $seen "cancel: the probe unregistered before its queued registration ran"

# 3. Register, then unregister, from one handler.
echo ignore > $PARAMS/cmd
ask call 1
expect res "-115,1" "ignore: register from a handler"
expect callbacks 1 "ignore: one callback"
expect cb_reg 1 "ignore: the registration ran, the unregistration did not"
expect cb_result 0 "ignore: the queued registration"
ask call 2
expect hits_y 2 "ignore: the probe is active"
echo y_cycle > $PARAMS/cmd
expect cycle_result 0 "ignore: unregistered and registered again"

# 4. Another process execs while a handler waits to re-register its
# probe; the handler's hit keeps the engine's dropping from finishing.
T2=/tmp/uprobes_pid_race2.$$
mkfifo $T2.in $T2.out || stop "mkfifo"
"$PROG" serve < $T2.in > $T2.out &
PID2=$!
exec 5> $T2.in 6< $T2.out
rm -f $T2.in $T2.out
read -r WORK2 DEAD2 <&6 || stop "no addresses from the second $PROG"
echo $PID2 > $PARAMS/pid2
echo $((WORK2)) > $PARAMS/work2
echo z_arm > $PARAMS/cmd
expect z_result 0 "drop: the second process's probe"
echo "call 1" >&5
read -r REPLY <&6
expect hits_z 1 "drop: the second process hits its probe"
echo drop > $PARAMS/cmd
echo "call 1" >&3
wait_held
echo reexec >&5
read -r WORK2 DEAD2 <&6 || fail "drop: the second process did not exec"
echo $((WORK2)) > $PARAMS/work2
# Time for the work item to start dropping; the held hit keeps it there.
sleep 1
echo release > $PARAMS/cmd
read -r REPLY <&4 || fail "drop: the target did not answer"
expect res "-16,1" "drop: register from a handler while the probe is dropped"
echo z_again > $PARAMS/cmd
expect z_result 0 "drop: registered again on the new image"
echo "call 3" >&5
read -r REPLY <&6
[ "$REPLY" = 12 ] || fail "drop: the new image computed $REPLY"
expect hits_z 4 "drop: the probe on the new image"
exec 5>&-
wait $PID2

# 5. Forks while a return probe comes and goes, alone: the entry probe's
# fixing up at fork would take the breakpoint out of the children too.
echo disarm > $PARAMS/cmd
echo "forkloop 150" >&3
echo ret_churn=60 > $PARAMS/cmd
read -r REPLY <&4 || fail "forkloop: the target did not answer"
expect churn_result 0 "forkloop: return probe registrations"
[ "$REPLY" = 0 ] || fail "forkloop: $REPLY children kept a breakpoint or computed wrong"

# 6. The window of 5 held open: one fork, stopped (by a kprobe on the
# fork hook) until the unregistration has begun, the unregistration's
# walk stopped (on the parent's mmap_lock) until the child has slept a
# second in its fork hook or has exited.
echo disarm > $PARAMS/cmd
echo forkwin > $PARAMS/cmd
expect fw_result 0 "forkwin: the return probe, the kprobe, the threads"
echo "forkloop 1" >&3
read -r REPLY <&4 || fail "forkwin: the target did not answer"
echo forkwin_end > $PARAMS/cmd
expect fw_seen 1 "forkwin: the fork went on while the probe was unregistering"
expect fw_unreg_done 1 "forkwin: the unregistration ran"
[ "$REPLY" = 0 ] || fail "forkwin: the child forked during the unregistration saw the breakpoint"
expect fw_release 1 "forkwin: the child waited for the unregistration (2: it ran and exited)"

echo disarm > $PARAMS/cmd
finish
[ -z "$FAILED" ] || ksft_fail "${FAILED#; }"
[ "$(warnings)" = "$before" ] ||
	ksft_fail "the kernel logged: $(dmesg | grep -E "$PATTERN" | tail -n 3)"
ksft_pass "two handlers, cancel and free, register+unregister, exec under a held hit," \
	"forks, a held fork"
