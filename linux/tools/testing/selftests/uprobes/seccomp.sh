#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A process under seccomp calls a function with a return probe: first
# under a filter that kills it on any syscall but write, exit, exit_group
# and rt_sigreturn (when the kernel has seccomp filters), then in strict
# mode.  However the return is caught (on x86_64 a trampoline that makes
# a syscall of its own), the process lives on, exits normally and every
# return is seen with its value.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
N=10

want=$("$VICTIM" work $N)
add_probe p sc uv_work
add_probe r sc_ret uv_work "ret=\$retval:u64"
ev_on sc sc_ret
ran=0
skipped=
for mode in seccomp seccomp-strict; do
	trace_clear
	OUT=$("$VICTIM" $mode $N 2>&1)
	STATUS=$?
	if [ $STATUS -eq 4 ]; then
		echo "$OUT"
		skipped="$skipped $mode"
		continue
	fi
	expect_ok "uprobe_victim $mode"
	[ "$OUT" = "$want" ] || ksft_fail "$mode printed: $OUT, expected $want"
	expect_lines sc_ret $N
	ran=$((ran + 1))
done
ev_off sc sc_ret
[ $ran -gt 0 ] || ksft_skip "no seccomp in this kernel"
expect_hits sc $((ran * N))
ksft_pass "$N returns seen in each seccomp mode run;" \
	"${skipped:+not available:$skipped}"
