#!/bin/bash
# Runs in the Debian root of the client guest (see
# scripts/guest/clients-boot.sh): one KTAP suite per directory here
# (clients.bpftrace, clients.perf, ...), one case per script in it.  A
# case exits 0 (pass), 4 (skip) or anything else (fail), as kselftests do,
# and prints what it saw.
cd /harness || exit 1
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
ldconfig
export CLIENTS=/harness PROGS=/harness/programs
# Each case's bound: 300 s, or what the boot says (harness.case_timeout=,
# longer for the debug flavor, whose checks slow every tool down).
case_timeout=300
for arg in $(cat /proc/cmdline); do
	case "$arg" in harness.case_timeout=*) case_timeout=${arg#*=} ;; esac
done
suites=$(for d in */; do [ -f "${d}cases" ] && echo "${d%/}"; done)
echo "KTAP version 1"
echo "1..$(echo "$suites" | wc -w)"
si=0
for s in $suites; do
	si=$((si + 1))
	cases=$(grep -v '^#' "$s/cases")
	echo "    KTAP version 1"
	echo "    # Subtest: clients.$s"
	echo "    1..$(echo "$cases" | wc -w)"
	ci=0
	verdict=ok
	for c in $cases; do
		ci=$((ci + 1))
		out=$(cd "$s" && timeout "$case_timeout" bash "./$c.sh" 2>&1)
		rc=$?
		echo "$out" | sed 's/^/    # /'
		case $rc in
		0) echo "    ok $ci $c" ;;
		4) echo "    ok $ci $c # SKIP" ;;
		*) echo "    not ok $ci $c # exit code $rc"; verdict="not ok" ;;
		esac
	done
	echo "$verdict $si clients.$s"
done
