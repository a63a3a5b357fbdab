// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table that maps a probed address to its head (see
 * <linux/kprobes_hit.h>): buckets of heads chained through the heads'
 * own hlist nodes, so a lone probe costs the table a fraction of a bucket
 * and no memory of its own.
 *
 * Lookups (kprobe_lookup()) run in trap and ftrace context without locks;
 * changes hold kprobes_mutex.  The table is resized when the chains get
 * long or the buckets mostly empty, so a hit costs the same with ten
 * probes or ten thousand.
 *
 * A head has one link, so a resize cannot chain it into the new table
 * while lookups still walk the old one through it.  Instead the old
 * table points to the new one (@future) before anything moves, and every
 * lookup that misses in a table goes on in its future.  Heads then move
 * one at a time, always the last of an old chain: it is added at the
 * head of its new chain and only then cut off the old one.  A lookup that
 * is at the moved head follows it into the new chain, having seen all of
 * the old chain already; one that has not reached it yet finds the old
 * chain cut short and finds the head in the future table.  Nothing is
 * ever out of reach, and no lookup waits.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <kunit/visibility.h>

#include "internal.h"

#define TABLE_MIN_BITS	8
#define TABLE_MAX_BITS	22
/* Heads per bucket: a resize aims at TARGET, growth starts above MAX. */
#define LOAD_TARGET	3
#define LOAD_MAX	4

/*
 * The first table is static, so that lookups work from the first int3
 * the kernel takes, long before the core initialises.  It is never freed.
 */
static struct hlist_head boot_heads[1U << TABLE_MIN_BITS];
static struct kprobe_head_table boot_table = {
	.shift = 64 - TABLE_MIN_BITS,
	.heads = boot_heads,
};

struct kprobe_head_table __rcu *kprobe_head_table = RCU_INITIALIZER(&boot_table);

static unsigned int nr_heads;

static struct kprobe_head_table *current_table(void)
{
	return rcu_dereference_protected(kprobe_head_table,
					 lockdep_is_held(&kprobes_mutex));
}

static unsigned int table_size(struct kprobe_head_table *t)
{
	return 1U << (64 - t->shift);
}

static struct hlist_head *bucket(struct kprobe_head_table *t,
				 struct kprobe *kp)
{
	return &t->heads[kprobe_head_hash(kp->addr, t->shift)];
}

/* The number of bits a table for @n heads should have. */
static unsigned int bits_for(unsigned int n)
{
	unsigned int bits = TABLE_MIN_BITS;

	while (bits < TABLE_MAX_BITS && n > LOAD_TARGET << bits)
		bits++;
	return bits;
}

static void free_table(struct rcu_head *rcu)
{
	struct kprobe_head_table *t = container_of(rcu, typeof(*t), rcu);

	kvfree(t->heads);
	kfree(t);
}

/* Move the last head of @from to its bucket in @to; see the top. */
static void move_last(struct hlist_head *from, struct kprobe_head_table *to)
{
	struct hlist_node *last = from->first, **cut;
	struct kprobe *kp;

	while (last->next)
		last = last->next;
	cut = last->pprev;
	kp = hlist_entry(last, struct kprobe, hlist);
	hlist_add_head_rcu(last, bucket(to, kp));
	/* In the new chain before it leaves the old one. */
	smp_wmb();
	WRITE_ONCE(*cut, NULL);
}

/*
 * Move every head into a table of 2^@bits buckets.  Without memory the
 * old table simply stays: lookups get slower, not wrong.
 */
static void resize(unsigned int bits)
{
	struct kprobe_head_table *old = current_table(), *new;
	unsigned int i;

	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return;
	new->heads = kvcalloc(1U << bits, sizeof(*new->heads), GFP_KERNEL);
	if (!new->heads) {
		kfree(new);
		return;
	}
	new->shift = 64 - bits;
	RCU_INIT_POINTER(new->future, NULL);
	rcu_assign_pointer(old->future, new);
	for (i = 0; i < table_size(old); i++)
		while (!hlist_empty(&old->heads[i]))
			move_last(&old->heads[i], new);
	rcu_assign_pointer(kprobe_head_table, new);
	if (old != &boot_table) {
		call_rcu(&old->rcu, free_table);
	} else {
		/* Lookups still in the boot table go on in @new until then. */
		synchronize_rcu();
		RCU_INIT_POINTER(boot_table.future, NULL);
	}
}

