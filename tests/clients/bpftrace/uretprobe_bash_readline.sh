#!/bin/bash
# The classic: uretprobe:/bin/bash:readline, with an interactive bash on a
# pseudo-terminal reading three lines.  bpftrace 0.23 attaches a -c
# command's uprobes to that process alone, and the bash that reads is a
# grandchild of it: bpftrace runs on its own here, stopped with Ctrl-C
# once the lines were typed.
. ../lib.sh
need bpftrace
need script
o=/tmp/readline.out
# BEGIN runs once every probe is attached.
bpftrace -e 'BEGIN { printf("ready\n"); }
	uretprobe:/bin/bash:readline { @lines[str(retval)] = count(); }' > "$o" 2>&1 &
bt=$!
trap 'kill -9 $bt 2>/dev/null' EXIT
for i in $(seq 600); do
	grep -q '^ready' "$o" && break
	kill -0 $bt 2>/dev/null || break
	sleep 0.5
done
grep -q '^ready' "$o" || { cat "$o"; fail "bpftrace never attached"; }
printf 'echo one\necho two\necho three\nexit\n' |
	script -qec 'bash --norc -i' /dev/null > /dev/null
kill -INT $bt
wait $bt
out=$(cat "$o")
echo "$out"
for l in one two three; do
	[ "$(value "@lines[echo $l]" "$out")" = 1 ] || fail "did not see 'echo $l' once"
done
pass "readline returned the three lines typed"
