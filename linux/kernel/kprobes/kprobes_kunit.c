// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases for the kprobes core: the registration contract (what is
 * refused and with which errno), several probes at one address, enabling
 * and disabling, the skip-the-instruction pre_handler, fault_handler, and
 * probes inside a function body.  lib/test_kprobes.c covers the basic
 * hit/miss/kretprobe behaviour and runs unchanged beside this.
 */
#include <kunit/test.h>
#include <kunit/static_stub.h>
#include <linux/kprobes.h>
#include <linux/kdebug.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/kallsyms.h>
#include <linux/ftrace.h>
#include <linux/linkage.h>

#include "internal.h"
#include "kprobes_kunit.h"

/* Targets: kept out of line so each call really runs their code. */
static noinline int kpk_target(int x)
{
	return x * 3 + 1;
}

static noinline int kpk_replacement(int x)
{
	return -x;
}

static noinline int kpk_body(int x)
{
	int i, sum = 0;

	for (i = 0; i < x; i++)
		sum += i ^ x;
	return sum;
}

/* Set at suite init, so the compiler cannot specialise the targets. */
static int (*call_target)(int);
static int (*call_body)(int);

/* What kpk_body computes, worked out without calling it. */
static int kpk_body_expected(int x)
{
	int i, sum = 0;

	for (i = 0; i < x; i++)
		sum += i ^ x;
	return sum;
}

/* What the handlers saw, reset by each case. */
static int order[8], norder;
static int hits, posts;

static void reset_counts(void)
{
	norder = 0;
	hits = 0;
	posts = 0;
}

static int count_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static void count_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	posts++;
}

/* A probe that says who it is when record_pre() runs. */
struct tagged_probe {
	struct kprobe kp;
	int tag;
};

static int record_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (norder < ARRAY_SIZE(order))
		order[norder++] = container_of(kp, struct tagged_probe, kp)->tag;
	return 0;
}

/* A tagged probe that is unregistered when the case ends. */
static struct kprobe *tagged_probe(struct kunit *test, const char *sym, int tag)
{
	struct tagged_probe *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	tp->kp.symbol_name = sym;
	tp->kp.pre_handler = record_pre;
	tp->tag = tag;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kprobe_kunit_unregister,
							&tp->kp), 0);
	return &tp->kp;
}

static void kpk_errno_both_addr_and_symbol(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpk_target,
		.symbol_name = "kpk_target" });

	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EINVAL);
}

static void kpk_errno_neither_addr_nor_symbol(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.pre_handler = count_pre });

	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EINVAL);
}

static void kpk_errno_unknown_symbol(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_no_such_function_anywhere" });

	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -ENOENT);
}

static void kpk_errno_not_text(struct kunit *test)
{
	static int data_object;
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)&data_object });

	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EINVAL);
}

static void kpk_errno_blacklisted(struct kunit *test)
{
	/* notify_die() is NOKPROBE_SYMBOL: probes there would recurse. */
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "notify_die" });

	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EINVAL);
	KUNIT_EXPECT_TRUE(test, within_kprobe_blacklist((unsigned long)notify_die));
}

static void kpk_errno_mid_instruction(struct kunit *test)
{
	/*
	 * Offset 1 is inside kpk_target's first instruction: on x86 that
	 * is a 5-byte ftrace call site (or a 4-byte endbr, or an lea of 3
	 * bytes or more), and fixed-length instructions are never 1 byte.
	 */
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .offset = 1 });

	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EILSEQ);
}

static void kpk_double_registration(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EINVAL);
	call_target(1);
	/* The refused second attempt left the first one intact. */
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(kp);
	call_target(1);
	KUNIT_EXPECT_EQ(test, hits, 1);
}

/*
 * The same struct registered again after its caller pointed ->addr (or
 * ->symbol_name) elsewhere: it is still linked where it was, so it is
 * refused (found by the hostile-argument sweep: the second registration
 * used to re-initialise the links of a live probe).  Once unregistered,
 * from where it really is, it may go anywhere.
 */
static void kpk_registered_probe_moved_refused(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });
	struct kprobe *twin = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });
	kprobe_opcode_t *where;

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	where = kp->addr;
	/*
	 * Moved for the call only: a live probe's ->addr is what lookups
	 * compare, so the caller's edit must not outlast the refusal.
	 */
	kp->addr = NULL;
	kp->symbol_name = "kpk_body";
	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EINVAL);
	kp->addr = where;
	/* At a site of two, too. */
	KUNIT_ASSERT_EQ(test, register_kprobe(twin), 0);
	kp->addr = NULL;
	KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EINVAL);
	kp->addr = where;
	kp->symbol_name = NULL;
	call_target(1);
	call_body(2);
	KUNIT_EXPECT_EQ(test, hits, 2);

	unregister_kprobe(kp);
	unregister_kprobe(twin);
	kp->addr = NULL;
	kp->symbol_name = "kpk_body";
	KUNIT_EXPECT_EQ(test, register_kprobe(kp), 0);
	reset_counts();
	call_target(1);
	call_body(2);
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(kp);
}

static void kpk_unregister_unregistered_clears_addr(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpk_target });

	unregister_kprobe(kp);
	KUNIT_EXPECT_PTR_EQ(test, kp->addr, NULL);
}

