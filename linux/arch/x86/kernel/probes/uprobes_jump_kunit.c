// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases of the stub table behind probes on 5-byte nops, included
 * by uprobes_jump.c so they can reach the table and its page mapping.
 *
 * They run on an mm of their own with no program in it, borrowed by the
 * test's kthread: where a stub page lands, which stub a nop gets, what
 * the syscall's return address says about the site, and what happens
 * when no page is left to map.  The selftests (nop5_jump.sh,
 * nop5_race.sh) run the same code from a real process, end to end.
 */
#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>

/* A test's mm, used by its kthread and held for writing while used. */
static struct mm_struct *stub_test_mm(struct kunit *test)
{
	struct mm_struct *mm = mm_alloc();

	KUNIT_ASSERT_NOT_NULL(test, mm);
	kthread_use_mm(mm);
	mmap_write_lock(mm);
	return mm;
}

static void stub_test_mm_done(struct mm_struct *mm)
{
	mmap_write_unlock(mm);
	kthread_unuse_mm(mm);
	/* Unmaps the stub pages and drops the table (arch_uprobe_clear_state). */
	mmput(mm);
}

/* Everything a stub handed out for @site must be, checked at once. */
static void expect_good_stub(struct kunit *test, struct mm_struct *mm,
			     struct uprobe_stub_table *t, unsigned long site,
			     unsigned long stub)
{
	struct vm_area_struct *vma;
	unsigned long base = stub & PAGE_MASK;

	KUNIT_ASSERT_NE_MSG(test, stub, 0UL, "no stub for %#lx", site);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(stub, STUB_LEN));
	KUNIT_EXPECT_TRUE(test, in_reach(site, base));
	KUNIT_EXPECT_TRUE(test, in_reach(site, base + PAGE_SIZE - STUB_LEN));
	vma = vma_lookup(mm, stub);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	/* Page aligned: a page mapped elsewhere would run stubs mid-way. */
	KUNIT_EXPECT_EQ(test, vma->vm_start, base);
	KUNIT_EXPECT_TRUE(test, vma_is_special_mapping(vma, &stub_mapping));
	KUNIT_EXPECT_FALSE(test, vma->vm_flags & VM_WRITE);
	/* The syscall's return address names the site; nothing else does. */
	KUNIT_EXPECT_EQ(test, stub_site(t, stub + STUB_LEN), site);
	KUNIT_EXPECT_EQ(test, stub_site(t, stub + STUB_LEN - 2), 0UL);
	KUNIT_EXPECT_EQ(test, stub_site(t, stub + STUB_LEN + PAGE_SIZE * 4), 0UL);
}

/*
 * Nops low in the address space, in the middle, and near the top of
 * the 47-bit window, none of them 16-byte aligned: each gets a stub in
 * a page within its reach, and asking again gives the same stub.
 */
static void stubs_land_in_reach(struct kunit *test)
{
	static const unsigned long sites[] = {
		0x401001,		/* a static program's text */
		0x55d0c0de1237,		/* a PIE */
		0x7ffff7fa2ffb,		/* a library near the top, at a page end */
	};
	struct mm_struct *mm = stub_test_mm(test);
	struct uprobe_stub_table *t = table_get(mm);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		unsigned long stub = stub_for(mm, t, sites[i]);

		expect_good_stub(test, mm, t, sites[i], stub);
		KUNIT_EXPECT_EQ(test, stub_for(mm, t, sites[i]), stub);
	}
	KUNIT_EXPECT_EQ(test, t->nr, (unsigned int)ARRAY_SIZE(sites));
	KUNIT_EXPECT_EQ(test, t->misses, 0U);
	stub_test_mm_done(mm);
}

