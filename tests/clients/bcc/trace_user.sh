#!/bin/bash
# trace on a uprobe and a uretprobe of the client program: 5 calls of
# target_work(i) show i = 1..5 and i * i + 7, and the program's output is
# unchanged.
. ../lib.sh
. ./bcc_lib.sh
need trace-bpfcc
load_kheaders
want=$($TARGET work 5)
o=/tmp/trace-user.out
bcc_start "$o" trace-bpfcc "p:$TARGET:target_work \"arg=%d\", arg1" \
	"r:$TARGET:target_work \"ret=%d\", retval"
wait_lines "$o" '^PID' || { tail -n 40 "$o"; fail "trace never attached"; }
# One CPU, so the per-CPU buffers cannot reorder the events.
got=$(taskset -c 0 "$TARGET" work 5)
wait_lines "$o" "arg=" 5 && wait_lines "$o" "ret=" 5
bcc_stop
bcc_finish "$o"
args=$(fields arg)
rets=$(fields ret)
[ "$args" = "1 2 3 4 5" ] || fail "expected arguments 1..5, saw '$args'"
[ "$rets" = "8 11 16 23 32" ] || fail "expected return values 8 11 16 23 32, saw '$rets'"
[ "$got" = "$want" ] || fail "the program printed '$got', not '$want'"
pass "trace saw 5 calls with their arguments and return values; output unchanged"
