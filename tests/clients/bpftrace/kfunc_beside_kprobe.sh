#!/bin/bash
# A BPF trampoline (kfunc:, fentry in libbpf's words) and a kprobe event
# on the same function, attached in both orders: ftrace gives a function
# one direct call, which the trampoline needs, so the probe must reach
# the function some other way.  Each of the 4 writes of the test
# module's parameter goes through param_attr_store() once, and both
# tools must count every one.
. ../lib.sh
need bpftrace
[ -f /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF (make clients builds it with FLAVOR=debuginfo)"
bpftrace --info 2>&1 | grep -Eq '(kfunc|fentry)[^:]*: *yes' ||
	skip "bpftrace finds no BPF trampolines (the kernel needs CONFIG_BPF_JIT)"
load_kernel_target
EV=kprobes/clients_beside
cleanup() {
	echo 0 > $TRACE/events/$EV/enable 2>/dev/null
	echo "-:$EV" >> $TRACE/kprobe_events 2>/dev/null
}
trap cleanup EXIT
# hits EVENT: the event's hit count in kprobe_profile.
hits() {
	awk -v e="${1#*/}" '$1 == e { print $2 }' $TRACE/kprobe_profile
}
probe_on() {
	echo "p:$EV param_attr_store" >> $TRACE/kprobe_events &&
		echo 1 > $TRACE/events/$EV/enable
}
prog='kfunc:param_attr_store /pid == cpid/ { @calls = count(); }'

# The kprobe first, the trampoline after it.
probe_on || fail "cannot add the kprobe event"
before=$(hits $EV)
out=$(bpftrace -e "$prog" -c "/bin/bash $CLIENTS/kcall 2 3 3 5" 2>&1)
echo "$out"
[ "$(value @calls "$out")" = 4 ] ||
	fail "the trampoline did not count 4 calls beside the kprobe"
[ $(($(hits $EV) - before)) -ge 4 ] || fail "the kprobe missed calls"
cleanup

# The trampoline first, the kprobe added while it is attached (by the
# command bpftrace starts once its program is in).
late=$(mktemp)
cat > "$late" <<EOS
echo "p:$EV param_attr_store" >> $TRACE/kprobe_events || exit 1
echo 1 > $TRACE/events/$EV/enable || exit 1
exec /bin/bash $CLIENTS/kcall 2 3 3 5
EOS
out=$(bpftrace -e "$prog" -c "/bin/bash $late" 2>&1)
rm -f "$late"
echo "$out"
[ "$(value @calls "$out")" = 4 ] ||
	fail "the trampoline did not count 4 calls with a kprobe added"
[ "$(hits $EV)" -ge 4 ] || fail "the kprobe added beside the trampoline missed calls"
pass "kfunc and kprobe on param_attr_store, both orders: 4 calls each"
