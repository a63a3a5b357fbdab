#!/bin/bash
# funccount on the test module's function: 6 calls made, 6 counted.
. ../lib.sh
. ./bcc_lib.sh
need funccount-bpfcc
load_kheaders
load_kernel_target
o=/tmp/funccount.out
bcc_start "$o" funccount-bpfcc -d 30 "$KFUNC"
wait_lines "$o" "^Tracing" || { tail -n 40 "$o"; fail "funccount never attached"; }
kcall 1 2 3 4 5 6
bcc_finish "$o"
n=$(echo "$out" | awk -v f="$KFUNC" '$1 == f { print $2 }')
[ "$n" = 6 ] || fail "expected a count of 6"
pass "funccount counted 6 calls"
