// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample: report what a function of one process returns.
 *
 *   insmod uretprobe_example.ko pid=<pid> vaddr=<function address>
 *
 * The address is the function's first instruction in that process.
 * Each return is logged with the value returned and where to.
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
MODULE_PARM_DESC(vaddr, "address of the function in that process");

static atomic_long_t returns;

static void on_return(struct pid_uretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&returns);
	pr_info("thread %d: function at %#lx returned %ld (%#lx) to %#lx\n",
		task_pid_nr(current), ri->rp->u.vaddr,
		(long)regs_return_value(regs), regs_return_value(regs),
		ri->ret_addr);
}

static struct pid_uretprobe probe = {
	.handler = on_return,
};

static int __init uretprobe_example_init(void)
{
	int ret;

	probe.u.pid = pid;
	probe.u.vaddr = vaddr;
	ret = register_pid_uretprobe(&probe);
	if (ret) {
		pr_err("cannot probe the returns of %#lx in pid %d: error %d\n",
		       vaddr, pid, ret);
		return ret;
	}
	pr_info("probing the returns of %#lx in pid %d\n", vaddr, pid);
	return 0;
}

static void __exit uretprobe_example_exit(void)
{
	unregister_pid_uretprobe(&probe);
	pr_info("%ld returns seen\n", atomic_long_read(&returns));
}

module_init(uretprobe_example_init);
module_exit(uretprobe_example_exit);
MODULE_DESCRIPTION("Report the return values of a function of one process");
MODULE_LICENSE("GPL");
