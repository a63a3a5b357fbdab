#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A uprobes torture run (CONFIG_UPROBES_TORTURE_TEST): the uprobetorture
# module registers and unregisters consumers (entry, return, both, with
# and without a filter; several per site; synced one by one and in
# batches) on the functions of a running uprobe_torture_target, whose
# threads call them and check every result while it forks children that
# call them and exec it anew.  The module's verdict says whether any hit
# in the target was lost or invented, or any handler ran after its
# unregistration was synced; the target says whether any result was
# wrong or any child failed (killed by SIGTRAP, say).  The kernel must
# log no warning meanwhile.  Calls an emulator ran on stale text (no trap
# although the breakpoint was in memory all along) are counted apart, as
# "stale", and do not fail.  One of the functions begins with the
# 5-byte nop of USDT probes: on x86_64 our kernel enters it by a jump to
# a stub once it trapped (uprobes.nop5_jump, turned on here), so the
# jump is written and taken out under the same churn.
# Beside it, uprobetorture_pid churns process probes on the same
# functions: from process context, from handlers (several threads at
# once) and on the target's short-lived children, which exit or exec
# meanwhile; it audits them the same way (a hit in any other process is
# invented).
# UPROBE_TORTURE_DURATION sets the seconds (default 20).
. "$(dirname "$0")/module_lib.sh"
D=${UPROBE_TORTURE_DURATION:-20}
MOD=uprobetorture
PMOD=uprobetorture_pid
PROG=$HERE/uprobe_torture_target
T=/tmp/uprobe_torture.$$
PATTERN='WARNING:|BUG:|Oops|KASAN|refcount_t|list_add corruption'
PATTERN="$PATTERN|list_del corruption|inconsistent lock state|circular locking"
PATTERN="$PATTERN|possible recursive locking"

need_uprobes_kernel
[ -x "$PROG" ] || ksft_skip "no $PROG"
[ -n "$(find /lib/modules/"$(uname -r)" -name "$MOD.ko*" 2>/dev/null)" ] ||
	ksft_skip "no $MOD module in this kernel (CONFIG_UPROBES_TORTURE_TEST)"
rmmod $MOD 2>/dev/null
rmmod $PMOD 2>/dev/null
KNOB=/sys/module/uprobes/parameters/nop5_jump
[ -w "$KNOB" ] && echo 1 > "$KNOB"

warnings() { dmesg | grep -c -E "$PATTERN"; }
verdicts() { dmesg | grep -c -E "($MOD|$PMOD): verdict"; }
before=$(warnings)
seen=$(verdicts)

TPID=
# Stop the target (if running) and the module; keep what they said.
finish() {
	if [ -n "$TPID" ]; then
		touch $T.stop
		wait "$TPID"
		status=$?
		TPID=
	fi
	rmmod $MOD 2>/dev/null
	rmmod $PMOD 2>/dev/null
}
# A kselftest timeout sends TERM: stop the target and the module first.
trap 'finish; exit 1' INT TERM
fail() {
	finish
	# Above 128: the shell's way of saying a signal (status - 128) ended it.
	[ -n "${status:-}" ] && echo "# target: exit status $status"
	[ -s $T.err ] && sed 's/^/# target: /' $T.err | head -n 10
	dmesg | grep -E "($MOD|$PMOD):" | tail -n 12 | sed 's/^/# /'
	rm -f $T.out $T.err $T.stop
	ksft_fail "$*"
}

rm -f $T.stop
# --seconds bounds the target should this script die before stopping it.
"$PROG" --threads 3 --stop-file $T.stop --seconds $((D + 150)) \
	> $T.out 2> $T.err &
TPID=$!
waited=0
while ! grep -q '^ready ' $T.out 2>/dev/null; do
	kill -0 "$TPID" 2>/dev/null || fail "the target ended before it was ready"
	[ $waited -lt 20 ] || fail "the target did not get ready"
	sleep 1
	waited=$((waited + 1))