static void kpk_resolves_addr(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target" });

	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_PTR_NE(test, kp->addr, NULL);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(kp->addr) ? kp->addr : NULL, kp->addr);
	unregister_kprobe(kp);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(kp->addr), NULL);
}

static void kpk_handlers_run_in_registration_order(struct kunit *test)
{
	struct kprobe *kps[3];
	int i;

	reset_counts();
	for (i = 0; i < 3; i++) {
		kps[i] = tagged_probe(test, "kpk_target", i + 1);
		KUNIT_ASSERT_EQ(test, register_kprobe(kps[i]), 0);
	}
	call_target(2);
	KUNIT_ASSERT_EQ(test, norder, 3);
	KUNIT_EXPECT_EQ(test, order[0], 1);
	KUNIT_EXPECT_EQ(test, order[1], 2);
	KUNIT_EXPECT_EQ(test, order[2], 3);

	unregister_kprobe(kps[1]);
	reset_counts();
	call_target(2);
	KUNIT_ASSERT_EQ(test, norder, 2);
	KUNIT_EXPECT_EQ(test, order[0], 1);
	KUNIT_EXPECT_EQ(test, order[1], 3);
	unregister_kprobe(kps[0]);
	unregister_kprobe(kps[2]);
}

/*
 * A detour hit driven by hand, as a port's detour with or without a post
 * path would (the site here has no detour of its own: the core's answer
 * is the same either way, the port's is forced).
 */
static enum kprobe_detour_next post_path_hit(struct kprobe *head,
					     struct pt_regs *regs, bool post_path)
{
	struct kprobe_chain *chain;
	enum kprobe_detour_next next;

	__this_cpu_write(current_kprobe, head);
	chain = rcu_dereference_raw(container_of(head, struct kprobe_site, kp)->chain);
	next = kprobe_site_walk_pre_post(chain, regs, post_path);
	if (next == KPROBE_DETOUR_POST)
		kprobe_site_hit_end(regs);
	else
		reset_current_kprobe();
	return next;
}

/*
 * What a hit's post phase is owed comes from the chain its pre phase
 * walked.  A detour hit without a post path has no post phase, so when it
 * meets a chain with a post_handler (one published after the jump it came
 * through went out) it passes the probes with one by: they joined after
 * its call began.  With a post path it runs them all and has a post
 * phase.  Driven here by hand on a site of two, the way a detour would.
 */
static void kpk_hit_without_post_phase_passes_post_probes(struct kunit *test)
{
	struct kprobe *plain = tagged_probe(test, "kpk_target", 1);
	struct kprobe *with_post = tagged_probe(test, "kpk_target", 2);
	enum kprobe_detour_next next, next_post;
	struct pt_regs regs = {};
	struct kprobe *head;
	unsigned long flags;
	bool wants_post;

	with_post->post_handler = count_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(plain), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(with_post), 0);
	head = get_kprobe(plain->addr);
	KUNIT_ASSERT_TRUE(test, kprobe_is_site(head));
	KUNIT_EXPECT_NOT_NULL(test, head->post_handler);

	reset_counts();
	local_irq_save(flags);
	next = post_path_hit(head, &regs, false);
	/* A breakpoint hit's pre phase: both run, and a post phase follows. */
	kprobe_hit_begin(head, &regs);
	wants_post = kprobe_hit_wants_post(head);
	kprobe_hit_end(head, &regs);
	/* A detour hit with a post path: the same as the breakpoint's. */
	next_post = post_path_hit(head, &regs, true);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, next, KPROBE_DETOUR_RESUME);
	KUNIT_EXPECT_TRUE(test, wants_post);
	KUNIT_EXPECT_EQ(test, next_post, KPROBE_DETOUR_POST);
	KUNIT_ASSERT_EQ(test, norder, 5);
	KUNIT_EXPECT_EQ(test, order[0], 1);
	KUNIT_EXPECT_EQ(test, order[1], 1);
	KUNIT_EXPECT_EQ(test, order[2], 2);
	KUNIT_EXPECT_EQ(test, order[3], 1);
	KUNIT_EXPECT_EQ(test, order[4], 2);
	KUNIT_EXPECT_EQ(test, posts, 2);
	KUNIT_EXPECT_NULL(test, kprobe_running());

	/* Without a post_handler on the chain, no post phase at all. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(with_post), 0);
	KUNIT_EXPECT_NULL(test, head->post_handler);
	local_irq_save(flags);
	kprobe_hit_begin(head, &regs);
	wants_post = kprobe_hit_wants_post(head);
	reset_current_kprobe();
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, wants_post);
}

/*
 * A probe alone at its address is its own head: nothing is allocated for
 * it.  A second one turns the address into a site without the first
 * missing a hit, and the site stays until both are gone.
 */