/* Nops near each other share a page, one stub each, in order. */
static void near_sites_share_a_page(struct kunit *test)
{
	struct mm_struct *mm = stub_test_mm(test);
	struct uprobe_stub_table *t = table_get(mm);
	unsigned long first, stub, site = 0x401003;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	first = stub_for(mm, t, site);
	expect_good_stub(test, mm, t, site, first);
	for (i = 1; i < STUBS_PER_PAGE; i++) {
		stub = stub_for(mm, t, site + i * 7);
		KUNIT_EXPECT_EQ(test, stub & PAGE_MASK, first & PAGE_MASK);
		KUNIT_EXPECT_EQ(test, stub_site(t, stub + STUB_LEN), site + i * 7);
	}
	KUNIT_EXPECT_EQ(test, t->nr, 1U);
	/* The page is full: the next nop gets a second page. */
	stub = stub_for(mm, t, site + STUBS_PER_PAGE * 7);
	expect_good_stub(test, mm, t, site + STUBS_PER_PAGE * 7, stub);
	KUNIT_EXPECT_NE(test, stub & PAGE_MASK, first & PAGE_MASK);
	KUNIT_EXPECT_EQ(test, t->nr, 2U);
	stub_test_mm_done(mm);
}

/*
 * Nops 4 GiB apart each need a page of their own: past STUB_PAGES_MAX
 * pages the table refuses (the nop keeps its breakpoint) and counts a
 * miss, and the nops it served keep their stubs.
 */
static void full_table_refuses(struct kunit *test)
{
	struct mm_struct *mm = stub_test_mm(test);
	struct uprobe_stub_table *t = table_get(mm);
	unsigned long site, stubs[STUB_PAGES_MAX];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < STUB_PAGES_MAX; i++) {
		site = 0x100000001UL + i * SZ_4G;
		stubs[i] = stub_for(mm, t, site);
		expect_good_stub(test, mm, t, site, stubs[i]);
	}
	KUNIT_EXPECT_EQ(test, t->nr, (unsigned int)STUB_PAGES_MAX);
	site = 0x100000001UL + STUB_PAGES_MAX * SZ_4G;
	KUNIT_EXPECT_EQ(test, stub_for(mm, t, site), 0UL);
	KUNIT_EXPECT_EQ(test, t->misses, 1U);
	for (i = 0; i < STUB_PAGES_MAX; i++)
		KUNIT_EXPECT_EQ(test, stub_for(mm, t, 0x100000001UL + i * SZ_4G),
				stubs[i]);
	stub_test_mm_done(mm);
}

/* The jump lands on the stub, forwards and backwards, from any byte. */
static void jump_reaches_its_stub(struct kunit *test)
{
	static const struct { unsigned long site, stub; } cases[] = {
		{ 0x401001, 0x401001 + SZ_2G - PAGE_SIZE },
		{ 0x7ffff7fa2ffb, 0x7ffff7fa2ffb - SZ_2G + PAGE_SIZE },
		{ 0x55d0c0de1237, 0x55d0c0de2000 },
	};
	unsigned int i;
	u8 buf[NOP5_LEN];

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		make_jump(buf, cases[i].site, cases[i].stub);
		KUNIT_EXPECT_EQ(test, buf[0], 0xe9);
		KUNIT_EXPECT_EQ(test, cases[i].site + NOP5_LEN +
				(long)get_unaligned((s32 *)(buf + 1)),
				cases[i].stub);
	}
	/* in_reach() is the rel32's range from the nop's end, both ends. */
	KUNIT_EXPECT_TRUE(test, in_reach(SZ_4G, SZ_4G + NOP5_LEN + S32_MAX));
	KUNIT_EXPECT_FALSE(test, in_reach(SZ_4G, SZ_4G + NOP5_LEN + S32_MAX + 1UL));
	KUNIT_EXPECT_TRUE(test, in_reach(SZ_4G, SZ_4G + NOP5_LEN - SZ_2G));
	KUNIT_EXPECT_FALSE(test, in_reach(SZ_4G, SZ_4G + NOP5_LEN - SZ_2G - 1));
}

