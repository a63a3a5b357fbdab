#!/bin/bash
# A uprobe event on a program's function, recorded by trace-cmd while the
# program makes 8 calls.
. ../lib.sh
need trace-cmd
addr=$(nm "$TARGET" | awk '$3 == "target_work" { print $1 }')
[ -n "$addr" ] || fail "no target_work in $TARGET"
# An executable's symbol value is its file offset plus the text segment's
# difference between address and offset.
off=$(readelf -lW "$TARGET" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')
set -- $off
fileoff=$(printf '0x%x' $((0x$addr - $2 + $1)))
echo "p:uprobes/clients_tcu $TARGET:$fileoff" >> $TRACE/uprobe_events ||
	fail "cannot define the uprobe event at $TARGET:$fileoff"
trap 'echo "-:uprobes/clients_tcu" >> $TRACE/uprobe_events' EXIT
cd /tmp && rm -f trace.dat
trace-cmd record -q -e uprobes:clients_tcu -o /tmp/trace.dat "$TARGET" work 8 \
	> /dev/null 2>&1 || fail "trace-cmd record failed"
out=$(trace-cmd report -i /tmp/trace.dat 2>&1)
echo "$out" | tail -n 4
[ "$(echo "$out" | grep -c 'clients_tcu:')" = 8 ] || fail "expected 8 events"
pass "8 events"
