#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The program makes the page of a probed function writable and writes to
# it, before the probe is enabled and while it is: the probe still fires
# for every call, the function computes the same results, and once the
# probe is gone the function works and the bytes written are still there.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
N=10

add_probe p cow uv_cowfn
start_paced cow 5 6 "$VICTIM" cow $N
expect_reply cow ready
ev_on cow
send cow
expect_reply cow ready
expect_hits cow $((2 * N))
ev_off cow
del_probe cow
finish cow
expect_ok "uprobe_victim cow"
ksft_pass "$((2 * N)) hits on a page the process wrote to, its writes kept"
