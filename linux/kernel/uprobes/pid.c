// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Process probes (struct pid_uprobe, struct pid_uretprobe): a probe on one
 * process by pid and virtual address, for kernel modules.
 *
 * A process probe is a consumer of the file probe at the file and offset
 * its address maps, with a filter that accepts the process's mm and no
 * other.  Since breakpoints live in each mm's own copy of the page, only
 * that process ever traps; others running the same file keep the page
 * cache's page.  What the file interface does not do by itself:
 *
 *  - fork copies the breakpoint into the child's pages: the child takes
 *    it out before it first runs in user mode (uprobe_pid_fork()), or
 *    waits there for a registration or unregistration walk in flight;
 *  - when the process execs or exits, its mm goes; a work item then
 *    unregisters its probes, and unregistering them later does nothing;
 *  - a register or unregister call from a handler cannot wait for the
 *    hit it runs in to finish: it returns -EINPROGRESS, the operation
 *    runs before the thread returns to user mode, and the probe's
 *    registration_callback() reports the result.
 *
 * States of a probe; every change happens under pid_lock:
 *
 *   IDLE ------ register -------------------> REGISTERING
 *   IDLE ------ register from a handler ----> PENDING (op queued)
 *   PENDING --- the op runs ----------------> REGISTERING
 *   PENDING --- unregister -----------------> IDLE (op cancelled)
 *   REGISTERING ------ armed ---------------> ACTIVE
 *   REGISTERING ------ failed --------------> IDLE
 *   ACTIVE ---- unregister, or the op an
 *               unregister from a handler
 *               queued ---------------------> UNREGISTERING --> IDLE
 *   ACTIVE ---- the process's mm is gone ---> DROPPING -------> IDLE
 *
 * REGISTERING, UNREGISTERING and DROPPING end by themselves; an
 * unregister that meets one waits for it, a register fails with -EBUSY
 * (but waits out a DROPPING when it may sleep).  A queued operation
 * (struct pid_op) is the probe's at most once at a time, and lives
 * apart from it: an unregister detaches a queued one, so that nothing
 * touches the structure once the caller has it back, and waits for one
 * that has started, callback included, unless it is called from that
 * very callback.  Locks: pid_lock, then a uprobe's register_rwsem, then
 * an mm's mmap_lock.  pid_lock is never held while waiting for a hit
 * (uprobe_unregister_sync()), since handlers take it.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "internal.h"

enum {
	PID_PROBE_IDLE,		/* zeroed: never registered, or unregistered */
	PID_PROBE_PENDING,
	PID_PROBE_REGISTERING,
	PID_PROBE_ACTIVE,
	PID_PROBE_UNREGISTERING,
	PID_PROBE_DROPPING,
};

/* A register or unregister call made from a handler, run as task work. */
struct pid_op {
	struct callback_head	work;
	struct pid_uprobe	*u;	/* NULL once cancelled */
	struct task_struct	*task;	/* runs it; holds a reference */
	bool			reg;
	bool			running;
	u8			type;
};

static DEFINE_MUTEX(pid_lock);
/*
 * REGISTERING, ACTIVE, DROPPING ones, and UNREGISTERING ones until their
 * breakpoints are out; each counts in its mm's nr_pid_probes.
 */
static LIST_HEAD(pid_probes);
/*
 * Woken when a probe leaves REGISTERING, UNREGISTERING or DROPPING, or
 * is unlisted; settle_seq counts those changes for waiters that must
 * not look at a probe without pid_lock.
 */
static DECLARE_WAIT_QUEUE_HEAD(pid_settled);
static unsigned long settle_seq;

static void drop_gone_work(struct work_struct *work);
static DECLARE_WORK(drop_gone, drop_gone_work);

static bool in_handler(void)
{
	return current->utask && current->utask->in_handler;
}

static bool for_us(struct pid_uprobe *u)
{
	return current->mm == READ_ONCE(u->mm);
}

/*
 * Entry hits of both kinds come here.  Elsewhere (another consumer's mm,
 * or a child forked while the probe was being armed) ask for the
 * breakpoint to go unless others want it: a return probe with no entry
 * handler would leave it in such a child for good.
 */
static int pid_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct pid_uprobe *u = container_of(uc, struct pid_uprobe, consumer);

	if (!for_us(u))
		return UPROBE_HANDLER_REMOVE;
	if (u->type == UPTY_UPROBE)
		u->handler(u, regs);
	return 0;
}