static void kpk_lone_probe_is_its_own_head(struct kunit *test)
{
	struct kprobe *first = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre,
		.post_handler = count_post });
	struct kprobe *second = tagged_probe(test, "kpk_target", 1);
	struct kprobe *head;

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(first), 0);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(first->addr), first);
	KUNIT_EXPECT_TRUE(test, looks_registered(first));
	KUNIT_EXPECT_EQ(test, call_target(2), 7);
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);

	KUNIT_ASSERT_EQ(test, register_kprobe(second), 0);
	head = get_kprobe(first->addr);
	KUNIT_EXPECT_PTR_NE(test, head, first);
	KUNIT_EXPECT_PTR_NE(test, head, second);
	KUNIT_EXPECT_TRUE(test, kprobe_is_site(head));
	/* The core's bits moved to the site with the head's role. */
	KUNIT_EXPECT_EQ(test, first->flags & KPROBE_CORE_FLAGS, 0);
	KUNIT_EXPECT_EQ(test, call_target(2), 7);
	KUNIT_EXPECT_EQ(test, hits, 2);
	KUNIT_EXPECT_EQ(test, posts, 2);
	KUNIT_EXPECT_EQ(test, norder, 1);

	/* Disabling one of two leaves the other firing. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(first), 0);
	KUNIT_EXPECT_EQ(test, call_target(2), 7);
	KUNIT_EXPECT_EQ(test, hits, 2);
	KUNIT_EXPECT_EQ(test, norder, 2);
	unregister_kprobe(first);
	KUNIT_EXPECT_FALSE(test, looks_registered(first));
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(second->addr), head);
	KUNIT_EXPECT_EQ(test, call_target(2), 7);
	KUNIT_EXPECT_EQ(test, norder, 3);
	KUNIT_EXPECT_EQ(test, posts, 2);

	unregister_kprobe(second);
	KUNIT_EXPECT_FALSE(test, looks_registered(second));
	KUNIT_EXPECT_NULL(test, get_kprobe(second->addr));

	/* A lone probe leaves nothing behind either. */
	first->addr = NULL;
	first->flags = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(first), 0);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(first->addr), first);
	KUNIT_EXPECT_EQ(test, disable_kprobe(first), 0);
	KUNIT_EXPECT_EQ(test, call_target(2), 7);
	KUNIT_EXPECT_EQ(test, hits, 2);
	KUNIT_EXPECT_EQ(test, enable_kprobe(first), 0);
	KUNIT_EXPECT_EQ(test, call_target(2), 7);
	KUNIT_EXPECT_EQ(test, hits, 3);
	unregister_kprobe(first);
	KUNIT_EXPECT_FALSE(test, looks_registered(first));
	KUNIT_EXPECT_EQ(test, first->flags & KPROBE_CORE_FLAGS, 0);
	KUNIT_EXPECT_NULL(test, get_kprobe(first->addr));
}

static void kpk_disable_enable(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(kp));
	call_target(1);
	KUNIT_EXPECT_EQ(test, hits, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(kp), 0);
	call_target(1);
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, enable_kprobe(kp), -EINVAL);
}

static void kpk_register_disabled(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre,
		.flags = KPROBE_FLAG_DISABLED });

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	call_target(1);
	KUNIT_EXPECT_EQ(test, hits, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(kp), 0);
	call_target(1);
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(kp);
}

static void kpk_batch_rollback(struct kunit *test)
{
	struct kprobe *good = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });
	struct kprobe *bad = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_no_such_function_anywhere" });
	struct kprobe *batch[] = { good, bad };

	reset_counts();
	KUNIT_EXPECT_EQ(test, register_kprobes(batch, 2), -ENOENT);
	call_target(1);
	/* The probe registered before the failure is gone again. */
	KUNIT_EXPECT_EQ(test, hits, 0);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe((void *)kpk_target), NULL);
}

static int redirect_pre(struct kprobe *kp, struct pt_regs *regs)
{
	instruction_pointer_set(regs, (unsigned long)kpk_replacement);
	return 1;
}

static void kpk_pre_handler_redirects(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = redirect_pre,
		.post_handler = count_post });

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, call_target(5), -5);
	/* Execution moved on: the probed instruction and post_handler did not run. */
	KUNIT_EXPECT_EQ(test, posts, 0);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, call_target(5), 16);
}

static void kpk_fault_handler_sees_handler_fault(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = kunit_fault_pre,
		.fault_handler = kunit_fault_note });

	kunit_fault_setup(test);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, call_target(2), 7);
	KUNIT_EXPECT_EQ(test, kunit_fault.failed_reads, 1);
	KUNIT_EXPECT_EQ(test, kunit_fault.faults, 1);
	/* The number is the port's (kprobes_x86 and kprobes_arm64 check it). */
	KUNIT_EXPECT_NE(test, kunit_fault.trapnr, -1);
	unregister_kprobe(kp);
}

static unsigned long kpk_body_size(struct kunit *test)
{
	unsigned long size = 0, offset;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)kpk_body,
							    &size, &offset));
	return size;
}

/* Hits per offset into kpk_body, for the body_probes() cases. */
#define KPK_BODY_MAX	512
static int body_hits[KPK_BODY_MAX];

static int count_at_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long off = (unsigned long)kp->addr - (unsigned long)kpk_body;

	hits++;
	if (off < KPK_BODY_MAX)
		body_hits[off]++;
	return 0;
}

