// SPDX-License-Identifier: GPL-2.0
/*
 * Windows of the process-probe state machine, held open on purpose
 * (uprobe_pid_race.sh drives it).  Probe "a" sits on work() of process
 * "pid"; what its handler does on the next hit is chosen by "cmd":
 *
 *   twin     two threads meet in the handler and, released together,
 *            both register probe "x" (one must win, the other -EBUSY)
 *   cancel   the handler queues a registration of a kmalloc'd probe,
 *            then waits; "cmd=unreg_free" unregisters and frees that
 *            probe meanwhile, then lets the handler go
 *   ignore   the handler registers probe "y", then unregisters it
 *            (ignored: a registration is queued)
 *   drop     the handler waits; meanwhile process "pid2" execs, which
 *            drops probe "z" on it; "cmd=release" lets the handler go,
 *            which then registers "z" again at "work2"
 *
 *   forkwin  a fork of "pid" is held just before the fork hook sees
 *            whether the mm has process probes, while the return probe
 *            on work() is unregistered; that unregistration's walk is
 *            then held on the parent's mmap_lock, so the child is forked
 *            with the breakpoint and nothing has taken it out yet.  The
 *            window ends when the child has waited a second or exited
 *            (forkwin_end collects the threads; fw_* tell what happened)
 *
 * Other commands: arm (probe "a"), y_cycle, z_arm, z_again,
 * ret_churn=N (a return probe on work() of "pid" registered and
 * unregistered N times), disarm.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uprobes.h>
#include <linux/wait.h>

static int pid, pid2;
static ulong work, work2;
module_param(pid, int, 0644);
module_param(pid2, int, 0644);
module_param(work, ulong, 0644);
module_param(work2, ulong, 0644);

static atomic_t hits_a, hits_x, hits_y, hits_z, callbacks;
static int res[2] = { 1, 1 }, cb_result = 1, cb_reg = -1, cycle_result = 1;
static int arm_result = 1, held, z_result = 1, churn_result = 1;
module_param_array(res, int, NULL, 0444);
module_param(cb_result, int, 0444);
module_param(cb_reg, int, 0444);
module_param(cycle_result, int, 0444);
module_param(arm_result, int, 0444);
module_param(held, int, 0444);
module_param(z_result, int, 0444);
module_param(churn_result, int, 0444);

static int get_hits(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops hits_ops = { .get = get_hits };
module_param_cb(hits_a, &hits_ops, &hits_a, 0444);
module_param_cb(hits_x, &hits_ops, &hits_x, 0444);
module_param_cb(hits_y, &hits_ops, &hits_y, 0444);
module_param_cb(hits_z, &hits_ops, &hits_z, 0444);
module_param_cb(callbacks, &hits_ops, &callbacks, 0444);

enum { MODE_NONE, MODE_TWIN, MODE_CANCEL, MODE_IGNORE, MODE_DROP };
static int mode;
static atomic_t arrived;
static DECLARE_WAIT_QUEUE_HEAD(waitq);
static bool go;

static struct pid_uprobe pa, px, py, pz;
static struct pid_uprobe *pk;	/* the kmalloc'd one of "cancel" */
static struct pid_uretprobe pr;

/* Bounded, so a broken kernel fails the test instead of hanging it. */
#define HOLD_TIMEOUT	(20 * HZ)

static void callback(struct pid_uprobe *u, int reg, enum uprobe_type type,
		     int result)
{
	atomic_inc(&callbacks);
	cb_reg = reg;
	cb_result = result;
}

static void hit_x(struct pid_uprobe *u, struct pt_regs *regs)
{
	atomic_inc(&hits_x);
}

static void hit_y(struct pid_uprobe *u, struct pt_regs *regs)
{
	atomic_inc(&hits_y);
}

static void hit_z(struct pid_uprobe *u, struct pt_regs *regs)
{
	atomic_inc(&hits_z);
}

static void init_probe(struct pid_uprobe *u, int p, unsigned long vaddr,
		       void (*handler)(struct pid_uprobe *, struct pt_regs *))
{
	memset(u, 0, sizeof(*u));
	u->pid = p;
	u->vaddr = vaddr;
	u->handler = handler;
	u->registration_callback = callback;
}

