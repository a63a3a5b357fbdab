#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A probe in a module's code: it is listed with the module's name, fires
# while the module is loaded, becomes [GONE] when the module is unloaded,
# comes back with the module, and can be removed at any point.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs tracefs
cleanup_events
load_test_module kprobes_target

echo "p:kprobes/${EVENT_PREFIX}mod $MOD:kprobes_target_work" \
	>> "$TRACE_DIR/kprobe_events" ||
	ksft_fail "cannot probe $MOD: $(tail -n 3 "$TRACE_DIR/error_log")"
set_event mod 1
list_line kprobes_target_work | grep -q "[[:space:]]$MOD[[:space:]]" ||
	ksft_fail "the list does not name the module: $(list_line kprobes_target_work)"

echo 6 > $PARAMS/call
echo 7 > $PARAMS/call
[ "$(cat $PARAMS/last)" = 50 ] || ksft_fail "probed function returned $(cat $PARAMS/last)"
[ "$(hits mod)" -eq 2 ] || ksft_fail "expected 2 hits, got $(hits mod)"

rmmod $MOD || ksft_fail "cannot unload $MOD"
n=$(grep -c '\[GONE\]' "$KPROBES_DIR/list")
[ "$n" -eq 1 ] || ksft_fail "expected one [GONE] probe, found $n: $(cat "$KPROBES_DIR/list")"

# Load the module again (likely at the same address).  tracefs re-arms
# the event whose module came back, and a new probe there works too.
insmod "$KO" || ksft_fail "cannot load $KO again"
echo "p:kprobes/${EVENT_PREFIX}again $MOD:kprobes_target_work" \
	>> "$TRACE_DIR/kprobe_events" ||
	ksft_fail "cannot probe the reloaded module: $(tail -n 3 "$TRACE_DIR/error_log")"
set_event again 1
before=$(hits mod)
echo 3 > $PARAMS/call
[ "$(hits again)" -eq 1 ] || ksft_fail "reloaded module: $(hits again) hits, expected 1"
[ "$(hits mod)" -eq $((before + 1)) ] ||
	ksft_fail "the event of the first load did not come back with the module"
grep -q '\[GONE\]' "$KPROBES_DIR/list" &&
	ksft_fail "a probe is still [GONE] after its module came back: $(cat "$KPROBES_DIR/list")"

cleanup_events
rmmod $MOD
grep -q '\[GONE\]' "$KPROBES_DIR/list" &&
	ksft_fail "the gone probe is still listed after its event was removed"
ksft_pass "module probe hit, went [GONE] on unload, came back with the module, all removed"
