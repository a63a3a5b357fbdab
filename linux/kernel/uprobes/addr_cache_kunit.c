// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases of the per-mm address cache, included by addr_cache.c so
 * they can reach its table and stub its allocation.
 *
 * A hit that could not make the table must not store into one another
 * thread makes later: an unmap between the first hit's vma lookup and
 * that table's birth bumped no generation, so what the first hit read
 * may already be another file.
 */
#include <kunit/test.h>
#include <linux/sched/mm.h>

static struct uprobe_addr_cache *no_cache(void)
{
	return NULL;
}

static void failed_table_never_stored(struct kunit *test)
{
	/* Stands for an inode: only compared and hashed, as in the table. */
	static char fake_inode;
	struct mm_struct *mm = mm_alloc();
	unsigned long gen = 0, later_gen;
	struct uprobe *u;
	bool known;
	int idx;

	KUNIT_ASSERT_NOT_NULL(test, mm);

	/* A first hit: no memory for the table. */
	kunit_activate_static_stub(test, cache_alloc, no_cache);
	uprobe_addr_cache_begin(mm, &gen);
	kunit_deactivate_static_stub(test, cache_alloc);
	KUNIT_EXPECT_NULL(test, cache_of(mm));

	/* Another thread's hit makes the table meanwhile. */
	uprobe_addr_cache_begin(mm, &later_gen);
	KUNIT_ASSERT_NOT_NULL(test, cache_of(mm));

	/* The first hit stores what it read before the table existed. */
	uprobe_addr_cache_store(mm, gen, 0x400000,
				(struct inode *)&fake_inode, 0x1000);
	idx = srcu_read_lock(&uprobes_srcu);
	known = uprobe_addr_cache_lookup(mm, 0x400000, &u);
	srcu_read_unlock(&uprobes_srcu, idx);
	KUNIT_EXPECT_FALSE_MSG(test, known,
			       "an entry read before the table existed was kept");

	/* The second hit's own entry is kept. */
	uprobe_addr_cache_store(mm, later_gen, 0x400000,
				(struct inode *)&fake_inode, 0x1000);
	idx = srcu_read_lock(&uprobes_srcu);
	known = uprobe_addr_cache_lookup(mm, 0x400000, &u);
	srcu_read_unlock(&uprobes_srcu, idx);
	KUNIT_EXPECT_TRUE(test, known);

	uprobe_addr_cache_drop(mm);
	mmdrop(mm);
}

static struct kunit_case addr_cache_cases[] = {
	KUNIT_CASE(failed_table_never_stored),
	{}
};

static struct kunit_suite addr_cache_suite = {
	.name = "uprobes_addr_cache",
	.test_cases = addr_cache_cases,
};

kunit_test_suite(addr_cache_suite);
