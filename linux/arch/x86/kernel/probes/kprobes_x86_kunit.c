// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases for the x86 port: what happens to each kind of instruction
 * (boosted copies, prologue work done on pt_regs), jump optimization,
 * the trap number a fault_handler sees, and decoding around a gone
 * probe.  The arch-neutral cases are kernel/kprobes/kprobes_kunit.c.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/kprobes_hit.h>
#include <linux/kallsyms.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/linkage.h>
#include <linux/kdebug.h>
#include <linux/memory.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <asm/text-patching.h>
#include <asm/trapnr.h>
#include <asm/ibt.h>

#include "decode.h"
#include "internal.h"
#include "kprobes_kunit.h"
#include "kprobes_window_kunit.h"

static int hits, posts;

static void reset_counts(void)
{
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

/* A loop with plain arithmetic in it: instructions that run out of line. */
static noinline int kx86_body(int x)
{
	int i, acc = 1;

	for (i = 0; i < x; i++)
		acc = acc * 3 + (i & x);
	return acc;
}

/* Set at suite init, so the compiler cannot specialise the target. */
static int (*call_body)(int);

static unsigned long kx86_body_size(struct kunit *test)
{
	unsigned long size = 0, offset;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)kx86_body,
							    &size, &offset));
	return size;
}

static noinline int kx86_replacement(int x)
{
	return -x;
}

static int redirect_pre(struct kprobe *kp, struct pt_regs *regs)
{
	instruction_pointer_set(regs, (unsigned long)kx86_replacement);
	return 1;
}

/* The first boundary in kx86_body whose instruction runs out of line. */
static struct kprobe *find_stepped(struct kunit *test, struct kprobe *kp)
{
	unsigned long size = kx86_body_size(test), off;

	for (off = 1; off < size; off++) {
		*kp = (struct kprobe) { .symbol_name = "kx86_body", .offset = off,
					.pre_handler = count_pre };
		if (register_kprobe(kp))
			continue;
		if (get_kprobe(kp->addr)->ainsn.pi.op == X86_PROBE_STEP)
			return get_kprobe(kp->addr);
		unregister_kprobe(kp);
	}
	return NULL;
}

/*
 * A boostable instruction runs boosted only while no probe at its address
 * has a post_handler: adding one brings the trap after the instruction
 * back (the post_handler runs), removing it boosts again.  Preemptible
 * kernels never boost.
 */
static void kx86_boost_follows_post_handler(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {});
	struct kprobe *with_post = test_probe(test, &(struct kprobe) {});
	struct kprobe *site;
	/* Through the pointer, so it is not moved past a registration. */
	int expected = call_body(4);

	site = find_stepped(test, kp);
	KUNIT_ASSERT_NOT_NULL(test, site);
	if (!KPROBE_BOOSTS) {
		/*
		 * A task may be preempted in a copy that jumps back by
		 * itself, so there is none (KPROBE_PREEMPTIBLE_SLOTS is 0).
		 */
		KUNIT_EXPECT_NULL(test, site->ainsn.boost);
		return;
	}
	KUNIT_EXPECT_NOT_NULL(test, site->ainsn.boost);
	KUNIT_EXPECT_NULL(test, site->post_handler);
	reset_counts();
	KUNIT_EXPECT_EQ(test, call_body(4), expected);
	KUNIT_EXPECT_GE(test, hits, 1);

	*with_post = (struct kprobe) { .addr = kp->addr,
				       .post_handler = count_post };
	KUNIT_ASSERT_EQ(test, register_kprobe(with_post), 0);
	/* Two probes: the head is a site now, no longer @kp itself. */
	KUNIT_EXPECT_PTR_NE(test, get_kprobe(kp->addr), kp);
	KUNIT_EXPECT_NOT_NULL(test, get_kprobe(kp->addr)->post_handler);
	reset_counts();
	KUNIT_EXPECT_EQ(test, call_body(4), expected);
	KUNIT_EXPECT_GE(test, posts, 1);
	KUNIT_EXPECT_EQ(test, posts, hits);

	/* Disabled, its post_handler no longer counts. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(with_post), 0);
	KUNIT_EXPECT_NULL(test, get_kprobe(kp->addr)->post_handler);
	unregister_kprobe(with_post);
	KUNIT_EXPECT_NULL(test, get_kprobe(kp->addr)->post_handler);
	reset_counts();
	KUNIT_EXPECT_EQ(test, call_body(4), expected);
	KUNIT_EXPECT_EQ(test, posts, 0);
	KUNIT_EXPECT_GE(test, hits, 1);
	unregister_kprobe(kp);
}

/*
 * A prologue and epilogue the test controls, computing 2x + 5: pushes,
 * pops and register moves (64- and 32-bit), with one plain instruction
 * in between.
 */
asm(".pushsection .text\n"
	".type kx86_regops_asm, @function\n"
	"kx86_regops_asm:\n"
	ASM_ENDBR
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"
	"	pushq %r12\n"
	"	pushq %rbx\n"
	"	movq %rdi, %r12\n"
	"	leal 5(%r12), %ebx\n"
	"	movl %ebx, %eax\n"
	"	addl %r12d, %eax\n"
	"	popq %rbx\n"
	"	popq %r12\n"
	"	popq %rbp\n"
	ASM_RET
	".size kx86_regops_asm, .-kx86_regops_asm\n"
	".popsection\n");

/*
 * A probe with a post_handler on each push, pop and mov above is done on
 * pt_regs: no slot, one trap, both handlers run, and the function still
 * computes the same.
 */
static void kx86_prologue_emulated(struct kunit *test)
{
	int (*fn)(int x) = (int (*)(int x))kallsyms_lookup_name("kx86_regops_asm");
	struct kprobe *kp = test_probe(test, &(struct kprobe) {});
	unsigned long size, off, slot, emulated = 0;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)fn,
							    &size, &off));
	for (off = 0; off < size; off++) {
		*kp = (struct kprobe) {
			.addr = (kprobe_opcode_t *)((unsigned long)fn + off),
			.pre_handler = count_pre, .post_handler = count_post };
		if (register_kprobe(kp))
			continue;
		reset_counts();
		KUNIT_EXPECT_EQ(test, fn(off), 2 * (int)off + 5);
		KUNIT_EXPECT_EQ(test, hits, 1);
		KUNIT_EXPECT_EQ(test, posts, 1);
		slot = (unsigned long)get_kprobe(kp->addr)->ainsn.insn;
		if (!slot)
			emulated++;
		/* Stack traces must see code running in a slot as text. */
		else
			KUNIT_EXPECT_TRUE(test, is_kprobe_insn_slot(slot) &&
					  kernel_text_address(slot));
		unregister_kprobe(kp);
	}
	/* Three pushes, three pops, three movs (the endbr is a nop). */
	KUNIT_EXPECT_GE(test, emulated, 9UL);
	/* Ordinary kernel text is not slot text. */
	KUNIT_EXPECT_FALSE(test, is_kprobe_insn_slot((unsigned long)fn));
}

/*
 * Without a post_handler the same pushes, pops and movs (and the ret,
 * where it is one) run boosted on kernels that boost: from a copy that
 * goes on by itself, one trap a hit and nothing carried out on pt_regs.
 * The function still computes the same and every hit counts once.
 */
