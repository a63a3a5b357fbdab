// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where an mm's probes are: a small per-mm table from a user address to
 * the (inode, offset) it maps, so that a hit finds its probe with a hash
 * lookup instead of a walk of the mm's vmas under one of its locks.
 *
 * An entry is made by the first hit at an address, from the vma, and
 * is right for as long as the mapping there stays the same.  Every
 * change of a file mapping goes through uprobe_munmap() (munmap, mremap,
 * mprotect's splits and merges, MAP_FIXED over a mapping, exit), which
 * drops the entries of its range and bumps the table's generation; a
 * hit that read the vma before such a change sees the generation moved
 * and does not store what it found.  The entry says nothing about the
 * probe itself: the probe is looked up by (inode, offset) each time, so
 * one unregistered and registered again is found as it is now.
 *
 * The table is allocated by the first hit of an mm and freed with it.
 * fork copies the mm_struct, pointer included: the table records its
 * owner, and a copy is dropped by uprobe_dup_mmap() (or ignored, if the
 * fork fails before that).
 */
#include <kunit/static_stub.h>
#include <linux/hash.h>
#include <linux/seqlock.h>
#include <linux/slab.h>

#include "internal.h"

#define ADDR_CACHE_BITS		4
#define ADDR_CACHE_NONE		(~0UL)	/* never a user address */
/*
 * The generation handed out when there is no table: a table starts at 0
 * and would need 2^64 invalidations to reach it, so a hit that read the
 * vma before any table existed never stores into one made after.
 */
#define ADDR_CACHE_NO_GEN	(~0UL)

struct uprobe_addr_entry {
	unsigned long		vaddr;
	struct inode		*inode;	/* compared, never dereferenced */
	loff_t			offset;
};

struct uprobe_addr_cache {
	struct mm_struct	*owner;
	seqlock_t		lock;
	unsigned long		gen;	/* bumped by every invalidation */
	struct uprobe_addr_entry e[1 << ADDR_CACHE_BITS];
};

/* @mm's own table, not one fork copied from the parent. */
static struct uprobe_addr_cache *cache_of(struct mm_struct *mm)
{
	struct uprobe_addr_cache *c;

	/* Pairs with the release in uprobe_addr_cache_begin(): complete. */
	c = smp_load_acquire(&mm->uprobes_state.addr_cache);
	return c && c->owner == mm ? c : NULL;
}

static struct uprobe_addr_cache *cache_alloc(void)
{
	/* The KUnit cases make this fail (addr_cache_kunit.c). */
	KUNIT_STATIC_STUB_REDIRECT(cache_alloc);
	return kmalloc(sizeof(struct uprobe_addr_cache), GFP_KERNEL);
}

static struct uprobe_addr_entry *entry_of(struct uprobe_addr_cache *c,
					  unsigned long vaddr)
{
	return &c->e[hash_long(vaddr, ADDR_CACHE_BITS)];
}

/**
 * uprobe_addr_cache_lookup() - the probe at an address the table knows
 * @mm: current->mm
 * @vaddr: the address
 * @uprobe: set to the probe there, or NULL when there is none now
 *
 * The probe is looked up while the entry is known to hold: an inode is
 * only released after its mapping was forgotten here, so the (inode,
 * offset) pair cannot name a file that has gone and whose inode was
 * reused while the lookup ran.  Caller is in an uprobes_srcu section.
 *
 * Return: true when the table knows @vaddr.
 */
bool uprobe_addr_cache_lookup(struct mm_struct *mm, unsigned long vaddr,
			      struct uprobe **uprobe)
{
	struct uprobe_addr_cache *c = cache_of(mm);
	struct uprobe_addr_entry *e;
	unsigned int seq;

	if (!c)
		return false;
	e = entry_of(c, vaddr);
	do {
		seq = read_seqbegin(&c->lock);
		if (e->vaddr != vaddr)
			return false;
		*uprobe = uprobe_lookup_rcu(e->inode, e->offset);
	} while (read_seqretry(&c->lock, seq));
	return true;
}

/**
 * uprobe_addr_cache_begin() - about to look an address up in the vmas
 * @mm: current->mm
 * @gen: set to the generation to hand to uprobe_addr_cache_store()
 *
 * Makes the table if @mm has none; without memory there is none, and
 * hits keep looking at the vmas.
 */
void uprobe_addr_cache_begin(struct mm_struct *mm, unsigned long *gen)
{
	struct uprobe_addr_cache *c = cache_of(mm), *old;
	int i;

	/*
	 * Without a table no unmap leaves a trace: what the vma says now
	 * may be stale by the time another hit has made one, so nothing
	 * read under this call may be stored.
	 */
	*gen = ADDR_CACHE_NO_GEN;
	if (!c) {
		c = cache_alloc();
		if (!c)
			return;
		c->owner = mm;
		seqlock_init(&c->lock);
		c->gen = 0;
		for (i = 0; i < ARRAY_SIZE(c->e); i++)
			c->e[i].vaddr = ADDR_CACHE_NONE;
		/* Complete before a lookup can see it; a fork's copy goes. */
		old = READ_ONCE(mm->uprobes_state.addr_cache);
		if ((old && old->owner == mm) ||
		    cmpxchg_release(&mm->uprobes_state.addr_cache, old, c) != old) {
			kfree(c);
			c = cache_of(mm);
			if (!c)
				return;
		}
	}
	/* Before the vma is read: an invalidation after this is seen. */
	*gen = smp_load_acquire(&c->gen);
}

/**
 * uprobe_addr_cache_store() - remember what the vmas said
 * @mm: current->mm
 * @gen: from uprobe_addr_cache_begin(), before the vma was read
 * @vaddr: the address
 * @inode: the inode mapped there
 * @offset: the file offset
 */
void uprobe_addr_cache_store(struct mm_struct *mm, unsigned long gen,
			     unsigned long vaddr, struct inode *inode,
			     loff_t offset)
{
	struct uprobe_addr_cache *c = cache_of(mm);
	struct uprobe_addr_entry *e;

	if (!c || gen == ADDR_CACHE_NO_GEN)
		return;
	e = entry_of(c, vaddr);
	write_seqlock(&c->lock);
	/* A mapping changed since the vma was read: what it said may be old. */
	if (c->gen == gen) {
		e->vaddr = vaddr;
		e->inode = inode;
		e->offset = offset;
	}
	write_sequnlock(&c->lock);
}

/**
 * uprobe_addr_cache_forget() - a range of @mm is being remapped or unmapped
 * @mm: the mm
 * @start: start of the range
 * @end: its end
 */
void uprobe_addr_cache_forget(struct mm_struct *mm, unsigned long start,
			      unsigned long end)
{
	struct uprobe_addr_cache *c = cache_of(mm);
	int i;

	if (!c)
		return;
	write_seqlock(&c->lock);
	/* Pairs with the acquire in uprobe_addr_cache_begin(). */
	smp_store_release(&c->gen, c->gen + 1);
	for (i = 0; i < ARRAY_SIZE(c->e); i++)
		if (c->e[i].vaddr >= start && c->e[i].vaddr < end)
			c->e[i].vaddr = ADDR_CACHE_NONE;
	write_sequnlock(&c->lock);
}

/**
 * uprobe_addr_cache_drop() - @mm goes, or is a fork's fresh copy
 * @mm: the mm
 *
 * A copy's pointer is the parent's table: it is only cleared.
 */
void uprobe_addr_cache_drop(struct mm_struct *mm)
{
	kfree(cache_of(mm));
	mm->uprobes_state.addr_cache = NULL;
}

#ifdef CONFIG_UPROBES_KUNIT_TEST
#include "addr_cache_kunit.c"
#endif
