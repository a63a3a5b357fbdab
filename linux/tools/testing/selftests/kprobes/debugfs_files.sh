#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The three debugfs files exist and read back in their documented formats.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs

for f in list enabled blacklist; do
	[ -r "$KPROBES_DIR/$f" ] || ksft_fail "$KPROBES_DIR/$f missing"
done

state=$(cat "$KPROBES_DIR/enabled")
[ "$state" = 1 ] || ksft_fail "kprobes not enabled at boot (enabled=$state)"

# Each blacklist line: "0xSTART-0xEND<TAB>symbol", START below END.
n=0
bad=$(awk -F'\t' '
	$1 !~ /^0x[0-9a-f]+-0x[0-9a-f]+$/ || $2 == "" { print; exit }
	{ split($1, r, "-"); if (length(r[1]) != length(r[2])) { print; exit } }
' "$KPROBES_DIR/blacklist")
[ -z "$bad" ] || ksft_fail "malformed blacklist line: $bad"
n=$(wc -l < "$KPROBES_DIR/blacklist")
[ "$n" -gt 0 ] || ksft_fail "blacklist is empty"

# Functions marked NOKPROBE_SYMBOL by the core must be listed.
grep -q "[[:space:]]notify_die\$" "$KPROBES_DIR/blacklist" ||
	ksft_fail "notify_die (NOKPROBE_SYMBOL) missing from the blacklist"

ksft_pass "list, enabled and blacklist ($n ranges) look right"
