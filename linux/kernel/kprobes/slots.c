// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Executable slots for out-of-line copies of probed instructions.
 *
 * Slots are KPROBE_INSN_SLOT_SIZE bytes, carved from pages the arch
 * allocates within reach of kernel text.  Allocation happens at
 * registration (sleepable, under slot_mutex) and takes the first page on
 * a list of pages with a free slot; freeing finds a slot's page through
 * an xarray indexed by page frame.  Both cost the same however many
 * probes exist.  kernel_text_address() asks from any context, for every
 * frame of a stack trace, whether an address is in a slot: the xarray
 * answers that too, locklessly.  Each page shows in /proc/kallsyms as
 * kprobe_insn_page so stack traces and perf can name code running there.
 */
#include <linux/kprobes.h>
#include <linux/execmem.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/rculist.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <kunit/static_stub.h>

#include "internal.h"

#define SLOTS_PER_PAGE	(PAGE_SIZE / KPROBE_INSN_SLOT_SIZE)

struct slot_page {
	/* On slot_pages (RCU, for kallsyms), and on pages_with_room. */
	struct list_head list;
	struct list_head room;
	void *base;
	unsigned int nr_used;
	/* execmem_free() sleeps: free after a grace period, in a worker. */
	struct rcu_work free_work;
	DECLARE_BITMAP(used, SLOTS_PER_PAGE);
};

static LIST_HEAD(slot_pages);
static LIST_HEAD(pages_with_room);
/* base >> PAGE_SHIFT -> its slot_page; read under RCU from any context. */
static DEFINE_XARRAY(slot_index);
static DEFINE_MUTEX(slot_mutex);

static unsigned long page_key(const void *addr)
{
	return (unsigned long)addr >> PAGE_SHIFT;
}

void * __weak alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

void __weak free_insn_page(void *page)
{
	execmem_free(page);
}

static void announce_page(void *base, bool gone)
{
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)base,
			   PAGE_SIZE, gone, KPROBE_INSN_PAGE_SYM);
}

/**
 * kprobe_alloc_insn_slot() - take a free instruction slot
 *
 * Return: the slot, or NULL when no executable memory is left.
 */
kprobe_opcode_t *kprobe_alloc_insn_slot(void)
{
	struct slot_page *sp;
	unsigned int bit;
	void *slot = NULL;

	/* Tests make it fail, to see what a registration leaves behind. */
	KUNIT_STATIC_STUB_REDIRECT(kprobe_alloc_insn_slot);
	mutex_lock(&slot_mutex);
	sp = list_first_entry_or_null(&pages_with_room, struct slot_page, room);
	if (!sp) {
		sp = kzalloc(sizeof(*sp), GFP_KERNEL);
		if (!sp)
			goto out;
		sp->base = alloc_insn_page();
		if (!sp->base)
			goto fail;
		/* Slots never straddle pages: a page-aligned page is assumed. */
		if (WARN_ON_ONCE(offset_in_page(sp->base)) ||
		    xa_err(xa_store(&slot_index, page_key(sp->base), sp,
				    GFP_KERNEL))) {
			free_insn_page(sp->base);
			goto fail;
		}
		list_add_rcu(&sp->list, &slot_pages);
		list_add(&sp->room, &pages_with_room);
		announce_page(sp->base, false);
	}
	bit = find_first_zero_bit(sp->used, SLOTS_PER_PAGE);
	__set_bit(bit, sp->used);
	if (++sp->nr_used == SLOTS_PER_PAGE)
		list_del_init(&sp->room);
	slot = sp->base + bit * KPROBE_INSN_SLOT_SIZE;
out:
	mutex_unlock(&slot_mutex);
	return slot;
fail:
	kfree(sp);
	goto out;
}

static void free_slot_page(struct work_struct *work)
{
	struct slot_page *sp = container_of(to_rcu_work(work), struct slot_page,
					    free_work);

	free_insn_page(sp->base);
	kfree(sp);
}

/**
 * kprobe_free_insn_slot() - give a slot back
 * @slot: a slot from kprobe_alloc_insn_slot()
 *
 * The caller guarantees no CPU is still executing in @slot.
 */
void kprobe_free_insn_slot(kprobe_opcode_t *slot)
{
	struct slot_page *sp;
	void *s = slot;

	/* Tests keep freed slots poisoned, to catch hits still using them. */
	KUNIT_STATIC_STUB_REDIRECT(kprobe_free_insn_slot, slot);
	mutex_lock(&slot_mutex);
	sp = xa_load(&slot_index, page_key(s));
	if (WARN_ON_ONCE(!sp))
		goto out;
	__clear_bit((s - sp->base) / KPROBE_INSN_SLOT_SIZE, sp->used);
	if (sp->nr_used-- == SLOTS_PER_PAGE)
		list_add(&sp->room, &pages_with_room);
	/* Keep one page around: probes come and go in bursts. */
	if (!sp->nr_used && !list_is_singular(&slot_pages)) {
		xa_erase(&slot_index, page_key(sp->base));
		list_del(&sp->room);
		list_del_rcu(&sp->list);
		announce_page(sp->base, true);
		INIT_RCU_WORK(&sp->free_work, free_slot_page);
		queue_rcu_work(system_wq, &sp->free_work);
	}
out:
	mutex_unlock(&slot_mutex);
}

/**
 * is_kprobe_insn_slot() - is @addr inside an instruction slot page?
 * @addr: any address
 *
 * Safe in any context where RCU is watching; used by kernel_text_address().
 *
 * Return: true when it is.
 */
bool is_kprobe_insn_slot(unsigned long addr)
{
	return !!xa_load(&slot_index, page_key((void *)addr));
}
NOKPROBE_SYMBOL(is_kprobe_insn_slot);

/**
 * kprobe_get_kallsym() - the @symnum-th kprobes symbol for /proc/kallsyms
 * @symnum: index, from 0
 * @value: its address
 * @type: its kallsyms type letter
 * @sym: its name (KSYM_NAME_LEN bytes)
 *
 * Return: 0, or -ERANGE past the last one.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	struct slot_page *sp;
	int ret = -ERANGE;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &slot_pages, list) {
		if (symnum--)
			continue;
		*value = (unsigned long)sp->base;
		*type = 't';
		strscpy(sym, KPROBE_INSN_PAGE_SYM, KSYM_NAME_LEN);
		ret = 0;
		break;
	}
	rcu_read_unlock();
	return ret;
}
