// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table that maps a probed address to its head (see
 * <linux/kprobes_arch.h>): open addressing, linear probing.
 *
 * Lookups (kprobe_lookup()) run in trap and ftrace context without locks;
 * changes hold probes_mutex.  A slot changes with one pointer store, so a
 * lookup sees either the old or the new head, never a half-made link, and
 * the probes carry no table links at all: a lone probe costs the table
 * one pointer and a fraction.  The table is rebuilt into a new array when
 * it gets too full (counting tombstones) or mostly empty, so a hit costs
 * the same with ten probes or ten thousand.
 */
#include <linux/kprobes_arch.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <kunit/visibility.h>

#include "internal.h"

#define TABLE_MIN_BITS	8
#define TABLE_MAX_BITS	24

/*
 * The first table is static, so that lookups work from the first int3
 * the kernel takes, long before the core initialises.  It is never freed.
 */
static struct kprobe __rcu *boot_slots[1U << TABLE_MIN_BITS];
static struct kprobe_site_table boot_table = {
	.shift = 64 - TABLE_MIN_BITS,
	.mask = (1U << TABLE_MIN_BITS) - 1,
	.slots = boot_slots,
};

struct kprobe_site_table __rcu *kprobe_sites = RCU_INITIALIZER(&boot_table);

/*
 * What a removed entry leaves behind while a search may still have to
 * step over it: a kprobe at its own (data) address, which no search for
 * a text address can match.
 */
static struct kprobe tombstone = {
	.addr = (kprobe_opcode_t *)&tombstone,
};

/* Heads in the table, and tombstones: both lengthen searches. */
static unsigned int nr_heads, nr_tombs;

static struct kprobe_site_table *current_table(void)
{
	return rcu_dereference_protected(kprobe_sites,
					 lockdep_is_held(&probes_mutex));
}

static unsigned int table_size(struct kprobe_site_table *t)
{
	return t->mask + 1;
}

static struct kprobe *slot_get(struct kprobe_site_table *t, unsigned long i)
{
	return rcu_dereference_protected(t->slots[i],
					 lockdep_is_held(&probes_mutex));
}

/* A rebuilt table is at most 5/8 full... */
static unsigned int bits_for(unsigned int n)
{
	unsigned int bits = TABLE_MIN_BITS;

	while (bits < TABLE_MAX_BITS && n > (5U << bits) / 8)
		bits++;
	return bits;
}

/* ...and is rebuilt once heads and tombstones fill 3/4 of it. */
static bool too_full(struct kprobe_site_table *t, unsigned int used)
{
	return used > table_size(t) / 4 * 3;
}

static unsigned long find_slot(struct kprobe_site_table *t, struct kprobe *kp)
{
	unsigned long i = kprobe_site_hash(kp->addr, t->shift);

	while (slot_get(t, i) != kp)
		i = (i + 1) & t->mask;
	return i;
}

/* Put @kp in the first free slot (empty or tombstone) of its run. */
static bool table_insert(struct kprobe_site_table *t, struct kprobe *kp)
{
	unsigned long i = kprobe_site_hash(kp->addr, t->shift);
	struct kprobe *old;

	for (;; i = (i + 1) & t->mask) {
		old = slot_get(t, i);
		if (!old || old == &tombstone)
			break;
	}
	/* Lookups must see a fully set up head before they can find it. */
	rcu_assign_pointer(t->slots[i], kp);
	return old == &tombstone;
}

static void free_table(struct rcu_head *rcu)
{
	struct kprobe_site_table *t = container_of(rcu, typeof(*t), rcu);

	kvfree(t->slots);
	kfree(t);
}

/*
 * Copy every head into a new table of 2^@bits slots, publish it and free
 * the old one once no lookup can be in it.  -ENOMEM leaves the old table.
 */
static int rebuild(unsigned int bits)
{
	struct kprobe_site_table *old = current_table(), *new;
	struct kprobe *kp;
	unsigned long i;

	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->slots = kvcalloc(1U << bits, sizeof(*new->slots), GFP_KERNEL);
	if (!new->slots) {
		kfree(new);
		return -ENOMEM;
	}
	new->shift = 64 - bits;
	new->mask = (1U << bits) - 1;
	for (i = 0; i < table_size(old); i++) {
		kp = slot_get(old, i);
		if (kp && kp != &tombstone)
			table_insert(new, kp);
	}
	rcu_assign_pointer(kprobe_sites, new);
	nr_tombs = 0;
	if (old != &boot_table)
		call_rcu(&old->rcu, free_table);
	return 0;
}

