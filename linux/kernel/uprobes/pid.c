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
 *    it out before it first runs in user mode (uprobe_pid_fork());
 *  - when the process execs or exits, its mm goes; a work item then
 *    unregisters its probes, and unregistering them later does nothing;
 *  - a register or unregister call from a handler cannot wait for the
 *    hit it runs in to finish: it returns -EINPROGRESS, the operation
 *    runs before the thread returns to user mode, and the probe's
 *    registration_callback() reports the result.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>

#include "internal.h"

enum {
	PID_PROBE_IDLE,		/* never registered, or unregistered */
	PID_PROBE_ACTIVE,
	PID_PROBE_DROPPED,	/* the process went away first */
	PID_PROBE_PENDING,	/* a deferred registration is queued */
};

enum { DEFER_REGISTER = 1, DEFER_UNREGISTER };

static DEFINE_MUTEX(pid_probes_lock);
static LIST_HEAD(pid_probes);		/* ACTIVE ones */
static atomic_t nr_pid_probes = ATOMIC_INIT(0);

static void drop_gone_work(struct work_struct *work);
static DECLARE_WORK(drop_gone, drop_gone_work);

static bool in_handler(void)
{
	return current->utask && current->utask->in_handler;
}

static int pid_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct pid_uprobe *u = container_of(uc, struct pid_uprobe, consumer);

	/*
	 * Elsewhere (another consumer's mm, or a child forked while we
	 * registered) ask for the breakpoint to go unless others want it.
	 */
	if (current->mm != u->mm)
		return UPROBE_HANDLER_REMOVE;
	if (u->handler)
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

	if (current->mm == u->mm && rp->handler)
		rp->handler(&ri, regs);
	return 0;
}

static bool pid_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	return mm == container_of(uc, struct pid_uprobe, consumer)->mm;
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

static int do_register(struct pid_uprobe *u, enum uprobe_type type)
{
	struct uprobe *point;
	struct mm_struct *mm;
	struct inode *inode;
	loff_t offset;
	int ret;

	ret = resolve(u, &mm, &inode, &offset);
	if (ret)
		return ret;
	u->type = type;
	u->mm = mm;
	u->consumer.filter = pid_filter;
	u->consumer.handler = type == UPTY_UPROBE ? pid_handler : NULL;
	u->consumer.ret_handler = type == UPTY_URETPROBE ? pid_ret_handler : NULL;
	mmgrab(mm);

	point = uprobe_register(inode, offset, 0, &u->consumer);
	iput(inode);
	if (IS_ERR(point)) {
		ret = PTR_ERR(point);
		mmdrop(mm);
		u->mm = NULL;
		u->state = PID_PROBE_IDLE;
	} else {
		u->point = point;
		mutex_lock(&pid_probes_lock);
		u->state = PID_PROBE_ACTIVE;
		list_add_tail(&u->node, &pid_probes);
		atomic_inc(&nr_pid_probes);
		mutex_unlock(&pid_probes_lock);
	}
	/*
	 * Ours may be the mm's last user if the process exited meanwhile:
	 * then uprobe_clear_state() runs now and sees the probe listed.
	 * The struct itself stays (mmgrab()) for the filter to compare.
	 */
	mmput(mm);
	return ret;
}

/* Unregister @u if ACTIVE (the caller syncs); false if it was not. */
static bool do_unregister_nosync(struct pid_uprobe *u)
{
	mutex_lock(&pid_probes_lock);
	if (u->state != PID_PROBE_ACTIVE) {
		mutex_unlock(&pid_probes_lock);
		return false;
	}
	list_del(&u->node);
	atomic_dec(&nr_pid_probes);
	u->state = PID_PROBE_IDLE;
	mutex_unlock(&pid_probes_lock);
	uprobe_unregister_nosync(u->point, &u->consumer);
	u->point = NULL;
	return true;
}

static void do_unregister(struct pid_uprobe *u)
{
	if (!do_unregister_nosync(u)) {
		/* Never registered, or dropped with its process. */
		if (u->state == PID_PROBE_DROPPED) {
			flush_work(&drop_gone);
			u->state = PID_PROBE_IDLE;
		}
		return;
	}
	uprobe_unregister_sync();
	mmdrop(u->mm);
	u->mm = NULL;
}

static void deferred_op(struct callback_head *head)
{
	struct pid_uprobe *u = container_of(head, struct pid_uprobe, deferred);
	int op = u->deferred_op, ret = 0;

	u->deferred_op = 0;
	if (op == DEFER_REGISTER)
		ret = do_register(u, u->type);
	else
		do_unregister(u);
	if (u->registration_callback)
		u->registration_callback(u, op == DEFER_REGISTER, u->type, ret);
}

