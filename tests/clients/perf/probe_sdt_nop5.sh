#!/bin/bash
# An SDT probe through perf: the program's notes go into perf's build-id
# cache, perf probe makes an event of target:tick5 (on a 5-byte nop,
# which x86_64 enters by a jump after the first hit) and perf stat
# counts every hit of a run.
. ../lib.sh
. ../perf_lib.sh
perf buildid-cache --add "$TARGET" || fail "perf buildid-cache --add $TARGET failed"
perf probe -x "$TARGET" -a %sdt_target:tick5 ||
	fail "perf probe sdt_target:tick5 failed"
out=$(perf stat -x ' ' -e sdt_target:tick5 -- "$TARGET" usdt 300 2>&1)
echo "$out"
[ "$(stat_count sdt_target:tick5 "$out")" = 300 ] || fail "expected 300 hits"
perf buildid-cache --remove "$TARGET" 2>/dev/null
pass "perf stat counted 300 hits of sdt_target:tick5"
