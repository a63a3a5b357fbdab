// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The XOL ("execute out of line") area: one page per mm, mapped the
 * first time a probe there needs it and shown as "[uprobes]" in
 * /proc/<pid>/maps.  Its first slots hold the return trampoline; each
 * other slot holds the copy of one probe's instruction, followed by a
 * breakpoint, and every thread stepping that probe runs the same copy.
 *
 * A copy is written once and then left alone: a slot's bytes change only
 * when it is given to another probe, and only while no thread is sent to
 * it (its user count is claimed from 0 to -1 first, so no hit can join
 * meanwhile).  A CPU therefore never has to notice that code it may be
 * about to run changed under it, and a hit of a probe whose copy is
 * already there writes nothing and needs no cache maintenance.
 *
 * A thread keeps its user on the last slot it ran (uprobe_task->slot)
 * after the step: the slot cannot change while it is held, so the
 * thread's next hit of the same probe goes straight back to it, without
 * touching the count that the process's other threads share.  Held
 * slots cannot be refilled, so only mms with at most half as many users
 * as slots keep them.
 *
 * The page is the kernel's: the user cannot write it, and fork does not
 * copy it (a child that needs it gets its own, see uprobe_dup_xol_work()).
 */
#include <linux/highmem.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <kunit/static_stub.h>

#include "internal.h"

/* With big pages, more slots than threads ever step at once is waste. */
#define XOL_SLOTS	min_t(unsigned int, PAGE_SIZE / UPROBE_XOL_SLOT_BYTES, 256)

/* xol_slot->users while the slot's bytes are being written */
#define XOL_SLOT_FILLING	(-1)

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
	kfree(xa);
}

static struct xol_area *xol_area_alloc(void)
{
	const void *tramp;
	struct xol_area *xa;
	size_t size;
	void *kaddr;

	xa = kzalloc(struct_size(xa, slots, XOL_SLOTS), GFP_KERNEL);
	if (!xa)
		return NULL;
	xa->code_page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
	if (!xa->code_page) {
		xol_area_free(xa);
		return NULL;
	}
	init_waitqueue_head(&xa->wq);
	mutex_init(&xa->fill_lock);

	tramp = arch_uprobe_trampoline(&size);
	if (WARN_ON_ONCE(size > UPROBE_XOL_SLOT_BYTES * 2)) {
		xol_area_free(xa);
		return NULL;
	}
	/* The trampoline keeps the slots it covers; no copy goes there. */
	xa->first = DIV_ROUND_UP(size, UPROBE_XOL_SLOT_BYTES);
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

static unsigned long slot_vaddr(struct xol_area *xa, struct xol_slot *slot)
{
	return xa->base + (slot - xa->slots) * UPROBE_XOL_SLOT_BYTES;
}

/* Where the search for @key's slot starts: keys spread over the slots. */
static unsigned int slot_home(struct xol_area *xa, u64 key)
{
	return xa->first + do_div(key, XOL_SLOTS - xa->first);
}

static void slot_put(struct xol_area *xa, struct xol_slot *slot)
{
	/*
	 * A value-returning atomic is fully ordered: it is the barrier
	 * between the drop and the look at sleepers that wq_has_sleeper()
	 * would add a second time.
	 */
	if (atomic_dec_and_test(&slot->users) && waitqueue_active(&xa->wq))
		wake_up(&xa->wq);
}

/*
 * The slot that already holds @key's copy, with a user added, or NULL.
 * Lockless: a slot being refilled refuses the user, and a slot refilled
 * between the look at its key and the user's arrival is let go again.
 */
static struct xol_slot *slot_get(struct xol_area *xa, u64 key)
{
	unsigned int i = slot_home(xa, key), n;

