#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Return probes on two functions that are left by longjmp every other
# call: 100 rounds of main -> f1 -> f2 -> longjmp back to main, then a
# normal f1 -> f2.  Only the calls that really returned are seen
# returning, with their values, the frames abandoned by longjmp never are,
# and the program keeps working (more rounds than return probes can be
# pending at once, so the abandoned ones must not pile up).
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
R=100

add_probe p f1 uv_f1
add_probe p f2 uv_f2
add_probe r f1_ret uv_f1 "ret=\$retval:u64"
add_probe r f2_ret uv_f2 "ret=\$retval:u64"
ev_on f1 f2 f1_ret f2_ret
run_victim longjmp $R
ev_off f1 f2 f1_ret f2_ret
expect_ok "uprobe_victim longjmp"
expect_hits f1 $((2 * R))
expect_hits f2 $((2 * R))
expect_lines f1_ret $R
expect_lines f2_ret $R
# Round r returns f2 = r + 101 and f1 = 2 * (r + 101) + 1.
want=$(seq 101 $((R + 100)) | tr '\n' ' ')
[ "$(trace_field f2_ret ret | sort -n | tr '\n' ' ')" = "$want" ] ||
	ksft_fail "uv_f2 returned other values than 101..$((R + 100))"
want=$(seq 101 $((R + 100)) | awk '{ print 2 * $1 + 1 }' | tr '\n' ' ')
[ "$(trace_field f1_ret ret | sort -n | tr '\n' ' ')" = "$want" ] ||
	ksft_fail "uv_f1 returned other values than expected"
ksft_pass "$R longjmps over probed frames, $R returns of each function"
