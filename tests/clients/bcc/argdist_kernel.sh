#!/bin/bash
# argdist counting the first argument of the test module's function:
# 3 calls with 4, 2 with 9 and 1 with 1 give those counts per value.
. ../lib.sh
. ./bcc_lib.sh
need argdist-bpfcc
load_kheaders
load_kernel_target
o=/tmp/argdist.out
# Cumulative counts every second: the last block has every call.
bcc_start "$o" argdist-bpfcc -c -i 1 -n 600 -C "p::$KFUNC(int n):int:n"
wait_kprobe "$KFUNC" || { tail -n 40 "$o"; fail "argdist never attached"; }
# The kprobe is listed a little before the program behind it counts (and
# an earlier case's may still be listed): call with a value of its own
# until argdist shows it.
seen() { grep -Eq "^[[:space:]]*[0-9]+[[:space:]]+n = $1\$" "$o"; }
warm_up() { kcall 7 && seen 7; }
until_ready warm_up || { tail -n 40 "$o"; fail "argdist never counted a call"; }
kcall 4 9 4 1 9 4
until_ready seen 1 || { tail -n 40 "$o"; fail "argdist never showed the calls"; }
bcc_stop
bcc_finish "$o"
# Counts of the last block ("[hh:mm:ss]" starts one).
count() {
	echo "$out" | awk -v v="$1" '/^\[/ { c = "" }
		$2 == "n" && $3 == "=" && $4 == v { c = $1 } END { print c }'
}
[ "$(count 4)" = 3 ] || fail "expected 3 calls with n = 4"
[ "$(count 9)" = 2 ] || fail "expected 2 calls with n = 9"
[ "$(count 1)" = 1 ] || fail "expected 1 call with n = 1"
pass "argdist counted each argument value as often as it was passed"
