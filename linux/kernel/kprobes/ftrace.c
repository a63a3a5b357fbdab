// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes on ftrace call sites share one ftrace_ops whose filter holds the
 * probed sites; the ops is registered while at least one is armed.
 *
 * It asks for full regs where ftrace can save them (DYNAMIC_FTRACE_WITH_REGS);
 * elsewhere the port builds them from ftrace_regs.  It does not claim
 * FTRACE_OPS_FL_IPMODIFY.  The handler gives the ip back as it found it
 * unless a pre_handler redirects, and a port's ftrace must honour such a
 * change from any ops (the contract in <linux/kprobes_arch.h>; BPF's
 * override and fail_function rely on it); claiming the flag would keep
 * probes off functions livepatch owns and make every filter update walk
 * all ftrace records once more.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/slab.h>
#include <kunit/static_stub.h>

#include "internal.h"

static struct ftrace_ops kprobe_ftrace_ops = {
	.func = kprobe_ftrace_handler,
	.flags = IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS) ?
		 FTRACE_OPS_FL_SAVE_REGS : 0,
};

static unsigned int kprobe_ftrace_armed;
/* Set when ftrace has shut down after an error: never touch it again. */
static bool kprobe_ftrace_dead;

/*
 * The filter takes addresses in an array; one on the stack covers a
 * single probe, a set gets one allocated.
 */
static unsigned long *ips_of(struct kprobe **kps, int n, unsigned long *one)
{
	unsigned long *ips = one;
	int i;

	if (n > 1) {
		ips = kvmalloc_array(n, sizeof(*ips), GFP_KERNEL);
		if (!ips)
			return NULL;
	}
	for (i = 0; i < n; i++)
		ips[i] = (unsigned long)kps[i]->addr;
	return ips;
}

static void free_ips(unsigned long *ips, unsigned long *one)
{
	if (ips != one)
		kvfree(ips);
}

/**
 * kprobe_ftrace_arm() - hook the ftrace call sites of @n probes
 * @kps: site probes on ftrace call sites
 * @n: how many
 *
 * One filter update for all of them (and the ops registered with them in
 * its filter, if none was hooked before).
 *
 * Return: 0, or ftrace's error: then none of them is hooked.
 */
int kprobe_ftrace_arm(struct kprobe **kps, int n)
{
	unsigned long one, *ips;
	int ret;

	/* Tests stand in for an ftrace that refuses. */
	KUNIT_STATIC_STUB_REDIRECT(kprobe_ftrace_arm, kps, n);
	lockdep_assert_held(&kprobes_mutex);
	if (READ_ONCE(kprobe_ftrace_dead))
		return -ENODEV;
	ips = ips_of(kps, n, &one);
	if (!ips)
		return -ENOMEM;
	ret = ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 0, 0);
	if (!ret && !kprobe_ftrace_armed) {
		ret = register_ftrace_function(&kprobe_ftrace_ops);
		if (ret)
			ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 1, 0);
	}
	if (!ret)
		kprobe_ftrace_armed += n;
	free_ips(ips, &one);
	return ret;
}

/**
 * kprobe_ftrace_disarm() - unhook the ftrace call sites of @n probes
 * @kps: hooked site probes
 * @n: how many
 *
 * Return: 0, -ENOMEM (nothing done: retry one by one) or ftrace's error.
 */
int kprobe_ftrace_disarm(struct kprobe **kps, int n)
{
	unsigned long one, *ips;
	int ret = 0;

	lockdep_assert_held(&kprobes_mutex);
	if (READ_ONCE(kprobe_ftrace_dead))
		return -ENODEV;
	ips = ips_of(kps, n, &one);
	if (!ips)
		return -ENOMEM;
	/* The last ones: unregistering first spares an update of the code. */
	if (kprobe_ftrace_armed == n)
		ret = unregister_ftrace_function(&kprobe_ftrace_ops);
	if (!ret) {
		kprobe_ftrace_armed -= n;
		ret = ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 1, 0);
	}
	free_ips(ips, &one);
	return ret;
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
