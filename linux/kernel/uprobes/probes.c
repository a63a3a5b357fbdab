// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probe points: one struct uprobe per (inode, offset).
 *
 * A hit looks its probe up by hash without locks (under uprobes_srcu); an
 * mmap asks for every probe of a file within a range, which the rbtree
 * answers.  Both are changed together under uprobes_tree_lock.  A probe
 * stays findable while it has references; once the last one goes and
 * no step or return instance holds it any more, it is freed one SRCU
 * grace period later, so a hit that found it may keep using it until it
 * leaves its read-side section.
 */
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "internal.h"

DEFINE_SRCU(uprobes_srcu);

#define UPROBES_HASH_BITS	10

static DEFINE_SPINLOCK(uprobes_tree_lock);
static struct rb_root uprobes_tree = RB_ROOT;
static struct hlist_head uprobes_hash[1 << UPROBES_HASH_BITS];

static struct hlist_head *hash_head(struct inode *inode, loff_t offset)
{
	return &uprobes_hash[hash_long((unsigned long)inode ^ (unsigned long)offset,
				       UPROBES_HASH_BITS)];
}

/* Order by inode, then offset. */
static int cmp_key(struct inode *inode, loff_t offset, const struct uprobe *u)
{
	if (inode != u->inode)
		return inode < u->inode ? -1 : 1;
	if (offset != u->offset)
		return offset < u->offset ? -1 : 1;
	return 0;
}

/**
 * uprobe_lookup_rcu() - the live probe at @inode:@offset, if any
 * @inode: the file
 * @offset: offset in it
 *
 * Caller is in an uprobes_srcu read-side section, which keeps the result
 * from being freed.  It may be on its way out (no references left).
 */
struct uprobe *uprobe_lookup_rcu(struct inode *inode, loff_t offset)
{
	struct uprobe *u;

	hlist_for_each_entry_srcu(u, hash_head(inode, offset), hash,
				  srcu_read_lock_held(&uprobes_srcu))
		if (u->inode == inode && u->offset == offset)
			return u;
	return NULL;
}

static struct uprobe *tree_find(struct inode *inode, loff_t offset)
{
	struct rb_node *n = uprobes_tree.rb_node;

	while (n) {
		struct uprobe *u = rb_entry(n, struct uprobe, rb);
		int c = cmp_key(inode, offset, u);

		if (!c)
			return u;
		n = c < 0 ? n->rb_left : n->rb_right;
	}
	return NULL;
}

static void tree_insert(struct uprobe *new)
{
	struct rb_node **link = &uprobes_tree.rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (cmp_key(new->inode, new->offset,
			    rb_entry(parent, struct uprobe, rb)) < 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&new->rb, parent, link);
	rb_insert_color(&new->rb, &uprobes_tree);
	hlist_add_head_rcu(&new->hash, hash_head(new->inode, new->offset));
}

struct uprobe *uprobe_get(struct uprobe *uprobe)
{
	refcount_inc(&uprobe->ref);
	return uprobe;
}

/* A reference unless the probe is already on its way out. */
bool uprobe_tryget(struct uprobe *uprobe)
{
	return refcount_inc_not_zero(&uprobe->ref);
}

static void uprobe_free_rcu(struct rcu_head *head)
{
	struct uprobe *u = container_of(head, struct uprobe, rcu);

	percpu_ref_exit(&u->hits);
	kfree(u);
}

/* The last step or return instance is over (any context). */
static void uprobe_hits_gone(struct percpu_ref *hits)
{
	struct uprobe *u = container_of(hits, struct uprobe, hits);

	call_srcu(&uprobes_srcu, &u->rcu, uprobe_free_rcu);
}

void uprobe_put(struct uprobe *uprobe)
{
	if (!refcount_dec_and_lock(&uprobe->ref, &uprobes_tree_lock))
		return;
	rb_erase(&uprobe->rb, &uprobes_tree);
	hlist_del_rcu(&uprobe->hash);
	spin_unlock(&uprobes_tree_lock);

	uprobe_ref_ctr_forget_uprobe(uprobe);
	iput(uprobe->inode);
	/*
	 * Holders of ->hits use only the copy and the consumer list, which
	 * stay; the kill refuses new ones, and the last put frees.
	 */
	percpu_ref_kill(&uprobe->hits);
}

