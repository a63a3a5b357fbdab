// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases for the ftrace bridge (bridge.c): a probe registered alone
 * on an ftrace call site fires from its bridge breakpoint at once, a set
 * goes straight to ftrace, a bridged probe can be disabled and
 * unregistered before the hand-over, a site ftrace refuses stays on its
 * breakpoint while the others move, and every call fires exactly once
 * while both ways are in: at each step of the hand-over, after a call
 * that left its mark behind, and for a call that fired at the breakpoint
 * and reaches the site after the switch (forced: its handler holds it
 * there on another CPU).
 */
#include <kunit/test.h>
#include <kunit/static_stub.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/timekeeping.h>

#include "internal.h"
#include "kprobes_kunit.h"

static noinline int kpb_fn(int x)
{
	return x + 40;
}

static noinline int kpb_other_fn(int x)
{
	return x + 50;
}

/* Set at suite init, so the compiler cannot see what is called. */
static int (*kpb_call)(int x);
static int (*kpb_other)(int x);

static atomic_t hits, posts, returns;
static int last_return;

static int count_hit(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&hits);
	return 0;
}

static void count_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	atomic_inc(&posts);
}

static kprobe_opcode_t *entry_site(struct kunit *test)
{
	unsigned long site = ftrace_location((unsigned long)kpb_call);

	if (!site)
		kunit_skip(test, "kpb_fn() has no ftrace call site");
	return (kprobe_opcode_t *)site;
}

static struct kprobe *entry_probe(struct kunit *test, void *fn,
				  kprobe_post_handler_t post)
{
	return test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)fn, .pre_handler = count_hit,
		.post_handler = post });
}

static kprobe_opcode_t word_before(kprobe_opcode_t *site)
{
	kprobe_opcode_t word = 0;

	copy_from_kernel_nofault(&word, site - 1, sizeof(word));
	return word;
}

static bool bridged(struct kprobe *kp)
{
	return kprobe_has_flag(kp, KPROBE_FLAGS_BRIDGED);
}

/* Calls @n times, and checks every call fired once and returned right. */
static void expect_calls_fire(struct kunit *test, int n, bool post)
{
	int before = atomic_read(&hits), i;

	atomic_set(&posts, 0);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, kpb_call(i), i + 40);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits) - before, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&posts), post ? n : 0);
}

/*
 * Alone: on a breakpoint in front of the site, hit at once (pre and
 * post), then on ftrace after the hand-over with the word restored.
 */
static void single_registration_is_bridged(struct kunit *test)
{
	kprobe_opcode_t *site = entry_site(test);
	kprobe_opcode_t before = word_before(site);
	struct kprobe *kp = entry_probe(test, kpb_call, count_post);

	atomic_set(&hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, kp->addr, site);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(kp));
	KUNIT_EXPECT_TRUE(test, bridged(kp));
	KUNIT_EXPECT_NE(test, word_before(site), before);
	expect_calls_fire(test, 3, true);

	kprobe_bridges_flush();
	KUNIT_EXPECT_FALSE(test, bridged(kp));
	KUNIT_EXPECT_EQ(test, word_before(site), before);
	expect_calls_fire(test, 3, true);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kpb_call(1), 41);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 6);
}

/* A set of probes goes into the ftrace filter in one update, unbridged. */
static void set_goes_straight_to_ftrace(struct kunit *test)
{
	struct kprobe *kps[2] = {
		entry_probe(test, kpb_call, NULL),
		entry_probe(test, kpb_other, NULL),
	};

	entry_site(test);
	atomic_set(&hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 2), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(kps[0]));
	KUNIT_EXPECT_FALSE(test, bridged(kps[0]));
	KUNIT_EXPECT_FALSE(test, bridged(kps[1]));
	expect_calls_fire(test, 2, false);
	KUNIT_EXPECT_EQ(test, kpb_other(1), 51);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 3);
	unregister_kprobes(kps, 2);
}

/*
 * Before the hand-over: disabling takes the breakpoint out, enabling
 * puts it back, unregistering takes it out for good, and the hand-over
 * then finds nothing.  A second probe at the address keeps the bridge.
 */
