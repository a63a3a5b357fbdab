// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases of the XOL slots, included by xol.c so they can reach an
 * area that no mm maps and replace the port's copy with one that names
 * its probe.
 *
 * What they pin: threads stepping one probe share one slot, written
 * once; a slot a thread is in is never rewritten, even when every slot
 * is taken and another probe needs one (that probe waits); a slot being
 * rewritten takes no user; and a thread that keeps its slot after a
 * step gets it back as it was, letting it go for another probe's.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>

#define TEST_TRAP	4	/* where the fake copy puts its breakpoint */

static atomic_t copies_made;

/* A fake copy: TEST_TRAP bytes of the probe's key, then a breakpoint. */
static unsigned int named_copy(struct arch_uprobe *au, unsigned long vaddr,
			       u8 *code)
{
	struct uprobe *u = container_of(au, struct uprobe, arch);
	uprobe_opcode_t bp = UPROBE_SWBP_INSN;

	atomic_inc(&copies_made);
	memset(code, (u8)u->xol_key, TEST_TRAP);
	memcpy(code + TEST_TRAP, &bp, UPROBE_SWBP_INSN_SIZE);
	return TEST_TRAP;
}

static struct xol_area *test_area(struct kunit *test)
{
	struct xol_area *xa = xol_area_alloc();

	KUNIT_ASSERT_NOT_NULL(test, xa);
	xa->base = 0x7f0000000000UL;
	atomic_set(&copies_made, 0);
	kunit_activate_static_stub(test, slot_copy, named_copy);
	return xa;
}

static struct uprobe *test_probes(struct kunit *test, unsigned int n)
{
	struct uprobe *u = kunit_kcalloc(test, n, sizeof(*u), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, u);
	for (i = 0; i < n; i++)
		u[i].xol_key = 1000 + i;
	return u;
}

static unsigned int copies(void)
{
	return atomic_read(&copies_made);
}

static u8 slot_byte(struct xol_area *xa, unsigned long vaddr)
{
	u8 *kaddr = kmap_local_page(xa->code_page);
	u8 b = kaddr[vaddr - xa->base];

	kunmap_local(kaddr);
	return b;
}

/* Every copy slot taken, by probes u[0..], and their addresses. */
static unsigned long *take_every_slot(struct kunit *test,
				      struct xol_area *xa, struct uprobe *u)
{
	unsigned int n = XOL_SLOTS - xa->first, i, trap;
	unsigned long *at = kunit_kcalloc(test, n, sizeof(*at), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, at);
	for (i = 0; i < n; i++) {
		at[i] = xol_take(xa, &u[i], &trap);
		KUNIT_ASSERT_NE(test, at[i], 0UL);
		KUNIT_EXPECT_GE(test, at[i],
				xa->base + xa->first * UPROBE_XOL_SLOT_BYTES);
		KUNIT_EXPECT_EQ(test, slot_byte(xa, at[i]), (u8)u[i].xol_key);
	}
	return at;
}

static void one_probe_one_copy(struct kunit *test)
{
	struct xol_area *xa = test_area(test);
	struct uprobe *u = test_probes(test, 2);
	unsigned long a, b, c;
	unsigned int trap;

	a = xol_take(xa, &u[0], &trap);
	KUNIT_EXPECT_EQ(test, trap, TEST_TRAP);
	b = xol_take(xa, &u[0], &trap);
	KUNIT_EXPECT_EQ_MSG(test, a, b, "two threads of one probe, two slots");
	KUNIT_EXPECT_EQ(test, copies(), 1);
	c = xol_take(xa, &u[1], &trap);
	KUNIT_EXPECT_NE(test, a, c);
	KUNIT_EXPECT_EQ(test, copies(), 2);

	/* Left by every thread, the copy stays for the next hit. */
	xol_release(xa, a);
	xol_release(xa, b);
	xol_release(xa, c);
	KUNIT_EXPECT_EQ(test, xol_take(xa, &u[0], &trap), a);
	KUNIT_EXPECT_EQ(test, copies(), 2);
	xol_release(xa, a);
	xol_area_free(xa);
}

static void refilling_slot_takes_no_user(struct kunit *test)
{
	struct xol_area *xa = test_area(test);
	struct uprobe *u = test_probes(test, 1);
	struct xol_slot *slot;
	unsigned long a;
	unsigned int trap;

	a = xol_take(xa, &u[0], &trap);
	xol_release(xa, a);
	slot = &xa->slots[(a - xa->base) / UPROBE_XOL_SLOT_BYTES];
	/* As slot_fill() leaves it while it writes. */
	KUNIT_ASSERT_EQ(test, atomic_cmpxchg(&slot->users, 0, XOL_SLOT_FILLING), 0);
	KUNIT_EXPECT_NULL(test, slot_get(xa, u[0].xol_key));
	KUNIT_EXPECT_EQ(test, atomic_read(&slot->users), XOL_SLOT_FILLING);
	atomic_set(&slot->users, 0);
	KUNIT_EXPECT_PTR_EQ(test, slot_get(xa, u[0].xol_key), slot);
	slot_put(xa, slot);
	xol_area_free(xa);
}

