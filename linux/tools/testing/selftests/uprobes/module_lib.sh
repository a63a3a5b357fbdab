#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for the uprobes selftests that bring their own program and,
# mostly, a test module (uprobe_insns.sh, uprobe_pid*.sh, uprobe_race.sh,
# uprobe_replace.sh, uprobe_miss.sh, uprobe_torture.sh).  The tests on
# uprobe_victim use uprobe_lib.sh instead.  A test sources this file,
# calls need_uprobes_kernel, and exits with ksft_pass/ksft_fail/ksft_skip.

TRACE_DIR=/sys/kernel/tracing
HERE=$(cd "$(dirname "$0")" && pwd)

ksft_pass() { echo "ok: $*"; exit 0; }
ksft_fail() { echo "FAIL: $*"; exit 1; }
ksft_skip() { echo "SKIP: $*"; exit 4; }

# need_uprobes_kernel [tracefs]: root, a kernel with uprobes, and with
# "tracefs" its uprobe_events file too.
need_uprobes_kernel() {
	[ "$(id -u)" -eq 0 ] || ksft_skip "must run as root"
	if [ -r /proc/kallsyms ] && ! grep -q ' uprobe_register$' /proc/kallsyms; then
		ksft_skip "no uprobes in this kernel (CONFIG_UPROBES)"
	fi
	[ "$1" = tracefs ] || return 0
	[ -f "$TRACE_DIR/uprobe_events" ] ||
		mount -t tracefs none "$TRACE_DIR" 2>/dev/null
	[ -f "$TRACE_DIR/uprobe_events" ] ||
		ksft_skip "no uprobe_events (CONFIG_UPROBE_EVENTS, tracefs)"
}

# load_test_module NAME: load test_modules/NAME.ko afresh (skip the test
# when it was not built).  Sets MOD, KO and PARAMS for the caller.
load_test_module() {
	MOD=$1
	KO=$HERE/test_modules/$MOD.ko
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
	PROG=$HERE/uprobe_pid_target
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