static void kx86_prologue_boosted(struct kunit *test)
{
	int (*fn)(int x) = (int (*)(int x))kallsyms_lookup_name("kx86_regops_asm");
	struct kprobe *kp = test_probe(test, &(struct kprobe) {});
	unsigned long size, off, boosted = 0;
	struct kprobe *head;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)fn,
							    &size, &off));
	for (off = 0; off < size; off++) {
		*kp = (struct kprobe) {
			.addr = (kprobe_opcode_t *)((unsigned long)fn + off),
			.pre_handler = count_pre };
		if (register_kprobe(kp))
			continue;
		reset_counts();
		KUNIT_EXPECT_EQ(test, fn(off), 2 * (int)off + 5);
		KUNIT_EXPECT_EQ(test, hits, 1);
		head = get_kprobe(kp->addr);
		if (head->ainsn.pi.op != X86_PROBE_STEP && head->ainsn.boost) {
			boosted++;
			KUNIT_EXPECT_TRUE(test, is_kprobe_insn_slot((unsigned long)
								    head->ainsn.boost));
		}
		unregister_kprobe(kp);
	}
	if (KPROBE_BOOSTS)
		KUNIT_EXPECT_GE(test, boosted, 9UL);
	else
		KUNIT_EXPECT_EQ(test, boosted, 0UL);
}

/*
 * A function whose code the test controls: (x + 7) * 3 + x.  Its first two
 * instructions (2 + 3 bytes) are exactly what a jump replaces, and the
 * second one is a boundary inside that region.
 */
asm(".pushsection .text\n"
	".type kx86_opt_asm, @function\n"
	"kx86_opt_asm:\n"
	ASM_ENDBR
	"	movl %edi, %eax\n"
	"	addl $7, %eax\n"
	"	imull $3, %eax, %eax\n"
	"	addl %edi, %eax\n"
	ASM_RET
	".size kx86_opt_asm, .-kx86_opt_asm\n"
	".popsection\n");

/* Looked up by name: nothing in C needs to know its prototype. */
static int (*kx86_opt_fn(void))(int x)
{
	return (int (*)(int x))kallsyms_lookup_name("kx86_opt_asm");
}

static int kx86_opt_expected(int x)
{
	return (x + 7) * 3 + x;
}

/* Run the optimizer and say whether @kp's site now has its jump. */
static bool jumped(struct kprobe *kp)
{
	wait_for_kprobe_optimizer();
	return kprobe_optimized(get_kprobe(kp->addr));
}

static void kx86_optimized_probe(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = count_pre });
	int (*fn)(int x) = kx86_opt_fn();

	KUNIT_ASSERT_NOT_NULL(test, fn);
	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	/* Queued: the breakpoint sends the hit to the detour's copy. */
	KUNIT_EXPECT_EQ(test, fn(1), kx86_opt_expected(1));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(kp));
	KUNIT_EXPECT_EQ(test, fn(2), kx86_opt_expected(2));
	KUNIT_EXPECT_EQ(test, hits, 2);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, fn(3), kx86_opt_expected(3));
	KUNIT_EXPECT_EQ(test, hits, 2);
}

/* Unlike upstream, a pre_handler may redirect an optimized probe too. */
static void kx86_optimized_redirect(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = redirect_pre });
	int (*fn)(int x) = kx86_opt_fn();

	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_EQ(test, fn(5), kx86_replacement(5));
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, fn(5), kx86_opt_expected(5));
}

/*
 * The chain a detour hit on @addr's site would take now: its solo when
 * @solo, else its lone.
 */
static struct kprobe *single_at(void *addr, bool solo)
{
	struct kprobe *head = get_kprobe(addr), *single = NULL;
	struct kprobe_chain *chain;

	rcu_read_lock();
	if (head && kprobe_is_site(head)) {
		chain = rcu_dereference(to_site(head)->chain);
		single = solo ? chain->solo : chain->lone;
	}
	rcu_read_unlock();
	return single;
}

#define lone_at(addr)	single_at(addr, false)
#define solo_at(addr)	single_at(addr, true)

/* Which probe a fault in each handler would be given to. */
static struct kprobe *in_handler_pre, *in_handler_post;

static int note_in_handler_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	in_handler_pre = __this_cpu_read(kprobe_in_handler);
	return 0;
}

static void note_in_handler_post(struct kprobe *kp, struct pt_regs *regs,
				 unsigned long flags)
{
	posts++;
	in_handler_post = __this_cpu_read(kprobe_in_handler);
}

/*
 * A site whose chain is one plain probe runs it without the walk; each
 * change of the chain's shape (a second probe, a post_handler, the first
 * probe leaving, disabled and enabled again) moves its hits to the walk
 * and back, and every probe counts every call.  A probe with a
 * fault_handler is no lone; a fault in a lone's pre_handler is given to no
 * other probe's fault_handler.  A probe alone with a post_handler is the
 * chain's solo instead, whose handlers the post phase calls without the
 * walks, each as the running handler.
 */
static void kx86_single_probe_on_detour(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = count_pre });
	struct kprobe *other = test_probe(test, &(struct kprobe) {});
	int (*fn)(int x) = kx86_opt_fn();
	void *addr;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	addr = kp->addr;
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_PTR_EQ(test, lone_at(addr), kp);
	KUNIT_EXPECT_EQ(test, fn(1), kx86_opt_expected(1));
	KUNIT_EXPECT_EQ(test, hits, 1);

	/* Two plain probes: the walk, each counting once. */
	*other = (struct kprobe) { .addr = addr, .pre_handler = count_pre };
	KUNIT_ASSERT_EQ(test, register_kprobe(other), 0);
	KUNIT_EXPECT_NULL(test, lone_at(addr));
	KUNIT_EXPECT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_EQ(test, fn(2), kx86_opt_expected(2));
	KUNIT_EXPECT_EQ(test, hits, 3);

	/* The first leaves: the second is the lone. */
	unregister_kprobe(kp);
	KUNIT_EXPECT_PTR_EQ(test, lone_at(addr), other);
	KUNIT_EXPECT_TRUE(test, jumped(other));
	KUNIT_EXPECT_EQ(test, fn(3), kx86_opt_expected(3));
	KUNIT_EXPECT_EQ(test, hits, 4);

	/* A second probe with a post_handler: neither lone nor solo. */
	*kp = (struct kprobe) { .addr = addr, .post_handler = count_post };
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_NULL(test, lone_at(addr));
	KUNIT_EXPECT_NULL(test, solo_at(addr));
	KUNIT_EXPECT_EQ(test, fn(4), kx86_opt_expected(4));
	KUNIT_EXPECT_EQ(test, hits, 5);
	KUNIT_EXPECT_EQ(test, posts, 1);
	unregister_kprobe(kp);
	KUNIT_EXPECT_PTR_EQ(test, lone_at(addr), other);

	/* Disabled, nothing runs; enabled again, the lone is back. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(other), 0);
	KUNIT_EXPECT_NULL(test, lone_at(addr));
	KUNIT_EXPECT_EQ(test, fn(5), kx86_opt_expected(5));
	KUNIT_EXPECT_EQ(test, hits, 5);
	KUNIT_ASSERT_EQ(test, enable_kprobe(other), 0);
	KUNIT_EXPECT_PTR_EQ(test, lone_at(addr), other);
	KUNIT_EXPECT_TRUE(test, jumped(other));
	KUNIT_EXPECT_EQ(test, fn(6), kx86_opt_expected(6));
	KUNIT_EXPECT_EQ(test, hits, 6);
	unregister_kprobe(other);

	/* Alone with both handlers: the solo, its post phase in the detour. */
	*kp = (struct kprobe) { .addr = addr, .pre_handler = note_in_handler_pre,
				.post_handler = note_in_handler_post };
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_NULL(test, lone_at(addr));
	KUNIT_EXPECT_PTR_EQ(test, solo_at(addr), kp);
	reset_counts();
	in_handler_pre = NULL;
	in_handler_post = NULL;
	KUNIT_EXPECT_EQ(test, fn(8), kx86_opt_expected(8));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);
	KUNIT_EXPECT_PTR_EQ(test, in_handler_pre, kp);
	KUNIT_EXPECT_PTR_EQ(test, in_handler_post, kp);
	unregister_kprobe(kp);
	KUNIT_EXPECT_NULL(test, solo_at(addr));

	/*
	 * A probe with a fault_handler is no lone: the walk names it, and
	 * its handler's fault goes to its fault_handler.
	 */
	kunit_fault_setup(test);
	*kp = (struct kprobe) { .addr = addr, .pre_handler = kunit_fault_pre,
				.fault_handler = kunit_fault_note };
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_NULL(test, lone_at(addr));
	KUNIT_EXPECT_EQ(test, fn(7), kx86_opt_expected(7));
	KUNIT_EXPECT_EQ(test, kunit_fault.failed_reads, 1);
	KUNIT_EXPECT_EQ(test, kunit_fault.faults, 1);
	KUNIT_EXPECT_EQ(test, kunit_fault.trapnr, X86_TRAP_PF);
	unregister_kprobe(kp);

	/*
	 * A lone faults in its pre_handler beside a probe that has only a
	 * fault_handler: that fault is the lone's, not the other's.
	 */
	kunit_fault_setup(test);
	*kp = (struct kprobe) { .addr = addr, .pre_handler = kunit_fault_pre };
	*other = (struct kprobe) { .addr = addr,
				   .fault_handler = kunit_fault_note };
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(other), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_PTR_EQ(test, lone_at(addr), kp);
	KUNIT_EXPECT_EQ(test, fn(9), kx86_opt_expected(9));
	KUNIT_EXPECT_EQ(test, kunit_fault.failed_reads, 1);
	KUNIT_EXPECT_EQ(test, kunit_fault.faults, 0);
	unregister_kprobe(other);
	unregister_kprobe(kp);
}

