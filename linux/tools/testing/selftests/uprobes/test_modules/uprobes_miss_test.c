// SPDX-License-Identifier: GPL-2.0
/*
 * A hit whose probe lookup misses while the text changes under it
 * (uprobe_miss.sh drives it; needs CONFIG_UPROBES_RACE_HOOKS).
 *
 * A thread traps on probe A's breakpoint.  Held before its lookup, it
 * loses A: "drop" and "swap" unregister A, which unhashes it, and let
 * the lookup go, which then finds nothing.  Held again after that miss,
 * before the hit reads the text back to tell a breakpoint of ours from
 * the program's own: "drop" lets it go at once (the breakpoint is gone:
 * the instruction runs again, unprobed); "swap" first registers probe B
 * at the same file offset, whose breakpoint the read then sees.  That
 * breakpoint is B's, not the program's: the hit must find B and run it,
 * not send SIGTRAP.
 *
 * Parameters name the process and an address in its text; "cmd" acts:
 *   arm    registers A on the file and offset behind that address
 *   hook   holds the next hit of the process at that address
 *   drop, swap  as above, once the hit is held
 * The read-only parameters report what happened.
 */
#include <linux/completion.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/uprobes.h>

#include "uprobe_file_at.h"

static int pid;
module_param(pid, int, 0644);
static ulong vaddr;
module_param(vaddr, ulong, 0644);

static atomic_t a_hits, b_hits, timeouts;
static int arm_result = 1, hook_result = 1, window_result = 1, points;
module_param_named(a_hits, a_hits.counter, int, 0444);
module_param_named(b_hits, b_hits.counter, int, 0444);
/* Holds that ran out before the other side let them go. */
module_param_named(timeouts, timeouts.counter, int, 0444);
module_param(arm_result, int, 0444);
module_param(hook_result, int, 0444);
module_param(window_result, int, 0444);
/* Bit n: the held hit passed enum uprobe_race_point n. */
module_param(points, int, 0444);

#define HOLD_JIFFIES	(10 * HZ)

static atomic_t want_before, want_miss;
static DECLARE_COMPLETION(at_before);
static DECLARE_COMPLETION(go_lookup);
static DECLARE_COMPLETION(at_miss);
static DECLARE_COMPLETION(go_read);

static int count_a(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	atomic_inc(&a_hits);
	return 0;
}

static int count_b(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	atomic_inc(&b_hits);
	return 0;
}

static struct uprobe_consumer consumer_a = { .handler = count_a };
static struct uprobe_consumer consumer_b = { .handler = count_b };
static struct uprobe *probe_a, *probe_b;
static bool hooked;

/* Tell the other side we are here, then sleep until it is done. */
static void hold(struct completion *here, struct completion *go)
{
	complete(here);
	if (!wait_for_completion_timeout(go, HOLD_JIFFIES))
		atomic_inc(&timeouts);
}

static void race_hook(enum uprobe_race_point point, unsigned long addr)
{
	if (current->tgid != READ_ONCE(pid) || addr != READ_ONCE(vaddr))
		return;
	WRITE_ONCE(points, READ_ONCE(points) | BIT(point));
	if (point == UPROBE_RACE_BEFORE_LOOKUP && atomic_xchg(&want_before, 0))
		hold(&at_before, &go_lookup);
	else if (point == UPROBE_RACE_AFTER_MISS && atomic_xchg(&want_miss, 0))
		hold(&at_miss, &go_read);
}

static struct uprobe *register_at(struct uprobe_consumer *uc)
{
	struct uprobe *probe;
	struct file *file;
	loff_t offset;

	file = uprobe_file_at(pid, vaddr, &offset);
	if (!file)
		return ERR_PTR(-ESRCH);
	probe = uprobe_register(file_inode(file), offset, 0, uc);
	fput(file);
	return probe;
}

static int arm(void)
{
	struct uprobe *probe;

	if (probe_a)
		return -EBUSY;
	probe = register_at(&consumer_a);
	if (IS_ERR(probe))
		return PTR_ERR(probe);
	probe_a = probe;
	return 0;
}

/* Hold the next hit at vaddr (again, after a window ran). */
static int hook(void)
{
	if (atomic_read(&want_before) || atomic_read(&want_miss))
		return -EBUSY;
	reinit_completion(&at_before);
	reinit_completion(&go_lookup);
	reinit_completion(&at_miss);
	reinit_completion(&go_read);
	WRITE_ONCE(points, 0);
	atomic_set(&want_before, 1);
	atomic_set(&want_miss, 1);
	if (!hooked)
		uprobe_set_race_hook(race_hook);
	hooked = true;
	return 0;
}

/*
 * Run the window on the held hit: take A away before its lookup, then,
 * with @swap, put B at the same place before it reads the text back.
 */
static int window(bool swap)
{
	struct uprobe *probe;
	int ret = 0;

	if (!hooked || !probe_a)
		return -ENOENT;
	if (!wait_for_completion_timeout(&at_before, HOLD_JIFFIES))
		return -ETIMEDOUT;
	/* A's only reference: the probe is unhashed on return. */
	uprobe_unregister_nosync(probe_a, &consumer_a);
	probe_a = NULL;
	complete(&go_lookup);
	if (!wait_for_completion_timeout(&at_miss, HOLD_JIFFIES)) {
		/* The lookup found a probe: no window to test. */
		atomic_set(&want_miss, 0);
		ret = -EAGAIN;
		goto out;
	}
	if (swap) {
		probe = register_at(&consumer_b);
		if (IS_ERR(probe))
			ret = PTR_ERR(probe);
		else
			probe_b = probe;
	}
out:
	complete(&go_read);
	return ret;
}

static int do_cmd(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "arm"))
		arm_result = arm();
	else if (sysfs_streq(val, "hook"))
		hook_result = hook();
	else if (sysfs_streq(val, "drop"))
		window_result = window(false);
	else if (sysfs_streq(val, "swap"))
		window_result = window(true);
	else
		return -EINVAL;
	return 0;
}

static const struct kernel_param_ops cmd_ops = {
	.set = do_cmd,
};
module_param_cb(cmd, &cmd_ops, NULL, 0200);

static void __exit uprobes_miss_test_exit(void)
{
	complete_all(&go_lookup);
	complete_all(&go_read);
	if (hooked)
		uprobe_set_race_hook(NULL);
	if (probe_a)
		uprobe_unregister_nosync(probe_a, &consumer_a);
	if (probe_b)
		uprobe_unregister_nosync(probe_b, &consumer_b);
	uprobe_unregister_sync();
}

static int __init uprobes_miss_test_init(void)
{
	return 0;
}

module_init(uprobes_miss_test_init);
module_exit(uprobes_miss_test_exit);
MODULE_DESCRIPTION("A uprobe hit held across a missed lookup");
MODULE_LICENSE("GPL");
