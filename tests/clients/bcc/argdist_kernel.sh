#!/bin/bash
# argdist counting the first argument of the test module's function:
# 3 calls with 4, 2 with 9 and 1 with 1 give those counts per value.
. ../lib.sh
. ./bcc_lib.sh
need argdist-bpfcc
load_kheaders
load_kernel_target
o=/tmp/argdist.out
bcc_start "$o" argdist-bpfcc -i 30 -n 1 -C "p::$KFUNC(int n):int:n"
wait_kprobe "$KFUNC" || { tail -n 40 "$o"; fail "argdist never attached"; }
kcall 4 9 4 1 9 4
bcc_finish "$o"
count() { echo "$out" | awk -v v="$1" '$2 == "n" && $3 == "=" && $4 == v { print $1 }'; }
[ "$(count 4)" = 3 ] || fail "expected 3 calls with n = 4"
[ "$(count 9)" = 2 ] || fail "expected 2 calls with n = 9"
[ "$(count 1)" = 1 ] || fail "expected 1 call with n = 1"
pass "argdist counted each argument value as often as it was passed"
