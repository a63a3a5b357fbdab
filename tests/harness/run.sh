#!/bin/bash
# Self-test of scripts/verdict.py: each fixture log must get the verdict its
# name promises, so a harness bug cannot turn a broken kernel green.
cd "$(dirname "$0")" || exit 1
v=../../scripts/verdict.py
rc=0
for log in *.log; do
	want=1
	case $log in pass*) want=0 ;; esac
	python3 "$v" "fixture:$log:expect" > /dev/null
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "verdict self-test: $log gave exit $got, expected $want"
		rc=1
	fi
done
line=$(python3 "$v" "fixture:pass.log:expect" | tail -n1)
if [ "$line" != "3 passed, 0 failed" ]; then
	echo "verdict self-test: pass.log summary is '$line'"
	rc=1
fi
line=$(python3 "$v" --extra-failed 2 "fixture:pass.log:expect" | tail -n1)
if [ "$line" != "3 passed, 2 failed" ]; then
	echo "verdict self-test: --extra-failed summary is '$line'"
	rc=1
fi
# The lists: an entry without a reason fails the run, and a skip that
# pass.log declares in skip/ is not excused by another arch's list.
tmp=$(mktemp -d)
mkdir "$tmp/expect" "$tmp/skip"
cp expect "$tmp/expect/fixture"
printf '# A reason, then a blank line that ends it.\n\nsuite_a: case_param\n' \
	> "$tmp/skip/fixture"
if python3 "$v" "fixture:pass.log:$tmp/expect/fixture" > "$tmp/out"; then
	echo "verdict self-test: a skip entry without a reason was accepted"
	rc=1
elif ! grep -q "has no reason" "$tmp/out"; then
	echo "verdict self-test: the reasonless entry failed for another cause:"
	cat "$tmp/out"
	rc=1
fi
# --any-skip (the boots of series prefixes, which have no lists) lets a
# skip through, and nothing else.
: > "$tmp/expect/fixture"
rm -f "$tmp/skip/fixture"
for f in exit4-skip:0 crash:1 failed-case:1 timeout:1 orphans:1; do
	python3 "$v" --any-skip "fixture:${f%%:*}.log:$tmp/expect/fixture" > /dev/null
	got=$?
	if [ "$got" -ne "${f#*:}" ]; then
		echo "verdict self-test: --any-skip gave ${f%%:*}.log exit $got, expected ${f#*:}"
		rc=1
	fi
done
rm -rf "$tmp"
# An entry limited by label words: "!defconfig" excuses the case on every
# boot but a FLAVOR=defconfig one, "defconfig" on that one only.
tmp=$(mktemp -d)
mkdir "$tmp/expect" "$tmp/skip" "$tmp/xfail"
cp expect "$tmp/expect/fixture"
cp skip/expect "$tmp/skip/fixture"
for f in '!defconfig:fixture:0' '!defconfig:fixture defconfig:1' \
	'defconfig:fixture defconfig:0' 'defconfig:fixture:1' \
	'ours,!defconfig:fixture ours:0' 'ours,!defconfig:fixture upstream:1'; do
	words=${f%%:*}
	rest=${f#*:}
	printf '# Fixture: label words %s.\n%s kselftest.demo: demo.sh\n' "$words" "$words" \
		> "$tmp/xfail/fixture"
	python3 "$v" "${rest%:*}:pass-xfail.log:$tmp/expect/fixture" > /dev/null
	got=$?
	if [ "$got" -ne "${rest##*:}" ]; then
		echo "verdict self-test: xfail entry '$words' on label '${rest%:*}' gave exit $got, expected ${rest##*:}"
		rc=1
	fi
done
rm -rf "$tmp"
# Each failing fixture fails for its own reason, not by accident.
for f in exit4-skip:"unexpected skip" all-skip:"unexpected skip" \
	xpass:XPASS xfail-short-plan:"plan said 2" plan-mismatch:"plan said 4" \
	orphans:"no result for the suite" suite-skip:"whole suite skipped" \
	self-stall:"self-detected stall"; do
	# Read it all: grep -q would close the pipe on a verdict still printing.
	said=$(python3 "$v" "fixture:${f%%:*}.log:expect")
	if ! printf '%s\n' "$said" | grep -q "${f#*:}"; then
		echo "verdict self-test: ${f%%:*}.log does not say '${f#*:}'"
		rc=1
	fi
done
# The KCSAN sorter: a report it cannot place counts as ours (both
# accesses parsed, the module one with its module), never as somebody
# else's.
tmp=$(mktemp -d)
printf 'kernel/kprobes/core.c\n' > "$tmp/files"
python3 ../../scripts/kcsan_reports.py --log kcsan-unsorted.log --objtree "$tmp" \
	--files "$tmp/files" --out "$tmp/sorted" > /dev/null
want="ours data-race in demo_reader / demo_writer :: demo_writer+0x1c/0x40 (unresolved);"
want="$want demo_reader+0x12/0x30 [demo_mod] (unresolved)"
if [ "$(cat "$tmp/sorted")" != "$want" ]; then
	echo "verdict self-test: kcsan_reports.py sorted kcsan-unsorted.log as: $(cat "$tmp/sorted")"
	rc=1
fi
# A boot whose detector never came on fails rather than reads clean.
python3 ../../scripts/kcsan_reports.py --log pass.log --objtree "$tmp" \
	--files "$tmp/files" --out "$tmp/sorted" > /dev/null
if ! grep -q "^ours KCSAN was not on" "$tmp/sorted"; then
	echo "verdict self-test: kcsan_reports.py took a boot without KCSAN as clean"
	rc=1
fi
rm -rf "$tmp"
[ $rc -eq 0 ] && echo "verdict self-test: $(ls *.log | wc -l) fixtures ok"
exit $rc