/*
 * What the post path shows a post_handler and what it keeps of its
 * changes: the registers after the 2-byte movl, IF as the caller had it,
 * and ax or ip changed for the rest of the function.
 */
static unsigned long post_ip, post_ax, post_flags, pre_ip;
static long post_add;
static bool post_redirects;

static int note_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	pre_ip = regs->ip;
	return 0;
}

static void note_post(struct kprobe *kp, struct pt_regs *regs,
		      unsigned long flags)
{
	posts++;
	post_ip = regs->ip;
	post_ax = regs->ax;
	post_flags = regs->flags;
	regs->ax += post_add;
	if (post_redirects)
		instruction_pointer_set(regs, (unsigned long)kx86_replacement);
}

static void kx86_optimized_post_handler(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = note_pre,
		.post_handler = note_post });
	int (*fn)(int x) = kx86_opt_fn();
	unsigned long flags;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	post_add = 0;
	post_redirects = false;
	reset_counts();
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	/*
	 * Queued, most likely not jumped to yet (the optimizer has not run
	 * on this CPU): the breakpoint takes the detour's post path.
	 */
	KUNIT_EXPECT_EQ(test, fn(5), kx86_opt_expected(5));
	KUNIT_EXPECT_EQ(test, posts, 1);
	KUNIT_EXPECT_EQ(test, post_ip, (unsigned long)kp->addr + 2);
	KUNIT_EXPECT_EQ(test, (int)post_ax, 5);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_ASSERT_TRUE(test, arch_optimized_kprobe_runs_post(get_kprobe(kp->addr)));

	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(6), kx86_opt_expected(6));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);
	KUNIT_EXPECT_EQ(test, pre_ip, (unsigned long)kp->addr + INT3_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, post_ip, (unsigned long)kp->addr + 2);
	KUNIT_EXPECT_EQ(test, (int)post_ax, 6);
	KUNIT_EXPECT_TRUE(test, post_flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());

	/* Called with interrupts off: the post phase shows it, keeps it. */
	local_irq_save(flags);
	ret = fn(7);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, kx86_opt_expected(7));
	KUNIT_EXPECT_FALSE(test, post_flags & X86_EFLAGS_IF);

	/* A changed register carries on into the rest of the function... */
	post_add = 100;
	KUNIT_EXPECT_EQ(test, fn(1), (1 + 100 + 7) * 3 + 1);
	post_add = 0;
	/* ...and so does a changed ip. */
	post_redirects = true;
	KUNIT_EXPECT_EQ(test, fn(9), kx86_replacement(9));
	post_redirects = false;
	KUNIT_EXPECT_EQ(test, posts, 4);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(kp));
	KUNIT_EXPECT_NULL(test, kprobe_running());
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, fn(9), kx86_opt_expected(9));
}

/*
 * (x + 7) * 3 + x again, through rbx, which it saves and restores: probes
 * on the push (+0 after the landing pad) and on the pop (+8), each the
 * first instruction of a region a jump can replace.  A hit with a post
 * phase carries these out on its own pt_regs.
 */
asm(".pushsection .text\n"
	".type kx86_stack_asm, @function\n"
	"kx86_stack_asm:\n"
	ASM_ENDBR
	"	pushq %rbx\n"
	"	movl %edi, %ebx\n"
	"	addl $7, %ebx\n"
	"	movl %ebx, %eax\n"
	"	popq %rbx\n"
	"	imull $3, %eax, %eax\n"
	"	addl %edi, %eax\n"
	ASM_RET
	".size kx86_stack_asm, .-kx86_stack_asm\n"
	".popsection\n");

#define KX86_STACK_POP	8

/* What the pre and post phase of one hit saw. */
static struct pt_regs *pre_frame, *post_frame;
static unsigned long pre_sp, pre_top, post_sp, post_top, post_bx;
static long post_add_di;

static int stack_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	pre_frame = regs;
	pre_sp = kernel_stack_pointer(regs);
	pre_top = *(unsigned long *)pre_sp;
	return 0;
}

static void stack_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	posts++;
	post_frame = regs;
	post_ip = regs->ip;
	post_flags = regs->flags;
	post_sp = kernel_stack_pointer(regs);
	post_top = *(unsigned long *)post_sp;
	post_bx = regs->bx;
	regs->di += post_add_di;
	if (post_redirects)
		instruction_pointer_set(regs, (unsigned long)kx86_replacement);
}

