#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A probe in a module's init text (placed by the module itself while it
# initialises) fires during init, is listed [GONE] once the init text is
# freed, and is unregistered cleanly when the module goes.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs
load_test_module kprobes_init_target
[ "$(cat $PARAMS/init_hits)" = 1 ] ||
	ksft_fail "init-text probe hit $(cat $PARAMS/init_hits) times, expected 1"
[ "$(cat $PARAMS/init_result)" = 41 ] ||
	ksft_fail "probed init function returned $(cat $PARAMS/init_result)"
# Its symbol went with the init text, so look for the address.
at=$(cat $PARAMS/probed_at)
line=$(grep "^0*$at[[:space:]]" "$KPROBES_DIR/list")
[ -n "$line" ] ||
	ksft_fail "no probe listed at $at: $(cat "$KPROBES_DIR/list")"
echo "$line" | grep -q '\[GONE\]' ||
	ksft_fail "the init-text probe is not [GONE] after init: $line"
rmmod $MOD || ksft_fail "cannot unload $MOD"
grep -q "^0*$at[[:space:]]" "$KPROBES_DIR/list" &&
	ksft_fail "the probe is still listed after the module went away"
ksft_pass "init-text probe hit during init, [GONE] after, removed with the module"
