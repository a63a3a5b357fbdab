#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fail_function sits on a kprobe whose pre_handler rewrites the return
# value and returns from the probed function: with it armed the function
# returns the injected errno, and once removed it runs normally again.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs
FF=/sys/kernel/debug/fail_function
[ -d $FF ] || ksft_skip "no $FF (CONFIG_FAIL_FUNCTION)"
load_test_module kprobes_target
trap 'echo > $FF/inject; rmmod $MOD 2>/dev/null' EXIT
grep -q kprobes_target_work $FF/injectable ||
	ksft_fail "kprobes_target_work is not listed as injectable"

echo kprobes_target_work > $FF/inject || ksft_fail "cannot inject"
echo 0xfffffffffffffff4 > $FF/kprobes_target_work/retval	# -ENOMEM
echo 100 > $FF/probability
echo 1 > $FF/interval
echo -1 > $FF/times
echo 0 > $FF/verbose
list_line kprobes_target_work | grep -q "^[0-9a-f]*[[:space:]]*k[[:space:]]" ||
	ksft_fail "fail_function's probe is not in the list"

echo 5 > $PARAMS/call
[ "$(cat $PARAMS/last)" = -12 ] ||
	ksft_fail "with the fault armed the function returned $(cat $PARAMS/last), not -12"

echo "!kprobes_target_work" > $FF/inject || ksft_fail "cannot remove the injection"
echo 5 > $PARAMS/call
[ "$(cat $PARAMS/last)" = 26 ] ||
	ksft_fail "after removal the function returned $(cat $PARAMS/last), not 26"
ksft_pass "injected -12, then the real result again"