/*
 * One round of probes on kpk_body's instruction boundaries past the
 * entry, at least @gap bytes apart: call it once and leave each offset's
 * hits in @seen.  Returns the number of probes that registered and, in
 * *@optimized, how many of them the optimizer turned into jumps and in
 * *@boostable how many the port may run without a second trap.
 */
static int body_round(struct kunit *test, bool post, bool settle,
		      unsigned long gap, int *seen, int *optimized,
		      int *boostable)
{
	unsigned long size = kpk_body_size(test), off, last = 0;
	int n = 0, i, expected = kpk_body_expected(7);
	struct kprobe **kps;

	KUNIT_ASSERT_LT(test, size, KPK_BODY_MAX);
	kps = kunit_kcalloc(test, size, sizeof(*kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	reset_counts();
	memset(body_hits, 0, sizeof(body_hits));
	/*
	 * Every offset inside the function; only boundaries register.  The
	 * ftrace call site (+0, or past an IBT landing pad) is not a body
	 * instruction: kpk_ftrace_site_shared covers it.
	 */
	for (off = 1; off < size; off++) {
		if (last && off < last + gap)
			continue;
		kps[n] = test_probe(test, &(struct kprobe) {
			.symbol_name = "kpk_body", .offset = off,
			.pre_handler = count_at_pre,
			.post_handler = post ? count_post : NULL });
		if (register_kprobe(kps[n]))
			continue;
		if (kprobe_ftrace(kps[n])) {
			unregister_kprobe(kps[n]);
			continue;
		}
		last = off;
		n++;
	}
	KUNIT_ASSERT_GE(test, n, 2);
	/* Let the optimizer put in the jumps the regions allow. */
	if (settle)
		wait_for_kprobe_optimizer();
	*optimized = 0;
	*boostable = 0;
	for (i = 0; i < n; i++) {
		*optimized += kprobe_optimized(kps[i]);
		*boostable += arch_kprobe_boostable(get_kprobe(kps[i]->addr));
	}
	KUNIT_EXPECT_EQ(test, call_body(7), expected);
	KUNIT_EXPECT_EQ(test, posts, post ? hits : 0);
	for (i = 0; i < n; i++)
		unregister_kprobe(kps[i]);
	KUNIT_EXPECT_EQ(test, call_body(7), expected);
	memcpy(seen, body_hits, size * sizeof(*seen));
	return n;
}

/*
 * Probes on kpk_body's instruction boundaries, and the function still
 * computes the same.  A probe with a post_handler traps and single-steps
 * (or is emulated) every time: that round is the reference, one hit per
 * execution of the probed instruction.  Without post_handlers the
 * instructions that allow it run boosted, and with @settle the optimizer
 * turns what it can into jumps; either way every offset must count
 * exactly the hits the reference counted, none lost and none doubled.
 */
static void body_probes(struct kunit *test, bool post, bool settle)
{
	/* Jumps need room: probes on every boundary leave none. */
	unsigned long gap = settle ? 8 : 1;
	int *ref, *got, off, n, opt, boostable, total = 0;

	ref = kunit_kcalloc(test, KPK_BODY_MAX, sizeof(*ref), GFP_KERNEL);
	got = kunit_kcalloc(test, KPK_BODY_MAX, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	KUNIT_ASSERT_NOT_NULL(test, got);
	n = body_round(test, true, false, gap, ref, &opt, &boostable);
	for (off = 0; off < KPK_BODY_MAX; off++)
		total += ref[off];
	/* A call runs the loop: some probed instruction runs 7 times. */
	KUNIT_EXPECT_GE(test, total, 7);
	KUNIT_EXPECT_EQ(test, body_round(test, post, settle, gap, got, &opt,
					 &boostable), n);
	for (off = 0; off < KPK_BODY_MAX; off++)
		if (ref[off] != got[off])
			KUNIT_FAIL(test, "kpk_body+%#x: %d hits, %d when stepped",
				   off, got[off], ref[off]);
	/*
	 * Where the port boosts, a body has instructions it boosts (the
	 * loop's arithmetic): the round without post_handlers ran them so.
	 */
	if (!post && !settle && KPROBE_BOOSTS)
		KUNIT_EXPECT_GT_MSG(test, boostable, 0,
				    "none of %d probes may be boosted", n);
	/* Where the arch optimizes, the settled round must have used it. */
	if (settle && IS_ENABLED(CONFIG_OPTPROBES))
		KUNIT_EXPECT_GT_MSG(test, opt, 0,
				    "none of %d probes %lu bytes apart was optimized",
				    n, gap);
}

static void kpk_body_probes_stepped(struct kunit *test)
{
	body_probes(test, true, false);
}

static void kpk_body_probes_boosted(struct kunit *test)
{
	body_probes(test, false, false);
}

static void kpk_body_probes_optimized(struct kunit *test)
{
	body_probes(test, false, true);
}

/*
 * A pre_handler that calls the function it probes: the inner hit must be
 * counted as missed and the inner call must still compute correctly.
 */
static struct kprobe recursing;
static int inner_result;

static int recurse_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	inner_result = call_body(3);
	return 0;
}

static void kpk_reentry_on_breakpoint_path(struct kunit *test)
{
	unsigned long size = kpk_body_size(test);
	int off;

	reset_counts();
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kprobe_kunit_unregister,
							&recursing), 0);
	/* The first boundary past the entry that is not the ftrace site. */
	for (off = 1; off < size; off++) {
		recursing = (struct kprobe) { .symbol_name = "kpk_body",
					      .offset = off,
					      .pre_handler = recurse_pre };
		if (register_kprobe(&recursing))
			continue;
		if (!kprobe_ftrace(&recursing))
			break;
		unregister_kprobe(&recursing);
	}
	KUNIT_ASSERT_LT(test, off, (int)size);
	KUNIT_EXPECT_EQ(test, call_body(5), kpk_body_expected(5));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, recursing.nmissed, 1);
	KUNIT_EXPECT_EQ(test, inner_result, kpk_body_expected(3));
	unregister_kprobe(&recursing);
}