static int pid_ret_handler(struct uprobe_consumer *uc, unsigned long func,
			   struct pt_regs *regs)
{
	struct pid_uprobe *u = container_of(uc, struct pid_uprobe, consumer);
	struct pid_uretprobe *rp = container_of(u, struct pid_uretprobe, u);
	struct pid_uretprobe_instance ri = {
		.rp = rp,
		.ret_addr = instruction_pointer(regs),
	};

	if (for_us(u))
		rp->handler(&ri, regs);
	return 0;
}

static bool pid_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	return mm == READ_ONCE(container_of(uc, struct pid_uprobe, consumer)->mm);
}

/* The process's mm and where @vaddr maps in its file. */
static int resolve(struct pid_uprobe *u, struct mm_struct **mmp,
		   struct inode **inodep, loff_t *offsetp)
{
	struct vm_area_struct *vma;
	struct task_struct *task;
	struct mm_struct *mm;
	int ret = -EINVAL;

	if (!IS_ALIGNED(u->vaddr, UPROBE_SWBP_INSN_SIZE))
		return -EINVAL;
	rcu_read_lock();
	task = find_task_by_vpid(u->pid);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return -ESRCH;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, u->vaddr);
	if (vma && uprobe_vma_ok(vma, true)) {
		*inodep = file_inode(vma->vm_file);
		ihold(*inodep);
		*offsetp = uprobe_file_offset(vma, u->vaddr);
		ret = 0;
	}
	mmap_read_unlock(mm);
	if (ret) {
		mmput(mm);
		return ret;
	}
	*mmp = mm;
	return 0;
}

/* Move @u to @state; the caller holds pid_lock. */
static void set_state(struct pid_uprobe *u, int state)
{
	lockdep_assert_held(&pid_lock);
	WRITE_ONCE(u->state, state);
}

static void listed(struct pid_uprobe *u, bool on)
{
	unsigned int *nr = &u->mm->uprobes_state.nr_pid_probes;

	lockdep_assert_held(&pid_lock);
	if (on)
		list_add_tail(&u->node, &pid_probes);
	else
		list_del_init(&u->node);
	WRITE_ONCE(*nr, *nr + (on ? 1 : -1));
}

/* Leave REGISTERING, UNREGISTERING or DROPPING; wake whoever waits. */
static void settle(struct pid_uprobe *u, int state)
{
	set_state(u, state);
	WRITE_ONCE(settle_seq, settle_seq + 1);
	wake_up_all(&pid_settled);
}

/*
 * Does a queued or running call stand in the way?  Not the one whose
 * registration_callback is calling us.
 */
static bool op_blocks(struct pid_uprobe *u)
{
	struct pid_op *op = u->op;

	return op && !(op->running && op->task == current);
}

/*
 * Arm @u, which the caller moved to REGISTERING.  The probe is listed
 * (and its mm marked) before its breakpoint goes in, so that a fork
 * after that point always runs fork_fixup().
 */
static int arm(struct pid_uprobe *u)
{
	struct pid_op *spare;
	struct uprobe *point;
	struct mm_struct *mm;
	struct inode *inode;
	loff_t offset;
	int ret;

	spare = kzalloc(sizeof(*spare), GFP_KERNEL);
	if (!spare) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = resolve(u, &mm, &inode, &offset);
	if (ret) {
		kfree(spare);
		goto fail;
	}
	mmgrab(mm);
	u->consumer.filter = pid_filter;
	u->consumer.handler = pid_handler;
	u->consumer.ret_handler = u->type == UPTY_URETPROBE ?
				  pid_ret_handler : NULL;
	mutex_lock(&pid_lock);
	WRITE_ONCE(u->mm, mm);
	u->spare = spare;
	listed(u, true);
	mutex_unlock(&pid_lock);

	point = uprobe_register(inode, offset, 0, &u->consumer);
	iput(inode);

	mutex_lock(&pid_lock);
	if (IS_ERR(point)) {
		ret = PTR_ERR(point);
		listed(u, false);
		WRITE_ONCE(u->mm, NULL);
		u->spare = NULL;
		settle(u, PID_PROBE_IDLE);
	} else {
		u->point = point;
		settle(u, PID_PROBE_ACTIVE);
	}
	mutex_unlock(&pid_lock);
	if (ret) {
		kfree(spare);
		mmdrop(mm);
	}
	/*
	 * Ours may be the mm's last user if the process exited meanwhile:
	 * uprobe_clear_state() then runs now and finds the probe ACTIVE.
	 */
	mmput(mm);
	return ret;

fail:
	mutex_lock(&pid_lock);
	settle(u, PID_PROBE_IDLE);
	mutex_unlock(&pid_lock);
	return ret;
}

