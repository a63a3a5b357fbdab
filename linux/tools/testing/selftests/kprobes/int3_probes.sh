#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probes inside a function body (the breakpoint path, not the ftrace site):
# every byte offset of the function's first bytes is tried; offsets that
# are instruction boundaries register, the others are refused, and with a
# probe on every boundary the function still does its job and the pages of
# out-of-line copies are in /proc/kallsyms.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs tracefs
cleanup_events
: > "$TRACE_DIR/error_log"

expected=$(cat /proc/version)
first=""
taken=0
refused=0
for off in $(seq 1 48); do
	if echo "p:kprobes/${EVENT_PREFIX}o$off $TARGET_FUNC+$off" \
		>> "$TRACE_DIR/kprobe_events" 2>/dev/null; then
		taken=$((taken + 1))
		[ -n "$first" ] || first=$off
		set_event "o$off" 1
	else
		refused=$((refused + 1))
	fi
done
[ "$taken" -ge 3 ] || ksft_fail "only $taken of 48 offsets took a probe"
[ "$refused" -ge 1 ] ||
	ksft_fail "all 48 offsets took a probe: boundaries are not checked"

got=$(cat /proc/version)
trigger
[ "$got" = "$expected" ] || ksft_fail "probed $TARGET_FUNC misbehaves: '$got'"
n=$(hits "o$first")
[ "$n" -ge 5 ] || ksft_fail "probe at +$first: $n hits, expected at least 5"
list_line "$TARGET_FUNC" | grep "+0x$(printf %x "$first") " | grep -q FTRACE &&
	ksft_fail "a probe inside the body claims to be on the ftrace site"

# With a probe on every boundary, some instruction runs out of line, and
# perf must be able to name the page its copy lives in.
grep -q "[[:space:]]kprobe_insn_page[[:space:]]*\[__builtin__kprobes\]" /proc/kallsyms ||
	ksft_fail "no kprobe_insn_page [__builtin__kprobes] in /proc/kallsyms"

# On x86 the bytes after the entry belong to the ftrace call site or to
# multi-byte instructions: refusals there are boundary errors.
if [ "$(uname -m)" = x86_64 ]; then
	grep -q "instruction boundary" "$TRACE_DIR/error_log" ||
		ksft_fail "no 'not an instruction boundary' error was reported"
fi

cleanup_events
ksft_pass "$taken boundaries probed, $refused offsets refused, first at +$first: $n hits"
