#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the kprobes selftests.  Each test sources this file,
# calls need_probe_fs, and exits with ksft_pass/ksft_fail/ksft_skip.

KPROBES_DIR=/sys/kernel/debug/kprobes
TRACE_DIR=/sys/kernel/tracing
# A function every architecture has, reached by open(2) and not inlined.
TARGET_FUNC=do_sys_openat2

ksft_pass() { echo "ok: $*"; exit 0; }
ksft_fail() { echo "FAIL: $*"; cleanup_events; exit 1; }
ksft_skip() { echo "SKIP: $*"; exit 4; }

need_probe_fs() {
	[ "$(id -u)" -eq 0 ] || ksft_skip "must run as root"
	[ -d "$KPROBES_DIR" ] ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	# A kernel with kprobes and a mounted debugfs always has the
	# directory: its absence is a bug, not a missing feature.
	if [ ! -d "$KPROBES_DIR" ]; then
		grep -qw register_kprobe /proc/kallsyms &&
			mountpoint -q /sys/kernel/debug &&
			ksft_fail "no $KPROBES_DIR on a kernel with kprobes"
		ksft_skip "no $KPROBES_DIR (CONFIG_KPROBES, debugfs)"
	fi
	if [ "$1" = tracefs ]; then
		[ -f "$TRACE_DIR/kprobe_events" ] ||
			mount -t tracefs none "$TRACE_DIR" 2>/dev/null
		[ -f "$TRACE_DIR/kprobe_events" ] ||
			ksft_skip "no kprobe_events (CONFIG_KPROBE_EVENTS, tracefs)"
	fi
}

# Events this test created carry this prefix, so cleanup never touches
# anybody else's.
EVENT_PREFIX=ksft_kp_

cleanup_events() {
	[ -f "$TRACE_DIR/kprobe_events" ] || return 0
	for ev in $(sed -n "s/^[pr][0-9]*:kprobes\/\($EVENT_PREFIX[a-z0-9_]*\) .*/\1/p" \
			"$TRACE_DIR/kprobe_events"); do
		echo 0 > "$TRACE_DIR/events/kprobes/$ev/enable" 2>/dev/null
		echo "-:kprobes/$ev" >> "$TRACE_DIR/kprobe_events"
	done
}

# add_event NAME [p|r] FUNC: define a kprobe event, left disabled.
add_event() {
	echo "${2:-p}:kprobes/$EVENT_PREFIX$1 ${3:-$TARGET_FUNC}" >> \
		"$TRACE_DIR/kprobe_events" || ksft_fail "cannot define event $1"
}

set_event() {
	echo "$2" > "$TRACE_DIR/events/kprobes/$EVENT_PREFIX$1/enable" ||
		ksft_fail "cannot set event $1 to $2"
}

# hits NAME: the event's hit count from kprobe_profile.
hits() {
	awk -v ev="$EVENT_PREFIX$1" '$1 == ev { print $2 }' \
		"$TRACE_DIR/kprobe_profile"
}

# Reach TARGET_FUNC a few times.
trigger() {
	for _ in 1 2 3 4 5; do
		cat /proc/version > /dev/null
	done
}

# list_line SYMBOL: the debugfs list entries at SYMBOL+offset.
list_line() {
	grep -E "[[:space:]]$1\+0x[0-9a-f]+([[:space:]]|\$)" "$KPROBES_DIR/list"
}

# load_test_module NAME: load test_modules/NAME.ko afresh (skip the test
# when it was not built).  Sets MOD, KO and PARAMS for the caller.
load_test_module() {
	MOD=$1
	KO="$(dirname "$0")/test_modules/$MOD.ko"
	PARAMS=/sys/module/$MOD/parameters
	[ -f "$KO" ] || ksft_skip "$KO was not built"
	rmmod "$MOD" 2>/dev/null
	insmod "$KO" || ksft_fail "cannot load $KO (see dmesg)"
}

# serve_pid_target MODULE: load test_modules/MODULE.ko and start
# "uprobe_pid_target serve" with its stdin on fd 3 and stdout on fd 4
# (TPID is its pid).  Defines finish (stop it, unload the module), fail,
# ask (send a command, read the reply into REPLY), param and expect (a
# module parameter's value).
serve_pid_target() {
	PROG=$(cd "$(dirname "$0")" && pwd)/uprobe_pid_target
	[ -x "$PROG" ] || ksft_skip "no $PROG"
	load_test_module "$1"
	T=/tmp/$1.$$
	mkfifo $T.in $T.out || ksft_fail "mkfifo"
	"$PROG" serve < $T.in > $T.out &
	TPID=$!
	exec 3> $T.in 4< $T.out
	rm -f $T.in $T.out
	finish() {
		exec 3>&-
		wait $TPID 2>/dev/null
		rmmod $MOD 2>/dev/null
	}
	fail() { finish; ksft_fail "$*"; }
	ask() { echo "$*" >&3; read -r REPLY <&4; }
	param() { cat "$PARAMS/$1"; }
	expect() {
		[ "$(param "$1")" = "$2" ] || fail "$1 is $(param "$1"), not $2 ($3)"
	}
}

# Per-task fault injection (/proc/<pid>/fail-nth) for the allocations
# registration makes: failslab and fail_page_alloc leave sleeping and
# order-0 allocations alone unless told otherwise.  fault_knobs_on sets
# them for a sweep (and skips the test without them); fault_knobs_off puts
# back what was there.
FAULT_KNOBS_SAVED=
fault_knob() {
	[ -f "$1" ] || return 0
	FAULT_KNOBS_SAVED="$FAULT_KNOBS_SAVED$1=$(cat "$1")
"
	echo "$2" > "$1" || ksft_fail "cannot set $1 to $2"
}
fault_knobs_on() {
	fs=/sys/kernel/debug/failslab
	fp=/sys/kernel/debug/fail_page_alloc
	[ -e /proc/thread-self/fail-nth ] ||
		ksft_skip "no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)"
	[ -d $fs ] ||
		ksft_skip "no $fs (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
	fault_knob $fs/ignore-gfp-wait N
	fault_knob $fs/verbose 0
	fault_knob $fp/ignore-gfp-wait N
	fault_knob $fp/min-order 0
	fault_knob $fp/verbose 0
}
fault_knobs_off() {
	echo "$FAULT_KNOBS_SAVED" | while IFS='=' read -r f v; do
		[ -n "$f" ] && echo "$v" > "$f"
	done
	FAULT_KNOBS_SAVED=
}
