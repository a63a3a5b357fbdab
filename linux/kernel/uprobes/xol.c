// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The XOL ("execute out of line") area: one page per mm, mapped the
 * first time a probe there needs it and shown as "[uprobes]" in
 * /proc/<pid>/maps.  Its first slot holds the return trampoline; the
 * others are lent to threads, one each while it runs a probed
 * instruction's copy, and given back when the copy's breakpoint traps.
 * The page is the kernel's: the user cannot write it, and fork does not
 * copy it (a child that needs it gets its own, see uprobe_dup_xol_work()).
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "internal.h"

#define XOL_SLOTS	(PAGE_SIZE / UPROBE_XOL_SLOT_BYTES)

struct xol_area {
	wait_queue_head_t		wq;	/* for a free slot */
	unsigned long			*slots;	/* bit set: slot in use */
	struct page			*code_page;
	unsigned long			base;	/* user address */
};

/*
 * The vma finds its page through the mm, not through a mapping of its
 * own: the area is freed before the mm's vmas are torn down.
 */
static vm_fault_t xol_area_fault(const struct vm_special_mapping *sm,
				 struct vm_area_struct *vma,
				 struct vm_fault *vmf)
{
	struct xol_area *xa = vma->vm_mm->uprobes_state.xol_area;

	if (!xa || vmf->pgoff)
		return VM_FAULT_SIGBUS;
	vmf->page = xa->code_page;
	get_page(vmf->page);
	return 0;
}

static const struct vm_special_mapping xol_special = {
	.name = "[uprobes]",
	.fault = xol_area_fault,
};

static void xol_area_free(struct xol_area *xa)
{
	if (xa->code_page)
		__free_page(xa->code_page);
	bitmap_free(xa->slots);
	kfree(xa);
}

static struct xol_area *xol_area_alloc(void)
{
	const void *tramp;
	struct xol_area *xa;
	size_t size;
	void *kaddr;

	xa = kzalloc(sizeof(*xa), GFP_KERNEL);
	if (!xa)
		return NULL;
	xa->slots = bitmap_zalloc(XOL_SLOTS, GFP_KERNEL);
	xa->code_page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
	if (!xa->slots || !xa->code_page) {
		xol_area_free(xa);
		return NULL;
	}
	init_waitqueue_head(&xa->wq);

	tramp = arch_uprobe_trampoline(&size);
	if (WARN_ON_ONCE(size > UPROBE_XOL_SLOT_BYTES * 2)) {
		xol_area_free(xa);
		return NULL;
	}
	/* The trampoline keeps the slots it covers. */
	bitmap_set(xa->slots, 0, DIV_ROUND_UP(size, UPROBE_XOL_SLOT_BYTES));
	kaddr = kmap_local_page(xa->code_page);
	memcpy(kaddr, tramp, size);
	arch_uprobe_sync_slot(kaddr, 0, size);
	kunmap_local(kaddr);
	return xa;
}

/* Map a new area in the current mm, at @vaddr or (0) wherever it fits. */
static struct xol_area *xol_area_create(unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct xol_area *xa, *cur;

	xa = xol_area_alloc();
	if (!xa)
		return NULL;
	if (mmap_write_lock_killable(mm)) {
		xol_area_free(xa);
		return NULL;
	}
	cur = mm->uprobes_state.xol_area;
	if (cur)
		goto out;
	if (!vaddr) {
		vaddr = get_unmapped_area(NULL, 0, PAGE_SIZE, 0, 0);
		if (IS_ERR_VALUE(vaddr))
			goto out;
	}
	vma = _install_special_mapping(mm, vaddr, PAGE_SIZE,
				       VM_EXEC | VM_MAYEXEC | VM_DONTCOPY | VM_IO,
				       &xol_special);
	if (IS_ERR(vma))
		goto out;
	xa->base = vaddr;
	/* Complete before a lockless reader can see it. */
	smp_store_release(&mm->uprobes_state.xol_area, xa);
	cur = xa;
	xa = NULL;
out:
	mmap_write_unlock(mm);
	if (xa)
		xol_area_free(xa);
	return cur;
}

