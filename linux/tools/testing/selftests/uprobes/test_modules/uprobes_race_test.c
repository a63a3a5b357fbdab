// SPDX-License-Identifier: GPL-2.0
/*
 * A uprobe hit that outlives its probe (uprobe_race.sh drives it).
 *
 * The consumer's handler holds the hitting thread until "drop", run by
 * another task on the other CPU, has unregistered the consumer and so
 * dropped the probe's last reference.  What the hit does after the
 * handler (set up the return probe, run the probed instruction) must
 * not take a reference on a probe that is already on its way out.
 *
 * Parameters name the process and an address in its text; "cmd" acts:
 *   arm    registers a consumer (handler and ret_handler) on the file
 *          and offset behind that address
 *   drop   waits for the handler to be entered, unregisters, lets the
 *          handler go, and waits until no handler can be running
 *   replace  as drop, but before letting the handler go registers a
 *          second consumer at the same file and offset: a new probe,
 *          whose breakpoint the old hit must leave alone
 * With "remove" set the held handler asks for its probe to leave the
 * process (UPROBE_HANDLER_REMOVE) when it is let go.  With "pass" N, the
 * first N hits are only counted: the hit held is the one after them
 * (nop5_race.sh lets the first hit turn a 5-byte nop into a jump).  The
 * read-only parameters report what happened.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/uprobes.h>

#include "uprobe_file_at.h"

static int pid;
module_param(pid, int, 0644);
static ulong vaddr;
module_param(vaddr, ulong, 0644);

static atomic_t hits, returns, entered, release, new_hits;
static int held = -1, arm_result = 1, drop_result = 1, replace_result = 1;
static bool ask_remove;
module_param_named(remove, ask_remove, bool, 0644);
static int pass;
module_param(pass, int, 0644);
module_param_named(hits, hits.counter, int, 0444);
module_param_named(returns, returns.counter, int, 0444);
/* Hits of the consumer "replace" registered. */
module_param_named(new_hits, new_hits.counter, int, 0444);
module_param(replace_result, int, 0444);
/* 1 when the handler was still held when "drop" unregistered. */
module_param(held, int, 0444);
module_param(arm_result, int, 0444);
module_param(drop_result, int, 0444);

/* Long enough for any scheduling delay, short of a stall warning. */
#define HOLD_NS		(10 * NSEC_PER_SEC)

static int hold_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	u64 deadline = ktime_get_ns() + HOLD_NS;

	if (atomic_inc_return(&hits) <= READ_ONCE(pass))
		return 0;
	atomic_set(&entered, 1);
	while (!atomic_read(&release) && ktime_get_ns() < deadline)
		cpu_relax();
	return ask_remove ? UPROBE_HANDLER_REMOVE : 0;
}

static int count_new(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	atomic_inc(&new_hits);
	return 0;
}

static int count_return(struct uprobe_consumer *uc, unsigned long func,
			struct pt_regs *regs)
{
	atomic_inc(&returns);
	return 0;
}

static struct uprobe_consumer consumer = {
	.handler = hold_handler,
	.ret_handler = count_return,
};

static struct uprobe_consumer new_consumer = {
	.handler = count_new,
};

static struct uprobe *probe, *new_probe;

static int arm(void)
{
	struct file *file;
	loff_t offset;

	if (probe)
		return -EBUSY;
	file = uprobe_file_at(pid, vaddr, &offset);
	if (!file)
		return -ESRCH;
	probe = uprobe_register(file_inode(file), offset, 0, &consumer);
	fput(file);
	if (IS_ERR(probe)) {
		int ret = PTR_ERR(probe);

		probe = NULL;
		return ret;
	}
	return 0;
}

static int drop(bool replace)
{
	struct file *file = NULL;
	loff_t offset;
	int i, ret = 0;

	if (!probe)
		return -ENOENT;
	if (replace) {
		if (new_probe)
			return -EBUSY;
		file = uprobe_file_at(pid, vaddr, &offset);
		if (!file)
			return -ESRCH;
	}
	for (i = 0; i < 10000 && !atomic_read(&entered); i++)
		usleep_range(1000, 2000);
	held = atomic_read(&entered) && !atomic_read(&release);
	/* The probe's only reference goes here, under the held hit. */
	uprobe_unregister_nosync(probe, &consumer);
	probe = NULL;
	if (file) {
		/*
		 * Still under the held hit: the old probe is unhashed, so
		 * this makes a new one at the same place and arms it in
		 * the process whose thread is held in the old one.
		 */
		new_probe = uprobe_register(file_inode(file), offset, 0,
					    &new_consumer);
		fput(file);
		if (IS_ERR(new_probe)) {
			ret = PTR_ERR(new_probe);
			new_probe = NULL;
		}
	}
	atomic_set(&release, 1);
	uprobe_unregister_sync();
	if (ret)
		return ret;
	return atomic_read(&entered) ? 0 : -ETIMEDOUT;
}

static int do_cmd(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "arm"))
		arm_result = arm();
	else if (sysfs_streq(val, "drop"))
		drop_result = drop(false);
	else if (sysfs_streq(val, "replace"))
		replace_result = drop(true);
	else
		return -EINVAL;
	return 0;
}

static const struct kernel_param_ops cmd_ops = {
	.set = do_cmd,
};
module_param_cb(cmd, &cmd_ops, NULL, 0200);

static void __exit uprobes_race_test_exit(void)
{
	atomic_set(&release, 1);
	if (probe)
		uprobe_unregister_nosync(probe, &consumer);
	if (new_probe)
		uprobe_unregister_nosync(new_probe, &new_consumer);
	uprobe_unregister_sync();
}

static int __init uprobes_race_test_init(void)
{
	return 0;
}

module_init(uprobes_race_test_init);
module_exit(uprobes_race_test_exit);
MODULE_DESCRIPTION("A uprobe hit held while its probe is unregistered");
MODULE_LICENSE("GPL");
