#!/bin/bash
# kprobe: and kretprobe: wildcards through kprobe_multi links (fprobe on
# the functions' ftrace sites): exact counts and return values, and no
# kprobe registered for them meanwhile.
. ../lib.sh
. ./wildcard_lib.sh
need bpftrace
[ "$(feature kprobe_multi)" = yes ] ||
	skip "bpftrace finds no kprobe_multi (fprobe) in this kernel"
kprobe_wildcards
echo "$out" | grep -qx "listed 0" || fail "kprobes were registered: kprobe_multi was not used"
pass "kprobe_multi: 3 entries and returns of each function, values as returned"
