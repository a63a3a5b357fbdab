#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kprobe event on a function's ftrace call site is listed [FTRACE] and
# fires, and so does one on the function, which goes on the call site
# too: on x86_64 the site is the function's first instruction (after an
# ENDBR), on arm64 it comes after a BTI and ftrace's `mov x9, x30`.
. "$(dirname "$0")/probe_lib.sh"
need_probe_fs tracefs
ADDRS=$TRACE_DIR/available_filter_functions_addrs
[ -r $ADDRS ] || ksft_skip "no $ADDRS (CONFIG_DYNAMIC_FTRACE)"
cleanup_events

site=$(awk -v f=$TARGET_FUNC '$2 == f { print $1; exit }' $ADDRS)
start=$(awk -v f=$TARGET_FUNC '$3 == f && ($2 == "T" || $2 == "t") { print $1; exit }' \
	/proc/kallsyms)
[ -n "$site" ] && [ -n "$start" ] || ksft_skip "$TARGET_FUNC is not traceable here"
# The low 32 bits are enough for an offset into one function, and stay
# inside the shell's signed arithmetic.
off=$(( (0x$(echo "$site" | tail -c 9) - 0x$(echo "$start" | tail -c 9)) & 0xffffffff ))
[ "$off" -lt 64 ] || ksft_fail "call site $site is $off bytes into $TARGET_FUNC at $start"

case "$(uname -m)" in
x86_64|aarch64) ;;
*) ksft_skip "no expectation for $(uname -m)" ;;
esac

# on_site_fires EVENT WHAT: EVENT, just added, sits on the call site
# through ftrace and fires.
on_site_fires() {
	list_line "$TARGET_FUNC" | grep "+0x$(printf %x "$off") " | grep -q FTRACE ||
		ksft_fail "$2 is not listed [FTRACE] at $TARGET_FUNC+$off"
	set_event "$1" 1
	trigger
	[ "$(hits "$1")" -gt 0 ] || ksft_fail "$2 never fired"
	cleanup_events
}

add_event site p "$TARGET_FUNC+$off"
on_site_fires site "the probe on the call site"
# The function's own address means its entry, which is the call site.
add_event entry p "$TARGET_FUNC"
on_site_fires entry "the probe on $TARGET_FUNC"
ksft_pass "$TARGET_FUNC+$off, the ftrace call site, probed through ftrace"
