#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A recursive function with an entry and a return probe, 100 calls deep,
# then 10 deep.  Every entry is seen.  A task keeps at most 64 return
# probes pending (MAX_URETPROBE_DEPTH); deeper calls are not hijacked,
# so their returns are not seen: the 64 outermost frames of the first
# recursion (depth 100 down to 37) and all 10 of the second report their
# return, 74 in all, and the results are right.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes

add_probe p rec uv_rec
add_probe r rec_ret uv_rec "ret=\$retval:u64"
ev_on rec rec_ret
run_victim recurse 100 10
ev_off rec rec_ret
expect_ok "uprobe_victim recurse"
expect_hits rec 110
expect_lines rec_ret 74
# uv_rec(d) = d * (d + 1) / 2
want=$( (seq 1 10; seq 37 100) | awk '{ print $1 * ($1 + 1) / 2 }' |
	sort -n | tr '\n' ' ')
got=$(trace_field rec_ret ret | sort -n | tr '\n' ' ')
[ "$got" = "$want" ] || ksft_fail "returns seen: $got; expected: $want"
ksft_pass "110 entries, the returns of the 64 outermost frames and of 10 more"