static void kx86_post_in_place(struct kunit *test)
{
	struct kprobe *push = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_stack_asm", .pre_handler = stack_pre,
		.post_handler = stack_post });
	struct kprobe *pop = test_probe(test, &(struct kprobe) {});
	int (*fn)(int x) = (int (*)(int x))kallsyms_lookup_name("kx86_stack_asm");
	unsigned long flags;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	post_add_di = 0;
	post_redirects = false;
	KUNIT_ASSERT_EQ(test, register_kprobe(push), 0);
	KUNIT_ASSERT_TRUE(test, jumped(push));
	KUNIT_EXPECT_TRUE(test, get_kprobe(push->addr)->ainsn.post_in_place);

	/* The push: sp 8 lower, rbx on top, one frame for both phases. */
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(5), kx86_opt_expected(5));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);
	KUNIT_EXPECT_PTR_EQ(test, post_frame, pre_frame);
	KUNIT_EXPECT_EQ(test, post_sp, pre_sp - sizeof(long));
	KUNIT_EXPECT_EQ(test, post_top, post_bx);
	KUNIT_EXPECT_EQ(test, post_ip, (unsigned long)push->addr + 1);
	KUNIT_EXPECT_TRUE(test, post_flags & X86_EFLAGS_IF);
	/* A post_handler's register change carries on. */
	post_add_di = 100;
	KUNIT_EXPECT_EQ(test, fn(1), (1 + 100 + 7) * 3 + 1 + 100);
	post_add_di = 0;
	/* With interrupts off: kept off. */
	local_irq_save(flags);
	ret = fn(2);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, kx86_opt_expected(2));
	KUNIT_EXPECT_FALSE(test, post_flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_EQ(test, posts, 3);
	unregister_kprobe(push);

	/* The pop: sp 8 higher, rbx what was on top. */
	*pop = (struct kprobe) { .symbol_name = "kx86_stack_asm",
				 .offset = KX86_STACK_POP, .pre_handler = stack_pre,
				 .post_handler = stack_post };
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		pop->offset += ENDBR_INSN_SIZE;
	KUNIT_ASSERT_EQ(test, register_kprobe(pop), 0);
	KUNIT_ASSERT_EQ(test, get_kprobe(pop->addr)->ainsn.pi.op, X86_PROBE_POP);
	KUNIT_ASSERT_TRUE(test, jumped(pop));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(6), kx86_opt_expected(6));
	KUNIT_EXPECT_EQ(test, posts, 1);
	KUNIT_EXPECT_PTR_EQ(test, post_frame, pre_frame);
	KUNIT_EXPECT_EQ(test, post_sp, pre_sp + sizeof(long));
	KUNIT_EXPECT_EQ(test, post_bx, pre_top);
	KUNIT_EXPECT_EQ(test, post_ip, (unsigned long)pop->addr + 1);
	/* Back at the caller's stack: a changed ip may leave the function. */
	post_redirects = true;
	KUNIT_EXPECT_EQ(test, fn(9), kx86_replacement(9));
	post_redirects = false;
	KUNIT_EXPECT_EQ(test, posts, 2);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(pop));
	KUNIT_EXPECT_NULL(test, kprobe_running());
	unregister_kprobe(pop);
	KUNIT_EXPECT_EQ(test, fn(9), kx86_opt_expected(9));
}

/* The push's detour without a post phase: resumed, and redirected. */
static void kx86_push_site_without_post(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_stack_asm", .pre_handler = count_pre });
	struct kprobe *redirect = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_stack_asm", .pre_handler = redirect_pre });
	int (*fn)(int x) = (int (*)(int x))kallsyms_lookup_name("kx86_stack_asm");

	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(3), kx86_opt_expected(3));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_ASSERT_EQ(test, register_kprobe(redirect), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_EQ(test, fn(4), kx86_replacement(4));
	KUNIT_EXPECT_EQ(test, hits, 2);
	unregister_kprobe(redirect);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, fn(4), kx86_opt_expected(4));
}

/*
 * A detour has no post path where the probed instruction changes IF: the
 * post phase must run with interrupts off and give them back as they
 * were.  Here the jump goes while a post_handler is there, and the
 * breakpoint serves it.  Called with interrupts off, as the cli would
 * leave them.
 */
asm(".pushsection .text\n"
	".type kx86_cli_asm, @function\n"
	"kx86_cli_asm:\n"
	ASM_ENDBR
	"	cli\n"
	"	movl %edi, %eax\n"
	"	addl $7, %eax\n"
	"	imull $3, %eax, %eax\n"
	"	addl %edi, %eax\n"
	ASM_RET
	".size kx86_cli_asm, .-kx86_cli_asm\n"
	".popsection\n");

static int call_cli_fn(int (*fn)(int x), int x)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = fn(x);
	local_irq_restore(flags);
	return ret;
}

static void kx86_no_post_path_at_cli(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_cli_asm", .pre_handler = count_pre });
	struct kprobe *post = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_cli_asm", .post_handler = count_post });
	int (*fn)(int x) = (int (*)(int x))kallsyms_lookup_name("kx86_cli_asm");

	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_FALSE(test, arch_optimized_kprobe_runs_post(get_kprobe(kp->addr)));

	KUNIT_ASSERT_EQ(test, register_kprobe(post), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(kp));
	reset_counts();
	KUNIT_EXPECT_EQ(test, call_cli_fn(fn, 1), kx86_opt_expected(1));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);
	KUNIT_EXPECT_FALSE(test, jumped(kp));
	unregister_kprobe(post);
	KUNIT_EXPECT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_EQ(test, call_cli_fn(fn, 2), kx86_opt_expected(2));
	KUNIT_EXPECT_EQ(test, hits, 2);
	KUNIT_EXPECT_EQ(test, posts, 1);
}

/*
 * The jump goes as soon as it must: disabling, the sysctl, a probe inside
 * the region; and comes back when the reason goes.  A post_handler is no
 * reason here (the detour has a post path).
 */
static void kx86_optimization_reverts(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = count_pre });
	struct kprobe *post = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .post_handler = count_post });
	struct kprobe *inner = test_probe(test, &(struct kprobe) {
		.pre_handler = count_pre });
	int (*fn)(int x) = kx86_opt_fn();

	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));

	KUNIT_ASSERT_EQ(test, register_kprobe(post), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(kp));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(1), kx86_opt_expected(1));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);
	KUNIT_EXPECT_TRUE(test, jumped(kp));
	unregister_kprobe(post);
	KUNIT_EXPECT_TRUE(test, jumped(kp));

	KUNIT_EXPECT_EQ(test, disable_kprobe(kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(kp));
	KUNIT_EXPECT_EQ(test, enable_kprobe(kp), 0);
	KUNIT_EXPECT_TRUE(test, jumped(kp));

	kprobe_set_optimization(false);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(kp));
	KUNIT_EXPECT_FALSE(test, jumped(kp));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(2), kx86_opt_expected(2));
	KUNIT_EXPECT_EQ(test, hits, 1);
	kprobe_set_optimization(true);
	KUNIT_EXPECT_TRUE(test, jumped(kp));

	/* The addl after the two-byte movl lies inside the region. */
	inner->addr = kp->addr + 2;
	KUNIT_ASSERT_EQ(test, register_kprobe(inner), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(kp));
	KUNIT_EXPECT_FALSE(test, jumped(kp));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(3), kx86_opt_expected(3));
	KUNIT_EXPECT_EQ(test, hits, 2);
	unregister_kprobe(inner);
	KUNIT_EXPECT_TRUE(test, jumped(kp));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(4), kx86_opt_expected(4));
	KUNIT_EXPECT_EQ(test, hits, 1);
}

/*
 * A probe planted while another sits inside its region gets no detour,
 * so it stays alone at its address; once the other goes, it becomes a
 * site (the detour names its head) and is jumped to.
 */