static void twin(void)
{
	int me = atomic_inc_return(&arrived) - 1;

	if (me > 1)
		return;
	/* Both threads in the handler before either goes on. */
	if (!wait_event_timeout(waitq, atomic_read(&arrived) >= 2,
				HOLD_TIMEOUT))
		return;
	wake_up_all(&waitq);
	res[me] = register_pid_uprobe(&px);
}

static void hold(void)
{
	WRITE_ONCE(held, 1);
	wait_event_timeout(waitq, READ_ONCE(go), HOLD_TIMEOUT);
}

static void hit_a(struct pid_uprobe *u, struct pt_regs *regs)
{
	int m = xchg(&mode, mode == MODE_TWIN ? MODE_TWIN : MODE_NONE);

	atomic_inc(&hits_a);
	switch (m) {
	case MODE_TWIN:
		twin();
		break;
	case MODE_CANCEL:
		res[0] = register_pid_uprobe(pk);
		hold();
		break;
	case MODE_IGNORE:
		res[0] = register_pid_uprobe(&py);
		unregister_pid_uprobe(&py);
		break;
	case MODE_DROP:
		hold();
		pz.vaddr = work2;
		res[0] = register_pid_uprobe(&pz);
		break;
	}
}

static void ret_r(struct pid_uretprobe_instance *ri, struct pt_regs *regs)
{
}

static void disarm(void)
{
	unregister_pid_uprobe(&pa);
	unregister_pid_uprobe(&px);
	unregister_pid_uprobe(&py);
	unregister_pid_uprobe(&pz);
	unregister_pid_uretprobe(&pr);
	if (pk) {
		unregister_pid_uprobe(pk);
		kfree(pk);
		pk = NULL;
	}
}

static void reset(int m)
{
	res[0] = 1;
	res[1] = 1;
	cb_result = 1;
	cb_reg = -1;
	atomic_set(&callbacks, 0);
	atomic_set(&arrived, 0);
	WRITE_ONCE(held, 0);
	WRITE_ONCE(go, false);
	WRITE_ONCE(mode, m);
}

/*
 * forkwin.  pid.c's state of a probe being unregistered (its enum is
 * private): the held fork goes on once the unregistration has started.
 */
#define FW_UNREGISTERING	4
#define FW_SPIN_US		(10 * USEC_PER_SEC)

static int fw_result = 1, fw_seen, fw_release, fw_unreg_done;
module_param(fw_result, int, 0444);
module_param(fw_seen, int, 0444);	/* 1: the fork saw it start */
module_param(fw_release, int, 0444);	/* 1 child waited, 2 exited, 3 timeout */
module_param(fw_unreg_done, int, 0444);

static atomic_t fw_armed;
static bool fw_kp_on;
static int fw_in_window, fw_locked;
static struct task_struct *fw_child, *fw_parent, *fw_locker, *fw_unreg;
static struct mm_struct *fw_mm;
static DECLARE_COMPLETION(fw_locker_done);
static DECLARE_COMPLETION(fw_unreg_exit);

/*
 * On the parent's CPU, in the fork after the mm was copied (breakpoint
 * included) and before uprobe_copy_process() looks at the parent's
 * process probes: spin until the other CPU has begun unregistering.
 */
static int fw_fork_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *child;
	u64 end;

	if (current->tgid != READ_ONCE(pid) || !atomic_xchg(&fw_armed, 0))
		return 0;
	child = (struct task_struct *)regs_get_kernel_argument(regs, 0);
	fw_child = get_task_struct(child);
	WRITE_ONCE(fw_in_window, 1);
	/* A kprobe handler: spin, no sleeping. */
	end = ktime_get_mono_fast_ns() + FW_SPIN_US * NSEC_PER_USEC;
	while (ktime_get_mono_fast_ns() < end) {
		if (READ_ONCE(pr.u.state) == FW_UNREGISTERING) {
			WRITE_ONCE(fw_seen, 1);
			break;
		}
		cpu_relax();
	}
	return 0;
}

static struct kprobe fw_kp = {
	.symbol_name	= "uprobe_copy_process",
	.pre_handler	= fw_fork_pre,
};

