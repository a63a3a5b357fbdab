#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A process that took a return probe has a "[uprobes]" mapping in
# /proc/PID/maps (where the kernel keeps the code it runs on its behalf);
# one that never hit a uprobe has none.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes

run_victim maps
expect_ok "uprobe_victim maps, unprobed"
[ "$OUT" = "uprobes_vma=0" ] || ksft_fail "without probes: $OUT"
add_probe p vma uv_work
add_probe r vma_ret uv_work
ev_on vma vma_ret
run_victim maps
ev_off vma vma_ret
expect_ok "uprobe_victim maps, probed"
expect_hits vma 1
[ "$OUT" = "uprobes_vma=1" ] || ksft_fail "after a hit: $OUT"
ksft_pass "[uprobes] shows exactly when a probe was hit"
