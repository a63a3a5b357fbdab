// SPDX-License-Identifier: GPL-2.0
/*
 * A probe scoped to one process, for the uprobe benchmark
 * (scripts/guest/bench.sh): registered on load at @vaddr of process
 * @pid with a handler that only counts, unregistered on unload.  The
 * benchmark times calls of the probed function in another process that
 * runs the same file: with the breakpoint only in @pid's copy of the
 * page, they never trap.  Built for kernels with process probes only.
 */
#include <linux/module.h>
#include <linux/uprobes.h>

static int pid;
module_param(pid, int, 0444);
static ulong vaddr;
module_param(vaddr, ulong, 0444);
static int hits;
module_param(hits, int, 0444);

/*
 * The target is one thread, so the count needs no atomic: the profile
 * (scripts/profile.sh pid) counts the atomics of the hit path, and a
 * handler's own would be charged to it.
 */
static void count_hit(struct pid_uprobe *u, struct pt_regs *regs)
{
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
}

static struct pid_uprobe probe = {
	.handler = count_hit,
};

static int __init upid_bench_init(void)
{
	probe.pid = pid;
	probe.vaddr = vaddr;
	return register_pid_uprobe(&probe);
}

static void __exit upid_bench_exit(void)
{
	unregister_pid_uprobe(&probe);
}

module_init(upid_bench_init);
module_exit(upid_bench_exit);
MODULE_DESCRIPTION("A process-scoped uprobe for the uprobe benchmark");
MODULE_LICENSE("GPL");
