#!/bin/bash
# trace on the entry and the return of the test module's function: calls
# with 2, 3, 5 and 7 show those arguments and return N * N + 1 = 5, 10,
# 26 and 50.
. ../lib.sh
. ./bcc_lib.sh
need trace-bpfcc
load_kheaders
load_kernel_target
o=/tmp/trace.out
bcc_start "$o" trace-bpfcc "$KFUNC \"arg=%d\", arg1" "r::$KFUNC \"ret=%d\", retval"
wait_lines "$o" "^PID" || { tail -n 40 "$o"; fail "trace never attached"; }
kcall 2 3 5 7
wait_lines "$o" "arg=" 4 && wait_lines "$o" "ret=" 4
bcc_stop
bcc_finish "$o"
args=$(fields arg)
rets=$(fields ret)
[ "$args" = "2 3 5 7" ] || fail "expected arguments 2 3 5 7, saw '$args'"
[ "$rets" = "5 10 26 50" ] || fail "expected return values 5 10 26 50, saw '$rets'"
pass "trace saw the 4 arguments and the 4 return values, in order"
