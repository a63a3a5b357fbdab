#!/bin/bash
# stackcount on a kprobe: 5 calls of the test module's inner function,
# one stack (walked from the probe's registers) counted 5 times, through
# its caller, the module's parameter handler.
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
# A stack is its frames, one per line, then its count alone on a line.
total=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF == 1 { n += $1 } END { print n + 0 }')
[ "$total" = 5 ] || fail "expected stacks counted 5 times in all, saw $total"
echo "$out" | grep -q "^ *kprobes_target_work\$" || fail "no stack through kprobes_target_work"
echo "$out" | grep -q "^ *call_set\$" || fail "no stack through the parameter handler call_set"
pass "stackcount counted 5 stacks through kprobes_target_work and call_set"
