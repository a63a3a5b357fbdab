#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A process under seccomp (a filter that kills it on any syscall but
# write, exit, exit_group and rt_sigreturn, then strict mode) calls a
# function with a return probe: however the return is caught (on x86_64
# a trampoline that makes a syscall of its own), the process lives on,
# exits normally and every return is seen.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
N=10

add_probe p sc uv_work
add_probe r sc_ret uv_work "ret=\$retval:u64"
ev_on sc sc_ret
for mode in seccomp seccomp-strict; do
	trace_clear
	run_victim $mode $N
	expect_ok "uprobe_victim $mode"
	[ "$OUT" = "sum=$("$VICTIM" work $N | sed 's/sum=//')" ] ||
		ksft_fail "$mode printed: $OUT"
	expect_lines sc_ret $N
done
ev_off sc sc_ret
expect_hits sc $((2 * N))
ksft_pass "$N returns seen under a seccomp filter and $N in strict mode"
