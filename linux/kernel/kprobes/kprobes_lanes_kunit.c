// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases for entry lanes (lanes.c): which probes get one, what
 * happens when they run out, when one is given back, when a second probe
 * joins a lane's address and when another ftrace user shares the site.
 * The hits themselves (regs, redirection, post_handlers) are the ftrace
 * cases of the other suites, which lone entry probes now reach through
 * lanes.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/rcupdate.h>
#include <linux/kthread.h>

#include "internal.h"
#include "kprobes_kunit.h"
#include "kprobes_window_kunit.h"

#define NR_FNS	(KPROBE_FTRACE_LANES + 2)

/*
 * Distinct traceable functions, more than there are lanes; each computes
 * x * (n + 2) + n for its own n.
 */
static noinline int kpl_fn0(int x)
{
	return x * 2;
}

static noinline int kpl_fn1(int x)
{
	return x * 3 + 1;
}

static noinline int kpl_fn2(int x)
{
	return x * 4 + 2;
}

static noinline int kpl_fn3(int x)
{
	return x * 5 + 3;
}

static noinline int kpl_fn4(int x)
{
	return x * 6 + 4;
}

static noinline int kpl_fn5(int x)
{
	return x * 7 + 5;
}

static noinline int kpl_fn6(int x)
{
	return x * 8 + 6;
}

static noinline int kpl_fn7(int x)
{
	return x * 9 + 7;
}

static noinline int kpl_fn8(int x)
{
	return x * 10 + 8;
}

static noinline int kpl_fn9(int x)
{
	return x * 11 + 9;
}

static_assert(NR_FNS <= 10);

/* Filled at suite init, so the compiler cannot see which one is called. */
static int (*kpl_fns[10])(int);

static int call_fn(int n, int x)
{
	return kpl_fns[n](x);
}

static int expected(int n, int x)
{
	return x * (n + 2) + n;
}

static int hits[NR_FNS];

static int count_hit(struct kprobe *kp, struct pt_regs *regs)
{
	int n;

	for (n = 0; n < NR_FNS; n++)
		if ((unsigned long)kp->addr == ftrace_location((unsigned long)kpl_fns[n]))
			hits[n]++;
	return 0;
}

/* An entry probe on function @n, unregistered when the case ends. */
static struct kprobe *entry_probe(struct kunit *test, int n)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpl_fns[n], .pre_handler = count_hit });

	return kp;
}

static bool head_on_lane(struct kprobe *kp)
{
	bool on;

	mutex_lock(&kprobes_mutex);
	on = kprobe_on_lane(get_kprobe(kp->addr));
	mutex_unlock(&kprobes_mutex);
	return on;
}

/* Wait until the lanes given back so far have cooled (see lanes.c). */
static void lanes_cooled(void)
{
	if (IS_ENABLED(CONFIG_TASKS_RCU))
		rcu_barrier_tasks();
	else
		rcu_barrier();
}

/* Register @kp again on function @n, as a caller may after unregistering. */
static int reregister(struct kprobe *kp, int n)
{
	kp->addr = (kprobe_opcode_t *)kpl_fns[n];
	kp->flags = 0;
	return register_kprobe(kp);
}

/* Each case starts with every lane free: those given back have cooled. */
static int kpl_init(struct kunit *test)
{
	lanes_cooled();
	memset(hits, 0, sizeof(hits));
	return 0;
}

/* A probe registered alone at an ftrace site gets a lane; a batch does not. */
static void kpl_lone_probe_gets_lane(struct kunit *test)
{
	struct kprobe *kp = entry_probe(test, 0);
	struct kprobe *a = entry_probe(test, 1), *b = entry_probe(test, 2);
	struct kprobe *batch[] = { a, b };

	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(kp));
	KUNIT_EXPECT_TRUE(test, head_on_lane(kp));
	KUNIT_EXPECT_EQ(test, call_fn(0, 5), expected(0, 5));
	KUNIT_EXPECT_EQ(test, hits[0], 1);

	KUNIT_ASSERT_EQ(test, register_kprobes(batch, 2), 0);
	KUNIT_EXPECT_FALSE(test, head_on_lane(a));
	KUNIT_EXPECT_FALSE(test, head_on_lane(b));
	KUNIT_EXPECT_EQ(test, call_fn(1, 5), expected(1, 5));
	KUNIT_EXPECT_EQ(test, call_fn(2, 5), expected(2, 5));
	KUNIT_EXPECT_EQ(test, hits[1], 1);
	KUNIT_EXPECT_EQ(test, hits[2], 1);
	unregister_kprobes(batch, 2);

	/* Disabling unhooks the lane; enabling takes one again. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(kp), 0);
	KUNIT_EXPECT_FALSE(test, head_on_lane(kp));
	call_fn(0, 5);
	KUNIT_EXPECT_EQ(test, hits[0], 1);
	KUNIT_ASSERT_EQ(test, enable_kprobe(kp), 0);
	KUNIT_EXPECT_TRUE(test, head_on_lane(kp));
	call_fn(0, 5);
	KUNIT_EXPECT_EQ(test, hits[0], 2);
}

/*
 * More lone probes than lanes: the ones past the last lane share the
 * common ftrace_ops, and every probe fires exactly once per call.  A lane
 * given back serves nobody until tasks that may be in its trampoline are
 * gone, then serves the next probe.
 */
