#!/bin/sh
# The benchmark job of the guest (harness=bench): load kprobes_bench.ko,
# feed it probe targets, run its commands and print its results as
# "BENCH <metric> <value> <unit>" lines for the host.
# Kernel command line: bench_scale=1000,10000 (registration sizes),
# bench_only=cmd,... (run only these commands; default all).
B=/sys/kernel/debug/kprobes_bench
OPT=/proc/sys/debug/kprobes-optimization

scale=1000,10000
only=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bench_scale=*) scale=${arg#bench_scale=} ;;
	bench_only=*) only=${arg#bench_only=} ;;
	esac
done

# Print what the module reported since the last call, so a run that dies
# later still leaves these results on the console.
report() {
	dmesg -c > /tmp/dmesg.new
	sed -n 's/.*kprobes_bench: RESULT /BENCH /p' /tmp/dmesg.new
	sed -n 's/.*kprobes_bench: INFO /BENCH-INFO /p' /tmp/dmesg.new
	grep 'kprobes_bench: ' /tmp/dmesg.new | grep -v 'RESULT\|INFO\|taints kernel' |
		sed 's/^/BENCH-ERROR /'
}

cmd() {
	case ",${only:-$1}," in *",$1,"*) ;; *) return ;; esac
	echo "BENCH-INFO running: $*"
	echo "$*" > $B/run || echo "BENCH-ERROR '$*' failed"
	report
}

echo "BENCH-INFO kernel $(uname -r)"
echo "BENCH-INFO arch $(uname -m)"
dmesg -n 1
dmesg -c > /dev/null
insmod /bench/kprobes_bench.ko || { echo "BENCH-ERROR cannot load the module"; exit 0; }
report

# Targets: traceable function entries with a unique name, not blacklisted,
# and not our own.
cut -d' ' -f1 /sys/kernel/tracing/available_filter_functions |
	grep -v '[.]' | sort | uniq -u > /tmp/funcs
awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist | sort -u > /tmp/black
grep -vxF -f /tmp/black /tmp/funcs | grep -v '^bench_\|kprobes_bench' > /tmp/targets
echo "BENCH-INFO targets $(wc -l < /tmp/targets)"
cat /tmp/targets > $B/targets

