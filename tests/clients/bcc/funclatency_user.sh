#!/bin/bash
# funclatency on a function of our shared library: an entry uprobe and a
# return uprobe per call; 12 calls of lib_work timed, and the program's
# output unchanged.
. ../lib.sh
. ./bcc_lib.sh
need funclatency-bpfcc
load_kheaders
want=$($TARGET work 12)
o=/tmp/funclatency.out
bcc_start "$o" funclatency-bpfcc -d 120 "$LIBTARGET:lib_work"
wait_lines "$o" "^Tracing" || { tail -n 40 "$o"; fail "funclatency never attached"; }
got=$("$TARGET" work 12)
bcc_stop
bcc_finish "$o"
count=$(echo "$out" | sed -n 's/.*count: *\([0-9]*\).*/\1/p' | tail -n 1)
[ "$count" = 12 ] || fail "expected 12 calls timed, saw '$count'"
[ "$got" = "$want" ] || fail "the program printed '$got', not '$want'"
pass "funclatency timed 12 calls of lib_work; output unchanged"
