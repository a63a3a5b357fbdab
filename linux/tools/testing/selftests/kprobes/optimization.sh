#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Jump optimization as userspace sees it: a probe in a function body gets
# [OPTIMIZED] in the list, debug.kprobes-optimization=0 takes it away at
# once (and keeps the probe working), 1 brings it back, and so does
# re-arming after the enabled knob disarmed everything.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs tracefs
OPT=/proc/sys/debug/kprobes-optimization
[ -w $OPT ] || ksft_skip "no $OPT (CONFIG_OPTPROBES)"
cleanup_events
old=$(cat $OPT)
echo 1 > $OPT

# optimized OFFSET [TRIES]: wait up to TRIES (default 3) seconds for the
# probe at OFFSET to be optimized.
optimized() {
	for _ in $(seq 1 "${2:-3}"); do
		list_line "$TARGET_FUNC" | grep "+0x$(printf %x "$1") " |
			grep -q OPTIMIZED && return 0
		sleep 1
	done
	return 1
}

# The optimizer waits until no task can be inside the region; on a
# preemptible kernel that is an RCU-tasks grace period, seconds under TCG.
wait=1
if grep -q '(full)' /sys/kernel/debug/sched/preempt 2>/dev/null ||
	uname -v | grep -qw PREEMPT; then
	wait=10
fi

found=
for off in $(seq 1 64); do
	echo "p:kprobes/${EVENT_PREFIX}opt $TARGET_FUNC+$off" \
		>> "$TRACE_DIR/kprobe_events" 2>/dev/null || continue
	set_event opt 1
	if optimized "$off" "$wait"; then
		found=$off
		break
	fi
	set_event opt 0
	echo "-:kprobes/${EVENT_PREFIX}opt" >> "$TRACE_DIR/kprobe_events"
done
[ -n "$found" ] || { echo "$old" > $OPT; ksft_fail "no probe in $TARGET_FUNC got optimized"; }

echo 0 > $OPT
list_line "$TARGET_FUNC" | grep -q OPTIMIZED &&
	{ echo "$old" > $OPT; ksft_fail "still [OPTIMIZED] after writing 0"; }
before=$(hits opt)
trigger
[ "$(hits opt)" -gt "$before" ] ||
	{ echo "$old" > $OPT; ksft_fail "the probe stopped firing without its jump"; }
echo 1 > $OPT
optimized "$found" $((wait * 3)) ||
	{ echo "$old" > $OPT; ksft_fail "not optimized again after writing 1"; }

echo 0 > "$KPROBES_DIR/enabled"
list_line "$TARGET_FUNC" | grep -q OPTIMIZED &&
	{
		echo 1 > "$KPROBES_DIR/enabled"
		echo "$old" > $OPT
		ksft_fail "[OPTIMIZED] while disarmed"
	}
echo 1 > "$KPROBES_DIR/enabled"
optimized "$found" || { echo "$old" > $OPT; ksft_fail "not optimized again after re-arming"; }
before=$(hits opt)
trigger
[ "$(hits opt)" -gt "$before" ] ||
	{ echo "$old" > $OPT; ksft_fail "the optimized probe does not fire"; }

cleanup_events
echo "$old" > $OPT
ksft_pass "$TARGET_FUNC+$found optimized, sysctl and enabled knob take the jump out and back"
