#!/bin/bash
# stackcount on a kprobe: 5 calls of the test module's inner function,
# one stack (walked from the probe's registers) counted 5 times, from the
# probed function through the module's parameter handler, call_set.
# The immediate caller, kprobes_target_work, is in it on x86_64 only: an
# arm64 function's first instruction runs before it has saved its link
# register in a frame record, so a walk from an entry probe's registers
# (pc, then the frame-pointer chain) goes from the probed function to
# its caller's caller, on every kernel.
. ../lib.sh
. ./bcc_lib.sh
need stackcount-bpfcc
load_kheaders
load_kernel_target
o=/tmp/stackcount.out
bcc_start "$o" stackcount-bpfcc -D 120 kprobes_target_square
wait_lines "$o" "^Tracing" || { tail -n 40 "$o"; fail "stackcount never attached"; }
kcall 1 2 3 4 5
bcc_stop
bcc_finish "$o"
echo "$out" | sed -n '/^Tracing/,$p' | head -n 60
# A stack is its frames, one per line, then its count alone on a line.
total=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF == 1 { n += $1 } END { print n + 0 }')
[ "$total" = 5 ] || fail "expected stacks counted 5 times in all, saw $total"
frames="kprobes_target_square call_set param_attr_store"
[ "$(uname -m)" = x86_64 ] && frames="$frames kprobes_target_work"
for f in $frames; do
	echo "$out" | grep -q "^ *$f\$" || fail "no stack through $f"
done
pass "stackcount counted 5 stacks through $frames"
