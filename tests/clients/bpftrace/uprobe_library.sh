#!/bin/bash
# uprobe on a function of a shared library of ours: lib_work(i), i = 1..10,
# returns 3 * i + 1, 175 in all.
. ../lib.sh
need bpftrace
out=$(bpftrace -e "uprobe:$LIBTARGET:lib_work { @calls = count(); }
	uretprobe:$LIBTARGET:lib_work { @ret = sum(retval); }" -c "$TARGET work 10" 2>&1)
echo "$out"
[ "$(value @calls "$out")" = 10 ] || fail "expected 10 calls"
[ "$(value @ret "$out")" = 175 ] || fail "expected return values summing to 175"
pass "10 calls in the library, return values as made"
