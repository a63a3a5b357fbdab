#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Writing 0 to debugfs kprobes/enabled disarms every probe; writing 1
# re-arms them.  Neither changes which probes are individually disabled.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs tracefs
cleanup_events
trap 'echo 1 > "$KPROBES_DIR/enabled"' EXIT

add_event live p
add_event idle p
set_event live 1

echo 0 > "$KPROBES_DIR/enabled" || ksft_fail "cannot write 0 to enabled"
[ "$(cat "$KPROBES_DIR/enabled")" = 0 ] || ksft_fail "enabled does not read 0"
before=$(hits live)
trigger
[ "$(hits live)" -eq "$before" ] ||
	ksft_fail "probe hit while kprobes were disarmed"

echo 1 > "$KPROBES_DIR/enabled" || ksft_fail "cannot write 1 to enabled"
[ "$(cat "$KPROBES_DIR/enabled")" = 1 ] || ksft_fail "enabled does not read 1"
trigger
[ "$(hits live)" -ge $((before + 5)) ] ||
	ksft_fail "probe did not hit after re-arming"
[ "$(hits idle)" -eq 0 ] ||
	ksft_fail "re-arming woke an individually disabled probe"
grep -q "$EVENT_PREFIX" "$TRACE_DIR/kprobe_events" || ksft_fail "events lost"
n=$(list_line "$TARGET_FUNC" | grep -c "\[DISABLED\]")
[ "$n" -eq 1 ] || ksft_fail "expected exactly one [DISABLED] entry, got $n"

cleanup_events
ksft_pass "disarm and re-arm kept per-probe state"