static void kx86_blocked_probe_optimized_later(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = count_pre });
	struct kprobe *inner = test_probe(test, &(struct kprobe) {
		.pre_handler = count_pre });
	int (*fn)(int x) = kx86_opt_fn();
	kprobe_opcode_t *addr;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	/* Where the probe lands (past an ENDBR, say). */
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	addr = kp->addr;
	unregister_kprobe(kp);
	kp->addr = NULL;

	inner->addr = addr + 2;
	KUNIT_ASSERT_EQ(test, register_kprobe(inner), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(addr), kp);
	KUNIT_EXPECT_FALSE(test, jumped(kp));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(1), kx86_opt_expected(1));
	KUNIT_EXPECT_EQ(test, hits, 2);

	unregister_kprobe(inner);
	KUNIT_EXPECT_PTR_NE(test, get_kprobe(addr), kp);
	KUNIT_EXPECT_TRUE(test, jumped(kp));
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(kp));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(2), kx86_opt_expected(2));
	KUNIT_EXPECT_EQ(test, hits, 1);

	/* Both leave in one batch: the blocked one must not be taken back. */
	unregister_kprobe(kp);
	kp->addr = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(inner), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(addr), kp);
	unregister_kprobes((struct kprobe *[]){ inner, kp }, 2);
	KUNIT_EXPECT_NULL(test, get_kprobe(addr));
	KUNIT_EXPECT_FALSE(test, kprobe_registered(kp));
	KUNIT_EXPECT_FALSE(test, looks_registered(kp));
}

/*
 * In init text, so that probes on it can be made [GONE]: 2x + 100, as a
 * three-byte lea, a two-byte add and a ret.  Called only while init text
 * is there, through a pointer looked up by name.
 */
asm(".pushsection .init.text, \"ax\"\n"
	".type kx86_init_asm, @function\n"
	"kx86_init_asm:\n"
	ASM_ENDBR
	"	leal 100(%rdi), %eax\n"
	"	addl %edi, %eax\n"
	ASM_RET
	".size kx86_init_asm, .-kx86_init_asm\n"
	".popsection\n");

/*
 * A gone head remembers the first byte of text that went away; new code
 * may sit there now (a module loaded where an unloaded one was).  Reading
 * "the original text" around a new probe must not take that byte for the
 * new code's.  Here the text stays, so the gone head is made to remember
 * a byte the text does not have: 0x0f would turn the lea into a five-byte
 * cmova and the add after it into the middle of an instruction.
 */
static void kx86_gone_head_bytes_ignored(struct kunit *test)
{
	int (*fn)(int x);
	struct kprobe *gone = test_probe(test, &(struct kprobe) {
		.pre_handler = count_pre });
	struct kprobe *next = test_probe(test, &(struct kprobe) {
		.pre_handler = count_pre });
	struct kprobe *head;

	if (system_state >= SYSTEM_FREEING_INITMEM)
		kunit_skip(test, "init text is already freed");
	fn = (int (*)(int x))kallsyms_lookup_name("kx86_init_asm");
	KUNIT_ASSERT_NOT_NULL(test, fn);
	gone->addr = (kprobe_opcode_t *)fn;
	KUNIT_ASSERT_EQ(test, register_kprobe(gone), 0);
	KUNIT_ASSERT_EQ(test, gone->opcode, 0x8d);	/* the lea, past any endbr */
	kprobe_free_init_mem();
	KUNIT_ASSERT_TRUE(test, kprobe_gone(gone));
	head = get_kprobe(gone->addr);
	KUNIT_ASSERT_NOT_NULL(test, head);
	head->ainsn.bytes[0] = 0x0f;

	/* The add: a boundary of the code that is there. */
	next->addr = gone->addr + 3;
	reset_counts();
	KUNIT_EXPECT_EQ(test, register_kprobe(next), 0);
	KUNIT_EXPECT_EQ(test, fn(5), 110);
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(next);
	unregister_kprobe(gone);
	KUNIT_EXPECT_NULL(test, get_kprobe(gone->addr));
}

/* A page fault inside a pre_handler reaches its fault_handler as #PF. */
static void kx86_fault_handler_sees_page_fault(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_body", .pre_handler = kunit_fault_pre,
		.fault_handler = kunit_fault_note });
	int expected;

	/*
	 * Before the probe is in, and through the pointer: kx86_body() is
	 * pure, so a direct call could be moved past register_kprobe().
	 */
	expected = call_body(3);
	kunit_fault_setup(test);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, call_body(3), expected);
	KUNIT_EXPECT_EQ(test, kunit_fault.failed_reads, 1);
	KUNIT_EXPECT_EQ(test, kunit_fault.faults, 1);
	KUNIT_EXPECT_EQ(test, kunit_fault.trapnr, X86_TRAP_PF);
	unregister_kprobe(kp);
}

/*
 * A fault taken by an interrupt that came in while a detour hit's handler
 * ran (with interrupts on) is not the probe's (see kprobes_kunit.h; the
 * race suite does the same at an ftrace site).
 */
static void kx86_interrupt_fault_not_the_probes(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = kunit_irq_fault_pre,
		.fault_handler = kunit_fault_note });
	int (*fn)(int x) = kx86_opt_fn();

	KUNIT_ASSERT_NOT_NULL(test, fn);
	kunit_fault_setup(test);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	kunit_irq_fault_call(test, kp, fn, kx86_opt_expected(3));
	unregister_kprobe(kp);
}

/*
 * The probed instruction faults on the post path.  As for a faulting
 * single step, the fault is shown at the probed address, the hit is over
 * (interrupts as the caller had them), and the probe's fault_handler may
 * fix it: here it makes a division by zero return 42 from the function.
 * (A divide error, not a page fault: x86's fault code warns when kprobes
 * claim a page fault, which only exception tables may fix.)  The divl
 * and the addl after it are the region.
 */
asm(".pushsection .text\n"
	".type kx86_div_asm, @function\n"
	"kx86_div_asm:\n"
	ASM_ENDBR
	"	movl %edi, %eax\n"
	"	xorl %edx, %edx\n"
	"	divl %esi\n"
	"	addl $1, %eax\n"
	ASM_RET
	".size kx86_div_asm, .-kx86_div_asm\n"
	".popsection\n");

static unsigned long fault_ip, fault_flags;
static bool fault_running;
static int fault_trapnr;

static int fix_division(struct kprobe *kp, struct pt_regs *regs, int trapnr)
{
	fault_trapnr = trapnr;
	fault_ip = regs->ip;
	fault_flags = regs->flags;
	fault_running = kprobe_running();
	regs->ax = 42;
	/* The ret after the region. */
	regs->ip = (unsigned long)kp->addr + 5;
	return 1;
}

static void kx86_post_path_fault(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_div_asm" });
	int (*fn)(int x, int d) = (int (*)(int x, int d))kallsyms_lookup_name("kx86_div_asm");
	kprobe_opcode_t *divl;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	/* Past an ENDBR on IBT kernels, the movl and the xorl. */
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	divl = kp->addr + 4;
	unregister_kprobe(kp);
	*kp = (struct kprobe) { .addr = divl, .pre_handler = count_pre,
				.post_handler = count_post,
				.fault_handler = fix_division };
	fault_trapnr = -1;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_ASSERT_TRUE(test, arch_optimized_kprobe_runs_post(get_kprobe(kp->addr)));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(12, 4), 4);
	KUNIT_EXPECT_EQ(test, posts, 1);

	KUNIT_EXPECT_EQ(test, fn(12, 0), 42);
	KUNIT_EXPECT_EQ(test, hits, 2);
	KUNIT_EXPECT_EQ(test, posts, 1);
	KUNIT_EXPECT_EQ(test, fault_trapnr, X86_TRAP_DE);
	KUNIT_EXPECT_EQ(test, fault_ip, (unsigned long)kp->addr);
	KUNIT_EXPECT_TRUE(test, fault_flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_FALSE(test, fault_running);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_NULL(test, kprobe_running());
	/* And the probe goes on as before. */
	KUNIT_EXPECT_EQ(test, fn(12, 3), 5);
	KUNIT_EXPECT_EQ(test, posts, 2);
}