/**
 * uprobe_xol_get() - the area of @mm, mapped now if need be
 * @mm: current->mm
 *
 * Return: the area, or NULL when it could not be mapped.
 */
struct xol_area *uprobe_xol_get(struct mm_struct *mm)
{
	/* Pairs with the release in xol_area_create(): a complete area. */
	struct xol_area *xa = smp_load_acquire(&mm->uprobes_state.xol_area);

	return xa ? xa : xol_area_create(0);
}

/**
 * uprobe_dup_xol_work() - give a forked child its parent's area
 * @work: the child's utask->xol_dup_work
 *
 * Return instances copied from the parent point at the parent's
 * trampoline: the child's area goes at the same address.
 */
void uprobe_dup_xol_work(struct callback_head *work)
{
	struct uprobe_task *ut = container_of(work, struct uprobe_task,
					      xol_dup_work);

	if (current->flags & PF_EXITING)
		return;
	if (!xol_area_create(ut->xol_dup_vaddr))
		pr_warn_ratelimited("uprobes: pid %d: no XOL area at %#lx for the return probes inherited at fork\n",
				    current->pid, ut->xol_dup_vaddr);
}

/* A hint for sleepers: the slots change under our feet. */
static bool slots_all_taken(struct xol_area *xa)
{
	/* Racy by design: test_and_set_bit() claims a slot, not this. */
	return data_race(bitmap_full(xa->slots, XOL_SLOTS));
}

/**
 * uprobe_xol_take() - lend the current thread a slot
 * @xa: the current mm's area
 *
 * Sleeps until one is free.
 *
 * Return: the slot's address, or 0 when a fatal signal came first.
 */
unsigned long uprobe_xol_take(struct xol_area *xa)
{
	unsigned long i;

	for (;;) {
		/*
		 * Racy by design: other threads take and free slots
		 * meanwhile, and test_and_set_bit() decides which is ours.
		 */
		i = data_race(find_first_zero_bit(xa->slots, XOL_SLOTS));
		if (i < XOL_SLOTS) {
			if (!test_and_set_bit(i, xa->slots))
				return xa->base + i * UPROBE_XOL_SLOT_BYTES;
			continue;
		}
		if (wait_event_killable(xa->wq, !slots_all_taken(xa)))
			return 0;
	}
}

/* Write @len bytes of @code to @slot, ready to be run. */
void uprobe_xol_fill(struct xol_area *xa, unsigned long slot,
		     const void *code, size_t len)
{
	void *kaddr = kmap_local_page(xa->code_page);
	void *at = kaddr + (slot - xa->base);

	memcpy(at, code, len);
	arch_uprobe_sync_slot(at, slot, len);
	kunmap_local(kaddr);
}

void uprobe_xol_release(struct xol_area *xa, unsigned long slot)
{
	clear_bit((slot - xa->base) / UPROBE_XOL_SLOT_BYTES, xa->slots);
	/* The free slot before the look at sleepers, who look after queueing. */
	smp_mb__after_atomic();
	if (wq_has_sleeper(&xa->wq))
		wake_up(&xa->wq);
}

unsigned long uprobe_xol_trampoline_vaddr(struct mm_struct *mm)
{
	/* Pairs with the release in xol_area_create(). */
	struct xol_area *xa = smp_load_acquire(&mm->uprobes_state.xol_area);

	return xa ? xa->base : UPROBE_NO_TRAMPOLINE_VADDR;
}

/**
 * uprobe_get_trampoline_vaddr() - where return probes return to
 *
 * Return: the return trampoline's address in the current mm, or
 * UPROBE_NO_TRAMPOLINE_VADDR when it has none.
 */
unsigned long uprobe_get_trampoline_vaddr(void)
{
	return current->mm ? uprobe_xol_trampoline_vaddr(current->mm) :
			     UPROBE_NO_TRAMPOLINE_VADDR;
}

/**
 * uprobe_xol_drop() - free @mm's XOL area, if it has one
 * @mm: an mm being torn down
 */
void uprobe_xol_drop(struct mm_struct *mm)
{
	struct xol_area *xa = mm->uprobes_state.xol_area;

	if (xa)
		xol_area_free(xa);
	mm->uprobes_state.xol_area = NULL;
}
