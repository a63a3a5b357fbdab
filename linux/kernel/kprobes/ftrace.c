// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes on ftrace call sites share one ftrace_ops whose filter holds the
 * probed sites; the ops is registered while at least one is armed.  It may
 * modify ip, because a pre_handler may redirect execution.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes_arch.h>
#include <linux/ftrace.h>

#include "internal.h"

static struct ftrace_ops kprobe_ftrace_ops = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static unsigned int kprobe_ftrace_armed;
/* Set when ftrace has shut down after an error: never touch it again. */
static bool kprobe_ftrace_dead;

int kprobe_ftrace_arm(struct kprobe *probe)
{
	unsigned long ip = (unsigned long)probe->addr;
	int ret;

	lockdep_assert_held(&probes_mutex);
	if (READ_ONCE(kprobe_ftrace_dead))
		return -ENODEV;
	ret = ftrace_set_filter_ip(&kprobe_ftrace_ops, ip, 0, 0);
	if (ret)
		return ret;
	if (!kprobe_ftrace_armed) {
		ret = register_ftrace_function(&kprobe_ftrace_ops);
		if (ret) {
			ftrace_set_filter_ip(&kprobe_ftrace_ops, ip, 1, 0);
			return ret;
		}
	}
	kprobe_ftrace_armed++;
	return 0;
}

int kprobe_ftrace_disarm(struct kprobe *probe)
{
	unsigned long ip = (unsigned long)probe->addr;
	int ret;

	lockdep_assert_held(&probes_mutex);
	if (READ_ONCE(kprobe_ftrace_dead))
		return -ENODEV;
	if (kprobe_ftrace_armed == 1) {
		ret = unregister_ftrace_function(&kprobe_ftrace_ops);
		if (ret)
			return ret;
	}
	kprobe_ftrace_armed--;
	return ftrace_set_filter_ip(&kprobe_ftrace_ops, ip, 1, 0);
}

/**
 * kprobe_ftrace_kill() - ftrace is going down; stop touching it
 *
 * Called by ftrace_kill() from any context, so it only sets a flag.
 */
void kprobe_ftrace_kill(void)
{
	WRITE_ONCE(kprobe_ftrace_dead, true);
}