/*
 * With debug.kprobes-optimization at 0 no hit runs relocated code: the
 * jumps go, and the detours too (a breakpoint hit would otherwise still
 * leave through the detour's copy of the region), and probes registered
 * meanwhile get none.  Back at 1, all of them get their jump again.
 */
static void optimization_back_on(void *unused)
{
	kprobe_set_optimization(true);
}

static void expect_no_detour(struct kunit *test, struct kprobe *kp)
{
	struct kprobe *head = get_kprobe(kp->addr);

	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(head));
	KUNIT_EXPECT_FALSE(test, kprobe_has_detour(head));
#ifdef CONFIG_OPTPROBES
	KUNIT_EXPECT_NULL(test, head->ainsn.detour);
#endif
}

static void kx86_optimization_off_leaves_no_detour(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = count_pre });
	struct kprobe *late = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = count_pre });
	int (*fn)(int x) = kx86_opt_fn();

	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, optimization_back_on,
							NULL), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));

	kprobe_set_optimization(false);
	expect_no_detour(test, kp);
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(2), kx86_opt_expected(2));
	KUNIT_EXPECT_EQ(test, hits, 1);

	/* Registered while it is off: alone at its address, no detour. */
	unregister_kprobe(kp);
	KUNIT_ASSERT_EQ(test, register_kprobe(late), 0);
	expect_no_detour(test, late);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(late->addr), late);
	KUNIT_EXPECT_FALSE(test, jumped(late));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(3), kx86_opt_expected(3));
	KUNIT_EXPECT_EQ(test, hits, 1);

	kprobe_set_optimization(true);
	KUNIT_EXPECT_TRUE(test, jumped(late));
	reset_counts();
	KUNIT_EXPECT_EQ(test, fn(4), kx86_opt_expected(4));
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(late);
}

/*
 * An int3 that kprobes did not plant, at the address of a [GONE] head, is
 * not a probe hit: a debugger put it there, or it is in new code loaded
 * where the old text was.  The gone probes' handlers must not run (a gone
 * probe has nothing left to replay, either) and the trap goes on to the
 * die chain, where a notifier plays the debugger: it sends the call to a
 * stand-in that computes the same.  The probes' pre_handler does the same,
 * so that a kernel that takes the trap for a hit fails here, not crashes.
 */
static kprobe_opcode_t *foreign_int3_at;
static int foreign_traps;

static noinline int kx86_init_stand_in(int x)
{
	return 2 * x + 100;
}

static int gone_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	instruction_pointer_set(regs, (unsigned long)kx86_init_stand_in);
	return 1;
}

static int foreign_int3(struct notifier_block *nb, unsigned long val,
			void *data)
{
	struct die_args *args = data;

	if (val != DIE_INT3 ||
	    args->regs->ip - INT3_INSN_SIZE != (unsigned long)foreign_int3_at)
		return NOTIFY_DONE;
	foreign_traps++;
	instruction_pointer_set(args->regs, (unsigned long)kx86_init_stand_in);
	return NOTIFY_STOP;
}

static struct notifier_block foreign_int3_nb = {
	.notifier_call = foreign_int3,
};

KUNIT_DEFINE_ACTION_WRAPPER(unregister_die_action, unregister_die_notifier,
			    struct notifier_block *);

static void poke_byte(kprobe_opcode_t *addr, u8 byte)
{
	mutex_lock(&text_mutex);
	text_poke(addr, &byte, 1);
	text_poke_sync();
	mutex_unlock(&text_mutex);
}

static void kx86_gone_head_declines_foreign_int3(struct kunit *test)
{
	struct kprobe *gone = test_probe(test, &(struct kprobe) {
		.pre_handler = gone_pre });
	struct kprobe *also = test_probe(test, &(struct kprobe) {
		.pre_handler = gone_pre });
	int (*fn)(int x);
	struct kprobe *head;
	int shared;
	u8 orig;

	if (system_state >= SYSTEM_FREEING_INITMEM)
		kunit_skip(test, "init text is already freed");
	fn = (int (*)(int x))kallsyms_lookup_name("kx86_init_asm");
	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_EQ(test, register_die_notifier(&foreign_int3_nb), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_die_action,
							&foreign_int3_nb), 0);
	for (shared = 0; shared < 2; shared++) {
		*gone = (struct kprobe) { .addr = (kprobe_opcode_t *)fn,
					  .pre_handler = gone_pre };
		KUNIT_ASSERT_EQ(test, register_kprobe(gone), 0);
		if (shared) {
			*also = (struct kprobe) { .addr = gone->addr,
						  .pre_handler = gone_pre };
			KUNIT_ASSERT_EQ(test, register_kprobe(also), 0);
		}
		kprobe_free_init_mem();
		KUNIT_ASSERT_TRUE(test, kprobe_gone(gone));
		head = get_kprobe(gone->addr);
		KUNIT_ASSERT_NOT_NULL(test, head);
		/* A gone site offers nothing to run. */
		if (shared)
			KUNIT_EXPECT_NULL(test,
					  rcu_dereference_raw(to_site(head)->chain)->probes[0]);

		foreign_int3_at = gone->addr;
		orig = *(u8 *)gone->addr;
		KUNIT_EXPECT_NE(test, orig, INT3_INSN_OPCODE);
		poke_byte(gone->addr, INT3_INSN_OPCODE);
		reset_counts();
		foreign_traps = 0;
		KUNIT_EXPECT_EQ(test, fn(5), 110);
		poke_byte(gone->addr, orig);
		KUNIT_EXPECT_EQ_MSG(test, hits, 0, "shared %d: a gone handler ran",
				    shared);
		KUNIT_EXPECT_EQ_MSG(test, foreign_traps, 1,
				    "shared %d: the trap was kept from its owner",
				    shared);
		unregister_kprobe(also);
		unregister_kprobe(gone);
		KUNIT_EXPECT_NULL(test, get_kprobe(gone->addr));
	}
}

/*
 * The windows only jump optimization has, held open as the core's
 * kprobes_race suite holds its own (kprobes_window_kunit.h): a thread on
 * the other CPU keeps calling kx86_opt_asm, and only this CPU's hits are
 * counted.
 */
static struct task_struct *own_tester;
static atomic_t own_hits, own_posts;

static int count_own_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(own_tester))
		atomic_inc(&own_hits);
	return 0;
}

static void count_own_post(struct kprobe *kp, struct pt_regs *regs,
			   unsigned long flags)
{
	if (current == READ_ONCE(own_tester))
		atomic_inc(&own_posts);
}

