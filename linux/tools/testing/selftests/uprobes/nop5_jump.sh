#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probes on a 5-byte nop (x86_64).  Our kernel enters them, after the
# first hit, by a jump to a stub that makes a syscall instead of the
# breakpoint's trap (uprobes.nop5_jump).  Every hit is counted; a leaf
# function's red zone is intact across the probed nop; an entry and a
# return probe, fork, exec, threads and seccomp in both modes work on
# such a nop; signals taken on each instruction of the stub, with the
# probed function hit again from their handler, change nothing; with
# the knob off the nop keeps its breakpoint; a thread stopped in the
# stub before its syscall while the probe goes or is replaced comes back
# right; and once the probes are gone the nop is a nop again.  A kernel
# without the knob (upstream) runs the same calls and checks, then skips
# what is ours.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
[ "$(uname -m)" = x86_64 ] || ksft_skip "the nop5 jump is x86_64's"
KNOB=/sys/module/uprobes/parameters/nop5_jump
ours=0
[ -w "$KNOB" ] && ours=1 && echo 1 > "$KNOB"

# site_is WHAT BYTE: the last victim's probed nop began with BYTE.
site_is() {
	case $OUT in
	*"first=$2 "*) ;;
	*) ksft_fail "$1: the nop's first byte is not $2: $OUT" ;;
	esac
}

total=0
add_probe p rz uv_redzone_nop
ev_on rz

# The red zone: 1000 calls, each comparing sixteen words kept below the
# stack pointer across the probe.
OUT=$(UV_WORK=redzone "$VICTIM" nop5 1000 2>&1)
STATUS=$?
expect_ok "the red-zone leaf"
total=$((total + 1000))
expect_hits rz $total
[ $ours -eq 1 ] && site_is "after 1000 hits" e9
case $OUT in
*"stubs=yes"*) [ $ours -eq 1 ] || ksft_fail "a stub page without the knob" ;;
*) [ $ours -eq 0 ] || ksft_fail "no stub page mapped: $OUT" ;;
esac

# Threads, fork (the child runs the parent's jumps), exec.
OUT=$(UV_WORK=redzone "$VICTIM" threads 4 250 2>&1)
STATUS=$?
expect_ok "4 threads"
total=$((total + 1000))
expect_hits rz $total
OUT=$(UV_WORK=redzone "$VICTIM" fork 50 2>&1)
STATUS=$?
expect_ok "fork"
total=$((total + 150))
expect_hits rz $total
OUT=$(UV_WORK=redzone "$VICTIM" exec 2 50 2>&1)
STATUS=$?
expect_ok "exec"
total=$((total + 150))
expect_hits rz $total

# A SIGTRAP after each instruction: six stops in the stub per call (the
# jump's target, lea, three pushes, mov), each handler a hit of its own.
if [ $ours -eq 1 ]; then
	OUT=$(UV_WORK=redzone "$VICTIM" tfstep 100 2>&1)
	STATUS=$?
	expect_ok "the trap flag through the stub"
	steps=$(echo "$OUT" | sed -n 's/.*stub_steps=\([0-9]*\).*/\1/p')
	calls=$(echo "$OUT" | sed -n 's/.*step_calls=\([0-9]*\).*/\1/p')
	[ "$steps" = 600 ] ||
		ksft_fail "stopped ${steps:-never} times in the stub for 100 calls, expected 600"
	[ "$calls" = "$steps" ] || ksft_fail "the handler made $calls calls for $steps stops"
	total=$((total + 101 + calls))
	expect_hits rz $total
fi

