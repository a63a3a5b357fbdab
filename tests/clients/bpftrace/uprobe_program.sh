#!/bin/bash
# uprobe and uretprobe on a function of a program: target_work(i) for
# i = 1..10 returns i * i + 7, 455 in all; the program's output unchanged.
. ../lib.sh
need bpftrace
want=$($TARGET work 10)
out=$(bpftrace -e "uprobe:$TARGET:target_work { @calls = count(); @args = sum(arg0); }
	uretprobe:$TARGET:target_work { @ret = sum(retval); }" -c "$TARGET work 10" 2>&1)
echo "$out"
[ "$(value @calls "$out")" = 10 ] || fail "expected 10 calls"
[ "$(value @args "$out")" = 55 ] || fail "expected arguments summing to 55"
[ "$(value @ret "$out")" = 455 ] || fail "expected return values summing to 455"
echo "$out" | grep -qx "$want" || fail "the program printed something else than '$want'"
pass "10 calls, arguments and return values as made, output unchanged"
