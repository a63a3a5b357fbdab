#!/bin/sh
# `make torture` inside the guest: the long kprobetorture run, then the
# fault-injection and bad-input sweeps, then a kmemleak scan, each printed
# as a case of one KTAP suite ("torture") for verdict.py.  The KUnit
# fault sweep (fault_kunit.sh loads it) prints its own suite as well.
# usage: torture.sh SECONDS
d=${1:-600}
ksft=/tests/kselftest
n=0
verdict=ok
results=

# case_of COLLECTION SCRIPT [VAR=value...]: run a kselftest script of
# the kprobes or uprobes collection as one case.
case_of() {
	dir=$ksft/$1
	name=$2
	shift 2
	n=$((n + 1))
	# Every script here is built into every torture initramfs.
	if [ ! -x "$dir/$name" ]; then
		results="$results
    not ok $n $name # not built"
		verdict="not ok"
		return
	fi
	out=$(cd "$dir" && env "$@" timeout $((d + 900)) "./$name" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/    # /'
	case $rc in
	0) line="ok $n $name" ;;
	4) line="ok $n $name # SKIP" ;;
	*) line="not ok $n $name # exit code $rc"; verdict="not ok" ;;
	esac
	results="$results
    $line"
}

# Unreferenced objects kmemleak finds once the runs are over.  Only those
# allocated on our paths fail the run; any other is shown, as a comment.
# The case exists where the flavor has kmemleak (KMEMLEAK_REQUIRED, from
# `make torture`), and fails if the kernel then lacks it.
probe_paths='kprobe|uprobe|rethook|kretprobe|torture|trace_probe|optprobe'
kmemleak_case() {
	if [ "${KMEMLEAK_REQUIRED:-0}" != 1 ]; then
		echo "    # kmemleak: not in this flavor, leaks not checked"
		return
	fi
	n=$((n + 1))
	f=/sys/kernel/debug/kmemleak
	if [ ! -e $f ]; then
		results="$results
    not ok $n kmemleak # no $f in this kernel"
		verdict="not ok"
		return
	fi
	# An object is reported once it has gone unreferenced for a while:
	# scan, let the young ones age, scan again.
	echo scan > $f
	sleep 6
	echo scan > $f
	cat $f > /tmp/kmemleak.txt
	total=$(grep -c '^unreferenced object' /tmp/kmemleak.txt)
	# Backtrace lines only: a comm such as "uprobe_torture_" in an
	# object's header says who ran, not what leaked.
	ours=$(grep -E '^[[:space:]]*\[<' /tmp/kmemleak.txt | grep -c -E "$probe_paths")
	sed 's/^/    # /' /tmp/kmemleak.txt | head -n 300
	echo "    # kmemleak: $total unreferenced objects, $ours backtrace lines on probe paths"
	if [ "$ours" -gt 0 ]; then
		results="$results
    not ok $n kmemleak # objects leaked on probe paths"
		verdict="not ok"
	else
		results="$results
    ok $n kmemleak"
	fi
}

echo "    KTAP version 1"
echo "    # Subtest: torture"
echo "    # duration $d s"
case_of kprobes torture.sh KPROBETORTURE_DURATION="$d" KPROBETORTURE_CHECK_POST=1
case_of uprobes uprobe_torture.sh UPROBE_TORTURE_DURATION="$d"
case_of kprobes fault_kunit.sh
case_of kprobes fault_sweep.sh
case_of kprobes hostile_args.sh HOSTILE_WAIT=600
case_of kprobes probe_fuzz.sh PROBE_FUZZ_SECONDS=$((d / 4 + 30)) PROBE_FUZZ_COUNT=$((d * 40 + 4000))
kmemleak_case
echo "    1..$n"
echo "$results" | sed '/^$/d'
echo "$verdict 1 torture"