/**
 * uprobe_get_or_create() - a reference on the probe at @inode:@offset
 * @inode: the file
 * @offset: offset of the instruction in it
 * @ref_ctr_offset: offset of its semaphore in the file, or 0
 *
 * Return: the probe, ERR_PTR(-EINVAL) when it exists with another
 * semaphore, ERR_PTR(-ENOMEM).
 */
struct uprobe *uprobe_get_or_create(struct inode *inode, loff_t offset,
				    loff_t ref_ctr_offset)
{
	/* Never reused, so an XOL slot's copy cannot be taken for another's. */
	static atomic64_t xol_keys = ATOMIC64_INIT(0);
	struct uprobe *u, *new;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return ERR_PTR(-ENOMEM);
	if (percpu_ref_init(&new->hits, uprobe_hits_gone, 0, GFP_KERNEL)) {
		kfree(new);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&new->ref, 1);
	new->xol_key = atomic64_inc_return(&xol_keys);
	new->inode = inode;
	new->offset = offset;
	new->ref_ctr_offset = ref_ctr_offset;
	init_rwsem(&new->register_rwsem);
	mutex_init(&new->consumer_lock);
	mutex_init(&new->prepare_lock);
	INIT_LIST_HEAD(&new->consumers);

again:
	spin_lock(&uprobes_tree_lock);
	u = tree_find(inode, offset);
	if (u) {
		/* Dying: let its last put unhash it, then add ours. */
		if (!uprobe_tryget(u)) {
			spin_unlock(&uprobes_tree_lock);
			cond_resched();
			goto again;
		}
		spin_unlock(&uprobes_tree_lock);
		percpu_ref_exit(&new->hits);
		kfree(new);
		if (u->ref_ctr_offset != ref_ctr_offset) {
			pr_warn("uprobes: ref_ctr_offset mismatch at inode %lu offset %#llx: %#llx registered, %#llx asked\n",
				inode->i_ino, (unsigned long long)offset,
				(unsigned long long)u->ref_ctr_offset,
				(unsigned long long)ref_ctr_offset);
			uprobe_put(u);
			return ERR_PTR(-EINVAL);
		}
		return u;
	}
	ihold(inode);
	tree_insert(new);
	spin_unlock(&uprobes_tree_lock);
	return new;
}

/**
 * uprobes_in_range() - references on the probes of @inode in a range
 * @inode: the file
 * @start: first offset
 * @end: offset past the last
 * @out: where to put them
 * @max: room in @out
 *
 * Return: how many were put in @out; more than @max means there are more
 * (only @max were stored), and the caller may retry with a bigger array.
 */
int uprobes_in_range(struct inode *inode, loff_t start, loff_t end,
		     struct uprobe **out, int max)
{
	struct rb_node *n;
	int count = 0;

	spin_lock(&uprobes_tree_lock);
	/* Find the leftmost probe of @inode at or after @start. */
	n = uprobes_tree.rb_node;
	{
		struct rb_node *best = NULL;

		while (n) {
			struct uprobe *u = rb_entry(n, struct uprobe, rb);

			if (cmp_key(inode, start, u) <= 0) {
				best = n;
				n = n->rb_left;
			} else {
				n = n->rb_right;
			}
		}
		n = best;
	}
	for (; n; n = rb_next(n)) {
		struct uprobe *u = rb_entry(n, struct uprobe, rb);

		if (u->inode != inode || u->offset >= end)
			break;
		if (count < max && uprobe_tryget(u))
			out[count++] = u;
		else if (count >= max)
			count++;
	}
	spin_unlock(&uprobes_tree_lock);
	return count;
}

/* Is any probe registered at all?  (A cheap test for every mmap.) */
bool uprobes_any(void)
{
	return !!READ_ONCE(uprobes_tree.rb_node);
}
