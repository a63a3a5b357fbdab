#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A uprobe with a reference counter (an SDT semaphore in the program's
# .data): the semaphore is 1 exactly while the probe is enabled, in a
# process that was running before and in one started after it was
# enabled, and back to 0 once it is disabled and deleted.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes

add_probe p sdt "$(off uv_sdt)($(off uv_sema))"
start_paced a 5 6 "$VICTIM" sema
# ask_is PROC WANT: the semaphore PROC sees must be WANT.
ask_is() {
	v=$(ask "$1")
	[ "$v" = "$2" ] || ksft_fail "process $1 sees the semaphore at '$v', expected $2 ($3)"
}
ask_is a 0 "probe defined, not enabled"
ev_on sdt
ask_is a 1 "probe enabled"
start_paced b 7 8 "$VICTIM" sema
ask_is b 1 "process started with the probe enabled"
expect_hits sdt 2
ev_off sdt
ask_is a 0 "probe disabled"
ask_is b 0 "probe disabled"
ev_on sdt
ask_is a 1 "probe enabled again"
ask_is b 1 "probe enabled again"
expect_hits sdt 4
ev_off sdt
del_probe sdt
ask_is a 0 "probe deleted"
ask_is b 0 "probe deleted"
finish a
expect_ok "process a"
[ "$OUT" = "sdt calls=2" ] || ksft_fail "process a: $OUT"
finish b
expect_ok "process b"
[ "$OUT" = "sdt calls=2" ] || ksft_fail "process b: $OUT"
ksft_pass "the semaphore follows the probe in both processes"
