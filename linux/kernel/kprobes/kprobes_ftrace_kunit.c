// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases for probes that share their ftrace call site with other
 * ftrace users: a plain callback, one that changes ip (as livepatch
 * does) and a direct call (as BPF trampolines are attached).  Each comes
 * before the probe and after it, and leaves first or last; the probe
 * fires once per call throughout and the other user gets what it asked
 * for.  The hits themselves (regs, redirection, post_handlers) are the
 * ftrace cases of the core and race suites.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/ftrace.h>

#include "internal.h"
#include "kprobes_kunit.h"

static noinline int kpf_fn(int x)
{
	return x * 2;
}

/* Where a user that changes ip sends kpf_fn()'s callers. */
static noinline int kpf_elsewhere(int x)
{
	return x * 3 + 1;
}

/* Set at suite init, so the compiler cannot see what is called. */
static int (*kpf_call)(int x);
static int (*kpf_other)(int x);

static int hits, second_hits, other_calls;

/*
 * Where the arch has a bridge (bridge.c), a probe registered alone
 * starts on its breakpoint and moves to ftrace later: every case runs
 * both ways (they are the same elsewhere).
 */
static const bool through_ftrace[] = { false, true };

static void way_desc(const bool *ftrace, char *desc)
{
	strscpy(desc, *ftrace ? "through ftrace" : "as registered",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpf_way, through_ftrace, way_desc);

static void settle(struct kunit *test)
{
	if (*(const bool *)test->param_value)
		kprobe_bridges_flush();
}

static int count_hit(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static int count_second(struct kprobe *kp, struct pt_regs *regs)
{
	second_hits++;
	return 0;
}

static struct kprobe *entry_probe(struct kunit *test,
				  kprobe_pre_handler_t pre)
{
	return test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpf_call, .pre_handler = pre });
}

/* Register @kp again, as a caller may after unregistering it. */
static int reregister(struct kprobe *kp)
{
	kp->addr = (kprobe_opcode_t *)kpf_call;
	kp->flags = 0;
	return register_kprobe(kp);
}

static void other_user(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	other_calls++;
}

static void other_redirect(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	other_calls++;
	ftrace_regs_set_instruction_pointer(fregs, (unsigned long)kpf_other);
}

static const struct ftrace_ops other_plain = {
	.func = other_user,
	.flags = FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED,
};

static const struct ftrace_ops other_ipmodify = {
	.func = other_redirect,
	.flags = FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED | FTRACE_OPS_FL_IPMODIFY,
};

/*
 * What the calls below return: kpf_fn(4), and kpf_elsewhere(4) when the
 * other user sends the call there (not called here: that would be a hit).
 */
#define PLAIN		8
#define MOVED		13

static int with_user(bool moved)
{
	return moved ? MOVED : PLAIN;
}

/*
 * A fresh copy of @template per case: ftrace_free_filter() frees an ops'
 * filter for good, so an ops is not registered again after it.
 */
static struct ftrace_ops *fresh_ops(struct kunit *test,
				    const struct ftrace_ops *template)
{
	struct ftrace_ops *ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ops);
	ops->func = template->func;
	ops->flags = template->flags;
	return ops;
}

static void share_site(struct kunit *test, const struct ftrace_ops *template,
		       bool moved)
{
	struct ftrace_ops *ops = fresh_ops(test, template);
	struct kprobe *kp = entry_probe(test, count_hit);
	struct kprobe *second = entry_probe(test, count_second);
	unsigned long ip = ftrace_location((unsigned long)kpf_call);

	KUNIT_ASSERT_NE(test, ip, 0UL);
	hits = 0;
	second_hits = 0;
	other_calls = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(kp));
	settle(test);
	/* The other user comes after the probe, then leaves before it. */
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(ops, ip, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(ops), 0);
	KUNIT_EXPECT_EQ(test, kpf_call(4), with_user(moved));
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, other_calls, 1);
	/* A second probe makes the address a site; all three run. */
	KUNIT_ASSERT_EQ(test, register_kprobe(second), 0);
	settle(test);
	KUNIT_EXPECT_EQ(test, kpf_call(4), with_user(moved));
	KUNIT_EXPECT_EQ(test, hits, 2);
	KUNIT_EXPECT_EQ(test, second_hits, 1);
	KUNIT_EXPECT_EQ(test, other_calls, 2);
	unregister_kprobe(second);
	unregister_ftrace_function(ops);
	KUNIT_EXPECT_EQ(test, kpf_call(4), PLAIN);
	KUNIT_EXPECT_EQ(test, hits, 3);
	KUNIT_EXPECT_EQ(test, second_hits, 1);
	KUNIT_EXPECT_EQ(test, other_calls, 2);

	/* The other user first, the probe after it and leaving first. */
	unregister_kprobe(kp);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(ops), 0);
	KUNIT_ASSERT_EQ(test, reregister(kp), 0);
	settle(test);
	KUNIT_EXPECT_EQ(test, kpf_call(4), with_user(moved));
	KUNIT_EXPECT_EQ(test, hits, 4);
	KUNIT_EXPECT_EQ(test, other_calls, 3);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kpf_call(4), with_user(moved));
	KUNIT_EXPECT_EQ(test, hits, 4);
	KUNIT_EXPECT_EQ(test, other_calls, 4);
	unregister_ftrace_function(ops);
	ftrace_free_filter(ops);
}

