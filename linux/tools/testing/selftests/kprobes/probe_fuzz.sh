#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A bounded, seeded fuzz run over what userspace can write into the probing
# subsystem (probe_fuzz.c describes the inputs): kprobe_events and
# uprobe_events lines, event enables, the two kprobes knobs, and the perf
# kprobe/uprobe PMUs.  Fails when the program reports a broken rule or
# cannot clean up after itself, or when the kernel logs a warning, oops,
# sanitizer report or stall during the run.  PROBE_FUZZ_COUNT,
# PROBE_FUZZ_SECONDS and PROBE_FUZZ_SEED set the iteration bound, the time
# bound and the seed; a seed replays the same inputs on the same kernel.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs tracefs
PROG=$(cd "$(dirname "$0")" && pwd)/probe_fuzz
[ -x "$PROG" ] || ksft_skip "no $PROG"
N=${PROBE_FUZZ_COUNT:-4000}
T=${PROBE_FUZZ_SECONDS:-25}
S=${PROBE_FUZZ_SEED:-20241117}
OUT=/tmp/probe_fuzz.$$
# Kernel reports, not words: a function named *_stall_* may well be probed.
PATTERNS='WARNING:|BUG:|Oops|KASAN|suspected memory leak|UBSAN|refcount_t|list_add corruption'
PATTERNS="$PATTERNS|list_del corruption|detected stalls|soft lockup|hard LOCKUP"
PATTERNS="$PATTERNS|inconsistent lock state|possible recursive locking|circular locking"

# Where this run's share of the kernel log starts: the line count, and a
# marker line as well, which still works if the ring wraps meanwhile.
seen=$(dmesg | wc -l)
marker="probe_fuzz: start seed=$S pid=$$"
echo "$marker" > /dev/kmsg 2>/dev/null || marker=

"$PROG" -n "$N" -t "$T" -s "$S" > "$OUT" 2>&1
rc=$?

# Whatever became of the program, leave the knobs as the other tests expect.
echo 1 > "$KPROBES_DIR/enabled" 2>/dev/null
[ -f /proc/sys/debug/kprobes-optimization ] &&
	echo 1 > /proc/sys/debug/kprobes-optimization 2>/dev/null

grep '^# ' "$OUT"
summary=$(grep '^fuzz: ' "$OUT" | tail -n 1)
[ -n "$summary" ] && echo "# $summary"
other=$(grep -v -e '^# ' -e '^fuzz: ' "$OUT" | tail -n 20)
rm -f "$OUT"

if [ -n "$marker" ] && dmesg | grep -qF "$marker"; then
	log=$(dmesg | awk -v m="$marker" 'index($0, m) { n = 0; next }
		{ l[n++] = $0 } END { for (i = 0; i < n; i++) print l[i] }')
else
	log=$(dmesg | tail -n +$((seen + 1)))
fi
bad=$(echo "$log" | grep -E "$PATTERNS" | head -n 20)
if [ -n "$bad" ]; then
	echo "$bad" | sed 's/^/# dmesg: /'
	ksft_fail "the kernel complained during the fuzz run (seed $S)"
fi

case $rc in
0) ;;
4) ksft_skip "probe_fuzz: $other" ;;
*)
	[ -n "$other" ] && echo "$other" | sed 's/^/# /'
	ksft_fail "probe_fuzz exited $rc (seed $S)"
	;;
esac
iters=$(echo "$summary" | sed -n 's/.*iterations=\([0-9]*\).*/\1/p')
ksft_pass "$iters iterations with seed $S, no broken rule, quiet kernel log"