/**
 * kprobe_table_reserve() - make room for @more heads
 * @more: how many heads are about to be added
 *
 * Lets a batch grow the table once instead of one doubling at a time.
 * A table that cannot grow only gets longer chains.
 */
void kprobe_table_reserve(unsigned int more)
{
	lockdep_assert_held(&kprobes_mutex);
	if (nr_heads + more > LOAD_MAX * table_size(current_table()))
		resize(bits_for(nr_heads + more));
}

/**
 * kprobe_table_add() - make @kp findable by its address
 * @kp: a head whose addr is set, with no head at that address yet
 */
void kprobe_table_add(struct kprobe *kp)
{
	lockdep_assert_held(&kprobes_mutex);
	kprobe_table_reserve(1);
	hlist_add_head_rcu(&kp->hlist, bucket(current_table(), kp));
	nr_heads++;
}

/**
 * kprobe_table_replace() - put @new where @old is
 * @old: a head in the table
 * @new: a head for the same address
 *
 * Lookups find one or the other; @old and its link must stay as they are
 * until a grace period has passed.
 */
void kprobe_table_replace(struct kprobe *old, struct kprobe *new)
{
	lockdep_assert_held(&kprobes_mutex);
	hlist_replace_rcu(&old->hlist, &new->hlist);
}

/**
 * kprobe_table_del() - take @kp out of the table
 * @kp: a head in the table
 *
 * Lookups may still find it, and walk on through its link, until a grace
 * period has passed.
 */
void kprobe_table_del(struct kprobe *kp)
{
	struct kprobe_head_table *t = current_table();

	lockdep_assert_held(&kprobes_mutex);
	hlist_del_rcu(&kp->hlist);
	nr_heads--;
	/* Shrink with slack, so that a table on the edge does not flap. */
	if (table_size(t) > (1U << TABLE_MIN_BITS) && nr_heads < table_size(t) / 2)
		resize(bits_for(nr_heads));
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
	guard(mutex)(&kprobes_mutex);
	return table_size(current_table());
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_table_buckets);

/**
 * kprobe_visit_heads() - call @fn on every head
 * @fn: the function; it may change heads but not add, remove or replace
 *	any
 * @arg: passed to @fn
 */
void kprobe_visit_heads(kprobe_head_fn_t fn, void *arg)
{
	struct kprobe_head_table *t = current_table();
	struct kprobe *kp;
	unsigned int i;

	for (i = 0; i < table_size(t); i++)
		hlist_for_each_entry(kp, &t->heads[i], hlist)
			fn(kp, arg);
}

struct head_collector {
	kprobe_head_filter_t want;
	void *arg;
	struct kprobe **heads;
	unsigned int n, max;
};

static void collect_head(struct kprobe *head, void *arg)
{
	struct head_collector *c = arg;

	if (c->want && !c->want(head, c->arg))
		return;
	if (c->n < c->max)
		c->heads[c->n] = head;
	c->n++;
}

/**
 * kprobe_collect_heads() - list the heads a filter accepts
 * @want: the filter, or NULL for every head
 * @arg: passed to @want
 * @heads: room for @max heads, filled in table order; NULL to only count
 * @max: how many @heads holds
 *
 * For operations on many sites at once (one text synchronisation for
 * all): count with @max 0, allocate, then collect.  The two passes see
 * the same heads because both run under kprobes_mutex.
 *
 * Return: how many heads @want accepts, which may be more than @max.
 */
unsigned int kprobe_collect_heads(kprobe_head_filter_t want, void *arg,
				  struct kprobe **heads, unsigned int max)
{
	struct head_collector c = {
		.want = want, .arg = arg, .heads = heads, .max = max,
	};

	lockdep_assert_held(&kprobes_mutex);
	kprobe_visit_heads(collect_head, &c);
	return c.n;
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