/**
 * kprobe_table_reserve() - make room for @more heads
 * @more: how many heads are about to be added
 *
 * Lets a batch grow the table once instead of one doubling at a time.
 *
 * Return: 0, or -ENOMEM when the table could not grow and has no room
 * for @more (it always keeps an empty slot, which ends every search).
 */
int kprobe_table_reserve(unsigned int more)
{
	struct kprobe_site_table *t = current_table();

	lockdep_assert_held(&probes_mutex);
	if (!too_full(t, nr_heads + nr_tombs + more))
		return 0;
	rebuild(bits_for(nr_heads + more));
	t = current_table();
	return nr_heads + nr_tombs + more < table_size(t) ? 0 : -ENOMEM;
}

/**
 * kprobe_table_add() - make @kp findable by its address
 * @kp: a head whose addr is set, with no head at that address yet
 *
 * Only after kprobe_table_reserve() has made room.
 */
void kprobe_table_add(struct kprobe *kp)
{
	lockdep_assert_held(&probes_mutex);
	if (table_insert(current_table(), kp))
		nr_tombs--;
	nr_heads++;
}

/**
 * kprobe_table_replace() - put @new where @old is
 * @old: a head in the table
 * @new: a head for the same address
 *
 * Lookups find one or the other; @old must stay valid until a grace
 * period has passed.
 */
void kprobe_table_replace(struct kprobe *old, struct kprobe *new)
{
	struct kprobe_site_table *t = current_table();

	lockdep_assert_held(&probes_mutex);
	rcu_assign_pointer(t->slots[find_slot(t, old)], new);
}

/**
 * kprobe_table_del() - take @kp out of the table
 * @kp: a head in the table
 *
 * Lookups may still find it until a grace period has passed.
 */
void kprobe_table_del(struct kprobe *kp)
{
	struct kprobe_site_table *t = current_table();
	unsigned long i = find_slot(t, kp);

	lockdep_assert_held(&probes_mutex);
	nr_heads--;
	if (slot_get(t, (i + 1) & t->mask)) {
		/* Searches for what follows must still step over it. */
		rcu_assign_pointer(t->slots[i], &tombstone);
		nr_tombs++;
	} else {
		/*
		 * The run ends here: no search needs this slot, nor the
		 * tombstones right before it, to go on.
		 */
		RCU_INIT_POINTER(t->slots[i], NULL);
		for (i = (i - 1) & t->mask; slot_get(t, i) == &tombstone;
		     i = (i - 1) & t->mask) {
			RCU_INIT_POINTER(t->slots[i], NULL);
			nr_tombs--;
		}
	}
	/* Shrink with slack, so that a table on the edge does not flap. */
	if (table_size(t) > (1U << TABLE_MIN_BITS) &&
	    nr_heads < table_size(t) / 8)
		rebuild(bits_for(nr_heads * 2));
}

/**
 * kprobe_table_buckets() - how many slots the site table has now
 *
 * For tests that watch the table grow and shrink.
 *
 * Return: the number of slots.
 */
unsigned int kprobe_table_buckets(void)
{
	guard(mutex)(&probes_mutex);
	return table_size(current_table());
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_table_buckets);

/**
 * kprobe_visit_sites() - call @fn on every head
 * @fn: the function; it may change heads but not add or remove any
 * @arg: passed to @fn
 */
void kprobe_visit_sites(kprobe_site_fn_t fn, void *arg)
{
	struct kprobe_site_table *t = current_table();
	struct kprobe *kp;
	unsigned long i;

	for (i = 0; i < table_size(t); i++) {
		kp = slot_get(t, i);
		if (kp && kp != &tombstone)
			fn(kp, arg);
	}
}

/**
 * get_kprobe() - the probe a hit at an address deals with
 * @addr: a kernel text address
 *
 * Return: the head that stands for every probe registered at @addr, or
 * NULL.  Safe from any context that holds off a grace period (trap
 * handlers, RCU readers) as well as under the core's mutex.
 */
struct kprobe *get_kprobe(void *addr)
{
	return kprobe_lookup(addr);
}
EXPORT_SYMBOL_IF_KUNIT(get_kprobe);
NOKPROBE_SYMBOL(get_kprobe);
