#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Allocation failures injected, one check at a time, into every userspace
# way of registering, enabling and removing probes (fault_sweep: kprobe,
# kretprobe and uprobe events, the kprobe and uprobe perf PMUs).  A failed
# call must leave nothing behind, a successful one must work, and probes
# already there must keep counting exactly; the kernel must not warn or
# oops on any of the error paths, and with kmemleak no probe object may be
# leaked by them.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs tracefs
PROG=$(cd "$(dirname "$0")" && pwd)/fault_sweep
KL=/sys/kernel/debug/kmemleak
[ -x "$PROG" ] || ksft_skip "no $PROG"

# The program removes its events itself; this is for when it was killed.
drop_sweep_events() {
	for f in kprobe_events uprobe_events; do
		[ -f "$TRACE_DIR/$f" ] || continue
		for ev in $(sed -n 's/^[pr][0-9]*:fzs\/\([^ ]*\) .*/\1/p' \
				"$TRACE_DIR/$f"); do
			{ echo 0 > "$TRACE_DIR/events/fzs/$ev/enable"; } 2>/dev/null
			{ echo "-:fzs/$ev" >> "$TRACE_DIR/$f"; } 2>/dev/null
		done
	done
}

finish() {
	fault_knobs_off
	drop_sweep_events
}
trap finish EXIT
trap 'exit 1' INT TERM

fault_knobs_on

# New kernel messages: after our marker, or (no /dev/kmsg) after the
# lines there were.  If the marker scrolled out, everything is new.
MARK="fault_sweep: start $$"
lines=$(dmesg | wc -l)
marked=0
{ echo "$MARK" > /dev/kmsg; } 2>/dev/null && marked=1
new_messages() {
	if [ $marked = 1 ]; then
		dmesg | awk -v m="$MARK" '
			{ all = all $0 "\n" }
			seen { out = out $0 "\n" }
			index($0, m) { seen = 1; out = "" }
			END { printf "%s", seen ? out : all }'
	else
		dmesg | tail -n +$((lines + 1))
	fi
}
# Report what leaked before the sweep, then set it aside: only objects
# leaked from here on are this test's.
[ -f $KL ] && { echo scan > $KL; echo clear > $KL; } 2>/dev/null

"$PROG"
rc=$?

problems=""
case $rc in
0 | 4) ;;
*) problems="fault_sweep exited with $rc" ;;
esac

# "page allocation failure" reports of the injected failures are expected
# and match none of these.
PATTERN='WARNING:|BUG:|Oops|KASAN|UBSAN|refcount_t|list_add corruption'
PATTERN="$PATTERN|list_del corruption|inconsistent lock state|circular locking"
PATTERN="$PATTERN|suspected memory leak"
PATTERN="$PATTERN|possible recursive locking"
bad=$(new_messages | grep -E "$PATTERN")
if [ -n "$bad" ]; then
	echo "$bad" | head -n 40 | sed 's/^/# dmesg: /'
	problems="$problems${problems:+; }kernel warnings during the sweep"
fi

# Objects kmemleak reports only once they are a few seconds old.  Where
# the caller says the kernel has kmemleak (KMEMLEAK_REQUIRED=1, `make
# torture`'s debug flavor), its absence fails; elsewhere it is said.
if [ ! -f $KL ]; then
	[ "${KMEMLEAK_REQUIRED:-0}" = 1 ] &&
		problems="$problems${problems:+; }no $KL to check for leaks"
	echo "# kmemleak: not in this kernel, leaks not checked"
else
	sleep 6
	{ echo scan > $KL; echo scan > $KL; } 2>/dev/null
	leaks=$(awk '
		function flush() { if (hit) printf "%s", rec; rec = ""; hit = 0 }
		/^unreferenced object/ { flush() }
		{ rec = rec $0 "\n" }
		/^[[:space:]]*\[</ && /kprobe|uprobe|rethook|perf/ { hit = 1 }
		END { flush() }' $KL 2>/dev/null)
	if [ -n "$leaks" ]; then
		echo "$leaks" | head -n 80 | sed 's/^/# kmemleak: /'
		problems="$problems${problems:+; }probe objects leaked"
	fi
fi

[ -z "$problems" ] || ksft_fail "$problems"
[ $rc = 4 ] && ksft_skip "fault injection was not available to the sweep"
ksft_pass "every injected allocation failure was handled cleanly"