static void bridged_probe_changes_before_hand_over(struct kunit *test)
{
	kprobe_opcode_t *site = entry_site(test);
	kprobe_opcode_t before = word_before(site);
	struct kprobe *kp = entry_probe(test, kpb_call, NULL);
	struct kprobe *second = entry_probe(test, kpb_call, NULL);

	atomic_set(&hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, bridged(kp));
	KUNIT_ASSERT_EQ(test, disable_kprobe(kp), 0);
	KUNIT_EXPECT_FALSE(test, bridged(kp));
	KUNIT_EXPECT_EQ(test, word_before(site), before);
	KUNIT_EXPECT_EQ(test, kpb_call(2), 42);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 0);
	KUNIT_ASSERT_EQ(test, enable_kprobe(kp), 0);
	KUNIT_EXPECT_TRUE(test, bridged(kp));
	expect_calls_fire(test, 2, false);

	/* Two probes: the head is now a site, still on the breakpoint. */
	KUNIT_ASSERT_EQ(test, register_kprobe(second), 0);
	KUNIT_EXPECT_TRUE(test, bridged(get_kprobe(site)));
	KUNIT_EXPECT_EQ(test, kpb_call(0), 40);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 4);
	unregister_kprobe(second);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, word_before(site), before);
	KUNIT_EXPECT_NULL(test, get_kprobe(site));
	kprobe_bridges_flush();
	KUNIT_EXPECT_EQ(test, kpb_call(0), 40);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 4);
}

/* The hand-over's steps as a case sees them. */
static struct {
	struct kunit *test;
	bool hold_a_call;		/* the window case, else a call per step */
	unsigned int call_at;		/* at these steps only (0: every one) */
	int calls_at_step[KPROBE_BRIDGE_NR_STEPS]; /* hits its call counted */
	struct task_struct *holder;	/* the other CPU's caller */
	struct kprobe *head;
	atomic_t held;			/* its handler is holding the call */
	bool timed_out;
} step;

/* At each step, one call from here must fire once. */
static void call_at_step(enum kprobe_bridge_step s)
{
	int before = atomic_read(&hits);

	kpb_call(3);
	step.calls_at_step[s] = atomic_read(&hits) - before;
}

/*
 * The other CPU's caller: its pre_handler, at the breakpoint, holds the
 * call until the hand-over has begun, so that it reaches the site after
 * the switch.
 */
static int hold_hit(struct kprobe *kp, struct pt_regs *regs)
{
	u64 deadline;

	if (current != step.holder)
		return 0;
	atomic_inc(&hits);
	atomic_set(&step.held, 1);
	deadline = ktime_get_mono_fast_ns() + 10 * NSEC_PER_SEC;
	while (!kprobe_has_flag(step.head, KPROBE_FLAG_BRIDGE_GRACE)) {
		if (ktime_get_mono_fast_ns() > deadline) {
			step.timed_out = true;
			break;
		}
		cpu_relax();
	}
	return 0;
}

static int holder_fn(void *unused)
{
	kpb_call(5);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void replacement_step(enum kprobe_bridge_step s)
{
	unsigned long deadline = jiffies + 10 * HZ;

	if (!step.hold_a_call) {
		if (!step.call_at || (step.call_at & BIT(s)))
			call_at_step(s);
		return;
	}
	if (s != KPROBE_BRIDGE_HOOKED)
		return;
	/* Started here: the hold must begin after the filter update. */
	wake_up_process(step.holder);
	while (!atomic_read(&step.held) && time_before(jiffies, deadline))
		cpu_relax();
}

static void hand_over_with_stub(struct kunit *test)
{
	migrate_disable();
	kunit_activate_static_stub(test, kprobe_bridge_step, replacement_step);
	kprobe_bridges_flush();
	kunit_deactivate_static_stub(test, kprobe_bridge_step);
	migrate_enable();
}

/* A call at each step of the hand-over fires once, no more, no less. */
static void every_step_fires_once(struct kunit *test)
{
	struct kprobe *kp = entry_probe(test, kpb_call, count_post);

	entry_site(test);
	memset(&step, 0, sizeof(step));
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, bridged(kp));
	hand_over_with_stub(test);
	KUNIT_EXPECT_FALSE(test, bridged(kp));
	KUNIT_EXPECT_EQ(test, step.calls_at_step[KPROBE_BRIDGE_HOOKED], 1);
	KUNIT_EXPECT_EQ(test, step.calls_at_step[KPROBE_BRIDGE_GRACE], 1);
	KUNIT_EXPECT_EQ(test, step.calls_at_step[KPROBE_BRIDGE_PLAIN], 1);
	KUNIT_EXPECT_EQ(test, step.calls_at_step[KPROBE_BRIDGE_UNPLANTED], 1);
	expect_calls_fire(test, 2, true);
}

