#!/bin/bash
# perf list shows the probes perf probe defined; perf probe -d removes
# them, from perf list and from the kernel's lists.
. ../lib.sh
. ../perf_lib.sh
load_kernel_target
perf probe -m "$KMOD" -a "$KFUNC" || fail "perf probe -a $KFUNC failed"
perf probe -x "$TARGET" -a target_work || fail "perf probe -x failed"
perf list 2>/dev/null | grep -q "probe:$KFUNC" || fail "perf list does not show probe:$KFUNC"
perf list 2>/dev/null | grep -q "probe_target:target_work" ||
	fail "perf list does not show probe_target:target_work"
grep -q "$KFUNC" /sys/kernel/debug/kprobes/list || fail "the kprobe is not in the kprobes list"
perf probe -q -d "probe:$KFUNC" || fail "perf probe -d probe:$KFUNC failed"
perf probe -q -d "probe_target:target_work" || fail "perf probe -d probe_target:target_work failed"
perf list 2>/dev/null | grep -q "probe:$KFUNC" && fail "probe:$KFUNC still listed"
grep -q "$KFUNC" /sys/kernel/debug/kprobes/list && fail "the kprobe is still registered"
grep -q target_work $TRACE/uprobe_events && fail "the uprobe event is still defined"
pass "listed while defined, gone after perf probe -d"
