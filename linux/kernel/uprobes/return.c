// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes.  At the entry hit the function's return address is
 * swapped for the trampoline in the XOL area and remembered in a
 * return_instance on the thread's stack of pending ones; reaching the
 * trampoline pops it, runs the return handlers and resumes at the real
 * return address.
 *
 * Frames can vanish without returning (longjmp, exceptions): the port
 * says from the stack pointer whether an instance's frame is still
 * live, and dead ones are dropped, their handlers not run, both when a
 * new call is probed and when the trampoline is reached.
 *
 * The list is read from interrupts by perf's unwinder (callchain.c) on
 * the same thread: an instance is complete before it is linked, and
 * unlinked before it is reused.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "internal.h"

static struct return_instance *ri_alloc(struct uprobe_task *ut)
{
	struct return_instance *ri = ut->ri_cache;

	if (ri) {
		ut->ri_cache = ri->next;
		return ri;
	}
	return kmalloc(sizeof(*ri), GFP_KERNEL);
}

/* Unlinked @ri goes to the cache, its hold on the probe dropped. */
static void ri_recycle(struct uprobe_task *ut, struct return_instance *ri)
{
	uprobe_hit_put(ri->probe);
	ri->next = ut->ri_cache;
	ut->ri_cache = ri;
}

static void ri_pop(struct uprobe_task *ut, struct return_instance *ri)
{
	WRITE_ONCE(ut->return_instances, ri->next);
	ut->depth--;
	ri_recycle(ut, ri);
}

static void drop_dead(struct uprobe_task *ut, enum uprobe_frame_check ctx,
		      struct pt_regs *regs)
{
	struct return_instance *ri;

	while ((ri = ut->return_instances) &&
	       !arch_uretprobe_frame_live(ri, ctx, regs))
		ri_pop(ut, ri);
}

/**
 * uprobe_prepare_return() - make the probed function return through us
 * @uprobe: the probe hit at the function's entry
 * @regs: registers at the entry
 * @ut: the thread's state
 */
void uprobe_prepare_return(struct uprobe *uprobe, struct pt_regs *regs,
			   struct uprobe_task *ut)
{
	struct return_instance *ri;
	unsigned long tramp, orig;
	bool chained;

	if (!uprobe_xol_get(current->mm))
		return;
	tramp = uprobe_xol_trampoline_vaddr(current->mm);
	if (ut->depth >= MAX_URETPROBE_DEPTH) {
		pr_warn_ratelimited("uprobes: pid %d: %d return probes pending, not adding one more\n",
				    current->pid, ut->depth);
		return;
	}
	ri = ri_alloc(ut);
	if (!ri)
		return;
	/*
	 * Found under SRCU, the probe may be past its last reference, on its
	 * way out: no return for it then.
	 */
	if (!uprobe_hit_get(uprobe))
		goto unused;

	orig = arch_uretprobe_hijack_return_addr(tramp, regs);
	if (orig == -1UL)
		goto unused_put;
	chained = orig == tramp;
	drop_dead(ut, chained ? UPROBE_FRAME_TAIL_CALL : UPROBE_FRAME_CALL, regs);
	if (chained) {
		/*
		 * A tail call from a function we already return from: both
		 * return to where the earlier one would have.  With nothing
		 * pending, the program put our trampoline there itself.
		 */
		if (!ut->return_instances) {
			force_sig(SIGSEGV);
			goto unused_put;
		}
		orig = ut->return_instances->orig_ret_vaddr;
	}

	ri->probe = uprobe;
	ri->entry_vaddr = instruction_pointer(regs);
	ri->entry_sp = user_stack_pointer(regs);
	ri->orig_ret_vaddr = orig;
	ri->tail_call = chained;
	ri->next = ut->return_instances;
	barrier();	/* complete before perf's unwinder can see it */
	WRITE_ONCE(ut->return_instances, ri);
	ut->depth++;
	return;
unused_put:
	uprobe_hit_put(uprobe);
unused:
	ri->next = ut->ri_cache;
	ut->ri_cache = ri;
}

static void run_return_handlers(struct uprobe_task *ut,
				struct return_instance *ri,
				struct pt_regs *regs)
{
	struct uprobe *u = ri->probe;
	struct uprobe_consumer *uc;

	ut->in_handler = true;
	list_for_each_entry_srcu(uc, &u->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu))
		if (uc->ret_handler)
			uc->ret_handler(uc, ri->entry_vaddr, regs);
	ut->in_handler = false;
}

void uprobe_handle_trampoline(struct pt_regs *regs)
{
	struct uprobe_task *ut = current->utask;
	struct return_instance *ri, *last, *next;
	bool live;
	int idx;

	if (!ut || !ut->return_instances)
		goto bad;

	idx = srcu_read_lock(&uprobes_srcu);
	ri = ut->return_instances;
	do {
		/* [ri, last] return together; @next is the caller's. */
		for (last = ri; last->tail_call; last = last->next) {
			if (!last->next) {
				srcu_read_unlock(&uprobes_srcu, idx);
				goto bad;
			}
		}
		next = last->next;
		live = !next || arch_uretprobe_frame_live(next, UPROBE_FRAME_RETURN, regs);
		instruction_pointer_set(regs, last->orig_ret_vaddr);
		for (;;) {
			struct return_instance *cur = ri;
			bool end = cur == last;

			ri = cur->next;
			/* Unlinked first: the handlers' stack traces are then right. */
			WRITE_ONCE(ut->return_instances, ri);
			ut->depth--;
			if (live)
				run_return_handlers(ut, cur, regs);
			ri_recycle(ut, cur);
			if (end)
				break;
		}
	} while (!live);
	srcu_read_unlock(&uprobes_srcu, idx);
	return;
bad:
	pr_warn_ratelimited("uprobes: pid %d reached the return trampoline with no return pending\n",
			    current->pid);
	force_sig(SIGILL);
}

void uprobe_free_return_instances(struct uprobe_task *ut)
{
	struct return_instance *ri;

	while ((ri = ut->return_instances))
		ri_pop(ut, ri);
	while ((ri = ut->ri_cache)) {
		ut->ri_cache = ri->next;
		kfree(ri);
	}
}

/* Copy @parent's pending instances to @child, in order. */
int uprobe_dup_return_instances(struct uprobe_task *parent,
				struct uprobe_task *child)
{
	struct return_instance *ri, **tail = &child->return_instances;

	for (ri = parent->return_instances; ri; ri = ri->next) {
		struct return_instance *copy = kmemdup(ri, sizeof(*ri), GFP_KERNEL);

		if (!copy) {
			uprobe_free_return_instances(child);
			return -ENOMEM;
		}
		uprobe_hit_dup(copy->probe);
		copy->next = NULL;
		*tail = copy;
		tail = &copy->next;
		child->depth++;
	}
	return 0;
}