/*
 * A call that fired at the breakpoint before the site was hooked leaves
 * its mark behind: the site's call never reached the handler that wipes
 * it.  Once the breakpoint is out, nothing on the way to the site wipes
 * it either, so by then the marks must no longer count, or that mark
 * eats the context's next hit.
 */
static void left_mark_eats_no_hit(struct kunit *test)
{
	struct kprobe *kp = entry_probe(test, kpb_call, NULL);

	entry_site(test);
	memset(&step, 0, sizeof(step));
	step.call_at = BIT(KPROBE_BRIDGE_UNPLANTED);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, bridged(kp));
	/* Fired at the breakpoint; the site, not hooked, left the mark. */
	expect_calls_fire(test, 1, false);
	hand_over_with_stub(test);
	KUNIT_EXPECT_FALSE(test, bridged(kp));
	KUNIT_EXPECT_EQ(test, step.calls_at_step[KPROBE_BRIDGE_UNPLANTED], 1);
	expect_calls_fire(test, 2, false);
}

/*
 * The window: a call fires at the breakpoint before the switch and
 * reaches the site after it, where ftrace now fires unmarked calls.  Its
 * mark must keep it from firing twice.
 */
static void call_across_the_switch_fires_once(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpb_call, .pre_handler = hold_hit });
	int cpu, other;

	entry_site(test);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	memset(&step, 0, sizeof(step));
	step.hold_a_call = true;
	atomic_set(&hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_TRUE(test, bridged(kp));
	step.head = kp;
	step.holder = kthread_create(holder_fn, NULL, "kpb_holder");
	KUNIT_ASSERT_FALSE(test, IS_ERR(step.holder));
	migrate_disable();
	cpu = smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, cpu);
	kthread_bind(step.holder, other);
	hand_over_with_stub(test);
	migrate_enable();
	kthread_stop(step.holder);
	KUNIT_EXPECT_EQ(test, atomic_read(&step.held), 1);
	KUNIT_EXPECT_FALSE(test, step.timed_out);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
	KUNIT_EXPECT_FALSE(test, bridged(kp));
}

static int count_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&hits);
	return 0;
}

static int count_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&returns);
	last_return = regs_return_value(regs);
	return 0;
}

static atomic_t other_calls;

static void other_user(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	atomic_inc(&other_calls);
}

/*
 * A kretprobe's entry on the bridge hooks the return as ftrace's would,
 * with the site a plain call (no ftrace user) and with another ftrace
 * user on it: on arm64 ftrace_caller then takes the return address from
 * x9, which the bridge must keep in step with x30.
 */
static void kretprobe_through_the_bridge(struct kunit *test)
{
	unsigned long ip = (unsigned long)entry_site(test);
	struct ftrace_ops *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	struct kretprobe krp = {
		.kp.addr = (kprobe_opcode_t *)kpb_call,
		.entry_handler = count_entry,
		.handler = count_return,
	};

	KUNIT_ASSERT_NOT_NULL(test, other);
	other->func = other_user;
	other->flags = FTRACE_OPS_FL_SAVE_REGS_IF_SUPPORTED;
	atomic_set(&hits, 0);
	atomic_set(&returns, 0);
	atomic_set(&other_calls, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&krp), 0);
	KUNIT_EXPECT_TRUE(test, bridged(&krp.kp));
	KUNIT_EXPECT_EQ(test, kpb_call(2), 42);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&returns), 1);
	KUNIT_EXPECT_EQ(test, last_return, 42);

	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(other, ip, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(other), 0);
	KUNIT_EXPECT_TRUE(test, bridged(&krp.kp));
	KUNIT_EXPECT_EQ(test, kpb_call(4), 44);
	unregister_ftrace_function(other);
	ftrace_free_filter(other);
	KUNIT_EXPECT_EQ(test, atomic_read(&other_calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&returns), 2);
	KUNIT_EXPECT_EQ(test, last_return, 44);

	kprobe_bridges_flush();
	KUNIT_EXPECT_FALSE(test, bridged(&krp.kp));
	KUNIT_EXPECT_EQ(test, kpb_call(3), 43);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&returns), 3);
	KUNIT_EXPECT_EQ(test, last_return, 43);
	unregister_kretprobe(&krp);
	KUNIT_EXPECT_EQ(test, krp.kp.nmissed, 0);
}

