#!/bin/bash
# Helpers for the client cases; each case sources this, then ends with
# pass, fail or skip.
pass() { echo "ok: $*"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }

TRACE=/sys/kernel/tracing
TARGET=$PROGS/target
LIBTARGET=$PROGS/libtarget.so
export LD_LIBRARY_PATH=$PROGS

# The kernel function the kernel-side cases probe: writing N to the
# module's "call" parameter calls kprobes_target_work(N) once, which
# returns N * N + 1.
KFUNC=kprobes_target_work
KMOD=$CLIENTS/modules/kprobes_target.ko
load_kernel_target() {
	rmmod kprobes_target 2>/dev/null
	insmod "$CLIENTS/modules/kprobes_target.ko" ||
		fail "cannot load kprobes_target.ko"
}
# kcall N...: one call of KFUNC per argument, all from one CPU.  Tools
# that read per-CPU buffers (perf's, BPF's perf buffers) print events in
# the order they drain those buffers, so calls spread over two CPUs can
# come out of order; a case that checks the order needs them on one.
kcall() {
	(
		taskset -pc 0 "$BASHPID" >/dev/null || exit 1
		for n in "$@"; do
			echo "$n" > /sys/module/kprobes_target/parameters/call ||
				exit 1
		done
	) || fail "kcall $*: the calls did not all run on CPU 0"
}

# need TOOL: the guest's image is made from tests/clients/packages.*, so a
# tool missing from it is a broken image, not a reason to skip.
need() {
	command -v "$1" >/dev/null || fail "$1 is not installed in the guest"
}

# value KEY TEXT: the number after "KEY" in TEXT (bpftrace map lines
# like "@calls: 10", "@args[3]: 1" or "@l[uprobe:/path:fn]: 10"; KEY is
# taken literally).
value() {
	echo "$2" | sed -n "s/^$(printf '%s' "$1" | sed 's/[][/.*]/\\&/g'): *//p" | head -n 1
}

# first_offset FUNC: the smallest offset past FUNC's entry that takes a
# kprobe (an instruction boundary, not the ftrace call site on arm64).
first_offset() {
	local off
	for off in $(seq 1 32); do
		if echo "p:kprobes/clients_offset $1+$off" >> $TRACE/kprobe_events 2>/dev/null; then
			echo "-:kprobes/clients_offset" >> $TRACE/kprobe_events
			echo "$off"
			return 0
		fi
	done
	return 1
}
