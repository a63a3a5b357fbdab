#!/bin/bash
# kprobe: and kretprobe: wildcards through one kprobe and one kretprobe
# per function (--no-feature kprobe_multi, see single()): exact counts
# and return values, and the four probes in the kprobes list meanwhile.
. ../lib.sh
. ./wildcard_lib.sh
need bpftrace
single kprobe_multi
kprobe_wildcards $single
echo "$out" | grep -qx "listed 4" || fail "expected 4 kprobes listed (2 entries, 2 returns)"
pass "single kprobes: 3 entries and returns of each function, values as returned"
