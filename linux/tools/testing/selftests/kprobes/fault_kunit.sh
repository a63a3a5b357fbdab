#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kprobes_fault KUnit suite (CONFIG_KPROBES_FAULT_KUNIT_TEST) sweeps
# allocation failures over register/enable/disable/unregister of kprobes
# and kretprobes through the task's fail-nth count; it needs failslab and
# fail_page_alloc to let sleeping and order-0 allocations fail, which only
# debugfs can say.  This loads it with those knobs set and judges the
# suite's result and the kernel log.  The suite's KTAP goes to the log
# only, not the console: in the middle of this collection's own KTAP it
# would read as a suite of its own; its lines are shown here as comments.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs
MOD=kprobes_fault_kunit
PATTERN='WARNING:|BUG:|Oops|KASAN|UBSAN|refcount_t|list_add corruption'
PATTERN="$PATTERN|list_del corruption|inconsistent lock state|circular locking"
PATTERN="$PATTERN|possible recursive locking|detected stall|soft lockup|hard LOCKUP"
[ -n "$(find /lib/modules/"$(uname -r)" -name "$MOD.ko*" 2>/dev/null)" ] ||
	ksft_skip "no $MOD module in this kernel"
rmmod $MOD 2>/dev/null
level=$(cut -f1 /proc/sys/kernel/printk)
finish() {
	fault_knobs_off
	dmesg -n "$level"
}
trap finish EXIT
# A kselftest timeout sends TERM: still put the knobs and level back.
trap 'exit 1' INT TERM
fault_knobs_on
# A marker, not a line count: the log buffer may be full and wrapping.
mark="fault_kunit.sh start $$ $(date +%s)"
echo "$mark" > /dev/kmsg
# Errors and worse still reach the console (an RCU stall, a lockup: the
# verdict reads those there); the suite's KTAP and the injected failures'
# notices stay in the log.
dmesg -n 4
modprobe $MOD || ksft_fail "cannot load $MOD"
dmesg -n "$level"
fault_knobs_off
rmmod $MOD
log=$(dmesg | sed -n "/$mark/,\$p")
[ -n "$log" ] || ksft_fail "the log lost this test's start marker"
echo "$log" | sed -n 's/^\(\[[ 0-9.]*\] \)\{0,1\}/# /p' |
	grep -E 'kpf_|Expected|kprobes_fault' | head -n 60
bad=$(echo "$log" | grep -E "$PATTERN")
[ -z "$bad" ] || ksft_fail "the kernel complained: $(echo "$bad" | head -n 3)"
suite='(not )?ok [0-9]+ kprobes_fault( # SKIP.*)?$'
result=$(echo "$log" | grep -E "^(\[[ 0-9.]*\] )?$suite" | tail -n 1)
case "$result" in
*"not ok"*) ksft_fail "the kprobes_fault suite failed" ;;
*"# SKIP"*) ksft_skip "the kprobes_fault suite skipped: $result" ;;
*ok*) ksft_pass "the kprobes_fault suite passed" ;;
*) ksft_fail "no result from the kprobes_fault suite" ;;
esac
