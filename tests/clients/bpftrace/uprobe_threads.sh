#!/bin/bash
# A uprobe on a function that 4 threads call 25 times each.
. ../lib.sh
need bpftrace
out=$(bpftrace -e "uprobe:$TARGET:target_work { @calls = count(); @tids[tid] = count(); }" \
	-c "$TARGET threads 4 25" 2>&1)
echo "$out"
[ "$(value @calls "$out")" = 100 ] || fail "expected 100 calls"
[ "$(echo "$out" | grep -c '^@tids\[.*\]: 25$')" = 4 ] || fail "expected 4 threads of 25 calls"
pass "100 calls from 4 threads, 25 each"
