#!/bin/sh
# `make run`: load the kprobes samples, make them fire, show what they
# printed and what /sys/kernel/debug/kprobes/list says about them.

banner() { echo; echo "==== $*"; }

banner "kernel $(uname -r) on $(uname -m)"
dmesg -c >/dev/null

for m in kprobe_example kretprobe_example; do
	banner "modprobe $m"
	modprobe "$m" || echo "modprobe $m failed"
done

banner "/sys/kernel/debug/kprobes/list"
cat /sys/kernel/debug/kprobes/list

banner "triggering: three fork()s (both samples probe kernel_clone)"
for i in 1 2 3; do /bin/true; done

banner "what the samples printed"
dmesg -c

for m in kretprobe_example kprobe_example; do
	rmmod "$m"
done
banner "after rmmod"
dmesg -c
echo "list now: $(wc -l < /sys/kernel/debug/kprobes/list) probe(s)"
