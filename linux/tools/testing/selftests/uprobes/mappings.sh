#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The same code at three addresses: the program maps its own file again
# (read and execute, at the page of a position-independent function), once
# before the probe is enabled and once after, and calls the function
# through all three mappings.  The probe is on the file, so it fires for
# each of them.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
N=10

add_probe p leaf uv_leaf
start_paced alias 5 6 "$VICTIM" alias $N
expect_reply alias ready
ev_on leaf
send alias
finish alias
ev_off leaf
expect_ok "uprobe_victim alias"
[ "$OUT" = "calls=$((3 * N))" ] || ksft_fail "the program reports: $OUT"
expect_hits leaf $((3 * N))
ksft_pass "$N calls through each of 3 mappings, all counted"
