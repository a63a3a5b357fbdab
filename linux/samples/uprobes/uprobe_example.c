// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample: count how often one process runs one of its instructions.
 *
 *   insmod uprobe_example.ko pid=<pid> vaddr=<address> [verbose=0]
 *
 * The address is where the instruction is in that process (for a
 * function, its address from nm plus the load address of the program or
 * library, as /proc/<pid>/maps shows).  Every hit is logged unless
 * verbose=0, and the total when the module is removed.  Other processes
 * running the same program are not affected.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uprobes.h>

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "process to probe");

static unsigned long vaddr;
module_param(vaddr, ulong, 0444);
MODULE_PARM_DESC(vaddr, "address of the instruction in that process");

static bool verbose = true;
module_param(verbose, bool, 0644);
MODULE_PARM_DESC(verbose, "log every hit (default yes)");

static atomic_long_t hits;

/* Runs in the thread that hit, before the instruction; it may sleep. */
static void on_hit(struct pid_uprobe *u, struct pt_regs *regs)
{
	long n = atomic_long_inc_return(&hits);

	if (verbose)
		pr_info("hit %ld: thread %d at %#lx, stack %#lx\n", n,
			task_pid_nr(current), instruction_pointer(regs),
			user_stack_pointer(regs));
}

static struct pid_uprobe probe = {
	.handler = on_hit,
};

static int __init uprobe_example_init(void)
{
	int ret;

	probe.pid = pid;
	probe.vaddr = vaddr;
	ret = register_pid_uprobe(&probe);
	if (ret) {
		pr_err("cannot probe %#lx in pid %d: error %d\n", vaddr, pid, ret);
		return ret;
	}
	pr_info("probing %#lx in pid %d\n", vaddr, pid);
	return 0;
}

static void __exit uprobe_example_exit(void)
{
	/* Nothing happens if the process is gone: its probe went with it. */
	unregister_pid_uprobe(&probe);
	pr_info("%#lx in pid %d was hit %ld times\n", vaddr, pid,
		atomic_long_read(&hits));
}

module_init(uprobe_example_init);
module_exit(uprobe_example_exit);
MODULE_DESCRIPTION("Count the hits of a uprobe on one process");
MODULE_LICENSE("GPL");
