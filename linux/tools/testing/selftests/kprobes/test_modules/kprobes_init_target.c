// SPDX-License-Identifier: GPL-2.0
/*
 * Probes into a module's init text.  While it initialises, the module puts
 * a kprobe on one of its own __init functions and calls it; the hit count
 * and the result are exported as parameters.  Once the module is live its
 * init text is freed, so the probe must show up as [GONE]; it stays
 * registered until module exit, which unregisters it.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kprobes.h>

static int init_hits;
module_param(init_hits, int, 0444);
MODULE_PARM_DESC(init_hits, "hits of the init-text probe during init");

static int init_result;
module_param(init_result, int, 0444);
MODULE_PARM_DESC(init_result, "what the probed init function returned");

/* Its symbol goes with the init text; the list then shows the address. */
static char probed_at[20];
module_param_string(probed_at, probed_at, sizeof(probed_at), 0400);
MODULE_PARM_DESC(probed_at, "address of the probed init function, in hex");

static noinline int __init kprobes_init_work(int n)
{
	return n * 2 + 1;
}

static int count_hit(struct kprobe *kp, struct pt_regs *regs)
{
	init_hits++;
	return 0;
}

static struct kprobe init_probe = {
	.pre_handler = count_hit,
};

static int __init kprobes_init_target_init(void)
{
	int (*work)(int) = kprobes_init_work;
	int ret;

	/* Call through a pointer the compiler cannot see through. */
	OPTIMIZER_HIDE_VAR(work);

	init_probe.addr = (kprobe_opcode_t *)kprobes_init_work;
	ret = register_kprobe(&init_probe);
	if (ret) {
		pr_err("cannot probe my own init text: %d\n", ret);
		return ret;
	}
	snprintf(probed_at, sizeof(probed_at), "%lx",
		 (unsigned long)init_probe.addr);
	init_result = work(20);
	return 0;
}

static void __exit kprobes_init_target_exit(void)
{
	unregister_kprobe(&init_probe);
}

module_init(kprobes_init_target_init);
module_exit(kprobes_init_target_exit);
MODULE_DESCRIPTION("Probe target in module init text for the kprobes selftests");
MODULE_LICENSE("GPL");
