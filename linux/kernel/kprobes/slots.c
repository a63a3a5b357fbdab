// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Executable slots for out-of-line copies of probed instructions.
 *
 * Slots are KPROBE_INSN_SLOT_SIZE bytes, carved from pages the arch
 * allocates within reach of kernel text.  Allocation happens at
 * registration (sleepable, under slot_mutex); kernel_text_address() asks
 * from any context whether an address is in a slot, so the page list is
 * RCU.  Each page shows in /proc/kallsyms as kprobe_insn_page so stack
 * traces and perf can name code running there.
 */
#include <linux/kprobes.h>
#include <linux/execmem.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/bitmap.h>
#include <linux/rculist.h>
#include <linux/workqueue.h>

#include "internal.h"

#define SLOTS_PER_PAGE	(PAGE_SIZE / KPROBE_INSN_SLOT_SIZE)

struct slot_page {
	struct list_head list;
	void *base;
	unsigned int nr_used;
	/* execmem_free() sleeps: free after a grace period, in a worker. */
	struct rcu_work free_work;
	DECLARE_BITMAP(used, SLOTS_PER_PAGE);
};

static LIST_HEAD(slot_pages);
static DEFINE_MUTEX(slot_mutex);

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

	mutex_lock(&slot_mutex);
	list_for_each_entry(sp, &slot_pages, list) {
		if (sp->nr_used < SLOTS_PER_PAGE)
			goto found;
	}
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		goto out;
	sp->base = alloc_insn_page();
	if (!sp->base) {
		kfree(sp);
		goto out;
	}
	list_add_rcu(&sp->list, &slot_pages);
	announce_page(sp->base, false);
found:
	bit = find_first_zero_bit(sp->used, SLOTS_PER_PAGE);
	__set_bit(bit, sp->used);
	sp->nr_used++;
	slot = sp->base + bit * KPROBE_INSN_SLOT_SIZE;
out:
	mutex_unlock(&slot_mutex);
	return slot;
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

	mutex_lock(&slot_mutex);
	list_for_each_entry(sp, &slot_pages, list) {
		if (s < sp->base || s >= sp->base + PAGE_SIZE)
			continue;
		__clear_bit((s - sp->base) / KPROBE_INSN_SLOT_SIZE, sp->used);
		/* Keep one page around: probes come and go in bursts. */
		if (--sp->nr_used == 0 && !list_is_singular(&slot_pages)) {
			list_del_rcu(&sp->list);
			announce_page(sp->base, true);
			INIT_RCU_WORK(&sp->free_work, free_slot_page);
			queue_rcu_work(system_wq, &sp->free_work);
		}
		break;
	}
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
	struct slot_page *sp;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &slot_pages, list) {
		if (addr >= (unsigned long)sp->base &&
		    addr < (unsigned long)sp->base + PAGE_SIZE) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
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