done
ready=$(grep '^ready ' $T.out | head -n 1)
pid=$(echo "$ready" | sed -n 's/.* pid=\([0-9]*\).*/\1/p')
counters=$(echo "$ready" | sed -n 's/.* counters=\(0x[0-9a-f]*\).*/\1/p')
offsets=$(echo "$ready" | sed -n 's/.* offsets=\([0-9a-fx,]*\).*/\1/p')
addrs=$(echo "$ready" | sed -n 's/.* addrs=\([0-9a-fx,]*\).*/\1/p')
[ "$pid" = "$TPID" ] && [ -n "$counters" ] && [ -n "$offsets" ] &&
	[ -n "$addrs" ] || fail "cannot parse the target's line: $ready"

modprobe $MOD path="$PROG" pid="$pid" counters="$counters" \
	offsets="$offsets" duration="$D" ||
	fail "cannot load $MOD (see dmesg)"
modprobe $PMOD pid="$pid" counters="$counters" vaddrs="$addrs" \
	duration="$D" || fail "cannot load $PMOD (see dmesg)"
want=$((seen + 2))
waited=0
while [ "$(verdicts)" -lt "$want" ]; do
	[ $waited -lt $((D + 60)) ] || fail "no verdict after $waited s"
	sleep 1
	waited=$((waited + 1))
done

finish
summary=$(grep '^calls=' $T.out | tail -n 1)
stats=$(dmesg | grep "$MOD: registrations" | tail -n 1 | sed "s/.*$MOD: //")
verdict=$(dmesg | grep "$MOD: verdict" | tail -n 1 | sed "s/.*$MOD: //")
echo "# $stats"
echo "# target: $summary"
after=$(warnings)

case "$verdict" in
"verdict PASS"*) ;;
*) fail "$verdict" ;;
esac
# A run that never registered, hit or forked proves nothing.
for what in registrations hits returns foreign; do
	n=$(echo " $stats" | sed -n "s/.* $what \([0-9]*\).*/\1/p")
	[ "${n:-0}" -gt 0 ] || fail "no $what in the run: $stats"
done
# With the jump on, some entries took it (the nop5 function's, after a
# trap in each new registration and mm).
if [ -w "$KNOB" ] && [ "$(cat "$KNOB")" = Y ]; then
	n=$(echo " $stats" | sed -n "s/.* direct \([0-9]*\).*/\1/p")
	[ "${n:-0}" -gt 0 ] || fail "no entry by the nop5 jump in the run: $stats"
fi
children=$(echo "$summary" | sed -n 's/.*children=\([0-9]*\).*/\1/p')
[ "${children:-0}" -gt 0 ] || fail "the target forked no child: $summary"
[ "$status" = 0 ] || fail "the target failed (status $status): $summary"
[ -n "$summary" ] || fail "the target printed no summary"
pstats=$(dmesg | grep "$PMOD: registrations" | tail -n 1 |
	sed "s/.*$PMOD: //")
pverdict=$(dmesg | grep "$PMOD: verdict" | tail -n 1 |
	sed "s/.*$PMOD: //")
echo "# process probes: $pstats"
case "$pverdict" in
"verdict PASS"*) ;;
*) fail "process probes: $pverdict" ;;
esac
# Calls from handlers and from process context must both have run.
for what in registrations hits queued callbacks rounds \
	pc-unregistrations; do
	n=$(echo " $pstats" | sed -n "s/.* $what \([0-9]*\).*/\1/p")
	[ "${n:-0}" -gt 0 ] ||
		fail "process probes: no $what in the run: $pstats"
done
verdict="$verdict; process probes: $pverdict"
[ "$after" = "$before" ] ||
	fail "the kernel warned: $(dmesg | grep -E "$PATTERN" | tail -n 3)"
rm -f $T.out $T.err $T.stop
ksft_pass "$D s: $verdict; $summary"
