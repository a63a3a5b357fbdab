#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A probed program that executes itself three times and then exits from
# inside a function: every image counts, a return probe on the function
# that calls execve and on the one that exits never fires (they do not
# return), and the chain completes.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
LEVELS=3
N=5

add_probe p ework uv_work
add_probe r ework_ret uv_work "ret=\$retval:u64"
add_probe p doexec uv_doexec
add_probe r doexec_ret uv_doexec
add_probe p bye uv_bye
add_probe r bye_ret uv_bye
ev_on ework ework_ret doexec doexec_ret bye bye_ret
run_victim exec $LEVELS $N
ev_off ework ework_ret doexec doexec_ret bye bye_ret
expect_ok "uprobe_victim exec"
# 3 * (0 + 1 + 4 + 9 + 16) + 5 * 7
[ "$OUT" = "exec chain done sum=125" ] || ksft_fail "the chain printed: $OUT"
images=$((LEVELS + 1))
expect_hits ework $((images * N))
expect_lines ework_ret $((images * N))
expect_hits doexec $LEVELS
expect_lines doexec_ret 0
expect_hits bye 1
expect_lines bye_ret 0
ksft_pass "$images images of the program, each counted"