/*
 * A post_handler added at a jump-optimized site whose detour has no post
 * path (the probe sits on a cli).  A hit that sees it steps the
 * instruction and resumes right after it, here in the middle of where
 * the jump was: so no byte of the jump may be left once the post_handler
 * shows.  The other CPU holds the window open: it is in a stretch with
 * interrupts off when the jump starts coming out, so the text
 * synchronisation waits for it, and meanwhile it checks, as a hit would
 * find them, the site's post_handler against the bytes in the region.
 * (It keeps calling the function too, but a CPU may go on executing the
 * jump it fetched before the synchronisation: what it reads as data is
 * what a hit on another CPU could meet.)
 */
static kprobe_opcode_t *watched_addr;
static u8 watched_bytes[JMP32_INSN_SIZE];
static int breakpoint_seen, post_over_jump;

static bool watch_jump_and_post(struct kprobe_hot_caller *h)
{
	struct kprobe *head = kprobe_lookup(watched_addr);
	u8 now[JMP32_INSN_SIZE];
	bool post;

	if (!head)
		return false;
	post = READ_ONCE(head->post_handler);
	/* The bytes after the post_handler, as a hit reads them. */
	smp_rmb();
	memcpy(now, watched_addr, sizeof(now));
	if (post && memcmp(now + INT3_INSN_SIZE, watched_bytes + INT3_INSN_SIZE,
			   JMP32_INSN_SIZE - INT3_INSN_SIZE))
		post_over_jump++;
	/* The jump is on its way out: watch it a little longer, then let go. */
	if (now[0] == INT3_INSN_OPCODE)
		breakpoint_seen++;
	return breakpoint_seen >= 1000;
}

static int (*cli_fn)(int x);

/* kx86_cli_asm with interrupts as the caller had them. */
static int kx86_cli_call(int x)
{
	return call_cli_fn(cli_fn, x);
}

static void kx86_post_handler_joins_optimized_site(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_cli_asm", .pre_handler = count_own_pre });
	struct kprobe *post = test_probe(test, &(struct kprobe) {});
	struct kprobe_hot_caller *h;
	int round;

	cli_fn = (int (*)(int x))kallsyms_lookup_name("kx86_cli_asm");
	KUNIT_ASSERT_NOT_NULL(test, cli_fn);
	WRITE_ONCE(own_tester, current);
	/* The probe lands past an ENDBR on IBT kernels: learn where first. */
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	watched_addr = kp->addr;
	unregister_kprobe(kp);
	memcpy(watched_bytes, watched_addr, sizeof(watched_bytes));
	*kp = (struct kprobe) { .addr = watched_addr,
				.pre_handler = count_own_pre };
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	h = kprobe_kunit_start_hot_caller(test, kx86_cli_call, kx86_opt_expected);
	h->watch = watch_jump_and_post;
	for (round = 0; round < 3; round++) {
		breakpoint_seen = 0;
		post_over_jump = 0;
		kprobe_kunit_begin_stretch(test, h);
		*post = (struct kprobe) { .addr = kp->addr,
					  .post_handler = count_own_post };
		KUNIT_ASSERT_EQ(test, register_kprobe(post), 0);
		KUNIT_ASSERT_TRUE(test, kprobe_kunit_wait_for_flag(&h->stretch_done));
		/* The window was held open... */
		KUNIT_EXPECT_GE(test, breakpoint_seen, 1000);
		/* ...and the post_handler never showed over the jump. */
		KUNIT_EXPECT_EQ(test, post_over_jump, 0);
		KUNIT_EXPECT_FALSE(test, kprobe_optimized(kp));

		atomic_set(&own_posts, 0);
		KUNIT_EXPECT_EQ(test, kx86_cli_call(round), kx86_opt_expected(round));
		KUNIT_EXPECT_EQ(test, atomic_read(&own_posts), 1);
		unregister_kprobe(post);
		KUNIT_ASSERT_TRUE(test, jumped(kp));
	}
	kprobe_kunit_stop_hot_caller(h);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(h->wrong));
}

/*
 * The post path's own windows.  The other CPU's hit is held in a
 * pre_handler (interrupts on, as on every detour hit) while this CPU
 * changes the site; the hit must then keep to the chain it began with.
 * A probe with a post_handler that joins meanwhile gets no post phase
 * from it, and one that leaves gets its post phase before its unregister
 * returns, not after.  Each time the jump stays in.
 */
static struct task_struct *post_holder;
static bool post_holding, post_released, post_call_done, unregister_returned;
static int post_call_result;
static atomic_t held_posts, posts_after_return;

static int hold_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(post_holder))
		kprobe_kunit_hold(&post_holding, &post_released);
	return 0;
}

static void count_held_post(struct kprobe *kp, struct pt_regs *regs,
			    unsigned long flags)
{
	if (current != READ_ONCE(post_holder))
		return;
	atomic_inc(&held_posts);
	if (READ_ONCE(unregister_returned))
		atomic_inc(&posts_after_return);
}

static int call_opt_once(void *unused)
{
	WRITE_ONCE(post_holder, current);
	post_call_result = kx86_opt_fn()(3);
	WRITE_ONCE(post_call_done, true);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Hold the other CPU's hit while @act runs; whether it was held when @act began. */
static bool while_post_hit_held(struct kunit *test,
				void (*act)(struct kunit *test, struct kprobe *kp),
				struct kprobe *kp)
{
	struct task_struct *task;
	bool held;

	post_holding = false;
	post_released = false;
	post_call_done = false;
	unregister_returned = false;
	atomic_set(&held_posts, 0);
	atomic_set(&posts_after_return, 0);
	task = kprobe_kunit_run_elsewhere(test, call_opt_once, NULL);
	held = kprobe_kunit_wait_for_flag(&post_holding) &&
	       !READ_ONCE(post_call_done);
	act(test, kp);
	WRITE_ONCE(post_released, true);
	KUNIT_EXPECT_TRUE(test, kprobe_kunit_wait_for_flag(&post_call_done));
	kthread_stop(task);
	put_task_struct(task);
	WRITE_ONCE(post_holder, NULL);
	KUNIT_EXPECT_EQ(test, post_call_result, kx86_opt_expected(3));
	return held;
}

static void join_with_post(struct kunit *test, struct kprobe *kp)
{
	KUNIT_EXPECT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(kp));
	/* Still held: nothing above waited for the hit. */
	KUNIT_EXPECT_FALSE(test, READ_ONCE(post_call_done));
}

/* Let the held hit go once the unregister has begun waiting for it. */
static int release_soon(void *unused)
{
	msleep(50);
	WRITE_ONCE(post_released, true);
	return 0;
}

static void leave_with_post(struct kunit *test, struct kprobe *kp)
{
	struct task_struct *releaser = kthread_run(release_soon, NULL, "kx86_release");

	KUNIT_ASSERT_FALSE(test, IS_ERR(releaser));
	unregister_kprobe(kp);
	WRITE_ONCE(unregister_returned, true);
}

