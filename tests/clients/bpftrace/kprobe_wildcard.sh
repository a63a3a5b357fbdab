#!/bin/bash
# One program attached to several functions by a wildcard: each call of
# kprobes_target_work also calls kprobes_target_square.
. ../lib.sh
need bpftrace
load_kernel_target
out=$(bpftrace -e 'kprobe:kprobes_target_* { @[func] = count(); }' \
	-c "/bin/bash $CLIENTS/kcall 2 4 6" 2>&1)
echo "$out"
[ "$(value '@[kprobes_target_work]' "$out")" = 3 ] || fail "kprobes_target_work: expected 3"
[ "$(value '@[kprobes_target_square]' "$out")" = 3 ] || fail "kprobes_target_square: expected 3"
pass "both functions counted 3 times"
