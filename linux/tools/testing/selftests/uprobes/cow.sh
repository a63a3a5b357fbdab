#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The program makes the page of a probed function writable and writes to
# it, which gives it a private copy of the page the probe is in: the probe
# still fires for every call and the function computes the same results.
# Once the probe is gone the function works, its bytes are the file's
# again, and the byte the program wrote is still there.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
N=10

add_probe p cow uv_cowfn
ev_on cow
start_paced cow 5 6 "$VICTIM" cow $N
expect_reply cow ready
expect_hits cow $((2 * N))
ev_off cow
del_probe cow
finish cow
expect_ok "uprobe_victim cow"
ksft_pass "$((2 * N)) hits, before and after the process wrote to the page"