#ifdef CONFIG_DYNAMIC_FTRACE
static int other_calls;

static void kpk_other_ipmodify(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	other_calls++;
}

static struct ftrace_ops kpk_ipmodify_ops = {
	.func = kpk_other_ipmodify,
	.flags = FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED | FTRACE_OPS_FL_IPMODIFY,
};

/*
 * Another ftrace user that may change ip (livepatch, say) owns
 * kpk_target's call site: a probe on the function still registers, and
 * both run.  The probe is itself on the call site where the port probes
 * ftrace sites, and a breakpoint before it where the site comes later in
 * the function (arm64).
 */
static void kpk_ftrace_site_shared(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });
	unsigned long ip = ftrace_location((unsigned long)kpk_target);

	KUNIT_ASSERT_NE(test, ip, 0UL);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&kpk_ipmodify_ops, ip, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(&kpk_ipmodify_ops), 0);
	reset_counts();
	other_calls = 0;
	KUNIT_EXPECT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, kprobe_ftrace(kp), (unsigned long)kp->addr == ip);
	KUNIT_EXPECT_EQ(test, call_target(1), 4);
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, other_calls, 1);
	unregister_kprobe(kp);
	unregister_ftrace_function(&kpk_ipmodify_ops);
	ftrace_set_filter_ip(&kpk_ipmodify_ops, ip, 1, 0);
}
#endif /* CONFIG_DYNAMIC_FTRACE */

#ifdef CONFIG_KPROBES_ON_FTRACE
static int refuse_hooks(struct kprobe **kps, int n)
{
	return -EBUSY;
}

/*
 * ftrace refuses to hook the call sites: registration fails with its
 * error and leaves nothing behind, for one probe and for a batch that
 * also holds a breakpoint probe.
 */
static void kpk_arming_failure_leaves_nothing(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });
	struct kprobe *body = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .offset = 0,
		.pre_handler = count_pre });
	struct kprobe *entry2 = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_body", .pre_handler = count_pre });
	struct kprobe *batch[] = { entry2, body, kp };
	unsigned long ip = (unsigned long)kpk_target;
	unsigned int off;

	/* The first breakpoint-probed instruction after the entry site. */
	for (off = 1; off < 32; off++) {
		body->offset = off;
		body->addr = NULL;
		if (register_kprobe(body))
			continue;
		unregister_kprobe(body);
		if (!kprobe_ftrace(body))
			break;
	}
	KUNIT_ASSERT_LT(test, off, 32U);
	body->addr = NULL;

	kunit_activate_static_stub(test, kprobe_ftrace_arm, refuse_hooks);
	if (IS_ENABLED(CONFIG_KPROBES_FTRACE_BRIDGE)) {
		/*
		 * Alone, the probe goes on its bridge without asking ftrace;
		 * a hand-over ftrace refuses leaves it there, still firing.
		 * The worker is held: ftrace refuses only this thread.
		 */
		kprobe_bridges_hold(true);
		KUNIT_EXPECT_EQ(test, register_kprobe(kp), 0);
		kprobe_bridges_flush();
		kprobe_bridges_hold(false);
		KUNIT_EXPECT_TRUE(test, kprobe_has_flag(kp, KPROBE_FLAG_BRIDGE));
		reset_counts();
		call_target(1);
		KUNIT_EXPECT_EQ(test, hits, 1);
		unregister_kprobe(kp);
		kp->addr = NULL;
	} else {
		KUNIT_EXPECT_EQ(test, register_kprobe(kp), -EBUSY);
	}
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe((void *)ip), NULL);
	/* The caller's probe is as it was, ready to be registered again. */
	KUNIT_EXPECT_PTR_EQ(test, kp->addr, NULL);

	KUNIT_EXPECT_EQ(test, register_kprobes(batch, ARRAY_SIZE(batch)), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe((void *)ip), NULL);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe((void *)kpk_body), NULL);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe((void *)(ip + off)), NULL);
	KUNIT_EXPECT_FALSE(test, kprobe_registered(body));
	reset_counts();
	call_target(1);
	KUNIT_EXPECT_EQ(test, hits, 0);
	kunit_deactivate_static_stub(test, kprobe_ftrace_arm);

	/* With ftrace willing again the same probes register and hit. */
	KUNIT_ASSERT_EQ(test, register_kprobes(batch, ARRAY_SIZE(batch)), 0);
	call_target(1);
	KUNIT_EXPECT_EQ(test, hits, 2);
	unregister_kprobes(batch, ARRAY_SIZE(batch));
}
#endif

