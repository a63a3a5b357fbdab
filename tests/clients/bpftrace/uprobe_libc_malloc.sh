#!/bin/bash
# malloc and free in libc: the program makes 50 allocations of a size
# nothing else asks for, and frees each.
. ../lib.sh
need bpftrace
out=$(bpftrace -e 'uprobe:libc:malloc /pid == cpid && arg0 == 12345/ { @m = count(); @want[tid] = 1; }
	uretprobe:libc:malloc /@want[tid]/ { @live[retval] = 1; delete(@want[tid]); }
	uprobe:libc:free /@live[arg0]/ { @f = count(); delete(@live[arg0]); }
	END { clear(@live); clear(@want); }' -c "$TARGET alloc 50" 2>&1)
echo "$out"
[ "$(value @m "$out")" = 50 ] || fail "expected 50 mallocs of 12345 bytes"
[ "$(value @f "$out")" = 50 ] || fail "expected 50 frees of those blocks"
pass "50 mallocs and their 50 frees"