static void kx86_post_path_keeps_its_chain(struct kunit *test)
{
	int (*fn)(int x) = kx86_opt_fn();
	struct kprobe *holder = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = hold_pre });
	struct kprobe *with_post = test_probe(test, &(struct kprobe) {});

	KUNIT_ASSERT_NOT_NULL(test, fn);
	KUNIT_ASSERT_EQ(test, register_kprobe(holder), 0);
	KUNIT_ASSERT_TRUE(test, jumped(holder));

	*with_post = (struct kprobe) { .addr = holder->addr,
				       .post_handler = count_held_post };
	KUNIT_EXPECT_TRUE(test, while_post_hit_held(test, join_with_post,
						    with_post));
	KUNIT_EXPECT_EQ(test, atomic_read(&held_posts), 0);
	KUNIT_EXPECT_TRUE(test, jumped(holder));

	/* Now the held hit has a post phase; its probe leaves meanwhile. */
	KUNIT_EXPECT_TRUE(test, while_post_hit_held(test, leave_with_post,
						    with_post));
	KUNIT_EXPECT_EQ(test, atomic_read(&held_posts), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&posts_after_return), 0);
	KUNIT_EXPECT_TRUE(test, jumped(holder));
}

/*
 * The same window for a probe alone at its site, whose hits skip the
 * walks (the chain's lone, then its solo): unregistering it while
 * another CPU's hit is held in its pre_handler returns only once that
 * handler is done, and the solo's post phase still runs, before the
 * unregister returns.
 */
static atomic_t pres_after_return;

static int hold_pre_then_note(struct kprobe *kp, struct pt_regs *regs)
{
	hold_pre(kp, regs);
	if (current == READ_ONCE(post_holder) && READ_ONCE(unregister_returned))
		atomic_inc(&pres_after_return);
	return 0;
}

static void kx86_single_probe_leaves_under_hit(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "kx86_opt_asm", .pre_handler = hold_pre_then_note });

	KUNIT_ASSERT_NOT_NULL(test, kx86_opt_fn());
	atomic_set(&pres_after_return, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_ASSERT_PTR_EQ(test, lone_at(kp->addr), kp);
	KUNIT_EXPECT_TRUE(test, while_post_hit_held(test, leave_with_post, kp));
	KUNIT_EXPECT_EQ(test, atomic_read(&pres_after_return), 0);

	*kp = (struct kprobe) { .symbol_name = "kx86_opt_asm",
				.pre_handler = hold_pre_then_note,
				.post_handler = count_held_post };
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	KUNIT_ASSERT_PTR_EQ(test, solo_at(kp->addr), kp);
	KUNIT_EXPECT_TRUE(test, while_post_hit_held(test, leave_with_post, kp));
	KUNIT_EXPECT_EQ(test, atomic_read(&pres_after_return), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&held_posts), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&posts_after_return), 0);
}

/*
 * A probe registered inside an optimized site's region takes the site's
 * detour away while another CPU keeps running the function.  Slots freed
 * during the case are filled with breakpoints and kept out of reuse, and
 * each time one is freed the other CPU makes a few more calls first: a
 * hit sent into a detour after it was freed runs into a breakpoint nobody
 * owns and oopses.
 */
/*
 * @fn(@x) on this CPU; *@traps is how many breakpoint traps it took, or
 * -1 where the kernel does not count them.
 */
static int call_counting_traps(int (*fn)(int x), int x, int *traps)
{
	int ret;

#if IS_ENABLED(CONFIG_KPROBES_TORTURE_TEST)
	unsigned long before;

	preempt_disable();
	before = this_cpu_read(kprobe_traps_taken);
	ret = fn(x);
	*traps = this_cpu_read(kprobe_traps_taken) - before;
	preempt_enable();
#else
	ret = fn(x);
	*traps = -1;
#endif
	return ret;
}

static void kx86_probe_inside_region_under_hits(struct kunit *test)
{
	int (*fn)(int x) = kx86_opt_fn();
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (void *)fn, .pre_handler = count_own_pre });
	struct kprobe *inner = test_probe(test, &(struct kprobe) {});
	struct kprobe_hot_caller *h;
	int round, traps;

	KUNIT_ASSERT_NOT_NULL(test, fn);
	WRITE_ONCE(own_tester, current);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, jumped(kp));
	h = kprobe_kunit_start_hot_caller(test, fn, kx86_opt_expected);
	kprobe_kunit_quarantine_slots(test, h);

	for (round = 0; round < 5; round++) {
		/* The addl right after the 2-byte movl, inside the region. */
		*inner = (struct kprobe) { .addr = kp->addr + 2,
					   .pre_handler = count_own_pre };
		KUNIT_ASSERT_EQ(test, register_kprobe(inner), 0);
		KUNIT_EXPECT_FALSE(test, kprobe_optimized(kp));
		atomic_set(&own_hits, 0);
		KUNIT_EXPECT_EQ(test, call_counting_traps(fn, round, &traps),
				kx86_opt_expected(round));
		/*
		 * Both breakpoints are hit, unless this CPU ran a stale
		 * translation of the text the other CPU had just run
		 * (QEMU's multi-threaded TCG can): then it took fewer traps
		 * although both breakpoints are in memory.
		 */
		if (traps < 0 || traps >= 2 || *kp->addr != INT3_INSN_OPCODE ||
		    *inner->addr != INT3_INSN_OPCODE)
			KUNIT_EXPECT_EQ(test, atomic_read(&own_hits), 2);
		else
			kunit_info(test, "round %d: stale text, %d traps", round,
				   traps);
		unregister_kprobe(inner);
		KUNIT_ASSERT_TRUE(test, jumped(kp));
	}
	kprobe_kunit_stop_hot_caller(h);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(h->wrong));
	/* The detours really were freed while the other CPU ran. */
	KUNIT_EXPECT_GE(test, kprobe_kunit_nr_quarantined, 5);
	KUNIT_EXPECT_GT(test, atomic_long_read(&h->calls), 0L);
}

static int kx86_init(struct kunit *test)
{
	call_body = kx86_body;
	OPTIMIZER_HIDE_VAR(call_body);
	return 0;
}

static struct kunit_case kprobes_x86_cases[] = {
	KUNIT_CASE(kx86_boost_follows_post_handler),
	KUNIT_CASE(kx86_prologue_emulated),
	KUNIT_CASE(kx86_prologue_boosted),
	KUNIT_CASE(kx86_optimized_probe),
	KUNIT_CASE(kx86_optimized_redirect),
	KUNIT_CASE(kx86_single_probe_on_detour),
	KUNIT_CASE(kx86_optimized_post_handler),
	KUNIT_CASE(kx86_no_post_path_at_cli),
	KUNIT_CASE(kx86_post_in_place),
	KUNIT_CASE(kx86_push_site_without_post),
	KUNIT_CASE(kx86_optimization_reverts),
	KUNIT_CASE(kx86_blocked_probe_optimized_later),
	KUNIT_CASE(kx86_gone_head_bytes_ignored),
	KUNIT_CASE(kx86_fault_handler_sees_page_fault),
	KUNIT_CASE(kx86_interrupt_fault_not_the_probes),
	KUNIT_CASE(kx86_post_path_fault),
	KUNIT_CASE(kx86_optimization_off_leaves_no_detour),
	KUNIT_CASE(kx86_gone_head_declines_foreign_int3),
	KUNIT_CASE(kx86_post_handler_joins_optimized_site),
	KUNIT_CASE(kx86_post_path_keeps_its_chain),
	KUNIT_CASE(kx86_single_probe_leaves_under_hit),
	KUNIT_CASE_SLOW(kx86_probe_inside_region_under_hits),
	{}
};

static struct kunit_suite kprobes_x86_suite = {
	.name = "kprobes_x86",
	.init = kx86_init,
	.test_cases = kprobes_x86_cases,
};

kunit_test_suites(&kprobes_x86_suite);
