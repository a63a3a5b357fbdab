// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the rest of the kernel calls into uprobes as address spaces and
 * tasks come and go: mmap and munmap, fork (dup_mmap() and
 * copy_process()), a task's exit or exec, an mm's teardown.  Each hook
 * hands its part to the file that owns the state (register.c, xol.c,
 * return.c, addr_cache.c); this is the only place the engine calls
 * process probes (pid.c), so the engine knows that client only as a
 * set of hooks.
 */
#include <linux/mm.h>
#include <linux/sched/coredump.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "internal.h"

/* ---- address spaces ---- */

/**
 * uprobe_mmap() - arm the probes a new mapping brings in
 * @vma: the vma, linked; its mm's mmap_lock held for writing
 *
 * Return: 0; a probe that cannot be armed here is left out.
 */
int uprobe_mmap(struct vm_area_struct *vma)
{
	struct uprobe *local[16], **list = local;
	loff_t start, end;
	int n, i, max = ARRAY_SIZE(local);

	if (!uprobes_any())
		return 0;
	uprobe_ref_ctr_mmap(vma);
	if (!uprobe_vma_ok(vma, true))
		return 0;

	start = (loff_t)vma->vm_pgoff << PAGE_SHIFT;
	end = start + (vma->vm_end - vma->vm_start);
	for (;;) {
		n = uprobes_in_range(file_inode(vma->vm_file), start, end,
				     list, max);
		if (n <= max)
			break;
		for (i = 0; i < max; i++)
			uprobe_put(list[i]);
		if (list != local)
			kfree(list);
		max = n + 8;
		list = kmalloc_array(max, sizeof(*list), GFP_KERNEL);
		if (!list)
			return 0;
	}
	for (i = 0; i < n; i++) {
		struct uprobe *u = list[i];

		if (uprobe_wanted_by(u, vma->vm_mm))
			uprobe_install(u, vma, uprobe_vaddr(vma, u->offset));
		uprobe_put(u);
	}
	if (list != local)
		kfree(list);
	return 0;
}

/**
 * uprobe_munmap() - a range of @vma is going away
 * @vma: the vma
 * @start: start of the range
 * @end: its end
 *
 * The breakpoints go with the pages; the address cache forgets the range.
 */
void uprobe_munmap(struct vm_area_struct *vma, unsigned long start,
		   unsigned long end)
{
	uprobe_addr_cache_forget(vma->vm_mm, start, end);
}

/* Around dup_mmap(): no registration walk while a fork copies an mm. */
void uprobe_start_dup_mmap(void)
{
	percpu_down_read(&uprobes_dup_mmap_sem);
}

void uprobe_end_dup_mmap(void)
{
	percpu_up_read(&uprobes_dup_mmap_sem);
}

/**
 * uprobe_dup_mmap() - a fork copied @oldmm to @newmm
 * @oldmm: the parent's mm
 * @newmm: the child's, with the parent's breakpoints in its pages
 */
void uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	/*
	 * The copied mm_struct points at the parent's table and counts the
	 * parent's process probes.
	 */
	uprobe_addr_cache_drop(newmm);
	newmm->uprobes_state.nr_pid_probes = 0;
	if (test_bit(MMF_HAS_UPROBES, &oldmm->flags))
		set_bit(MMF_HAS_UPROBES, &newmm->flags);
	arch_uprobe_dup_mmap(oldmm, newmm);
}

/* ---- tasks ---- */

/**
 * uprobe_free_utask() - a thread exits or execs
 * @t: the thread (current)
 */
void uprobe_free_utask(struct task_struct *t)
{
	struct uprobe_task *ut = t->utask;

	if (!ut)
		return;
	/* A slot is held after a step too (see xol.c), in @t's mm. */
	if (ut->slot && t->mm && t->mm->uprobes_state.xol_area)
		uprobe_xol_forget(t->mm->uprobes_state.xol_area, ut);
	if (ut->stepping)
		uprobe_hit_put(ut->stepping);
	uprobe_free_return_instances(ut);
	kfree(ut);
	t->utask = NULL;
}

/**
 * uprobe_copy_process() - a new task is being made
 * @t: the child
 * @flags: clone flags
 *
 * A child that goes on running the parent's stack (fork, vfork) returns
 * through the parent's pending return probes, so it gets copies of them;
 * a forked child also needs the trampoline at the same address.
 */
void uprobe_copy_process(struct task_struct *t, unsigned long flags)
{
	struct uprobe_task *parent = current->utask, *child;
	unsigned long tramp;

	t->utask = NULL;
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return;		/* a thread: a stack of its own, the same mm */

	if (parent && parent->return_instances) {
		child = kzalloc(sizeof(*child), GFP_KERNEL);
		if (!child || uprobe_dup_return_instances(parent, child)) {
			kfree(child);
			child = NULL;
			pr_warn_ratelimited("uprobes: pid %d: no memory to copy return probes to the child\n",
					    current->pid);
		}
		t->utask = child;
		tramp = uprobe_xol_trampoline_vaddr(current->mm);
		if (child && !(flags & CLONE_VM) &&
		    tramp != UPROBE_NO_TRAMPOLINE_VADDR) {
			child->xol_dup_vaddr = tramp;
			init_task_work(&child->xol_dup_work, uprobe_dup_xol_work);
			task_work_add(t, &child->xol_dup_work, TWA_RESUME);
		}
	}
	if (!(flags & CLONE_VM) && uprobe_pid_fork(t))
		pr_warn_ratelimited("uprobes: pid %d: no memory to take process probes out of the child\n",
				    current->pid);
}

/**
 * uprobes_init() - set up the engine at boot
 *
 * Nothing to do: the engine's locks and tables are static, and the ports
 * hook their traps themselves.  Kept for fork_init(), which calls it.
 */
void __init uprobes_init(void)
{
}

/* ---- an mm's end ---- */

/**
 * uprobe_clear_state() - an mm is being torn down
 * @mm: the mm
 */
void uprobe_clear_state(struct mm_struct *mm)
{
	uprobe_ref_ctr_forget_mm(mm);
	uprobe_pid_mm_gone(mm);
	uprobe_addr_cache_drop(mm);
	uprobe_xol_drop(mm);
	arch_uprobe_clear_state(mm);
}
