#!/bin/bash
# kretprobe with the return value: kprobes_target_work(n) returns n * n + 1.
. ../lib.sh
need bpftrace
load_kernel_target
out=$(bpftrace -e "kretprobe:$KFUNC { @ret[retval] = count(); @calls = count(); }" \
	-c "/bin/bash $CLIENTS/kcall 3 5 5" 2>&1)
echo "$out"
[ "$(value @calls "$out")" = 3 ] || fail "expected 3 returns"
[ "$(value '@ret[10]' "$out")" = 1 ] || fail "expected 10 once"
[ "$(value '@ret[26]' "$out")" = 2 ] || fail "expected 26 twice"
pass "3 returns, values as returned"