/*
 * Disarm @u, which the caller moved from ACTIVE to UNREGISTERING and
 * left listed.
 */
static void disarm(struct pid_uprobe *u)
{
	struct mm_struct *mm = u->mm;
	struct pid_op *spare;

	uprobe_unregister_nosync(u->point, &u->consumer);
	/*
	 * Only now may forks of the mm skip fork_fixup(): until the walk
	 * above took the lock that excludes forks, a fork could copy the
	 * breakpoint, and a child copied then keeps it until the walk
	 * reaches it.  Unlisted earlier, the probe left such a child free
	 * to run into it first (and, the consumer gone, to leave it in).
	 * Listed and UNREGISTERING, it makes the child wait for the walk.
	 */
	mutex_lock(&pid_lock);
	listed(u, false);
	WRITE_ONCE(settle_seq, settle_seq + 1);
	mutex_unlock(&pid_lock);
	wake_up_all(&pid_settled);

	uprobe_unregister_sync();

	mutex_lock(&pid_lock);
	spare = u->spare;
	u->spare = NULL;
	u->point = NULL;
	WRITE_ONCE(u->mm, NULL);
	/* The caller may free @u once this is seen: touch it no more. */
	settle(u, PID_PROBE_IDLE);
	mutex_unlock(&pid_lock);
	kfree(spare);
	mmdrop(mm);
}

/* Not IDLE or ACTIVE: something else is changing the state. */
static bool busy_state(int state)
{
	return state == PID_PROBE_REGISTERING ||
	       state == PID_PROBE_UNREGISTERING ||
	       state == PID_PROBE_DROPPING;
}

/* Take back @op, queued and not started; pid_lock held. */
static void cancel_op(struct pid_uprobe *u, struct pid_op *op)
{
	op->u = NULL;
	u->op = NULL;
	if (op->reg)
		set_state(u, PID_PROBE_IDLE);
	/*
	 * Unlink it if the thread has not taken its work list yet;
	 * otherwise it frees itself when its turn comes.
	 */
	if (task_work_cancel(op->task, &op->work)) {
		put_task_struct(op->task);
		kfree(op);
	}
}

/*
 * The body of an unregister that may sleep: once it returns, no handler
 * of @u runs and nothing the engine queued for it will touch it.
 */
static void unregister_now(struct pid_uprobe *u)
{
	struct pid_op *op;
	int state;

	mutex_lock(&pid_lock);
	for (;;) {
		op = u->op;
		if (op && !op->running) {
			cancel_op(u, op);
			continue;
		}
		/* A started one finishes first, unless we are its callback. */
		if (op_blocks(u)) {
			mutex_unlock(&pid_lock);
			wait_var_event(&u->op, !READ_ONCE(u->op));
			mutex_lock(&pid_lock);
			continue;
		}
		state = u->state;
		if (!busy_state(state))
			break;
		mutex_unlock(&pid_lock);
		wait_event(pid_settled, !busy_state(READ_ONCE(u->state)));
		mutex_lock(&pid_lock);
	}
	if (state != PID_PROBE_ACTIVE) {
		mutex_unlock(&pid_lock);
		return;
	}
	set_state(u, PID_PROBE_UNREGISTERING);
	mutex_unlock(&pid_lock);
	disarm(u);
}

/* The body of a register that may sleep. */
static int register_now(struct pid_uprobe *u, enum uprobe_type type)
{
	mutex_lock(&pid_lock);
	if (u->state == PID_PROBE_DROPPING) {
		mutex_unlock(&pid_lock);
		wait_event(pid_settled,
			   READ_ONCE(u->state) != PID_PROBE_DROPPING);
		mutex_lock(&pid_lock);
	}
	if (u->state != PID_PROBE_IDLE || op_blocks(u)) {
		mutex_unlock(&pid_lock);
		return -EBUSY;
	}
	u->type = type;
	set_state(u, PID_PROBE_REGISTERING);
	mutex_unlock(&pid_lock);
	return arm(u);
}

/* Run a call a handler made, before its thread returns to user mode. */
static void run_op(struct callback_head *head)
{
	struct pid_op *op = container_of(head, struct pid_op, work);
	struct task_struct *task = op->task;
	struct pid_uprobe *u;
	int ret = 0;

	mutex_lock(&pid_lock);
	u = op->u;
	if (u) {
		op->running = true;
		if (op->reg)
			set_state(u, PID_PROBE_REGISTERING);
	}
	mutex_unlock(&pid_lock);

	if (u) {
		if (op->reg)
			ret = arm(u);
		else
			unregister_now(u);
		if (u->registration_callback)
			u->registration_callback(u, op->reg, op->type, ret);
		mutex_lock(&pid_lock);
		u->op = NULL;
		mutex_unlock(&pid_lock);
		/*
		 * Order the store before wake_up_var()'s look at the wait
		 * queue; only the address is used then: @u may be gone.
		 */
		smp_mb();
		wake_up_var(&u->op);
	}
	kfree(op);
	put_task_struct(task);
}

