#!/bin/bash
# A probe on function+offset, at the first instruction boundary after the
# entry that the kernel accepts.
. ../lib.sh
need bpftrace
load_kernel_target
off=$(first_offset "$KFUNC") || fail "no offset in the body of $KFUNC takes a probe"
out=$(bpftrace --unsafe -e "kprobe:$KFUNC+$off { @calls = count(); }" \
	-c "/bin/bash $CLIENTS/kcall 1 2 3 4 5" 2>&1)
echo "$out"
[ "$(value @calls "$out")" = 5 ] || fail "expected 5 hits at $KFUNC+$off"
pass "$KFUNC+$off hit 5 times"