/* Poll @flag for up to 20 s. */
static bool fw_wait_flag(int *flag)
{
	int i;

	for (i = 0; i < 1000 && !READ_ONCE(*flag); i++)
		msleep(20);
	return READ_ONCE(*flag);
}

/*
 * Once the fork is held, take the parent's mmap_lock, which the
 * unregistration's walk needs first (the parent's vma comes first in
 * the file's i_mmap, the child's right after it); let go once the
 * child has slept a second (waiting in its fork hook) or exited.
 */
static int fw_locker_fn(void *unused)
{
	int i, asleep = 0;

	if (fw_wait_flag(&fw_in_window)) {
		mmap_write_lock(fw_mm);
		WRITE_ONCE(fw_locked, 1);
		fw_release = 3;
		for (i = 0; i < 1000; i++) {
			if (READ_ONCE(fw_child->exit_state)) {
				fw_release = 2;
				break;
			}
			asleep = READ_ONCE(fw_child->__state) & TASK_UNINTERRUPTIBLE ?
				 asleep + 1 : 0;
			if (asleep >= 50) {
				fw_release = 1;
				break;
			}
			msleep(20);
		}
		mmap_write_unlock(fw_mm);
	}
	complete(&fw_locker_done);
	return 0;
}

static int fw_unreg_fn(void *unused)
{
	if (fw_wait_flag(&fw_locked)) {
		unregister_pid_uretprobe(&pr);
		WRITE_ONCE(fw_unreg_done, 1);
	}
	complete(&fw_unreg_exit);
	return 0;
}

static void fw_end(void)
{
	if (fw_locker) {
		wait_for_completion(&fw_locker_done);
		wait_for_completion(&fw_unreg_exit);
		fw_locker = NULL;
		fw_unreg = NULL;
	}
	if (fw_kp_on) {
		unregister_kprobe(&fw_kp);
		fw_kp_on = false;
	}
	if (fw_child) {
		put_task_struct(fw_child);
		fw_child = NULL;
	}
	if (fw_parent) {
		set_cpus_allowed_ptr(fw_parent, cpu_possible_mask);
		put_task_struct(fw_parent);
		fw_parent = NULL;
	}
	if (fw_mm) {
		mmput(fw_mm);
		fw_mm = NULL;
	}
}

/*
 * The parent on CPU 0, the threads that lock and unregister on CPU 1:
 * while the fork spins, they must be able to run.
 */
static int fw_start(void)
{
	struct pid *p;
	int ret;

	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		return -EOPNOTSUPP;
	p = find_get_pid(pid);
	fw_parent = p ? get_pid_task(p, PIDTYPE_PID) : NULL;
	put_pid(p);
	if (!fw_parent)
		return -ESRCH;
	fw_mm = get_task_mm(fw_parent);
	if (!fw_mm)
		return -ESRCH;
	ret = set_cpus_allowed_ptr(fw_parent, cpumask_of(0));
	if (ret)
		return ret;

	memset(&pr, 0, sizeof(pr));
	pr.u.pid = pid;
	pr.u.vaddr = work;
	pr.handler = ret_r;
	ret = register_pid_uretprobe(&pr);
	if (ret)
		return ret;

	fw_in_window = 0;
	fw_locked = 0;
	fw_seen = 0;
	fw_release = 0;
	fw_unreg_done = 0;
	reinit_completion(&fw_locker_done);
	reinit_completion(&fw_unreg_exit);
	fw_locker = kthread_create(fw_locker_fn, NULL, "fw_locker");
	if (IS_ERR(fw_locker)) {
		ret = PTR_ERR(fw_locker);
		fw_locker = NULL;
		return ret;
	}
	fw_unreg = kthread_create(fw_unreg_fn, NULL, "fw_unreg");
	if (IS_ERR(fw_unreg)) {
		/* Let the locker give up by itself: nothing will fork. */
		wake_up_process(fw_locker);
		wait_for_completion(&fw_locker_done);
		fw_locker = NULL;
		ret = PTR_ERR(fw_unreg);
		fw_unreg = NULL;
		return ret;
	}
	kthread_bind(fw_locker, 1);
	kthread_bind(fw_unreg, 1);
	/* Registered afresh each time: a kprobe keeps what it resolved. */
	memset(&fw_kp, 0, sizeof(fw_kp));
	fw_kp.symbol_name = "uprobe_copy_process";
	fw_kp.pre_handler = fw_fork_pre;
	ret = register_kprobe(&fw_kp);
	fw_kp_on = !ret;
	if (ret) {
		/* Both give up after their bounded wait. */
		wake_up_process(fw_locker);
		wake_up_process(fw_unreg);
		return ret;
	}
	atomic_set(&fw_armed, 1);
	wake_up_process(fw_locker);
	wake_up_process(fw_unreg);
	return 0;
}

