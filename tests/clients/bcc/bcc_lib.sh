#!/bin/bash
# Helpers for the BCC cases.  A BCC tool compiles its program in the
# guest first (tens of seconds under TCG), so a case starts the tool in
# the background, waits until its probe is in place, makes its calls and
# then lets the tool finish: on its own after a duration far longer than
# the calls take, or stopped once it printed every event expected.

# BCC reads the kernel's headers from /sys/kernel/kheaders.tar.xz.
load_kheaders() {
	[ -f /sys/kernel/kheaders.tar.xz ] || modprobe kheaders ||
		fail "no kernel headers for BCC (kheaders.ko)"
}

# bcc_start OUT TOOL ARGS...: run a BCC tool in the background, its
# output in OUT, unbuffered (the cases watch it); BCC_PID is its pid.  A
# background job starts with SIGINT ignored, and Python then never turns
# it into KeyboardInterrupt, the tools' way to stop cleanly: restore it.
bcc_start() {
	local o=$1
	shift
	PYTHONUNBUFFERED=1 python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@" >"$o" 2>&1 &
	BCC_PID=$!
	# Whatever happens to the case, no tool outlives it with its probes.
	trap 'kill -9 $BCC_PID 2>/dev/null' EXIT
}

# until_ready CMD...: until CMD succeeds (every half second, five
# minutes at most), or the tool died.
until_ready() {
	local i
	for i in $(seq 600); do
		"$@" && return 0
		kill -0 "$BCC_PID" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

# wait_kprobe FUNC: until a kprobe on FUNC is registered (debugfs lists
# every kprobe, also those made through perf; an entry probe sits past a
# landing pad where the kernel has them, so at any offset).
wait_kprobe() {
	until_ready grep -q "[[:space:]]$1+0x" /sys/kernel/debug/kprobes/list
}

# has_lines OUT PATTERN N: OUT holds N lines matching PATTERN.
has_lines() {
	[ "$(grep -c "$2" "$1")" -ge "$3" ]
}

# wait_lines OUT PATTERN [N]: until the tool printed N (1) lines matching
# PATTERN.
wait_lines() {
	until_ready has_lines "$1" "$2" "${3:-1}"
}

# bcc_stop: Ctrl-C for the tool, which then detaches and exits.  (trace's
# own -M does not end it: 0.26 calls exit() inside a ctypes callback,
# which Python reports and ignores.)
bcc_stop() {
	kill -INT "$BCC_PID" 2>/dev/null
}

# bcc_finish OUT: wait for the tool to end (in this shell: a subshell
# cannot wait for it), leave its output in $out and show its end (its
# compiler warnings about the kernel headers can run to hundreds of lines).
bcc_finish() {
	wait "$BCC_PID"
	out=$(cat "$1")
	echo "$out" | tail -n 40
}

# fields KEY: the numbers printed as KEY=N in $out, in order.
fields() {
	echo "$out" | grep -o "$1=[0-9]*" | cut -d= -f2 | xargs
}