static kprobe_opcode_t *no_slot(void)
{
	return NULL;
}

/*
 * No instruction slot can be had: a probe that needs one fails with
 * -ENOMEM, and a batch holding it leaves none of its probes behind,
 * whichever way the others would have been hit.
 */
static void kpk_slot_failure_leaves_nothing(struct kunit *test)
{
	struct kprobe *entry = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });
	struct kprobe *body = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_body", .pre_handler = count_pre,
		.post_handler = count_post });
	struct kprobe *batch[] = { entry, body };
	unsigned long size = kpk_body_size(test);
	unsigned int off;
	int err = 0;

	kunit_activate_static_stub(test, kprobe_alloc_insn_slot, no_slot);
	/* An instruction in kpk_body that runs out of line. */
	for (off = 1; off < size; off++) {
		body->offset = off;
		body->addr = NULL;
		err = register_kprobe(body);
		if (err == -ENOMEM)
			break;
		if (!err)
			unregister_kprobe(body);
	}
	KUNIT_ASSERT_EQ(test, err, -ENOMEM);
	KUNIT_EXPECT_FALSE(test, kprobe_registered(body));
	body->addr = NULL;

	KUNIT_EXPECT_EQ(test, register_kprobes(batch, ARRAY_SIZE(batch)), -ENOMEM);
	KUNIT_EXPECT_FALSE(test, kprobe_registered(entry));
	KUNIT_EXPECT_FALSE(test, kprobe_registered(body));
	KUNIT_EXPECT_PTR_EQ(test, entry->addr, NULL);
	reset_counts();
	call_target(1);
	call_body(3);
	KUNIT_EXPECT_EQ(test, hits, 0);
	kunit_deactivate_static_stub(test, kprobe_alloc_insn_slot);

	/* With slots to be had again the same probes register and hit. */
	KUNIT_ASSERT_EQ(test, register_kprobes(batch, ARRAY_SIZE(batch)), 0);
	call_target(1);
	KUNIT_EXPECT_EQ(test, call_body(3), kpk_body_expected(3));
	KUNIT_EXPECT_EQ(test, hits, 2);
	unregister_kprobes(batch, ARRAY_SIZE(batch));
}

/* Only run during boot: its text is freed with the rest of init memory. */
static noinline int __init kpk_init_target(int x)
{
	return x + 100;
}

/*
 * A probe in the kernel's init text becomes [GONE] when init memory is
 * about to be freed, and its breakpoint is removed while the text is still
 * there.  kprobe_free_init_mem() is called early for that; calling it again
 * at the end of boot finds nothing left to do.  __ref: the case only runs
 * while init text exists, which it checks first.
 */
static void __ref kpk_init_text_goes_away(struct kunit *test)
{
	int (*fn)(int) = kpk_init_target;
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpk_init_target,
		.pre_handler = count_pre });
	struct kprobe *kp2 = test_probe(test, kp);

	OPTIMIZER_HIDE_VAR(fn);

	if (system_state >= SYSTEM_FREEING_INITMEM)
		kunit_skip(test, "init text is already freed");
	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, fn(1), 101);
	KUNIT_EXPECT_EQ(test, hits, 1);

	kprobe_free_init_mem();
	KUNIT_EXPECT_TRUE(test, kprobe_gone(kp));
	KUNIT_EXPECT_EQ(test, fn(2), 102);
	KUNIT_EXPECT_EQ(test, hits, 1);
	/* A gone probe cannot be enabled again, only unregistered. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, fn(3), 103);
	KUNIT_EXPECT_EQ(test, hits, 1);

	/*
	 * New text at a gone site (here the old text, still there): a new
	 * probe gets a freshly prepared site, the old one stays gone.
	 */
	KUNIT_ASSERT_EQ(test, register_kprobe(kp2), 0);
	KUNIT_EXPECT_EQ(test, fn(4), 104);
	KUNIT_EXPECT_EQ(test, hits, 2);
	KUNIT_EXPECT_TRUE(test, kprobe_gone(kp));
	KUNIT_EXPECT_FALSE(test, kprobe_gone(kp2));
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, fn(5), 105);
	KUNIT_EXPECT_EQ(test, hits, 3);
	unregister_kprobe(kp2);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe((void *)kpk_init_target), NULL);
	KUNIT_EXPECT_EQ(test, fn(6), 106);
	KUNIT_EXPECT_EQ(test, hits, 3);
}

/*
 * The same inside the function body, where the probe is a breakpoint:
 * the revived site decodes its instruction afresh and steps it (both
 * probes have a post_handler) as before.
 */
