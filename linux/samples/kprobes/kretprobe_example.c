// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample: a kretprobe that reports what a function returned and how long
 * each call took.
 *
 *   modprobe kretprobe_example [func=<function>]
 *
 * The entry handler stores the start time in the instance's private data;
 * the return handler reads it back with the return value.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/sched.h>

static char func[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func, sizeof(func), 0644);
MODULE_PARM_DESC(func, "function whose returns to report (default kernel_clone)");

struct call_start {
	ktime_t when;
};

static int on_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_start *start = (struct call_start *)ri->data;

	/* Kernel threads are not interesting here: skip their calls. */
	if (!current->mm)
		return 1;
	start->when = ktime_get();
	return 0;
}
NOKPROBE_SYMBOL(on_entry);

static int on_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_start *start = (struct call_start *)ri->data;
	s64 took = ktime_to_ns(ktime_sub(ktime_get(), start->when));

	pr_info("%s returned %ld after %lld ns (called from %pS)\n", func,
		regs_return_value(regs), took,
		(void *)get_kretprobe_retaddr(ri));
	return 0;
}
NOKPROBE_SYMBOL(on_return);

static struct kretprobe watch = {
	.kp.symbol_name = func,
	.handler = on_return,
	.entry_handler = on_entry,
	.data_size = sizeof(struct call_start),
	/* Enough for every CPU to be inside the function a few times. */
	.maxactive = 20,
};

static int __init kretprobe_example_init(void)
{
	int ret = register_kretprobe(&watch);

	if (ret) {
		pr_err("cannot watch returns of %s: error %d\n", func, ret);
		return ret;
	}
	pr_info("watching returns of %s at %pS\n", func, watch.kp.addr);
	return 0;
}

static void __exit kretprobe_example_exit(void)
{
	unregister_kretprobe(&watch);
	pr_info("stopped watching %s; %d calls were not watched (no free instance)\n",
		func, watch.nmissed);
}

module_init(kretprobe_example_init);
module_exit(kretprobe_example_exit);
MODULE_DESCRIPTION("Sample: report a function's return values with a kretprobe");
MODULE_LICENSE("GPL");
