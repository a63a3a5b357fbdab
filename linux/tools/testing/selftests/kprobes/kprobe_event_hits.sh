#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kprobe event defined through tracefs is a kprobe of the core: it shows
# in the debugfs list, counts hits while enabled, not while disabled, and
# leaves no trace once removed.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs tracefs
cleanup_events

add_event entry p
list_line "$TARGET_FUNC" | grep -q "^[0-9a-f]*[[:space:]]*k[[:space:]]" ||
	ksft_fail "no k entry for $TARGET_FUNC in the list: $(cat "$KPROBES_DIR/list")"
list_line "$TARGET_FUNC" | grep -q "\[DISABLED\]" ||
	ksft_fail "a defined but unused event should be [DISABLED]"

trigger
[ "$(hits entry)" -eq 0 ] || ksft_fail "disabled event counted $(hits entry) hits"

set_event entry 1
list_line "$TARGET_FUNC" | grep -q "\[DISABLED\]" &&
	ksft_fail "enabled event still [DISABLED]"
trigger
n=$(hits entry)
[ "$n" -ge 5 ] || ksft_fail "expected at least 5 hits, got $n"

add_event ret r
set_event ret 1
trigger
list_line "$TARGET_FUNC" | grep -q "^[0-9a-f]*[[:space:]]*r[[:space:]]" ||
	ksft_fail "no r entry for the return probe"
nret=$(hits ret)
[ "$nret" -ge 5 ] || ksft_fail "return probe counted $nret hits"

cleanup_events
list_line "$TARGET_FUNC" && ksft_fail "probes still listed after removal"
ksft_pass "entry probe: $n hits, return probe: $nret hits"