static int ret_churn(int n)
{
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		memset(&pr, 0, sizeof(pr));
		pr.u.pid = pid;
		pr.u.vaddr = work;
		pr.handler = ret_r;
		ret = register_pid_uretprobe(&pr);
		if (!ret)
			unregister_pid_uretprobe(&pr);
	}
	return ret;
}

static int do_cmd(const char *val, const struct kernel_param *kp)
{
	int n;

	if (sysfs_streq(val, "arm")) {
		init_probe(&pa, pid, work, hit_a);
		arm_result = register_pid_uprobe(&pa);
	} else if (sysfs_streq(val, "twin")) {
		init_probe(&px, pid, work, hit_x);
		reset(MODE_TWIN);
	} else if (sysfs_streq(val, "twin_end")) {
		WRITE_ONCE(mode, MODE_NONE);
		unregister_pid_uprobe(&px);
	} else if (sysfs_streq(val, "cancel")) {
		pk = kzalloc(sizeof(*pk), GFP_KERNEL);
		if (!pk)
			return -ENOMEM;
		init_probe(pk, pid, work, hit_x);
		reset(MODE_CANCEL);
	} else if (sysfs_streq(val, "unreg_free")) {
		/* What a module's exit does while a handler holds its call. */
		unregister_pid_uprobe(pk);
		kfree(pk);
		pk = NULL;
		WRITE_ONCE(go, true);
		wake_up_all(&waitq);
	} else if (sysfs_streq(val, "ignore")) {
		init_probe(&py, pid, work, hit_y);
		reset(MODE_IGNORE);
	} else if (sysfs_streq(val, "y_cycle")) {
		unregister_pid_uprobe(&py);
		cycle_result = register_pid_uprobe(&py);
		unregister_pid_uprobe(&py);
	} else if (sysfs_streq(val, "z_arm")) {
		init_probe(&pz, pid2, work2, hit_z);
		z_result = register_pid_uprobe(&pz);
	} else if (sysfs_streq(val, "drop")) {
		reset(MODE_DROP);
	} else if (sysfs_streq(val, "release")) {
		WRITE_ONCE(go, true);
		wake_up_all(&waitq);
	} else if (sysfs_streq(val, "z_again")) {
		unregister_pid_uprobe(&pz);
		pz.vaddr = work2;
		z_result = register_pid_uprobe(&pz);
	} else if (sscanf(val, "ret_churn=%d", &n) == 1) {
		churn_result = ret_churn(n);
	} else if (sysfs_streq(val, "forkwin")) {
		fw_result = fw_start();
		if (fw_result)
			fw_end();
	} else if (sysfs_streq(val, "forkwin_end")) {
		atomic_set(&fw_armed, 0);
		fw_end();
	} else if (sysfs_streq(val, "disarm")) {
		disarm();
	} else {
		return -EINVAL;
	}
	return 0;
}

static const struct kernel_param_ops cmd_ops = { .set = do_cmd };
module_param_cb(cmd, &cmd_ops, NULL, 0200);

static void __exit uprobes_pid_race_exit(void)
{
	WRITE_ONCE(go, true);
	wake_up_all(&waitq);
	atomic_set(&fw_armed, 0);
	fw_end();
	disarm();
}

static int __init uprobes_pid_race_init(void)
{
	return 0;
}

module_init(uprobes_pid_race_init);
module_exit(uprobes_pid_race_exit);
MODULE_DESCRIPTION("Process probes: windows of their state machine, forced");
MODULE_LICENSE("GPL");
