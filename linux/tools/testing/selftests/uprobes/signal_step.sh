#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probes on two instructions of a loop that a uprobe runs out of line (on
# x86 a RIP-relative imul and an add, on arm64 a mul and an add), while a
# timer and another thread keep sending signals whose handler runs the
# same loop: each probe counts every pass, the results stay right, the
# handler ran.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes

add_probe p step1 uv_loop_insn
add_probe p step2 uv_loop_insn2
ev_on step1 step2
run_victim sigstep
ev_off step1 step2
expect_ok "uprobe_victim sigstep"
passes=$(echo "$OUT" | sed -n 's/^hits=//p')
[ -n "$passes" ] || ksft_fail "no count from the program: $OUT"
expect_hits step1 "$passes"
expect_hits step2 "$passes"
ksft_pass "$passes passes over each probed instruction, with signals"
