#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Threads spread over the CPUs (each pinned to one) call a probed function
# a known number of times: the probe counts every call, and every CPU's
# trace buffer holds exactly the calls of the threads pinned to it.
. "$(dirname "$0")/uprobe_lib.sh"
need_uprobes
THREADS=4
CALLS=150

add_probe p thr uv_work
ev_on thr
run_victim threads $THREADS $CALLS
ev_off thr
expect_ok "uprobe_victim threads"
total=$((THREADS * CALLS))
[ "$OUT" = "calls=$total" ] || ksft_fail "the threads report: $OUT"
expect_hits thr $total
expect_lines thr $total
ncpu=$(grep -c '^processor' /proc/cpuinfo)
[ "$ncpu" -ge 1 ] || ncpu=1
[ "$ncpu" -gt $THREADS ] && ncpu=$THREADS
# Thread i runs on CPU i % ncpu.
cpu=0
while [ $cpu -lt "$ncpu" ]; do
	on_cpu=$(( (THREADS - cpu + ncpu - 1) / ncpu ))
	per=$((on_cpu * CALLS))
	got=$(grep " $PFX""thr: " "$TRACE_DIR/trace" |
		grep -c "\[$(printf %03d $cpu)\]")
	[ "$got" -eq $per ] || ksft_fail "CPU $cpu traced $got hits, expected $per"
	cpu=$((cpu + 1))
done
ksft_pass "$THREADS threads on $ncpu CPUs, $total hits"
