#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A breakpoint instruction the program runs itself, in memory it made
# execute-only (mprotect(PROT_EXEC): x86 protection keys, arm64 EPAN),
# in a process where a probe is armed.  It is no probe's, so the kernel
# must tell it from one by reading the text, which a plain user access
# cannot do there: each call has to end in the program's SIGTRAP, not
# in a thread that traps on the same instruction for ever.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
N=5

add_probe p xom uv_work
ev_on xom
OUT=$(timeout 20 "$VICTIM" xom $N 2>&1)
STATUS=$?
ev_off xom
[ $STATUS -eq 4 ] && ksft_skip "$OUT"
[ $STATUS -eq 0 ] ||
	ksft_fail "uprobe_victim xom exited with status $STATUS" \
		"(124 or 143: it hung on its own breakpoint): $OUT"
[ "$OUT" = "traps=$N" ] || ksft_fail "expected traps=$N, got: $OUT"
expect_hits xom 1
ksft_pass "$N breakpoints of the program's own in execute-only text" \
	"each raised its SIGTRAP"