/* ftrace as if it refused kpb_other_fn()'s site, and any set. */
static struct kunit *refusing_test;

static int refuse_other(struct kprobe **kps, int n)
{
	int ret;

	if (n > 1 || kps[0]->addr == (kprobe_opcode_t *)
			ftrace_location((unsigned long)kpb_other))
		return -EBUSY;
	kunit_deactivate_static_stub(refusing_test, kprobe_ftrace_arm);
	ret = kprobe_ftrace_arm(kps, n);
	kunit_activate_static_stub(refusing_test, kprobe_ftrace_arm,
				   refuse_other);
	return ret;
}

/*
 * A hand-over ftrace refuses for one site of the set moves the others
 * and leaves that one on its breakpoint, both still firing.
 */
static void refused_site_stays_bridged(struct kunit *test)
{
	struct kprobe *kp = entry_probe(test, kpb_call, NULL);
	struct kprobe *other = entry_probe(test, kpb_other, NULL);

	entry_site(test);
	atomic_set(&hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(other), 0);
	KUNIT_ASSERT_TRUE(test, bridged(kp));
	KUNIT_ASSERT_TRUE(test, bridged(other));
	refusing_test = test;
	kunit_activate_static_stub(test, kprobe_ftrace_arm, refuse_other);
	kprobe_bridges_flush();
	kunit_deactivate_static_stub(test, kprobe_ftrace_arm);
	KUNIT_EXPECT_FALSE(test, bridged(kp));
	KUNIT_EXPECT_TRUE(test, bridged(other));
	expect_calls_fire(test, 2, false);
	KUNIT_EXPECT_EQ(test, kpb_other(1), 51);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 3);
	/* ftrace willing again, the next hand-over takes it. */
	kprobe_bridges_flush();
	KUNIT_EXPECT_FALSE(test, bridged(other));
	KUNIT_EXPECT_EQ(test, kpb_other(1), 51);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 4);
}

static struct kunit_case kprobes_bridge_cases[] = {
	KUNIT_CASE(single_registration_is_bridged),
	KUNIT_CASE(set_goes_straight_to_ftrace),
	KUNIT_CASE(bridged_probe_changes_before_hand_over),
	KUNIT_CASE(every_step_fires_once),
	KUNIT_CASE(left_mark_eats_no_hit),
	KUNIT_CASE(call_across_the_switch_fires_once),
	KUNIT_CASE(kretprobe_through_the_bridge),
	KUNIT_CASE(refused_site_stays_bridged),
	{}
};

/* Every case checks the bridged state: the worker must not end it. */
static int kpb_init(struct kunit *test)
{
	kprobe_bridges_hold(true);
	return 0;
}

static void kpb_exit(struct kunit *test)
{
	kprobe_bridges_hold(false);
}

static int kpb_suite_init(struct kunit_suite *suite)
{
	kpb_call = kpb_fn;
	kpb_other = kpb_other_fn;
	return 0;
}

static struct kunit_suite kprobes_bridge_suite = {
	.name = "kprobes_bridge",
	.suite_init = kpb_suite_init,
	.init = kpb_init,
	.exit = kpb_exit,
	.test_cases = kprobes_bridge_cases,
};

kunit_test_suites(&kprobes_bridge_suite);

MODULE_DESCRIPTION("KUnit cases for the kprobes ftrace bridge");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