	for (n = xa->first; n < XOL_SLOTS; n++) {
		struct xol_slot *slot = &xa->slots[i];

		if (READ_ONCE(slot->key) == key) {
			if (!atomic_inc_unless_negative(&slot->users))
				return NULL;
			/* Fully ordered: this key and trap are the copy held. */
			if (READ_ONCE(slot->key) == key)
				return slot;
			slot_put(xa, slot);
			return NULL;
		}
		if (++i == XOL_SLOTS)
			i = xa->first;
	}
	return NULL;
}

/* The port's copy of @au for the slot at @vaddr; KUnit replaces it. */
static unsigned int slot_copy(struct arch_uprobe *au, unsigned long vaddr,
			      u8 *code)
{
	KUNIT_STATIC_STUB_REDIRECT(slot_copy, au, vaddr, code);
	return arch_uprobe_fill_slot(au, vaddr, code);
}

/* A slot no thread is in, claimed from 0 users so its bytes can change. */
static struct xol_slot *slot_claim(struct xol_area *xa, unsigned int home,
				   bool unused_only)
{
	unsigned int i = home, n;

	for (n = xa->first; n < XOL_SLOTS; n++) {
		struct xol_slot *slot = &xa->slots[i];

		if ((!unused_only || !READ_ONCE(slot->key)) &&
		    atomic_cmpxchg(&slot->users, 0, XOL_SLOT_FILLING) == 0)
			return slot;
		if (++i == XOL_SLOTS)
			i = xa->first;
	}
	return NULL;
}

/*
 * Write @au's copy for @key into the idle slot nearest its home, one
 * never used if there is one.  Caller holds fill_lock.
 *
 * Return: the slot with us as its only user, or NULL when every slot
 * has a thread in it.
 */
static struct xol_slot *slot_fill(struct xol_area *xa, u64 key,
				  struct arch_uprobe *au)
{
	unsigned int home = slot_home(xa, key), trap, len;
	u8 code[UPROBE_XOL_SLOT_BYTES];
	struct xol_slot *slot;
	unsigned long vaddr;
	void *kaddr, *at;

	slot = slot_claim(xa, home, true);
	if (!slot)
		slot = slot_claim(xa, home, false);
	if (!slot)
		return NULL;