/* Hand @op to the current thread as @u's queued call; pid_lock held. */
static int queue_op(struct pid_uprobe *u, struct pid_op *op, bool reg,
		    enum uprobe_type type)
{
	int ret;

	op->u = u;
	op->reg = reg;
	op->type = type;
	op->running = false;
	op->task = get_task_struct(current);
	init_task_work(&op->work, run_op);
	ret = task_work_add(current, &op->work, TWA_RESUME);
	if (ret) {
		put_task_struct(current);
		return ret;
	}
	u->op = op;
	return 0;
}

static int register_common(struct pid_uprobe *u, enum uprobe_type type)
{
	struct pid_op *op;
	int ret;

	if (!in_handler())
		return register_now(u, type);

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return -ENOMEM;
	mutex_lock(&pid_lock);
	if (u->state != PID_PROBE_IDLE || u->op) {
		ret = -EBUSY;
	} else {
		ret = queue_op(u, op, true, type);
		if (!ret) {
			u->type = type;
			set_state(u, PID_PROBE_PENDING);
			op = NULL;
			ret = -EINPROGRESS;
		}
	}
	mutex_unlock(&pid_lock);
	kfree(op);
	return ret;
}

static void unregister_common(struct pid_uprobe *u)
{
	if (!in_handler()) {
		unregister_now(u);
		return;
	}
	/*
	 * From a handler: queued only for a probe that is or is becoming
	 * active and has no call queued yet (a queued register stays).  The
	 * op is the one set aside at registration: this cannot fail.
	 */
	mutex_lock(&pid_lock);
	if (!u->op && u->spare && (u->state == PID_PROBE_ACTIVE ||
				   u->state == PID_PROBE_REGISTERING)) {
		if (!queue_op(u, u->spare, false, u->type))
			u->spare = NULL;
	}
	mutex_unlock(&pid_lock);
}

/**
 * register_pid_uprobe() - probe an instruction of one process
 * @u: pid, vaddr, handler and optionally registration_callback set
 *
 * Return: 0; -EINPROGRESS when called from a uprobe handler (the
 * registration completes later, see registration_callback); -ESRCH for
 * no such process; -EINVAL for an address not in a private executable
 * mapping of a file, or misaligned; -EBUSY when @u is registered, being
 * unregistered or dropped (from a handler), or has a call queued;
 * -EEXIST when the process's text there is not the file's (a debugger's
 * breakpoint, say); -EOPNOTSUPP for an instruction that cannot be
 * probed; -ENOMEM.
 */
int register_pid_uprobe(struct pid_uprobe *u)
{
	if (!u->handler)
		return -EINVAL;
	return register_common(u, UPTY_UPROBE);
}
EXPORT_SYMBOL_GPL(register_pid_uprobe);

/**
 * unregister_pid_uprobe() - remove a process probe
 * @u: the probe
 *
 * On return its handler is not running and will not run again, and a
 * call queued from a handler is cancelled (its registration_callback is
 * not called) or, if it had started, has finished.  Called from a uprobe
 * handler, the removal is queued instead: it completes before the
 * calling thread returns to user mode, and registration_callback reports
 * it.  Does nothing for a probe that is not registered, or whose process
 * has exited or exec'ed.
 */
void unregister_pid_uprobe(struct pid_uprobe *u)
{
	unregister_common(u);
}
EXPORT_SYMBOL_GPL(unregister_pid_uprobe);

/**
 * register_pid_uretprobe() - probe the returns of one process's function
 * @rp: u.pid, u.vaddr (the function's entry), handler and optionally
 *	u.registration_callback set
 *
 * Return: as register_pid_uprobe().
 */
int register_pid_uretprobe(struct pid_uretprobe *rp)
{
	if (!rp->handler)
		return -EINVAL;
	return register_common(&rp->u, UPTY_URETPROBE);
}
EXPORT_SYMBOL_GPL(register_pid_uretprobe);

/**
 * unregister_pid_uretprobe() - remove a process return probe
 * @rp: the probe
 *
 * As unregister_pid_uprobe().
 */
void unregister_pid_uretprobe(struct pid_uretprobe *rp)
{
	unregister_common(&rp->u);
}
EXPORT_SYMBOL_GPL(unregister_pid_uretprobe);

