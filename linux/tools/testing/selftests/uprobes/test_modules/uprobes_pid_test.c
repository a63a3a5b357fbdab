// SPDX-License-Identifier: GPL-2.0
/*
 * Process probes under test (uprobe_pid.sh drives it).  Parameters name
 * the process and the addresses of its functions; writing to "cmd" acts:
 *   arm     probes a, b, c on "work" and a return probe r on it
 *   nest    makes a's next hit register probe d from inside the handler
 *   dead    probes "dead", where the process put its own breakpoint
 *   disarm  unregisters everything (twice over: the second is a no-op)
 * and the read-only parameters report what the handlers saw.
 */
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/spinlock.h>
#include <linux/uprobes.h>

static int pid;
module_param(pid, int, 0644);
static ulong work, dead;
module_param(work, ulong, 0644);
module_param(dead, ulong, 0644);

static int hits_a, hits_b, hits_c, hits_d, returns;
static long ret_sum;
static int arm_result = 1, nest_result = 1, nest_callback = 1, dead_result = 1;
module_param(hits_a, int, 0444);
module_param(hits_b, int, 0444);
module_param(hits_c, int, 0444);
module_param(hits_d, int, 0444);
module_param(returns, int, 0444);
module_param(ret_sum, long, 0444);
module_param(arm_result, int, 0444);
module_param(nest_result, int, 0444);
module_param(nest_callback, int, 0444);
module_param(dead_result, int, 0444);

/* The order handlers ran in, first hits only. */
static char seq[32];
module_param_string(seq, seq, sizeof(seq), 0444);
static bool nest;

/*
 * The threads of the target hit the probes on both CPUs at once: the
 * counters are only ever changed under this lock, or increments get lost.
 */
static DEFINE_SPINLOCK(count_lock);

static void count(int *hits, char c)
{
	size_t n;

	spin_lock(&count_lock);
	(*hits)++;
	n = strlen(seq);
	if (n + 1 < sizeof(seq))
		seq[n] = c;
	spin_unlock(&count_lock);
}

static struct pid_uprobe pa, pb, pc, pd, pdead;
static struct pid_uretprobe pr;

static void on_d_registered(struct pid_uprobe *u, int reg,
			    enum uprobe_type type, int result)
{
	nest_callback = (reg == 1 && type == UPTY_UPROBE) ? result : -1000;
}

static void hit_a(struct pid_uprobe *u, struct pt_regs *regs)
{
	count(&hits_a, 'a');
	if (nest) {
		nest = false;
		pd.pid = pid;
		pd.vaddr = work;
		nest_result = register_pid_uprobe(&pd);
	}
}

static void hit_b(struct pid_uprobe *u, struct pt_regs *regs)
{
	count(&hits_b, 'b');
}

static void hit_c(struct pid_uprobe *u, struct pt_regs *regs)
{
	count(&hits_c, 'c');
}

static void hit_d(struct pid_uprobe *u, struct pt_regs *regs)
{
	count(&hits_d, 'd');
}

static void hit_dead(struct pid_uprobe *u, struct pt_regs *regs)
{
}

static void ret_r(struct pid_uretprobe_instance *ri, struct pt_regs *regs)
{
	spin_lock(&count_lock);
	returns++;
	ret_sum += (long)regs_return_value(regs);
	spin_unlock(&count_lock);
}

static int probe(struct pid_uprobe *u, unsigned long vaddr,
		 void (*handler)(struct pid_uprobe *, struct pt_regs *))
{
	memset(u, 0, sizeof(*u));
	u->pid = pid;
	u->vaddr = vaddr;
	u->handler = handler;
	return register_pid_uprobe(u);
}

static void disarm(void)
{
	unregister_pid_uprobe(&pa);
	unregister_pid_uprobe(&pb);
	unregister_pid_uprobe(&pc);
	unregister_pid_uprobe(&pd);
	unregister_pid_uretprobe(&pr);
}

static int do_cmd(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "arm")) {
		pd.registration_callback = on_d_registered;
		pd.handler = hit_d;
		arm_result = probe(&pa, work, hit_a) ?: probe(&pb, work, hit_b) ?:
			     probe(&pc, work, hit_c);
		if (!arm_result) {
			memset(&pr, 0, sizeof(pr));
			pr.u.pid = pid;
			pr.u.vaddr = work;
			pr.handler = ret_r;
			arm_result = register_pid_uretprobe(&pr);
		}
	} else if (sysfs_streq(val, "nest")) {
		nest = true;
	} else if (sysfs_streq(val, "dead")) {
		dead_result = probe(&pdead, dead, hit_dead);
		if (!dead_result)
			unregister_pid_uprobe(&pdead);
	} else if (sysfs_streq(val, "disarm")) {
		disarm();
		disarm();
	} else {
		return -EINVAL;
	}
	return 0;
}

static const struct kernel_param_ops cmd_ops = {
	.set = do_cmd,
};
module_param_cb(cmd, &cmd_ops, NULL, 0200);

static void __exit uprobes_pid_test_exit(void)
{
	disarm();
}

static int __init uprobes_pid_test_init(void)
{
	return 0;
}

module_init(uprobes_pid_test_init);
module_exit(uprobes_pid_test_exit);
MODULE_DESCRIPTION("Process probes (pid and address) under test");
MODULE_LICENSE("GPL");