# Held in the stub at its syscall, not yet in the kernel, while the
# probe goes, and then while a new probe takes its place: the call keeps
# its red zone and its value; the gone probe counts only the first call,
# which wrote the jump; the new one counts the held call (the nop is a
# nop again for a thread coming back from a stub whose probe went).
# stub_held NAME WHAT: run "stubhold" as the paced program NAME; while
# it waits in the stub the caller's change_probe changes the probes;
# WHAT names the case.
stub_held() {
	export UV_WORK=redzone
	start_paced "$1" 5 6 "$VICTIM" stubhold
	unset UV_WORK
	got=$(reply "$1")
	[ "$got" = instub ] ||
		ksft_fail "the victim did not stop at the stub's syscall: $got"
	change_probe
	send "$1"
	finish "$1"
	shift
	expect_ok "held in the stub ($1)"
	case $OUT in
	*"held=1 "*) ;;
	*) ksft_fail "$1: not held in the stub once: $OUT" ;;
	esac
}
if [ $ours -eq 1 ]; then
	change_probe() { ev_off rz; }
	stub_held held1 "the probe went"
	total=$((total + 1))
	expect_hits rz $total
	site_is "after the probe went under a thread in the stub" 0f

	ev_on rz
	add_probe p rz2 uv_redzone_nop
	change_probe() { ev_off rz; ev_on rz2; }
	stub_held held2 "a new probe came"
	total=$((total + 1))
	expect_hits rz $total
	expect_hits rz2 1
	# The new probe's breakpoint, or its jump if the held call trapped.
	case $OUT in
	*"first=cc "* | *"first=e9 "*) ;;
	*) ksft_fail "the new probe is not at the nop: $OUT" ;;
	esac
	ev_off rz2
	del_probe rz2
	ev_on rz
fi

# The knob off: a new process keeps the breakpoint, and counts the same.
if [ $ours -eq 1 ]; then
	echo 0 > "$KNOB"
	OUT=$(UV_WORK=redzone "$VICTIM" nop5 100 2>&1)
	STATUS=$?
	echo 1 > "$KNOB"
	expect_ok "the leaf with the knob off"
	site_is "with the knob off" cc
	total=$((total + 100))
	expect_hits rz $total
fi
ev_off rz

# An entry and a return probe on a function that begins with the nop.
want=$(UV_WORK=nop5 "$VICTIM" values 5 1)
add_probe p n5 uv_nop5 "x=$ARG1:u64"
add_probe r n5_ret uv_nop5 "ret=\$retval:u64"
ev_on n5 n5_ret
trace_clear
OUT=$(UV_WORK=nop5 "$VICTIM" values 5 1 2>&1)
STATUS=$?
expect_ok "entry and return"
[ "$OUT" = "$want" ] || ksft_fail "results changed under the probes: $OUT"
expect_lines n5 5
expect_lines n5_ret 5
args=$(trace_field n5 x | sort -n | tr '\n' ' ')
[ "$args" = "1 2 3 4 5 " ] || ksft_fail "arguments traced: $args, expected 1 to 5"
rets=$(trace_field n5_ret ret | sort -n | tr '\n' ' ')
[ "$rets" = "$(echo "$want" | sort -n | tr '\n' ' ')" ] ||
	ksft_fail "return values traced: $rets, the program got: $want"

# Seccomp: the stub's syscall is let through in both modes.
n5=5
for mode in seccomp seccomp-strict; do
	OUT=$(UV_WORK=nop5 "$VICTIM" $mode 10 2>&1)
	STATUS=$?
	[ $STATUS -eq 4 ] && continue
	expect_ok "$mode"
	n5=$((n5 + 10))
done
expect_hits n5 $n5
ev_off n5 n5_ret


# Gone: the nop is a nop again in a process that had the jump, and in a
# new one.
ev_on n5
export UV_WORK=nop5
start_paced hold 5 6 "$VICTIM" nop5 10 1
unset UV_WORK
[ "$(reply hold)" = ready ] || ksft_fail "the holding victim did not get ready"
expect_hits n5 $((n5 + 10))
ev_off n5
del_probe n5_ret
del_probe n5
finish hold
expect_ok "the holding victim"
[ $ours -eq 1 ] && site_is "while probed" e9
case $OUT in
*"after first=0f "*) ;;
*) ksft_fail "the nop did not come back in the holding victim: $OUT" ;;
esac
OUT=$(UV_WORK=nop5 "$VICTIM" nop5 10 2>&1)
STATUS=$?
expect_ok "after the probes went"
site_is "after the probes went" 0f
[ $ours -eq 1 ] ||
	ksft_skip "no uprobes.nop5_jump here (the checks above passed by the breakpoint)"
ksft_pass "$total hits on a red-zone leaf and $n5 on a function entry by the jump," \
	"across threads, fork, exec, seccomp and stub-stepping signals"