static void kpf_shared_with_ftrace_user(struct kunit *test)
{
	share_site(test, &other_plain, false);
}

/* The probe still fires, and the call goes where the other user sent it. */
static void kpf_shared_with_ipmodify_user(struct kunit *test)
{
	share_site(test, &other_ipmodify, true);
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/*
 * ftrace gives a function one direct call at most, and BPF trampolines
 * (fentry, fexit, fmod_ret) are attached as one: a probe must never take
 * the direct call itself, or such a program could not attach to a probed
 * function.  ftrace's stub trampoline stands in for BPF's.
 */
static struct ftrace_ops *direct_user(struct kunit *test, unsigned long ip)
{
	struct ftrace_ops *ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(ops, ip, 0, 1), 0);
	return ops;
}

static void kpf_shared_with_direct_call(struct kunit *test)
{
	unsigned long tramp = (unsigned long)ftrace_stub_direct_tramp;
	unsigned long ip = ftrace_location((unsigned long)kpf_call);
	struct kprobe *kp = entry_probe(test, count_hit);
	struct ftrace_ops *direct, *again;

	KUNIT_ASSERT_NE(test, ip, 0UL);
	hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(kp));
	settle(test);
	direct = direct_user(test, ip);
	KUNIT_ASSERT_EQ(test, register_ftrace_direct(direct, tramp), 0);
	KUNIT_EXPECT_EQ(test, kpf_call(4), PLAIN);
	KUNIT_EXPECT_EQ(test, hits, 1);
	/* The site's one direct call is taken now, and not by the probe. */
	again = direct_user(test, ip);
	KUNIT_EXPECT_EQ(test, register_ftrace_direct(again, tramp), -EBUSY);
	ftrace_free_filter(again);
	KUNIT_EXPECT_EQ(test, unregister_ftrace_direct(direct, tramp, true), 0);
	KUNIT_EXPECT_EQ(test, kpf_call(4), PLAIN);
	KUNIT_EXPECT_EQ(test, hits, 2);

	/* The direct call first, the probe after it and leaving first. */
	unregister_kprobe(kp);
	direct = direct_user(test, ip);
	KUNIT_ASSERT_EQ(test, register_ftrace_direct(direct, tramp), 0);
	KUNIT_ASSERT_EQ(test, reregister(kp), 0);
	settle(test);
	KUNIT_EXPECT_EQ(test, kpf_call(4), PLAIN);
	KUNIT_EXPECT_EQ(test, hits, 3);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kpf_call(4), PLAIN);
	KUNIT_EXPECT_EQ(test, hits, 3);
	KUNIT_EXPECT_EQ(test, unregister_ftrace_direct(direct, tramp, true), 0);
}
#endif

static struct kunit_case kprobes_ftrace_cases[] = {
	KUNIT_CASE_PARAM(kpf_shared_with_ftrace_user, kpf_way_gen_params),
	KUNIT_CASE_PARAM(kpf_shared_with_ipmodify_user, kpf_way_gen_params),
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	KUNIT_CASE_PARAM(kpf_shared_with_direct_call, kpf_way_gen_params),
#endif
	{}
};

static int kpf_suite_init(struct kunit_suite *suite)
{
	kpf_call = kpf_fn;
	kpf_other = kpf_elsewhere;
	return 0;
}

static struct kunit_suite kprobes_ftrace_suite = {
	.name = "kprobes_ftrace",
	.suite_init = kpf_suite_init,
	.test_cases = kprobes_ftrace_cases,
};

kunit_test_suites(&kprobes_ftrace_suite);

MODULE_DESCRIPTION("KUnit cases for kprobes sharing ftrace sites");
MODULE_LICENSE("GPL");
