#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Uprobes through uprobe_events on instructions of each class the
# architecture's decoder treats differently (on arm64: branches, literal
# loads, adr/adrp, calls and returns simulated, stack-frame stp/ldp,
# ldr/str at sp or x29 and SP arithmetic emulated, an add stepped):
# every probe counts exactly the calls made, and the program computes
# the same results as without probes.
. "$(dirname "$0")/module_lib.sh"
need_uprobes_kernel tracefs
PROG=$(cd "$(dirname "$0")" && pwd)/uprobe_target
CALLS=10
U=$TRACE_DIR/uprobe_events
[ -x "$PROG" ] || ksft_skip "no $PROG"
[ -f "$U" ] || ksft_skip "no uprobe_events (CONFIG_UPROBE_EVENTS)"

cleanup_uprobes() {
	[ -d "$TRACE_DIR/events/ksft_up" ] &&
		echo 0 > "$TRACE_DIR/events/ksft_up/enable"
	grep -q ksft_up "$U" &&
		sed -n 's/^p:ksft_up\/\([a-z0-9_]*\) .*/-:ksft_up\/\1/p' "$U" >> "$U"
}
cleanup_uprobes

want=$("$PROG" run) || ksft_fail "uprobe_target run failed unprobed"
"$PROG" points > /tmp/uprobe_points || ksft_fail "uprobe_target points failed"
n=0
while read -r name off; do
	echo "p:ksft_up/$name $PROG:$off" >> "$U" ||
		{ cleanup_uprobes; ksft_fail "cannot define a uprobe on $name ($off)"; }
	n=$((n + 1))
done < /tmp/uprobe_points
echo 1 > "$TRACE_DIR/events/ksft_up/enable" ||
	{ cleanup_uprobes; ksft_fail "cannot enable the uprobes"; }
got=$("$PROG" run)
echo 0 > "$TRACE_DIR/events/ksft_up/enable"
if [ "$got" != "$want" ]; then
	cleanup_uprobes
	ksft_fail "results changed under the probes:" \
		"$(echo "$got" | tr '\n' ' ') vs $(echo "$want" | tr '\n' ' ')"
fi
bad=$(awk -v c=$CALLS -v p="$PROG" '$1 == p && $3 != c { print $2 "=" $3 }' \
	"$TRACE_DIR/uprobe_profile")
seen=$(awk -v c=$CALLS -v p="$PROG" '$1 == p && $3 == c' \
	"$TRACE_DIR/uprobe_profile" | wc -l)
cleanup_uprobes
[ -z "$bad" ] || ksft_fail "hit counts other than $CALLS: $bad"
[ "$seen" -eq "$n" ] || ksft_fail "$seen of $n uprobes counted $CALLS hits"
ksft_pass "$n uprobes, each hit $CALLS times, results unchanged"
