// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table that maps a probed address to its site.
 *
 * Lookups (kprobe_lookup() in <linux/kprobes_arch.h>) run in trap and
 * ftrace context without locks.  Changes hold probes_mutex.  The table
 * keeps at most one site per bucket on average: it doubles when it gets
 * fuller and halves when it is mostly empty, so a hit costs the same with
 * ten probes or ten thousand.
 *
 * Each site has two hash links.  A resize chains every site into the new
 * table through the link the current table does not use, then publishes
 * the new table; lookups still walking the old one keep following
 * untouched links.  The old links may only be reused by the next resize
 * once those lookups are over, which is what the grace period cookie
 * recorded at each resize is for.
 */
#include <linux/kprobes_arch.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <kunit/visibility.h>

#include "internal.h"

#define TABLE_MIN_BITS	8
#define TABLE_MAX_BITS	20

/*
 * The first table is static, so that lookups work from the first int3
 * the kernel takes, long before the core initialises.  It is never freed.
 */
static union {
	struct kprobe_site_table t;
	u8 room[struct_size_t(struct kprobe_site_table, heads,
			      1U << TABLE_MIN_BITS)];
} boot_table = {
	.t.shift = 64 - TABLE_MIN_BITS,
	.t.node_off = offsetof(struct kprobe_site, hnode[0]),
};

/* kprobe_lookup() finds a site's kprobe at the site's own address. */
static_assert(offsetof(struct kprobe_site, kp) == 0);

static unsigned int table_bits(struct kprobe_site_table *t)
{
	return 64 - t->shift;
}

static unsigned int table_gen(struct kprobe_site_table *t)
{
	return t->node_off != offsetof(struct kprobe_site, hnode[0]);
}

struct kprobe_site_table __rcu *kprobe_sites = RCU_INITIALIZER(&boot_table.t);

static unsigned int nr_sites;
/* Grace period after which no lookup can be in a retired table. */
static unsigned long retired_cookie;
static bool retired_any;

static struct kprobe_site_table *current_table(void)
{
	return rcu_dereference_protected(kprobe_sites,
					 lockdep_is_held(&probes_mutex));
}

static struct kprobe_site_table *alloc_table(unsigned int bits,
					     unsigned int gen)
{
	struct kprobe_site_table *t;
	unsigned int i;

	t = kvmalloc(struct_size(t, heads, 1U << bits), GFP_KERNEL);
	if (!t)
		return NULL;
	t->shift = 64 - bits;
	t->node_off = offsetof(struct kprobe_site, hnode[gen]);
	for (i = 0; i < (1U << bits); i++)
		INIT_HLIST_HEAD(&t->heads[i]);
	return t;
}

static void table_insert(struct kprobe_site_table *t,
			 struct kprobe_site *site)
{
	hlist_add_head_rcu(&site->hnode[table_gen(t)],
			   &t->heads[kprobe_site_hash(site->kp.addr, t->shift)]);
}

/*
 * Move every site into a table of 2^@bits buckets.  When there is no
 * memory the old table simply stays: lookups get slower, not wrong.
 */
static void resize(unsigned int bits)
{
	struct kprobe_site_table *old = current_table(), *new;
	struct kprobe_site *site;
	unsigned int i;

	/* The links the new table will use may still be walked in the last one. */
	if (retired_any)
		cond_synchronize_rcu(retired_cookie);
	new = alloc_table(bits, !table_gen(old));
	if (!new)
		return;
	for (i = 0; i < (1U << table_bits(old)); i++)
		hlist_for_each_entry(site, &old->heads[i], hnode[table_gen(old)])
			table_insert(new, site);
	rcu_assign_pointer(kprobe_sites, new);
	retired_cookie = get_state_synchronize_rcu();
	retired_any = true;
	if (old != &boot_table.t)
		kvfree_rcu(old, rcu);
}

/* The number of bits a table for @n sites should have. */
static unsigned int bits_for(unsigned int n)
{
	unsigned int bits = TABLE_MIN_BITS;

	while (bits < TABLE_MAX_BITS && (1U << bits) < n)
		bits++;
	return bits;
}

/**
 * kprobe_table_reserve() - make room for @more sites at once
 * @more: how many sites are about to be added
 *
 * Lets a batch grow the table once instead of one doubling at a time.
 */
void kprobe_table_reserve(unsigned int more)
{
	unsigned int bits = bits_for(nr_sites + more);

	lockdep_assert_held(&probes_mutex);
	if (bits > table_bits(current_table()))
		resize(bits);
}

/**
 * kprobe_table_add() - make @site findable by its address
 * @site: a site whose kp.addr is set and which is not in the table
 */
void kprobe_table_add(struct kprobe_site *site)
{
	lockdep_assert_held(&probes_mutex);
	kprobe_table_reserve(1);
	table_insert(current_table(), site);
	nr_sites++;
}

/**
 * kprobe_table_del() - take @site out of the table
 * @site: a site in the table
 *
 * Lookups may still find it until a grace period has passed.
 */
void kprobe_table_del(struct kprobe_site *site)
{
	struct kprobe_site_table *t = current_table();

	lockdep_assert_held(&probes_mutex);
	hlist_del_rcu(&site->hnode[table_gen(t)]);
	nr_sites--;
	/* Shrink with some slack so a table on the edge does not flap. */
	if (table_bits(t) > TABLE_MIN_BITS && nr_sites < (1U << table_bits(t)) / 8)
		resize(bits_for(nr_sites * 2));
}

/**
 * kprobe_table_buckets() - how many buckets the site table has now
 *
 * For tests that watch the table grow and shrink.
 *
 * Return: the number of buckets.
 */
unsigned int kprobe_table_buckets(void)
{
	guard(mutex)(&probes_mutex);
	return 1U << table_bits(current_table());
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_table_buckets);

void kprobe_visit_sites(kprobe_site_fn_t fn, void *arg)
{
	struct kprobe_site_table *t = current_table();
	struct kprobe_site *site;
	struct hlist_node *next;
	unsigned int i;

	for (i = 0; i < (1U << table_bits(t)); i++)
		hlist_for_each_entry_safe(site, next, &t->heads[i],
					  hnode[table_gen(t)])
			fn(site, arg);
}

/**
 * get_kprobe() - the probe site at an address
 * @addr: a kernel text address
 *
 * Return: the kprobe that stands for every probe registered at @addr, or
 * NULL.  Safe from any context that holds off a grace period (trap
 * handlers, RCU readers) as well as under the core's mutex.
 */
struct kprobe *get_kprobe(void *addr)
{
	return kprobe_lookup(addr);
}
EXPORT_SYMBOL_IF_KUNIT(get_kprobe);
NOKPROBE_SYMBOL(get_kprobe);
