#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An entry and a return probe on one function: each call is seen once at
# entry with its argument and once at return with the value the program
# got, and the program's results do not change.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
[ -n "$ARG1" ] || ksft_skip "no argument register known for $(uname -m)"

run_victim values 5 1
expect_ok "the unprobed run"
want=$OUT
add_probe p work uv_work "x=$ARG1:u64"
add_probe r work_ret uv_work "ret=\$retval:u64"
ev_on work work_ret
run_victim values 5 1
expect_ok "the probed run"
ev_off work work_ret
[ "$OUT" = "$want" ] || ksft_fail "results changed under the probes"
expect_hits work 5
expect_lines work 5
expect_lines work_ret 5
# Sorted: the trace merges per-CPU buffers, and the process may move.
args=$(trace_field work x | sort -n | tr '\n' ' ')
[ "$args" = "1 2 3 4 5 " ] || ksft_fail "arguments traced: $args, expected 1 to 5"
rets=$(trace_field work_ret ret | sort -n | tr '\n' ' ')
[ "$rets" = "$(echo "$want" | sort -n | tr '\n' ' ')" ] ||
	ksft_fail "return values traced: $rets, the program got: $(echo "$want" | tr '\n' ' ')"

# Disabled, they count nothing more.
run_victim values 5 1
expect_ok "the run after disabling"
expect_hits work 5
expect_lines work 5
ksft_pass "5 entries with their arguments, 5 returns with their values"
