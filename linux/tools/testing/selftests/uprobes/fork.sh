#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probes across fork.  A probe belongs to the file, so parent and child
# both count; a function with a return probe that forks returns twice,
# once in each process, with each one's value.  Then a probe removed while
# a forked child is alive: the child keeps running the function without
# tripping over a breakpoint left behind.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
N=10

add_probe p fwork uv_work
add_probe p forker uv_forker
add_probe r forker_ret uv_forker "ret=\$retval:s32"
ev_on fwork forker forker_ret
run_victim fork $N
ev_off fwork forker forker_ret
expect_ok "uprobe_victim fork"
expect_hits fwork $((3 * N))
expect_hits forker 1
expect_lines forker_ret 2
rets=$(trace_field forker_ret ret | sort -n | tr '\n' ' ')
case $rets in
"0 "[1-9]*" ") ;;
*) ksft_fail "uv_forker returned $rets, expected 0 in the child and a pid" ;;
esac
remove_events

add_probe p hold uv_work
ev_on hold
start_paced hold 5 6 "$VICTIM" forkhold $N
expect_reply hold ready
expect_hits hold $((2 * N))
ev_off hold
del_probe hold
finish hold
expect_ok "uprobe_victim forkhold"
ksft_pass "parent and child counted, uv_forker returned in both," \
	"the child survived the probe's removal"