static void kpl_lanes_run_out(struct kunit *test)
{
	struct kprobe *kp[NR_FNS];
	int n, on_lanes = 0;

	for (n = 0; n < NR_FNS; n++) {
		kp[n] = entry_probe(test, n);
		KUNIT_ASSERT_EQ(test, register_kprobe(kp[n]), 0);
		on_lanes += head_on_lane(kp[n]);
	}
	KUNIT_EXPECT_EQ(test, on_lanes, KPROBE_FTRACE_LANES);
	KUNIT_EXPECT_FALSE(test, head_on_lane(kp[NR_FNS - 1]));
	for (n = 0; n < NR_FNS; n++) {
		KUNIT_EXPECT_EQ(test, call_fn(n, 7), expected(n, 7));
		KUNIT_EXPECT_EQ(test, hits[n], 1);
	}

	/* A lane given back serves the next lone probe once it has cooled. */
	unregister_kprobe(kp[0]);
	lanes_cooled();
	KUNIT_ASSERT_EQ(test, reregister(kp[0], 0), 0);
	KUNIT_EXPECT_TRUE(test, head_on_lane(kp[0]));
	for (n = 0; n < NR_FNS; n++) {
		call_fn(n, 7);
		KUNIT_EXPECT_EQ(test, hits[n], 2);
	}
}

static int second_hits;

static int count_second(struct kprobe *kp, struct pt_regs *regs)
{
	second_hits++;
	return 0;
}

/*
 * A second probe at a lane's address turns it into a site: the lane now
 * serves the site's head, and both probes fire, as does the one left.
 */
static void kpl_site_takes_over_lane(struct kunit *test)
{
	struct kprobe *kp = entry_probe(test, 0);
	struct kprobe *other = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpl_fn0, .pre_handler = count_second });

	second_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, head_on_lane(kp));
	KUNIT_ASSERT_EQ(test, register_kprobe(other), 0);
	KUNIT_EXPECT_TRUE(test, head_on_lane(kp));
	call_fn(0, 1);
	KUNIT_EXPECT_EQ(test, hits[0], 1);
	KUNIT_EXPECT_EQ(test, second_hits, 1);
	unregister_kprobe(kp);
	KUNIT_EXPECT_TRUE(test, head_on_lane(other));
	call_fn(0, 1);
	KUNIT_EXPECT_EQ(test, hits[0], 1);
	KUNIT_EXPECT_EQ(test, second_hits, 2);
}

static int other_calls;

static void other_user(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	other_calls++;
}

/* Sends the call to kpl_fn1 instead, as livepatch would. */
static void other_redirect(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	other_calls++;
	ftrace_regs_set_instruction_pointer(fregs, (unsigned long)kpl_fn1);
}

static struct ftrace_ops other_plain = {
	.func = other_user,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

static struct ftrace_ops other_ipmodify = {
	.func = other_redirect,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static void share_site(struct kunit *test, struct ftrace_ops *ops,
		       int n_expected_fn)
{
	struct kprobe *kp = entry_probe(test, 0);
	unsigned long ip = ftrace_location((unsigned long)kpl_fn0);

	other_calls = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, head_on_lane(kp));
	/* The other user comes after the lane, then leaves before it. */
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(ops, ip, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(ops), 0);
	KUNIT_EXPECT_EQ(test, call_fn(0, 4), expected(n_expected_fn, 4));
	KUNIT_EXPECT_EQ(test, hits[0], 1);
	KUNIT_EXPECT_EQ(test, other_calls, 1);
	unregister_ftrace_function(ops);
	KUNIT_EXPECT_EQ(test, call_fn(0, 4), expected(0, 4));
	KUNIT_EXPECT_EQ(test, hits[0], 2);
	KUNIT_EXPECT_EQ(test, other_calls, 1);