# bench_only=kprofile:KIND: 100000 calls under one kprobe kind and nothing
# else (the module's "prof" command), for scripts/profile.sh; body_off is
# the body probe with jump optimization off.
case "$only" in kprofile:*)
	k=${only#kprofile:}
	if [ "$k" = body_off ]; then
		echo 0 > $OPT
		k=body
	fi
	echo "BENCH-INFO running: prof $k"
	echo "prof $k 100000" > $B/run || echo "BENCH-ERROR 'prof $k' failed"
	report
	only=none
	;;
esac

cmd hits
if [ -n "$only" ] && ! echo ",$only," | grep -q ',body,'; then
	:
elif [ -w $OPT ]; then
	echo 0 > $OPT
	cmd body
	echo 1 > $OPT
else
	echo "BENCH-INFO no $OPT: the body probe is never optimized"
	cmd body
fi
for n in $(echo "$scale" | tr ',' ' '); do
	cmd reg "$n"
done
for n in $(echo "$scale" | tr ',' ' '); do
	cmd mem "$n"
done

rmmod kprobes_bench

# --- uprobes, through uprobe_events, from the user program's side ---
# Each figure is what a probe adds to one call of the probed function
# (under -icount, guest instructions): the call's time under the probe
# minus the same function's time unprobed, reported only when the
# probe's hit count (uprobe_profile) went up by exactly the calls made.
# bench_entry begins with a frame setup, bench_step with an add that
# upstream runs out of line (ours too on x86_64; on arm64 ours simulates
# it, so the mechanism column names upstream's way), bench_nop5 with a
# 5-byte nop (uprobe_on_nop5; uprobe_on_nop5_trap is ours with the jump
# turned off, the trap on the same nop).
# bench_only=uprofile:KIND (KIND entry, ret, entry+ret, step, none or
# arm) is a profiling aid, not a figure: 100000 calls under that probe and
# nothing else, for an instruction profile of the guest (QEMU's -plugin);
# "none" is the baseline to subtract, "arm" the 100-process arming alone.
uprobe_hits() {
	awk -v e="$1" '$2 == e { print $3 }' $T/uprobe_profile
}

uprobes_bench() {
	U=/bench/ubench
	T=/sys/kernel/tracing
	UE=$T/uprobe_events
	N=20000
	cases="entry ret entry+ret step nop5"
	# Ours on x86_64 enters a probe on a 5-byte nop by a jump; the same
	# nop with the jump turned off is the trap it replaces.
	knob=/sys/module/uprobes/parameters/nop5_jump
	[ -w $knob ] && cases="$cases nop5trap"
	case "$only" in uprofile:*) N=100000 cases=${only#uprofile:} ;; esac
	[ -x $U ] || { echo "BENCH-INFO no $U: no uprobe figures"; return; }
	[ -f $UE ] || mount -t tracefs none $T 2>/dev/null
	[ -f $UE ] || { echo "BENCH-INFO no uprobe_events: no uprobe figures"; return; }
	eval "$($U offsets | awk '{ print $1 "=" $2 }')"
	echo "p:ubench/entry $U:$entry" >> $UE &&
		echo "r:ubench/ret $U:$entry" >> $UE &&
		echo "p:ubench/step $U:$step" >> $UE &&
		echo "p:ubench/nop5 $U:$nop5" >> $UE ||
		{ echo "BENCH-ERROR cannot define the uprobes"; return; }
	echo 0 > $T/tracing_on

	base_entry=$($U loop entry $N)
	base_step=$($U loop step $N)
	base_nop5=$($U loop nop5 $N)
	if [ "$N" = 20000 ]; then
		echo "BENCH uprobe_unprobed_call $base_entry ns"
		echo "BENCH uprobe_unprobed_step_call $base_step ns"
	fi
	for c in $cases; do
		[ $c = arm ] && continue
		fn=entry base=$base_entry
		[ $c = step ] && fn=step base=$base_step
		case $c in nop5*) fn=nop5 base=$base_nop5 ;; esac
		events=$(echo $c | tr + ' ')
		[ $c = none ] && events=
		[ $c = nop5trap ] && events=nop5 && echo 0 > $knob
		before=
		for e in $events; do
			before="$before $(uprobe_hits $e)"
			echo 1 > $T/events/ubench/$e/enable
		done
		v=$($U loop $fn $N) || echo "BENCH-ERROR ubench loop $fn failed under $c"
		[ $c = nop5trap ] && echo 1 > $knob
		set -- $before
		ok=1
		for e in $events; do
			echo 0 > $T/events/ubench/$e/enable
			got=$(($(uprobe_hits $e) - $1))
			shift
			[ "$got" = "$N" ] && continue
			echo "BENCH-ERROR ubench/$e under $c: $got hits for $N calls: not reported"
			ok=0
		done
		[ $ok = 1 ] || continue
		m=
		case $c in
		entry) m=uprobe_entry mech=breakpoint ;;
		ret) m=uretprobe mech=breakpoint+trampoline ;;
		entry+ret) m=uprobe_plus_uretprobe mech=breakpoint+trampoline ;;
		step) m=uprobe_out_of_line mech=breakpoint+step ;;
		nop5) m=uprobe_on_nop5 mech=breakpoint
		      [ -w $knob ] && mech=jump+syscall ;;
		nop5trap) m=uprobe_on_nop5_trap mech=breakpoint ;;
		esac
		[ -n "$m" ] && [ "$N" = 20000 ] || continue
		echo "BENCH-INFO mech $m $mech"
		echo "BENCH $m $((v > base ? v - base : 0)) ns"
	done

	[ "$N" = 20000 ] && uprobes_threads_bench
	if [ "$N" = 20000 ] || [ "$cases" = arm ]; then
		uprobes_arm_bench
	fi
	[ "$N" = 20000 ] && uprobes_scoped_bench
	echo 1 > $T/tracing_on
	echo "-:ubench/entry" >> $UE
	echo "-:ubench/ret" >> $UE
	echo "-:ubench/step" >> $UE
	echo "-:ubench/nop5" >> $UE
}