static void __ref kpk_revived_site_decodes_text(struct kunit *test)
{
	int (*fn)(int) = kpk_init_target;
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.pre_handler = count_pre, .post_handler = count_post });
	struct kprobe *kp2 = test_probe(test, &(struct kprobe) {
		.pre_handler = count_pre, .post_handler = count_post });
	unsigned long off, size;

	OPTIMIZER_HIDE_VAR(fn);

	if (system_state >= SYSTEM_FREEING_INITMEM)
		kunit_skip(test, "init text is already freed");
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)fn,
							    &size, &off));
	/* The first boundary past the entry that takes a breakpoint. */
	for (off = 1; off < size; off++) {
		kp->addr = (kprobe_opcode_t *)((unsigned long)fn + off);
		kp->flags = 0;
		if (register_kprobe(kp))
			continue;
		if (!kprobe_ftrace(kp))
			break;
		unregister_kprobe(kp);
	}
	KUNIT_ASSERT_LT(test, off, size);
	kp2->addr = kp->addr;
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(1), 101);
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);

	kprobe_free_init_mem();
	KUNIT_ASSERT_TRUE(test, kprobe_gone(kp));
	KUNIT_ASSERT_EQ(test, register_kprobe(kp2), 0);
	KUNIT_EXPECT_EQ(test, get_kprobe(kp->addr)->opcode, kp->opcode);
	KUNIT_EXPECT_EQ(test, fn(2), 102);
	KUNIT_EXPECT_EQ(test, hits, 2);
	KUNIT_EXPECT_EQ(test, posts, 2);
	unregister_kprobe(kp);
	unregister_kprobe(kp2);
	KUNIT_EXPECT_EQ(test, fn(3), 103);
	KUNIT_EXPECT_EQ(test, hits, 2);
}

/*
 * Probes that went [GONE] with their text do not count as enabled at a
 * site revived for new text: unregistering them later must neither
 * disarm the new probe nor leave the site armed once the new probe is
 * disabled.
 */
static void __ref kpk_gone_probes_leave_revived_site_alone(struct kunit *test)
{
	int (*fn)(int) = kpk_init_target;
	struct kprobe *old1 = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpk_init_target,
		.pre_handler = count_pre });
	struct kprobe *old2 = test_probe(test, old1);
	struct kprobe *fresh = test_probe(test, old1);
	struct kprobe *head;

	OPTIMIZER_HIDE_VAR(fn);

	if (system_state >= SYSTEM_FREEING_INITMEM)
		kunit_skip(test, "init text is already freed");
	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(old1), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(old2), 0);
	KUNIT_EXPECT_EQ(test, fn(1), 101);
	KUNIT_EXPECT_EQ(test, hits, 2);

	kprobe_free_init_mem();
	KUNIT_ASSERT_TRUE(test, kprobe_gone(old1));
	KUNIT_ASSERT_TRUE(test, kprobe_gone(old2));
	KUNIT_ASSERT_EQ(test, register_kprobe(fresh), 0);
	KUNIT_EXPECT_EQ(test, fn(2), 102);
	KUNIT_EXPECT_EQ(test, hits, 3);

	/* The first gone probe leaves: the new one stays armed. */
	unregister_kprobe(old1);
	KUNIT_EXPECT_EQ(test, fn(3), 103);
	KUNIT_EXPECT_EQ(test, hits, 4);
	head = get_kprobe(fresh->addr);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_TRUE(test, kprobe_has_flag(head, KPROBE_FLAG_ARMED));

	/* The second leaves too, then the new one is disabled: disarmed. */
	unregister_kprobe(old2);
	KUNIT_EXPECT_EQ(test, disable_kprobe(fresh), 0);
	head = get_kprobe(fresh->addr);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_FALSE(test, kprobe_has_flag(head, KPROBE_FLAG_ARMED));
	KUNIT_EXPECT_EQ(test, fn(4), 104);
	KUNIT_EXPECT_EQ(test, hits, 4);
	KUNIT_EXPECT_EQ(test, enable_kprobe(fresh), 0);
	KUNIT_EXPECT_EQ(test, fn(5), 105);
	KUNIT_EXPECT_EQ(test, hits, 5);
	unregister_kprobe(fresh);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe((void *)kpk_init_target), NULL);
}

#ifdef CONFIG_MODULES
static void forget_module(void *mod)
{
	mutex_lock(&kprobes_mutex);
	kprobe_blacklist_remove_module(mod);
	mutex_unlock(&kprobes_mutex);
}

/*
 * A module's text can be looked up (and probed) a little before its
 * blacklist comes into force: kallsyms knows a COMING module before the
 * module notifier runs.  A probe planted on a NOKPROBE_SYMBOL function in
 * that gap goes [GONE] when the blacklist arrives, and no new one is
 * taken there.  The module is a stand-in whose text is kpk_target.
 */