	vaddr = slot_vaddr(xa, slot);
	trap = slot_copy(au, vaddr, code);
	len = trap + UPROBE_SWBP_INSN_SIZE;
	if (WARN_ON_ONCE(len > sizeof(code))) {
		atomic_set(&slot->users, 0);
		return NULL;
	}
	kaddr = kmap_local_page(xa->code_page);
	at = kaddr + (vaddr - xa->base);
	memcpy(at, code, len);
	arch_uprobe_sync_slot(at, vaddr, len);
	kunmap_local(kaddr);
	slot->trap = trap;
	WRITE_ONCE(slot->key, key);
	/* The copy, key and trap before the first user, who is us. */
	atomic_set_release(&slot->users, 1);
	return slot;
}

/* A hint for sleepers: users come and go under our feet. */
static bool slot_idle(struct xol_area *xa)
{
	unsigned int i;

	for (i = xa->first; i < XOL_SLOTS; i++)
		if (atomic_read(&xa->slots[i].users) == 0)
			return true;
	return false;
}

/*
 * A user on the slot of @u's copy, writing the copy if the probe has
 * none.  Threads stepping the same probe share its slot.  Sleeps while
 * every slot has a user.
 *
 * Out of line, so that a thread back on the slot it holds does not pay
 * for this frame.
 *
 * Return: the slot's address, or 0 when a fatal signal came first.
 */
static noinline unsigned long xol_take(struct xol_area *xa, struct uprobe *u,
				       unsigned int *trap)
{
	struct xol_slot *slot;

	for (;;) {
		slot = slot_get(xa, u->xol_key);
		if (slot)
			break;
		if (mutex_lock_killable(&xa->fill_lock))
			return 0;
		/* Another thread may have written it meanwhile. */
		slot = slot_get(xa, u->xol_key);
		if (!slot)
			slot = slot_fill(xa, u->xol_key, &u->arch);
		mutex_unlock(&xa->fill_lock);
		if (slot)
			break;
		if (wait_event_killable(xa->wq, slot_idle(xa)))
			return 0;
	}
	*trap = slot->trap;
	return slot_vaddr(xa, slot);
}

static struct xol_slot *slot_at(struct xol_area *xa, unsigned long vaddr)
{
	return &xa->slots[(vaddr - xa->base) / UPROBE_XOL_SLOT_BYTES];
}

/* Drop a user xol_take() gave, of the slot at @vaddr. */
static void xol_release(struct xol_area *xa, unsigned long vaddr)
{
	slot_put(xa, slot_at(xa, vaddr));
}

/*
 * May the current thread hold its slot after the step?  Every holder
 * is a live task of the mm, counted in mm_users, that kept it while the
 * mm had at most half as many users as there are slots, so holders
 * never take more than half of them.  The mm's users, not the thread
 * group's: tasks cloned with CLONE_VM alone share the area too.
 * KUnit replaces it.
 */
static bool xol_keep(struct xol_area *xa)
{
	struct mm_struct *mm = current->mm;

	KUNIT_STATIC_STUB_REDIRECT(xol_keep, xa);
	return mm && atomic_read(&mm->mm_users) <= (XOL_SLOTS - xa->first) / 2;
}

/**
 * uprobe_xol_enter() - the slot where @ut runs @u's instruction
 * @xa: the current mm's area
 * @ut: the current thread's state; ->slot is the slot it holds, if any
 * @u: the probe whose instruction is to run out of line
 * @trap: set to the offset of the copy's breakpoint in the slot
 *
 * A slot the thread held from its last step of @u is used again as it
 * is; one of another probe is let go first.  Otherwise as xol_take().
 *
 * Return: the slot's address, also left in @ut->slot, or 0 when a fatal
 * signal came first.
 */
unsigned long uprobe_xol_enter(struct xol_area *xa, struct uprobe_task *ut,
			       struct uprobe *u, unsigned int *trap)
{
	if (ut->slot) {
		struct xol_slot *slot = slot_at(xa, ut->slot);

		/* Held, so neither its key nor its trap can change. */
		if (slot->key == u->xol_key) {
			*trap = slot->trap;
			return ut->slot;
		}
		uprobe_xol_forget(xa, ut);
	}
	ut->slot = xol_take(xa, u, trap);
	return ut->slot;
}

/**
 * uprobe_xol_leave() - @ut is out of its slot
 * @xa: the current mm's area
 * @ut: the current thread's state
 *
 * The thread goes on holding the slot when xol_keep() allows it.
 */
void uprobe_xol_leave(struct xol_area *xa, struct uprobe_task *ut)
{
	if (!xol_keep(xa))
		uprobe_xol_forget(xa, ut);
}

/**
 * uprobe_xol_forget() - let go of the slot @ut holds, if any
 * @xa: the area it is in
 * @ut: the thread's state
 */
void uprobe_xol_forget(struct xol_area *xa, struct uprobe_task *ut)
{
	if (!ut->slot)
		return;
	xol_release(xa, ut->slot);
	ut->slot = 0;
}

/*
 * A breakpoint trapped in the area that is not the one the thread was
 * sent to: the thread is lost (it gets the SIGTRAP), but the log says
 * what it ran, what it should have and what the slot holds, so that a
 * bug of the engine can be told from a CPU (or an emulator) that ran
 * something else.
 */
void uprobe_xol_report_stray(struct mm_struct *mm, unsigned long trap)
{
	/* Pairs with the release in xol_area_create(). */
	struct xol_area *xa = smp_load_acquire(&mm->uprobes_state.xol_area);
	struct uprobe_task *ut = current->utask;
	struct xol_slot *slot;
	unsigned long at;
	u8 code[UPROBE_XOL_SLOT_BYTES];
	void *kaddr;

	if (!xa || trap < xa->base ||
	    trap >= xa->base + XOL_SLOTS * UPROBE_XOL_SLOT_BYTES)
		return;
	at = ALIGN_DOWN(trap, UPROBE_XOL_SLOT_BYTES);
	slot = &xa->slots[(at - xa->base) / UPROBE_XOL_SLOT_BYTES];
	kaddr = kmap_local_page(xa->code_page);
	memcpy(code, kaddr + (at - xa->base), sizeof(code));
	kunmap_local(kaddr);
	/* Other threads may refill the slot meanwhile: a snapshot. */
	pr_warn_ratelimited("uprobes: pid %d: stray breakpoint at %#lx, in the slot of key %llu (%d users, breakpoint at +%u) holding %*phN; the thread: step %d, slot %#lx, breakpoint %#lx, probe %#lx\n",
			    current->pid, trap,
			    data_race(slot->key), /* a snapshot, see above */
			    atomic_read(&slot->users),
			    data_race(slot->trap), /* the same */
			    (int)sizeof(code), code, ut ? ut->step : -1,
			    ut ? ut->slot : 0, ut ? ut->slot_trap : 0,
			    ut ? ut->vaddr : 0);
}
NOKPROBE_SYMBOL(uprobe_xol_report_stray);

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

#ifdef CONFIG_UPROBES_KUNIT_TEST
#include "xol_kunit.c"
#endif
