#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Several processes run the probed program at once: the probe counts the
# calls of all of them.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
PROCS=4
N=60

add_probe p many uv_work
ev_on many
pids=
i=0
while [ $i -lt $PROCS ]; do
	"$VICTIM" work $N > "$TMPD/out.$i" 2>&1 &
	pids="$pids $!"
	BG_PIDS="$BG_PIDS $!"
	i=$((i + 1))
done
failed=0
for p in $pids; do
	wait "$p" || failed=$((failed + 1))
done
ev_off many
[ $failed -eq 0 ] || ksft_fail "$failed of the processes failed: $(cat "$TMPD"/out.*)"
want=$("$VICTIM" work $N)
i=0
while [ $i -lt $PROCS ]; do
	[ "$(cat "$TMPD/out.$i")" = "$want" ] ||
		ksft_fail "process $i printed $(cat "$TMPD/out.$i"), expected $want"
	i=$((i + 1))
done
expect_hits many $((PROCS * N))
ksft_pass "$PROCS processes, $((PROCS * N)) hits"
