#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probes defined, enabled, disabled and deleted again and again while
# threads keep running through them: one at the address of a probe that
# stays enabled all along (a return probe, so it also rewrites return
# addresses), one on another function.  Nothing crashes, no result
# changes, and the steady probe counts exactly the calls made.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
ROUNDS=8

add_probe p steady uv_work
ev_on steady
start_paced churn 5 6 "$VICTIM" churn 2
expect_reply churn ready
i=0
while [ $i -lt $ROUNDS ]; do
	add_probe r flip_ret uv_work "ret=\$retval:u64"
	add_probe p flip_other uv_other
	ev_on flip_ret
	ev_on flip_other
	ev_off flip_ret
	ev_on flip_ret
	ev_off flip_other flip_ret
	del_probe flip_ret
	del_probe flip_other
	i=$((i + 1))
done
finish churn
ev_off steady
expect_ok "uprobe_victim churn"
calls=$(echo "$OUT" | sed -n 's/^calls=//p')
[ "${calls:-0}" -gt 0 ] || ksft_fail "no calls reported: $OUT"
expect_hits steady "$calls"
ksft_pass "$ROUNDS rounds of probes coming and going, $calls calls all counted"