static void kpk_module_blacklist_arrives_late(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target", .pre_handler = count_pre });
	struct kprobe *late = test_probe(test, &(struct kprobe) {
		.symbol_name = "kpk_target" });
	struct module *mod = kunit_kzalloc(test, sizeof(*mod), GFP_KERNEL);
	unsigned long *nokprobe = kunit_kzalloc(test, sizeof(*nokprobe),
						GFP_KERNEL);
	unsigned long size, off;

	KUNIT_ASSERT_NOT_NULL(test, mod);
	KUNIT_ASSERT_NOT_NULL(test, nokprobe);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)kpk_target,
							    &size, &off));
	mod->mem[MOD_TEXT].base = (void *)kpk_target;
	mod->mem[MOD_TEXT].size = size;
	nokprobe[0] = (unsigned long)kpk_target;
	mod->kprobe_blacklist = nokprobe;
	mod->num_kprobe_blacklist = 1;

	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, forget_module,
							mod), 0);
	mutex_lock(&kprobes_mutex);
	kprobe_module_coming(mod);
	mutex_unlock(&kprobes_mutex);

	KUNIT_EXPECT_TRUE(test, kprobe_gone(kp));
	KUNIT_EXPECT_EQ(test, call_target(1), 4);
	KUNIT_EXPECT_EQ(test, hits, 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(late), -EINVAL);
	unregister_kprobe(kp);
	KUNIT_EXPECT_NULL(test, get_kprobe(kp->addr));
}
#else
static void kpk_module_blacklist_arrives_late(struct kunit *test)
{
	kunit_skip(test, "needs modules");
}
#endif

static int ret_seen;

static int note_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ret_seen = regs_return_value(regs);
	return 0;
}

static int decline_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 1;
}

static void kpk_kretprobe_defaults_and_errors(struct kunit *test)
{
	struct kretprobe rp = { .kp.symbol_name = "kpk_target",
				.handler = note_return };
	struct kretprobe big = { .kp.symbol_name = "kpk_target",
				 .handler = note_return,
				 .data_size = KRETPROBE_MAX_DATA_SIZE + 1 };
	struct kretprobe mid = { .kp.symbol_name = "kpk_body", .kp.offset = 5,
				 .handler = note_return };

	KUNIT_EXPECT_EQ(test, register_kretprobe(&big), -E2BIG);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&mid), -EINVAL);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_GT(test, rp.maxactive, 0);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	ret_seen = 0;
	KUNIT_EXPECT_EQ(test, call_target(4), 13);
	KUNIT_EXPECT_EQ(test, ret_seen, 13);
	unregister_kretprobe(&rp);
}

static void kpk_kretprobe_entry_handler_declines(struct kunit *test)
{
	struct kretprobe rp = { .kp.symbol_name = "kpk_target",
				.handler = note_return,
				.entry_handler = decline_entry };

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	ret_seen = 0;
	KUNIT_EXPECT_EQ(test, call_target(4), 13);
	KUNIT_EXPECT_EQ(test, ret_seen, 0);
	unregister_kretprobe(&rp);
}

static struct kunit_case kprobes_core_cases[] = {
	KUNIT_CASE(kpk_errno_both_addr_and_symbol),
	KUNIT_CASE(kpk_errno_neither_addr_nor_symbol),
	KUNIT_CASE(kpk_errno_unknown_symbol),
	KUNIT_CASE(kpk_errno_not_text),
	KUNIT_CASE(kpk_errno_blacklisted),
	KUNIT_CASE(kpk_errno_mid_instruction),
	KUNIT_CASE(kpk_double_registration),
	KUNIT_CASE(kpk_registered_probe_moved_refused),
	KUNIT_CASE(kpk_unregister_unregistered_clears_addr),
	KUNIT_CASE(kpk_resolves_addr),
	KUNIT_CASE(kpk_handlers_run_in_registration_order),
	KUNIT_CASE(kpk_hit_without_post_phase_passes_post_probes),
	KUNIT_CASE(kpk_lone_probe_is_its_own_head),
	KUNIT_CASE(kpk_disable_enable),
	KUNIT_CASE(kpk_register_disabled),
	KUNIT_CASE(kpk_batch_rollback),
	KUNIT_CASE(kpk_pre_handler_redirects),
	KUNIT_CASE(kpk_fault_handler_sees_handler_fault),
	KUNIT_CASE(kpk_body_probes_stepped),
	KUNIT_CASE(kpk_body_probes_boosted),
	KUNIT_CASE(kpk_body_probes_optimized),
	KUNIT_CASE(kpk_reentry_on_breakpoint_path),
#ifdef CONFIG_DYNAMIC_FTRACE
	KUNIT_CASE(kpk_ftrace_site_shared),
#endif
#ifdef CONFIG_KPROBES_ON_FTRACE
	KUNIT_CASE(kpk_arming_failure_leaves_nothing),
#endif
	KUNIT_CASE(kpk_slot_failure_leaves_nothing),
	KUNIT_CASE(kpk_init_text_goes_away),
	KUNIT_CASE(kpk_revived_site_decodes_text),
	KUNIT_CASE(kpk_gone_probes_leave_revived_site_alone),
	KUNIT_CASE(kpk_module_blacklist_arrives_late),
	KUNIT_CASE(kpk_kretprobe_defaults_and_errors),
	KUNIT_CASE(kpk_kretprobe_entry_handler_declines),
	{}
};

static int kprobes_core_init(struct kunit_suite *suite)
{
	call_target = kpk_target;
	call_body = kpk_body;
	return 0;
}

static struct kunit_suite kprobes_core_suite = {
	.name = "kprobes_core",
	.suite_init = kprobes_core_init,
	.test_cases = kprobes_core_cases,
};

kunit_test_suites(&kprobes_core_suite);

MODULE_DESCRIPTION("KUnit cases for the kprobes core");
MODULE_LICENSE("GPL");