# One and two threads of one process hitting the same probe at once, on
# two vCPUs: the cost per call of one thread.  With nothing shared on the
# hit path, two threads each pay what one does; a shared line or lock
# makes them wait for each other.  A wall-clock figure only: under
# -icount one host thread runs the vCPUs in turn (the report leaves it
# out of the icount table).
uprobes_threads_bench() {
	for c in entry step; do
		m=uprobe_entry
		[ $c = step ] && m=uprobe_out_of_line
		b1=$($U threads $c $N 1) && b2=$($U threads $c $N 2) ||
			{ echo "BENCH-ERROR ubench threads $c failed unprobed"; continue; }
		before=$(uprobe_hits $c)
		echo 1 > $T/events/ubench/$c/enable
		v1=$($U threads $c $N 1) && v2=$($U threads $c $N 2) ||
			echo "BENCH-ERROR ubench threads $c failed under the probe"
		echo 0 > $T/events/ubench/$c/enable
		got=$(($(uprobe_hits $c) - before))
		if [ "$got" != $((3 * N)) ]; then
			echo "BENCH-ERROR ubench/$c with threads: $got hits for $((3 * N)) calls: not reported"
			continue
		fi
		echo "BENCH ${m}_1_thread $((v1 > b1 ? v1 - b1 : 0)) ns"
		echo "BENCH ${m}_2_threads $((v2 > b2 ? v2 - b2 : 0)) ns"
	done
}

# "ubench_vaddr PID OFFSET": where file offset OFFSET of ubench is in
# process PID (once it runs ubench), in $va: its text mapping's start,
# plus the offset past the mapping's.  $m is the mapping, empty if none.
ubench_vaddr() {
	m= i=0
	while [ -z "$m" ] && [ $i -lt 1000 ]; do
		m=$(grep ' r-xp .*/bench/ubench$' /proc/$1/maps 2>/dev/null | head -n 1)
		i=$((i + 1))
	done
	va=0
	[ -n "$m" ] || return 0
	set -- $m "$2"
	va=$((0x${1%-*} + $7 - 0x$3))
}

# A probe meant for one process, and calls of the probed function in
# another process running the same file.  Ours scopes it with a process
# probe (bench/upid_bench.c): the breakpoint is only in the target's copy
# of the page.  6.12 has no such probe; the way to scope a uprobe event
# to one process there is an event filter on the pid, which every
# process mapping the file traps into before the filter says no.
uprobes_scoped_bench() {
	OWN=100
	mkfifo /tmp/ubench.scoped
	# The target calls the function OWN times once its stdin closes: the
	# probe must fire there, and only there.
	$U wait $OWN < /tmp/ubench.scoped &
	A=$!
	exec 8> /tmp/ubench.scoped
	ubench_vaddr $A $entry
	before=$(uprobe_hits entry)
	P=/sys/module/upid_bench/parameters/hits
	if [ -z "$m" ]; then
		echo "BENCH-ERROR no text mapping of ubench in process $A"
		how=
	elif [ -f /bench/upid_bench.ko ]; then
		how="process probe"
		insmod /bench/upid_bench.ko pid=$A vaddr=$va ||
			{ echo "BENCH-ERROR cannot load upid_bench.ko"; how=; }
	else
		how="event filter"
		echo "common_pid == $A" > $T/events/ubench/entry/filter &&
			echo 1 > $T/events/ubench/entry/enable || how=
	fi
	if [ -n "$how" ]; then
		v=$($U loop entry $N) || echo "BENCH-ERROR ubench loop under the scoped probe failed"
	fi
	# The timed process's calls trapped (event filter) or did not (process
	# probe); then the target's own calls must all hit.
	[ "$how" = "process probe" ] && other=$(cat $P)
	exec 8>&-
	wait $A || echo "BENCH-ERROR the scoped probe's target got a wrong result"
	case "$how" in
	"process probe")
		own=$(($(cat $P) - other))
		want_other=0
		;;
	"event filter")
		own=$(($(uprobe_hits entry) - before - N))
		other=$N
		want_other=$N
		;;
	esac
	if [ -n "$how" ]; then
		if [ "$own" = "$OWN" ] && [ "$other" = "$want_other" ]; then
			echo "BENCH-INFO mech uprobe_scoped_other_process $(echo $how | tr ' ' -)"
			echo "BENCH-INFO uprobe_scoped_other_process: scoped by $how; hits: $other in the timed process, $own of $OWN in the target"
			echo "BENCH uprobe_scoped_other_process $((v > base_entry ? v - base_entry : 0)) ns"
		else
			echo "BENCH-ERROR uprobe_scoped_other_process ($how): $other hits in the timed process (want $want_other), $own of $OWN in the target: not reported"
		fi
	fi
	rmmod upid_bench 2>/dev/null
	echo 0 > $T/events/ubench/entry/enable
	echo 0 > $T/events/ubench/entry/filter
	rm -f /tmp/ubench.scoped
}