	/* The other user first, the lane after it, leaving first. */
	unregister_kprobe(kp);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(ops), 0);
	KUNIT_ASSERT_EQ(test, reregister(kp, 0), 0);
	KUNIT_EXPECT_TRUE(test, head_on_lane(kp));
	KUNIT_EXPECT_EQ(test, call_fn(0, 4), expected(n_expected_fn, 4));
	KUNIT_EXPECT_EQ(test, hits[0], 3);
	KUNIT_EXPECT_EQ(test, other_calls, 2);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, call_fn(0, 4), expected(n_expected_fn, 4));
	KUNIT_EXPECT_EQ(test, hits[0], 3);
	KUNIT_EXPECT_EQ(test, other_calls, 3);
	unregister_ftrace_function(ops);
	ftrace_free_filter(ops);
}

/* Another ftrace user on the lane's function: both run, in any order. */
static void kpl_shared_with_ftrace_user(struct kunit *test)
{
	share_site(test, &other_plain, 0);
}

/*
 * One that changes ip, as livepatch does: the probe still fires, and the
 * call goes where the other user sent it.
 */
static void kpl_shared_with_ipmodify_user(struct kunit *test)
{
	share_site(test, &other_ipmodify, 1);
}

static struct {
	bool entered;	/* the other CPU is inside the handler */
	bool left;	/* ...and has left it */
} spin;

/* Holds its CPU in the handler for KPROBE_KUNIT_HOLD_MAX_NS. */
static int spin_pre(struct kprobe *kp, struct pt_regs *regs)
{
	u64 deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_HOLD_MAX_NS;

	WRITE_ONCE(spin.entered, true);
	while (!kprobe_kunit_past(deadline))
		cpu_relax();
	WRITE_ONCE(spin.left, true);
	return 0;
}

static int call_fn0_once(void *arg)
{
	call_fn(0, 3);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * A probe on a lane is unregistered while the other CPU is inside its
 * handler: unregister_kprobe() returns only after that hit is over, and
 * the lane then serves nothing.
 */
static void kpl_unregister_waits_for_lane_hit(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpl_fns[0], .pre_handler = spin_pre });
	struct task_struct *other;

	memset(&spin, 0, sizeof(spin));
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, head_on_lane(kp));
	other = kprobe_kunit_run_elsewhere(test, call_fn0_once, NULL);
	KUNIT_ASSERT_TRUE(test, kprobe_kunit_wait_for_flag(&spin.entered));
	/* The window is open: the hit holds the lane's head. */
	KUNIT_EXPECT_FALSE(test, READ_ONCE(spin.left));
	unregister_kprobe(kp);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(spin.left));
	KUNIT_EXPECT_FALSE(test, kprobe_on_lane(kp));
	kthread_stop(other);
	put_task_struct(other);
	/* Unprobed now: the call runs without the handler. */
	spin.left = false;
	KUNIT_EXPECT_EQ(test, call_fn(0, 3), expected(0, 3));
	KUNIT_EXPECT_FALSE(test, READ_ONCE(spin.left));
}

static struct kunit_case kprobes_lanes_cases[] = {
	KUNIT_CASE(kpl_unregister_waits_for_lane_hit),
	KUNIT_CASE(kpl_lone_probe_gets_lane),
	KUNIT_CASE(kpl_lanes_run_out),
	KUNIT_CASE(kpl_site_takes_over_lane),
	KUNIT_CASE(kpl_shared_with_ftrace_user),
	KUNIT_CASE(kpl_shared_with_ipmodify_user),
	{}
};

static int kpl_suite_init(struct kunit_suite *suite)
{
	int (*const fns[])(int) = {
		kpl_fn0, kpl_fn1, kpl_fn2, kpl_fn3, kpl_fn4,
		kpl_fn5, kpl_fn6, kpl_fn7, kpl_fn8, kpl_fn9,
	};

	memcpy(kpl_fns, fns, sizeof(kpl_fns));
	return 0;
}

static struct kunit_suite kprobes_lanes_suite = {
	.name = "kprobes_lanes",
	.suite_init = kpl_suite_init,
	.init = kpl_init,
	.test_cases = kprobes_lanes_cases,
};

kunit_test_suites(&kprobes_lanes_suite);

MODULE_DESCRIPTION("KUnit cases for kprobes' ftrace direct-call lanes");
MODULE_LICENSE("GPL");