static void busy_slot_never_rewritten(struct kunit *test)
{
	struct xol_area *xa = test_area(test);
	unsigned int n = XOL_SLOTS - xa->first, i, trap;
	struct uprobe *u = test_probes(test, n + 1);
	unsigned long *at = take_every_slot(test, xa, u), again;

	KUNIT_EXPECT_EQ(test, copies(), n);
	mutex_lock(&xa->fill_lock);
	KUNIT_EXPECT_NULL(test, slot_fill(xa, u[n].xol_key, &u[n].arch));
	mutex_unlock(&xa->fill_lock);
	KUNIT_EXPECT_EQ(test, copies(), n);

	/* The one slot left goes to the new probe; the others keep theirs. */
	xol_release(xa, at[n / 2]);
	again = xol_take(xa, &u[n], &trap);
	KUNIT_EXPECT_EQ(test, again, at[n / 2]);
	KUNIT_EXPECT_EQ(test, slot_byte(xa, again), (u8)u[n].xol_key);
	for (i = 0; i < n; i++) {
		if (i != n / 2)
			KUNIT_EXPECT_EQ(test, slot_byte(xa, at[i]),
					(u8)u[i].xol_key);
	}
	for (i = 0; i < n; i++)
		xol_release(xa, at[i]);
	xol_area_free(xa);
}

struct taker {
	struct kunit *test;
	struct xol_area *xa;
	struct uprobe *u;
	unsigned long got;
	struct completion done;
};

static int take_in_thread(void *arg)
{
	struct taker *t = arg;
	unsigned int trap;

	/* The stubbed copy is the test's, and stubs follow current. */
	current->kunit_test = t->test;
	t->got = xol_take(t->xa, t->u, &trap);
	complete(&t->done);
	return 0;
}

/*
 * The window a refill must not open: every slot has a thread in it and
 * another probe is hit.  The second thread is held asleep in the take
 * until a slot is left; nothing is written meanwhile.
 */
