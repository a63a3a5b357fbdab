#!/bin/bash
# kprobe with its argument: one count per call, keyed by the argument.
. ../lib.sh
need bpftrace
load_kernel_target
out=$(bpftrace -e "kprobe:$KFUNC { @calls = count(); @arg[arg0] = count(); }" \
	-c "/bin/bash $CLIENTS/kcall 3 5 7 7" 2>&1)
echo "$out"
[ "$(value @calls "$out")" = 4 ] || fail "expected 4 calls"
[ "$(value '@arg[7]' "$out")" = 2 ] || fail "expected argument 7 twice"
[ "$(value '@arg[3]' "$out")" = 1 ] || fail "expected argument 3 once"
pass "4 calls, arguments as made"
