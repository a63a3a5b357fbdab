// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sample: a kprobe on a kernel function that reports every call.
 *
 * By default it watches kernel_clone(), which every fork() reaches:
 *   modprobe kprobe_example [symbol=<function>]
 * and the calls show up in the kernel log.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, sizeof(symbol), 0644);
MODULE_PARM_DESC(symbol, "function to probe (default kernel_clone)");

/* Before the probed instruction: registers as the function sees them. */
static int __kprobes before(struct kprobe *kp, struct pt_regs *regs)
{
	pr_info("<%s> hit at %pS, first argument %lx, stack %lx\n",
		kp->symbol_name, (void *)instruction_pointer(regs),
		regs_get_kernel_argument(regs, 0), kernel_stack_pointer(regs));
	/* 0: let the probed instruction run as usual. */
	return 0;
}

/* After the probed instruction ran. */
static void __kprobes after(struct kprobe *kp, struct pt_regs *regs,
			    unsigned long flags)
{
	pr_info("<%s> done, next ip %pS\n", kp->symbol_name,
		(void *)instruction_pointer(regs));
}

static struct kprobe probe = {
	.symbol_name = symbol,
	.pre_handler = before,
	.post_handler = after,
};

static int __init kprobe_example_init(void)
{
	int ret = register_kprobe(&probe);

	if (ret) {
		pr_err("cannot probe %s: error %d\n", symbol, ret);
		return ret;
	}
	pr_info("probing %s at %pS\n", symbol, probe.addr);
	return 0;
}

static void __exit kprobe_example_exit(void)
{
	unregister_kprobe(&probe);
	pr_info("stopped probing %s (%lu hits missed)\n", symbol,
		probe.nmissed);
}

module_init(kprobe_example_init);
module_exit(kprobe_example_exit);
MODULE_DESCRIPTION("Sample: report every call of a kernel function with a kprobe");
MODULE_LICENSE("GPL");