static void full_area_waits(struct kunit *test)
{
	struct xol_area *xa = test_area(test);
	unsigned int n = XOL_SLOTS - xa->first, i, ms;
	struct uprobe *u = test_probes(test, n + 1);
	unsigned long *at = take_every_slot(test, xa, u);
	struct task_struct *tsk;
	struct taker t = { .test = test, .xa = xa, .u = &u[n] };

	init_completion(&t.done);
	tsk = kthread_run(take_in_thread, &t, "xol_kunit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(tsk));
	for (ms = 0; ms < 20000 && !wq_has_sleeper(&xa->wq); ms += 20)
		msleep(20);
	KUNIT_EXPECT_TRUE_MSG(test, wq_has_sleeper(&xa->wq),
			      "the take did not wait for a slot");
	KUNIT_EXPECT_FALSE(test, completion_done(&t.done));
	KUNIT_EXPECT_EQ(test, copies(), n);

	xol_release(xa, at[0]);
	if (!wait_for_completion_timeout(&t.done, 20 * HZ)) {
		/* The thread still uses the area: leak it, never free it. */
		KUNIT_FAIL(test, "a slot was left and the take still waits");
		return;
	}
	KUNIT_EXPECT_EQ(test, t.got, at[0]);
	KUNIT_EXPECT_EQ(test, slot_byte(xa, at[0]), (u8)u[n].xol_key);
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_EQ(test, slot_byte(xa, at[i]), (u8)u[i].xol_key);
	xol_release(xa, t.got);
	for (i = 1; i < n; i++)
		xol_release(xa, at[i]);
	xol_area_free(xa);
}

/* A thread's uprobe state, holding no slot. */
static struct uprobe_task *test_thread(struct kunit *test)
{
	struct uprobe_task *ut = kunit_kzalloc(test, sizeof(*ut), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ut);
	return ut;
}

static bool keep_always(struct xol_area *xa)
{
	return true;
}

static bool keep_never(struct xol_area *xa)
{
	return false;
}

static int slot_users(struct xol_area *xa, unsigned long vaddr)
{
	return atomic_read(&slot_at(xa, vaddr)->users);
}

static void kept_slot_comes_back(struct kunit *test)
{
	struct xol_area *xa = test_area(test);
	struct uprobe *u = test_probes(test, 2);
	struct uprobe_task *ut = test_thread(test);
	unsigned long a, b;
	unsigned int trap;

	kunit_activate_static_stub(test, xol_keep, keep_always);
	a = uprobe_xol_enter(xa, ut, &u[0], &trap);
	KUNIT_ASSERT_NE(test, a, 0UL);
	KUNIT_EXPECT_EQ(test, ut->slot, a);
	uprobe_xol_leave(xa, ut);
	KUNIT_EXPECT_EQ_MSG(test, ut->slot, a, "the slot was not kept");
	KUNIT_EXPECT_EQ(test, slot_users(xa, a), 1);

	/* The same probe again: the same slot, no user added, no copy. */
	KUNIT_EXPECT_EQ(test, uprobe_xol_enter(xa, ut, &u[0], &trap), a);
	KUNIT_EXPECT_EQ(test, trap, TEST_TRAP);
	KUNIT_EXPECT_EQ(test, slot_users(xa, a), 1);
	KUNIT_EXPECT_EQ(test, copies(), 1);
	uprobe_xol_leave(xa, ut);

	/* Another probe: the held slot is let go before the new one. */
	b = uprobe_xol_enter(xa, ut, &u[1], &trap);
	KUNIT_EXPECT_NE(test, b, a);
	KUNIT_EXPECT_EQ(test, slot_users(xa, a), 0);
	KUNIT_EXPECT_EQ(test, slot_users(xa, b), 1);
	uprobe_xol_leave(xa, ut);
	uprobe_xol_forget(xa, ut);
	KUNIT_EXPECT_EQ(test, ut->slot, 0UL);
	KUNIT_EXPECT_EQ(test, slot_users(xa, b), 0);
	xol_area_free(xa);
}

static void held_slot_never_refilled(struct kunit *test)
{
	struct xol_area *xa = test_area(test);
	unsigned int n = XOL_SLOTS - xa->first, i, trap;
	struct uprobe *u = test_probes(test, n + 1);
	struct uprobe_task *ut = test_thread(test);
	unsigned long held, *at;

	kunit_activate_static_stub(test, xol_keep, keep_always);
	held = uprobe_xol_enter(xa, ut, &u[n], &trap);
	uprobe_xol_leave(xa, ut);
	KUNIT_ASSERT_EQ(test, ut->slot, held);

	/* The other slots, taken and let go: all idle but the held one. */
	at = kunit_kcalloc(test, n - 1, sizeof(*at), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, at);
	for (i = 0; i < n - 1; i++)
		at[i] = xol_take(xa, &u[i], &trap);
	for (i = 0; i < n - 1; i++) {
		KUNIT_EXPECT_NE(test, at[i], held);
		xol_release(xa, at[i]);
	}
	/* A new probe gets one of those, never the held one. */
	KUNIT_EXPECT_NE(test, xol_take(xa, &u[n - 1], &trap), held);
	KUNIT_EXPECT_EQ(test, slot_byte(xa, held), (u8)u[n].xol_key);
	KUNIT_EXPECT_EQ(test, uprobe_xol_enter(xa, ut, &u[n], &trap), held);
	xol_area_free(xa);
}

static void crowded_process_lets_go(struct kunit *test)
{
	struct xol_area *xa = test_area(test);
	struct uprobe *u = test_probes(test, 1);
	struct uprobe_task *ut = test_thread(test);
	unsigned long a;
	unsigned int trap;

	/* The real policy: a kernel thread has no mm to share a slot in. */
	KUNIT_EXPECT_FALSE(test, xol_keep(xa));
	kunit_activate_static_stub(test, xol_keep, keep_never);
	a = uprobe_xol_enter(xa, ut, &u[0], &trap);
	uprobe_xol_leave(xa, ut);
	KUNIT_EXPECT_EQ(test, ut->slot, 0UL);
	KUNIT_EXPECT_EQ(test, slot_users(xa, a), 0);
	xol_area_free(xa);
}

/* The real policy counts the mm's users, whatever shares it. */
static void keep_counts_mm_users(struct kunit *test)
{
	struct xol_area *xa = test_area(test);
	unsigned int limit = (XOL_SLOTS - xa->first) / 2, i;
	struct mm_struct *mm = mm_alloc();

	KUNIT_ASSERT_NOT_NULL(test, mm);
	kthread_use_mm(mm);
	KUNIT_EXPECT_TRUE(test, xol_keep(xa));
	for (i = 1; i < limit; i++)
		mmget(mm);
	KUNIT_EXPECT_TRUE_MSG(test, xol_keep(xa), "%u users", limit);
	mmget(mm);
	KUNIT_EXPECT_FALSE_MSG(test, xol_keep(xa), "%u users", limit + 1);
	for (i = 0; i < limit; i++)
		mmput(mm);
	kthread_unuse_mm(mm);
	mmput(mm);
	xol_area_free(xa);
}

static struct kunit_case xol_cases[] = {
	KUNIT_CASE(one_probe_one_copy),
	KUNIT_CASE(refilling_slot_takes_no_user),
	KUNIT_CASE(busy_slot_never_rewritten),
	KUNIT_CASE(full_area_waits),
	KUNIT_CASE(kept_slot_comes_back),
	KUNIT_CASE(held_slot_never_refilled),
	KUNIT_CASE(crowded_process_lets_go),
	KUNIT_CASE(keep_counts_mm_users),
	{}
};

static struct kunit_suite xol_suite = {
	.name = "uprobes_xol",
	.test_cases = xol_cases,
};

kunit_test_suite(xol_suite);
