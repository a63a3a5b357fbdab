#!/bin/bash
# A kprobe event with its argument, recorded by trace-cmd while 5 calls
# are made: 5 events in the report, with the arguments made.
. ../lib.sh
need trace-cmd
load_kernel_target
echo "p:kprobes/clients_tc $KFUNC n=\$arg1:s32" >> $TRACE/kprobe_events ||
	fail "cannot define the kprobe event"
trap 'echo "-:kprobes/clients_tc" >> $TRACE/kprobe_events' EXIT
cd /tmp && rm -f trace.dat
trace-cmd record -q -e kprobes:clients_tc -o /tmp/trace.dat "$CLIENTS/kcall" 11 12 13 14 15 \
	> /dev/null 2>&1 || fail "trace-cmd record failed"
out=$(trace-cmd report -i /tmp/trace.dat 2>&1)
echo "$out" | tail -n 8
[ "$(echo "$out" | grep -c 'clients_tc:')" = 5 ] || fail "expected 5 events"
for n in 11 12 13 14 15; do
	echo "$out" | grep -q "n=$n\$" || fail "no event with n=$n"
done
pass "5 events with the arguments made"