# Arming one probe in a file that 100 processes map.
uprobes_arm_bench() {
	mkfifo /tmp/ubench.fifo
	i=0
	while [ $i -lt 100 ]; do $U wait < /tmp/ubench.fifo & i=$((i + 1)); done
	exec 9> /tmp/ubench.fifo
	n=0
	while [ "$n" -lt 100 ]; do
		n=$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' | grep -c '^wait$')
	done
	v=$($U timed-write $T/events/ubench/entry/enable 1)
	echo "BENCH uprobe_arm_in_100_processes $((v / 1000)) us"
	v=$($U timed-write $T/events/ubench/entry/enable 0)
	echo "BENCH uprobe_disarm_in_100_processes $((v / 1000)) us"
	exec 9>&-
	wait
	rm -f /tmp/ubench.fifo
}
# bench_only=pprofile:KIND, the process probe's profile: a target process
# makes 100000 calls of bench_entry under a probe meant for it alone, a
# process probe (upid_bench.ko) on ours, an event filtered on its pid on
# 6.12 (KIND pid); or the same with the probe on bench_step, which the
# target never calls (KIND none: the baseline, with the same module load
# and arming).
pid_profile() {
	U=/bench/ubench
	T=/sys/kernel/tracing
	N=100000
	[ -f $T/uprobe_events ] || mount -t tracefs none $T 2>/dev/null
	eval "$($U offsets | awk '{ print $1 "=" $2 }')"
	at=$entry ev=entry
	[ "$1" = none ] && at=$step ev=step
	echo "p:ubench/$ev $U:$at" >> $T/uprobe_events ||
		{ echo "BENCH-ERROR cannot define the uprobe"; return; }
	echo 0 > $T/tracing_on
	mkfifo /tmp/ubench.pid
	$U wait $N < /tmp/ubench.pid &
	A=$!
	exec 8> /tmp/ubench.pid
	ubench_vaddr $A $at
	P=/sys/module/upid_bench/parameters/hits
	if [ -z "$m" ]; then
		echo "BENCH-ERROR no text mapping of ubench in process $A"
	elif [ -f /bench/upid_bench.ko ]; then
		insmod /bench/upid_bench.ko pid=$A vaddr=$va ||
			echo "BENCH-ERROR cannot load upid_bench.ko"
	else
		P=
		echo "common_pid == $A" > $T/events/ubench/$ev/filter &&
			echo 1 > $T/events/ubench/$ev/enable ||
			echo "BENCH-ERROR cannot scope ubench/$ev to process $A"
	fi
	exec 8>&-
	wait $A || echo "BENCH-ERROR the process probe's target got a wrong result"
	if [ -n "$P" ]; then
		got=$(cat $P 2>/dev/null)
	else
		got=$(uprobe_hits $ev)
	fi
	want=$N
	[ "$ev" = step ] && want=0
	[ "${got:-x}" = "$want" ] ||
		echo "BENCH-ERROR pprofile:$1: $got hits, not $want"
	echo "BENCH-INFO prof pprofile:$1: $got hits"
	rmmod upid_bench 2>/dev/null
	echo 0 > $T/events/ubench/$ev/enable 2>/dev/null
	echo "-:ubench/$ev" >> $T/uprobe_events
	rm -f /tmp/ubench.pid
}

case ",${only:-uprobes}," in *,uprobes,* | ,uprofile:*) uprobes_bench ;; esac
case "$only" in pprofile:*) pid_profile "${only#pprofile:}" ;; esac
