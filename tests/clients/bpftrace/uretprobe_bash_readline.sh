#!/bin/bash
# The classic: uretprobe:/bin/bash:readline, with an interactive bash on a
# pseudo-terminal reading three lines.
. ../lib.sh
need bpftrace
need script
cat > /tmp/readline.sh <<'EOS'
printf 'echo one\necho two\necho three\nexit\n' |
	script -qec 'bash --norc -i' /dev/null > /dev/null
EOS
out=$(bpftrace -e 'uretprobe:/bin/bash:readline { @lines[str(retval)] = count(); }' \
	-c "/bin/bash /tmp/readline.sh" 2>&1)
echo "$out"
for l in one two three; do
	[ "$(value "@lines[echo $l]" "$out")" = 1 ] || fail "did not see 'echo $l' once"
done
pass "readline returned the three lines typed"