/* The stub is what the syscall side expects to find behind it. */
static void stub_code_is_the_contract(struct kunit *test)
{
	/* It ends on its alignment with the syscall, which returns there. */
	KUNIT_EXPECT_EQ(test, stub_code[STUB_LEN - 2], 0x0f);
	KUNIT_EXPECT_EQ(test, stub_code[STUB_LEN - 1], 0x05);
	KUNIT_EXPECT_TRUE(test, uprobe_stub_return(0x7f0000001000UL + STUB_LEN));
	/* lea -RED_ZONE(%rsp),%rsp comes before any store. */
	KUNIT_EXPECT_EQ(test, (s8)stub_code[4], -RED_ZONE);
	/* The three registers the syscall frame reader puts back. */
	KUNIT_EXPECT_EQ(test, stub_code[5], 0x50);	/* rax */
	KUNIT_EXPECT_EQ(test, stub_code[6], 0x51);	/* rcx */
	KUNIT_EXPECT_EQ(test, stub_code[8], 0x53);	/* r11, after REX.B */
	KUNIT_EXPECT_EQ(test, get_unaligned((u32 *)&stub_code[10]),
			(u32)__NR_uretprobe);
}

/*
 * The question every trap asks: only a whole 5-byte nop that does not
 * end past its page, with the knob on and the mm not given up, is worth
 * the jump.
 */
static void direct_wanted_only_for_jumpable_nops(struct kunit *test)
{
	static const u8 push_rbp[] = { 0x55, 0x48, 0x89, 0xe5, 0x90 };
	struct arch_uprobe nop = {}, other = {};
	bool knob = READ_ONCE(nop5_jump);
	struct uprobe_stub_table *t;
	struct mm_struct *mm;

	if (!stub_pages[0])
		kunit_skip(test, "no stub page at boot");
	uprobe_jump_prepare(&nop, nop5, NOP5_LEN);
	uprobe_jump_prepare(&other, push_rbp, sizeof(push_rbp));
	KUNIT_EXPECT_TRUE(test, nop.nop5);
	KUNIT_EXPECT_FALSE(test, other.nop5);
	/* Four bytes of it are not the instruction. */
	uprobe_jump_prepare(&other, nop5, NOP5_LEN - 1);
	KUNIT_EXPECT_FALSE(test, other.nop5);

	mm = stub_test_mm(test);
	WRITE_ONCE(nop5_jump, true);
	/* No table yet: the first trap makes one. */
	KUNIT_EXPECT_TRUE(test, arch_uprobe_direct_wanted(&nop, 0x401001));
	KUNIT_EXPECT_FALSE(test, arch_uprobe_direct_wanted(&other, 0x401001));
	/* The jump is written whole within the nop's page. */
	KUNIT_EXPECT_TRUE(test, arch_uprobe_direct_wanted(&nop, 0x401ffb));
	KUNIT_EXPECT_FALSE(test, arch_uprobe_direct_wanted(&nop, 0x401ffc));

	t = table_get(mm);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->misses = STUB_MISSES_MAX - 1;
	KUNIT_EXPECT_TRUE(test, arch_uprobe_direct_wanted(&nop, 0x401001));
	t->misses = STUB_MISSES_MAX;
	KUNIT_EXPECT_FALSE(test, arch_uprobe_direct_wanted(&nop, 0x401001));
	t->misses = 0;

	WRITE_ONCE(nop5_jump, false);
	KUNIT_EXPECT_FALSE(test, arch_uprobe_direct_wanted(&nop, 0x401001));
	WRITE_ONCE(nop5_jump, knob);
	stub_test_mm_done(mm);
}

static struct kunit_case uprobe_stub_cases[] = {
	KUNIT_CASE(stubs_land_in_reach),
	KUNIT_CASE(near_sites_share_a_page),
	KUNIT_CASE(full_table_refuses),
	KUNIT_CASE(jump_reaches_its_stub),
	KUNIT_CASE(stub_code_is_the_contract),
	KUNIT_CASE(direct_wanted_only_for_jumpable_nops),
	{}
};

static struct kunit_suite uprobe_stub_suite = {
	.name = "uprobes_x86_stubs",
	.test_cases = uprobe_stub_cases,
};

kunit_test_suite(uprobe_stub_suite);