/* From a handler: run @op before the thread returns to user mode. */
static int defer(struct pid_uprobe *u, int op, enum uprobe_type type)
{
	int ret;

	if (u->deferred_op) {
		/* One is queued already: it will do the latest request. */
		u->deferred_op = op;
		return -EINPROGRESS;
	}
	u->deferred_op = op;
	u->type = type;
	init_task_work(&u->deferred, deferred_op);
	ret = task_work_add(current, &u->deferred, TWA_RESUME);
	if (ret) {
		u->deferred_op = 0;
		return ret;
	}
	if (op == DEFER_REGISTER)
		u->state = PID_PROBE_PENDING;
	return -EINPROGRESS;
}

static int register_common(struct pid_uprobe *u, enum uprobe_type type)
{
	if (u->state == PID_PROBE_ACTIVE || u->state == PID_PROBE_PENDING)
		return -EBUSY;
	if (u->state == PID_PROBE_DROPPED && !in_handler()) {
		flush_work(&drop_gone);
		u->state = PID_PROBE_IDLE;
	}
	if (in_handler())
		return defer(u, DEFER_REGISTER, type);
	return do_register(u, type);
}

static void unregister_common(struct pid_uprobe *u, enum uprobe_type type)
{
	if (in_handler()) {
		defer(u, DEFER_UNREGISTER, type);
		return;
	}
	do_unregister(u);
}

/**
 * register_pid_uprobe() - probe an instruction of one process
 * @u: pid, vaddr, handler and optionally registration_callback set
 *
 * Return: 0; -EINPROGRESS when called from a uprobe handler (the
 * registration completes later, see registration_callback); -ESRCH for
 * no such process; -EINVAL for an address not in a private executable
 * mapping of a file, or misaligned; -EBUSY when @u is registered
 * already; -EEXIST when the process's text there is not the file's
 * (a debugger's breakpoint, say); -EOPNOTSUPP for an instruction that
 * cannot be probed; -ENOMEM.
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
 * On return its handler is not running and will not run again, except
 * when called from a uprobe handler: then the removal completes before
 * the calling thread returns to user mode, and registration_callback
 * reports it.  Does nothing for a probe whose process has exited or
 * exec'ed.
 */
void unregister_pid_uprobe(struct pid_uprobe *u)
{
	unregister_common(u, UPTY_UPROBE);
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
	unregister_common(&rp->u, UPTY_URETPROBE);
}
EXPORT_SYMBOL_GPL(unregister_pid_uretprobe);

/* Unregister the probes of processes whose mm went away. */
static void drop_gone_work(struct work_struct *work)
{
	struct pid_uprobe *u, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&pid_probes_lock);
	list_for_each_entry_safe(u, tmp, &pid_probes, node) {
		if (atomic_read(&u->mm->mm_users))
			continue;
		list_move(&u->node, &gone);
		atomic_dec(&nr_pid_probes);
		u->state = PID_PROBE_DROPPED;
	}
	mutex_unlock(&pid_probes_lock);
	if (list_empty(&gone))
		return;
	list_for_each_entry(u, &gone, node)
		uprobe_unregister_nosync(u->point, &u->consumer);
	uprobe_unregister_sync();
	list_for_each_entry_safe(u, tmp, &gone, node) {
		list_del_init(&u->node);
		mmdrop(u->mm);
		u->mm = NULL;
		u->point = NULL;
	}
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
	if (atomic_read(&nr_pid_probes))
		schedule_work(&drop_gone);
}

/* In a forked child, before it first runs in user mode. */
static void fork_fixup(struct callback_head *head)
{
	struct uprobe_task *ut = container_of(head, struct uprobe_task,
					      fork_work);
	struct mm_struct *parent = ut->fork_parent_mm;
	struct pid_uprobe *u;

	ut->fork_parent_mm = NULL;
	mutex_lock(&pid_probes_lock);
	list_for_each_entry(u, &pid_probes, node)
		if (u->mm == parent)
			uprobe_leave_current_mm(u->point, u->vaddr);
	mutex_unlock(&pid_probes_lock);
	mmdrop(parent);
}

/**
 * uprobe_pid_fork() - a child with a copy of the current mm is made
 * @child: its uprobe state (allocated if need be)
 *
 * Return: 0, or -ENOMEM when the child's state could not be allocated.
 */
int uprobe_pid_fork(struct task_struct *child)
{
	struct mm_struct *mm = current->mm;
	struct uprobe_task *ut;
	struct pid_uprobe *u;
	bool probed = false;

	if (!atomic_read(&nr_pid_probes) || !mm)
		return 0;
	mutex_lock(&pid_probes_lock);
	list_for_each_entry(u, &pid_probes, node)
		if (u->mm == mm)
			probed = true;
	mutex_unlock(&pid_probes_lock);
	if (!probed)
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