/* Unregister the probes of processes whose mm went away. */
static void drop_gone_work(struct work_struct *work)
{
	struct pid_uprobe *u, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&pid_lock);
	list_for_each_entry_safe(u, tmp, &pid_probes, node) {
		if (u->state != PID_PROBE_ACTIVE ||
		    atomic_read(&u->mm->mm_users))
			continue;
		set_state(u, PID_PROBE_DROPPING);
		listed(u, false);
		list_add_tail(&u->node, &gone);
	}
	mutex_unlock(&pid_lock);
	if (list_empty(&gone))
		return;
	list_for_each_entry(u, &gone, node)
		uprobe_unregister_nosync(u->point, &u->consumer);
	uprobe_unregister_sync();

	mutex_lock(&pid_lock);
	list_for_each_entry_safe(u, tmp, &gone, node) {
		list_del_init(&u->node);
		kfree(u->spare);
		u->spare = NULL;
		u->point = NULL;
		mmdrop(u->mm);
		WRITE_ONCE(u->mm, NULL);
		settle(u, PID_PROBE_IDLE);
	}
	mutex_unlock(&pid_lock);
}

/**
 * uprobe_pid_mm_gone() - an mm is being torn down
 * @mm: the mm
 *
 * Called where no lock may be taken that registration takes: the
 * dropping is left to a work item.
 */
void uprobe_pid_mm_gone(struct mm_struct *mm)
{
	if (READ_ONCE(mm->uprobes_state.nr_pid_probes))
		schedule_work(&drop_gone);
}

/* A probe of @mm whose walk may still change breakpoints in children. */
static bool walking_in(struct mm_struct *mm)
{
	struct pid_uprobe *u;

	lockdep_assert_held(&pid_lock);
	list_for_each_entry(u, &pid_probes, node)
		if (u->mm == mm && (u->state == PID_PROBE_REGISTERING ||
				    u->state == PID_PROBE_UNREGISTERING))
			return true;
	return false;
}

/* In a forked child, before it first runs in user mode. */
static void fork_fixup(struct callback_head *head)
{
	struct uprobe_task *ut = container_of(head, struct uprobe_task,
					      fork_work);
	struct mm_struct *parent = ut->fork_parent_mm;
	struct pid_uprobe *u;
	unsigned long seq;

	ut->fork_parent_mm = NULL;
	/*
	 * A probe being armed may have put its breakpoint in the parent
	 * before the fork copied the pages, and cannot be taken out before
	 * it knows its point; one being disarmed takes it out of this child
	 * too, but only when its walk gets here.  Either way the child must
	 * not run before: wait.  A child killed meanwhile never runs.
	 */
	mutex_lock(&pid_lock);
	while (walking_in(parent)) {
		seq = settle_seq;
		mutex_unlock(&pid_lock);
		if (wait_event_killable(pid_settled,
					READ_ONCE(settle_seq) != seq)) {
			mmdrop(parent);
			return;
		}
		mutex_lock(&pid_lock);
	}
	list_for_each_entry(u, &pid_probes, node)
		if (u->mm == parent && u->state == PID_PROBE_ACTIVE)
			uprobe_leave_current_mm(u->point, u->vaddr);
	mutex_unlock(&pid_lock);
	mmdrop(parent);
}

/**
 * uprobe_pid_fork() - a child with a copy of the current mm is made
 * @child: its uprobe state (allocated if need be)
 *
 * Costs a read of the parent's mm unless the parent has process probes.
 *
 * Return: 0, or -ENOMEM when the child's state could not be allocated.
 */
int uprobe_pid_fork(struct task_struct *child)
{
	struct mm_struct *mm = current->mm;
	struct uprobe_task *ut;

	/*
	 * Registration marks the mm before its walk, and the walk excludes
	 * forks (dup_mmap_sem): a child copied after the breakpoint went in
	 * sees the mark.
	 */
	if (!mm || !READ_ONCE(mm->uprobes_state.nr_pid_probes))
		return 0;

	ut = child->utask;
	if (!ut) {
		ut = kzalloc(sizeof(*ut), GFP_KERNEL);
		if (!ut)
			return -ENOMEM;
		child->utask = ut;
	}
	mmgrab(mm);
	ut->fork_parent_mm = mm;
	init_task_work(&ut->fork_work, fork_fixup);
	if (task_work_add(child, &ut->fork_work, TWA_RESUME)) {
		ut->fork_parent_mm = NULL;
		mmdrop(mm);
	}
	return 0;
}
