// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases for the moments when a probe hit on one CPU meets a
 * registration change on another.  Each case holds the other CPU inside
 * the window it is about (a handler that spins, or a stretch of calls
 * with interrupts off, which also holds back any text synchronisation)
 * while this CPU makes the change, so a core that publishes something too
 * early, or frees it too early, fails here every time: usually by
 * crashing the kernel, which fails the run.  The port's suites hold the
 * windows that only exist on that port (kprobes_x86: jump optimization).
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/timekeeping.h>

#include "internal.h"
#include "kprobes_kunit.h"
#include "kprobes_window_kunit.h"

/*
 * A multiply by a constant no shift-and-add covers: an instruction that
 * runs from a slot on both arches (arm64 carries simple arithmetic out at
 * the trap, x86 its moves and pushes).
 */
static noinline int krc_target(int x)
{
	return x * 37 - 2;
}

/* Through a pointer the compiler cannot see through: the call is real. */
static int call_target(int x)
{
	int (*fn)(int x) = krc_target;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(x);
}

static int krc_target_expected(int x)
{
	return x * 37 - 2;
}

/* Hits of the case's own calls; the other CPU's are not counted. */
static struct task_struct *tester;
static atomic_t posts;

static void count_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	if (current == READ_ONCE(tester))
		atomic_inc(&posts);
}

static int krc_init(struct kunit *test)
{
	WRITE_ONCE(tester, current);
	return 0;
}

/*
 * Unregistering a kretprobe while another CPU is running another probe's
 * handler at the same address: that CPU goes on down the chain it started
 * with, which still holds the kretprobe's entry probe, after the
 * unregistration has taken the kretprobe off the site.  Whatever the
 * entry probe reads must still be there until that hit is over.
 */
static struct task_struct *holder;
static bool holding, chain_replaced;

static int hold_until_chain_replaced(struct kprobe *kp, struct pt_regs *regs)
{
	struct kprobe *head = kprobe_lookup(kp->addr);
	void *chain;
	u64 deadline;

	if (current != READ_ONCE(holder) || !head || !kprobe_is_site(head))
		return 0;
	chain = rcu_access_pointer(to_site(head)->chain);
	deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_HOLD_MAX_NS;
	WRITE_ONCE(holding, true);
	while (rcu_access_pointer(to_site(head)->chain) == chain &&
	       !kprobe_kunit_past(deadline))
		cpu_relax();
	WRITE_ONCE(chain_replaced, rcu_access_pointer(to_site(head)->chain) != chain);
	/* Let the other CPU run on to where it waits for this hit. */
	mdelay(20);
	return 0;
}

static int ret_value_seen, held_result;
static bool held_call_done;

static int note_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ret_value_seen = regs_return_value(regs);
	return 0;
}

static int call_target_once(void *unused)
{
	WRITE_ONCE(holder, current);
	held_result = call_target(3);
	WRITE_ONCE(held_call_done, true);
	while (!kthread_should_stop())
		usleep_range(100, 200);
	return 0;
}

static void krc_kretprobe_leaves_shared_site(struct kunit *test)
{
	struct kprobe *first = test_probe(test, &(struct kprobe) {
		.symbol_name = "krc_target",
		.pre_handler = hold_until_chain_replaced });
	struct kretprobe krp = { .kp.symbol_name = "krc_target",
				 .handler = note_return };
	struct task_struct *task;

	holding = false;
	chain_replaced = false;
	held_call_done = false;
	ret_value_seen = 0;
	WRITE_ONCE(holder, NULL);
	KUNIT_ASSERT_EQ(test, register_kprobe(first), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&krp), 0);
	/* Both at one address: one site, @first's handler ahead of the kretprobe's. */
	KUNIT_ASSERT_TRUE(test, kprobe_is_site(get_kprobe(first->addr)));

	task = kprobe_kunit_run_elsewhere(test, call_target_once, NULL);
	if (!kprobe_kunit_wait_for_flag(&holding)) {
		kthread_stop(task);
		put_task_struct(task);
		KUNIT_FAIL(test, "the other CPU never hit the probe");
		unregister_kretprobe(&krp);
		return;
	}
	unregister_kretprobe(&krp);
	KUNIT_EXPECT_TRUE(test, kprobe_kunit_wait_for_flag(&held_call_done));
	kthread_stop(task);
	put_task_struct(task);
	WRITE_ONCE(holder, NULL);

	/* The window was open: the kretprobe left while the hit went on. */
	KUNIT_EXPECT_TRUE(test, chain_replaced);
	KUNIT_EXPECT_EQ(test, held_result, krc_target_expected(3));
	/* Too late to be watched: that call counts as missed, nothing more. */
	KUNIT_EXPECT_EQ(test, ret_value_seen, 0);
	KUNIT_EXPECT_EQ(test, krp.nmissed, 1);
	KUNIT_EXPECT_NULL(test, krp.rh);
	/* And it can come back (by name again, as it was given). */
	krp.kp.addr = NULL;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&krp), 0);
	KUNIT_EXPECT_EQ(test, call_target(4), krc_target_expected(4));
	KUNIT_EXPECT_EQ(test, ret_value_seen, krc_target_expected(4));
	unregister_kretprobe(&krp);
}

/*
 * A hit's post_handlers go with its pre_handlers.  The other CPU is held
 * inside one probe's pre_handler at a site, past a disabled probe, while
 * this CPU enables that probe and registers a third, both with a
 * post_handler: neither ran a pre_handler for that hit, so neither may
 * see its post phase (kprobetorture found post_handler runs with no
 * pre_handler run before them).
 */
static bool held_released;
static atomic_t late_pre, late_post;

static int hold_until_released(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(holder))
		kprobe_kunit_hold(&holding, &held_released);
	return 0;
}

static int count_late_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(holder))
		atomic_inc(&late_pre);
	return 0;
}

static void count_late_post(struct kprobe *kp, struct pt_regs *regs,
			    unsigned long flags)
{
	if (current == READ_ONCE(holder))
		atomic_inc(&late_post);
}

/*
 * Let the optimizer be done with the site before a hit is held there: it
 * may give the site a jump (x86), and writing it waits for every CPU,
 * with kprobes_mutex held, while a hit held after a breakpoint keeps its
 * CPU's interrupts off; the act would then wait for the hold to time out.
 */
static void settle_before_holding(void)
{
	wait_for_kprobe_optimizer();
}

/* The probes the acts below change while a hit is held. */
static struct kprobe *act_probes[2];

/*
 * Hold another CPU's call of krc_target inside hold_until_released()
 * while @act runs here, then let it finish.  Return: whether the hit was
 * held all through @act.
 */
static bool while_hit_held(struct kunit *test, void (*act)(struct kunit *test))
{
	struct task_struct *task;
	bool held;

	holding = false;
	held_released = false;
	held_call_done = false;
	atomic_set(&late_pre, 0);
	atomic_set(&late_post, 0);
	WRITE_ONCE(holder, NULL);
	task = kprobe_kunit_run_elsewhere(test, call_target_once, NULL);
	held = kprobe_kunit_wait_for_flag(&holding);
	act(test);
	held = held && !READ_ONCE(held_call_done);
	WRITE_ONCE(held_released, true);
	KUNIT_EXPECT_TRUE(test, kprobe_kunit_wait_for_flag(&held_call_done));
	kthread_stop(task);
	put_task_struct(task);
	WRITE_ONCE(holder, NULL);
	KUNIT_EXPECT_EQ(test, held_result, krc_target_expected(3));
	return held;
}

/* Both join the hit between its pre and its post phase. */
static void enable_and_add(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, enable_kprobe(act_probes[0]), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(act_probes[1]), 0);
}

static void krc_post_only_after_own_pre(struct kunit *test)
{
	struct kprobe *enabled = test_probe(test, &(struct kprobe) {
		.symbol_name = "krc_target", .flags = KPROBE_FLAG_DISABLED,
		.pre_handler = count_late_pre, .post_handler = count_late_post });
	struct kprobe *first = test_probe(test, &(struct kprobe) {
		.symbol_name = "krc_target",
		.pre_handler = hold_until_released });
	struct kprobe *added = test_probe(test, &(struct kprobe) {
		.symbol_name = "krc_target",
		.pre_handler = count_late_pre, .post_handler = count_late_post });

	/* In this order on the site: the held hit is past @enabled. */
	KUNIT_ASSERT_EQ(test, register_kprobe(enabled), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(first), 0);
	KUNIT_ASSERT_TRUE(test, kprobe_is_site(get_kprobe(first->addr)));
	settle_before_holding();

	act_probes[0] = enabled;
	act_probes[1] = added;
	KUNIT_EXPECT_TRUE(test, while_hit_held(test, enable_and_add));
	KUNIT_EXPECT_EQ(test, atomic_read(&late_pre), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&late_post), 0);
	/* From the next hit on, both are in. */
	WRITE_ONCE(holder, current);
	KUNIT_EXPECT_EQ(test, call_target(4), krc_target_expected(4));
	KUNIT_EXPECT_EQ(test, atomic_read(&late_pre), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&late_post), 2);
	WRITE_ONCE(holder, NULL);
	unregister_kprobe(added);
	unregister_kprobe(enabled);
	unregister_kprobe(first);
}

/*
 * The other way round: the held hit ran the pre_handler of a probe with a
 * post_handler, the only one at the site, and this CPU disables that
 * probe before the hit's post phase.  The site then has no post_handler
 * any more, but the hit must still call the one whose pre_handler it
 * called (the old code asked the site at the end of the hit and skipped
 * it: on x86 the hit even went to the boosted copy, with no trap after).
 */
/* The only probe with a post_handler goes while the hit is held. */
static void disable_leaving(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, disable_kprobe(act_probes[0]), 0);
	KUNIT_EXPECT_NULL(test, get_kprobe(act_probes[0]->addr)->post_handler);
}

static void post_follows_own_pre(struct kunit *test, kprobe_opcode_t *addr)
{
	struct kprobe *leaving = test_probe(test, &(struct kprobe) {
		.addr = addr,
		.pre_handler = count_late_pre, .post_handler = count_late_post });
	struct kprobe *first = test_probe(test, &(struct kprobe) {
		.addr = addr, .pre_handler = hold_until_released });

	/* In this order: the held hit has run @leaving's pre_handler. */
	KUNIT_ASSERT_EQ(test, register_kprobe(leaving), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(first), 0);
	settle_before_holding();

	act_probes[0] = leaving;
	KUNIT_EXPECT_TRUE(test, while_hit_held(test, disable_leaving));
	KUNIT_EXPECT_EQ(test, atomic_read(&late_pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&late_post), 1);
	/* Disabled from the next hit on. */
	WRITE_ONCE(holder, current);
	KUNIT_EXPECT_EQ(test, call_target(4), krc_target_expected(4));
	KUNIT_EXPECT_EQ(test, atomic_read(&late_pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&late_post), 1);
	WRITE_ONCE(holder, NULL);
	unregister_kprobe(leaving);
	unregister_kprobe(first);
}

/* At the entry (an ftrace site on x86) and at the first breakpoint after. */
static void krc_post_follows_own_pre_when_disabled(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {});
	unsigned long size, offset;

	post_follows_own_pre(test, (kprobe_opcode_t *)krc_target);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)krc_target,
							    &size, &offset));
	for (offset = 1; offset < size; offset++) {
		*kp = (struct kprobe) { .addr = (void *)krc_target + offset };
		if (register_kprobe(kp))
			continue;
		if (!kprobe_ftrace(kp))
			break;
		unregister_kprobe(kp);
	}
	KUNIT_ASSERT_LT(test, offset, size);
	unregister_kprobe(kp);
	post_follows_own_pre(test, (void *)krc_target + offset);
}

/*
 * A probe is unregistered while another CPU's hit on it is between its
 * pre_handler and the out-of-line copy of the instruction: the slot must
 * outlive that hit.  The other CPU's pre_handler holds it there until the
 * unregistration has detached the probe (the first thing it does), then
 * a little longer, before it goes on to the slot; slots freed meanwhile
 * are poisoned.  (The disarming that follows waits for that CPU on every
 * port, so what this checks is that nothing frees the slot before.)
 */
static bool detached;

static int hold_until_detached(struct kprobe *kp, struct pt_regs *regs)
{
	u64 deadline;

	if (current != READ_ONCE(holder))
		return 0;
	deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_HOLD_MAX_NS;
	WRITE_ONCE(holding, true);
	/* A lone probe is on the core's list until it is detached. */
	while (!list_empty(&kp->list) && !kprobe_kunit_past(deadline))
		cpu_relax();
	WRITE_ONCE(detached, list_empty(&kp->list));
	mdelay(20);
	return 0;
}

static void optimization_back_on(void *unused)
{
	kprobe_set_optimization(true);
}

static void krc_slot_outlives_stepping_hit(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {});
	unsigned long size, offset;
	struct task_struct *task;
	int freed;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)krc_target,
							    &size, &offset));
	kprobe_kunit_quarantine_slots(test, NULL);
	/*
	 * The probe must stay alone at its address (hold_until_detached()
	 * watches a lone probe's list): with jump optimization on, a detour
	 * built for the region after it would make the address a site.
	 */
	kprobe_set_optimization(false);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, optimization_back_on,
							NULL), 0);

	/*
	 * The first instruction that runs from a slot (a post_handler keeps
	 * it from being boosted or optimized): the one whose probe frees a
	 * slot when it goes.
	 */
	for (offset = 0; offset < size; offset++) {
		*kp = (struct kprobe) { .addr = (void *)krc_target + offset,
					.pre_handler = hold_until_detached,
					.post_handler = count_post };
		if (register_kprobe(kp))
			continue;
		freed = kprobe_kunit_nr_quarantined;
		unregister_kprobe(kp);
		if (kprobe_kunit_nr_quarantined > freed)
			break;
	}
	KUNIT_ASSERT_LT(test, offset, size);

	holding = false;
	detached = false;
	held_call_done = false;
	WRITE_ONCE(holder, NULL);
	*kp = (struct kprobe) { .addr = (void *)krc_target + offset,
				.pre_handler = hold_until_detached,
				.post_handler = count_post };
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_ASSERT_PTR_EQ(test, get_kprobe(kp->addr), kp);
	freed = kprobe_kunit_nr_quarantined;
	task = kprobe_kunit_run_elsewhere(test, call_target_once, NULL);
	if (!kprobe_kunit_wait_for_flag(&holding)) {
		kthread_stop(task);
		put_task_struct(task);
		KUNIT_FAIL(test, "the other CPU never hit the probe");
		return;
	}
	unregister_kprobe(kp);
	KUNIT_EXPECT_TRUE(test, kprobe_kunit_wait_for_flag(&held_call_done));
	kthread_stop(task);
	put_task_struct(task);
	WRITE_ONCE(holder, NULL);

	/* The window was open, the slot was freed, and the hit was right. */
	KUNIT_EXPECT_TRUE(test, detached);
	KUNIT_EXPECT_GT(test, kprobe_kunit_nr_quarantined, freed);
	KUNIT_EXPECT_EQ(test, held_result, krc_target_expected(3));
}

/*
 * Probes are unregistered while another CPU keeps hitting them with
 * interrupts off.  That CPU holds back the text synchronisation of the
 * disarming, so for as long as its stretch lasts the breakpoints stay in
 * its view of the text: a core that took the probes out of its table
 * before they were disarmed would leave it trapping on breakpoints nobody
 * owns, which oopses.  The stretch goes on for a while after the
 * unregistration started, then lets it finish.  (Ports that disarm under
 * stop_machine, arm64, keep the breakpoints for the whole stretch; x86
 * takes them out at once and waits for the CPU after.)
 */
static struct kprobe_hot_caller *hitting;
static bool unregistering;
static atomic_t window_hits;
static int window_calls;

static int count_window_hit(struct kprobe *kp, struct pt_regs *regs)
{
	if (READ_ONCE(unregistering) && current == READ_ONCE(hitting)->task)
		atomic_inc(&window_hits);
	return 0;
}

static bool watch_unregistration(struct kprobe_hot_caller *h)
{
	return READ_ONCE(unregistering) && ++window_calls >= 200;
}

static void krc_unregister_under_irqs_off_hits(struct kunit *test)
{
	struct kprobe *kps[2] = {
		test_probe(test, &(struct kprobe) {}),
		test_probe(test, &(struct kprobe) {}),
	};
	unsigned long size, offset, second = 0;
	struct kprobe_hot_caller *h;
	int round, tries, n;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)krc_target,
							    &size, &offset));
	/*
	 * A second instruction, for the batch round: past where the entry
	 * probe lands (after a landing pad, on some ports).
	 */
	*kps[0] = (struct kprobe) { .addr = (void *)krc_target };
	KUNIT_ASSERT_EQ(test, register_kprobe(kps[0]), 0);
	unregister_kprobe(kps[0]);
	for (offset = 1; offset < size && !second; offset++) {
		*kps[1] = (struct kprobe) { .addr = (void *)krc_target + offset };
		if (register_kprobe(kps[1]))
			continue;
		if (kps[1]->addr != kps[0]->addr)
			second = offset;
		unregister_kprobe(kps[1]);
	}
	KUNIT_ASSERT_NE(test, second, 0UL);

	h = kprobe_kunit_start_hot_caller(test, call_target, krc_target_expected);
	h->watch = watch_unregistration;
	WRITE_ONCE(hitting, h);
	for (round = 0; round < 2; round++) {
		/* One probe, then a batch of two; post_handlers keep them trapping. */
		n = round + 1;
		*kps[0] = (struct kprobe) { .addr = (void *)krc_target,
					    .pre_handler = count_window_hit,
					    .post_handler = count_post };
		*kps[1] = (struct kprobe) { .addr = (void *)krc_target + second,
					    .pre_handler = count_window_hit,
					    .post_handler = count_post };
		for (tries = 0; tries < 3; tries++) {
			KUNIT_ASSERT_EQ(test, register_kprobes(kps, n), 0);
			atomic_set(&posts, 0);
			KUNIT_EXPECT_EQ(test, call_target(7), krc_target_expected(7));
			KUNIT_EXPECT_EQ(test, atomic_read(&posts), n);
			atomic_set(&window_hits, 0);
			window_calls = 0;
			kprobe_kunit_begin_stretch(test, h);
			WRITE_ONCE(unregistering, true);
			unregister_kprobes(kps, n);
			/* It could not finish before the other CPU let it. */
			KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(h->in_stretch),
					       "round %d", round);
			WRITE_ONCE(unregistering, false);
			KUNIT_EXPECT_TRUE(test, kprobe_kunit_wait_for_flag(&h->stretch_done));
			/* Else the stretch timed out before this CPU began. */
			if (window_calls >= 200)
				break;
		}
		KUNIT_EXPECT_LT_MSG(test, tries, 3, "round %d: the window never held", round);
		kunit_info(test, "round %d: %d hits on the way out, %d retries\n",
			   round, atomic_read(&window_hits), tries);
		KUNIT_EXPECT_EQ(test, call_target(7), krc_target_expected(7));
	}
	kprobe_kunit_stop_hot_caller(h);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(h->wrong));
}

/*
 * A fault taken by an interrupt that came in while a probe's handler ran
 * is not the probe's (see kprobes_kunit.h).  At krc_target's entry: an
 * ftrace site on x86, whose hits run handlers with interrupts on.
 */
static void krc_interrupt_fault_not_the_probes(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.symbol_name = "krc_target", .pre_handler = kunit_irq_fault_pre,
		.fault_handler = kunit_fault_note });

	kunit_fault_setup(test);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	if (!kprobe_ftrace(kp))
		kunit_skip(test, "no ftrace-site probes here");
	/* Off its bridge BRK, if it went on one: the hit is ftrace's. */
	kprobe_bridges_flush();
	kunit_irq_fault_call(test, kp, call_target, krc_target_expected(3));
	unregister_kprobe(kp);
}

/*
 * A re-registration of a registered probe is refused, and a refusal writes
 * nothing.  The core's mutex is held here while an enable_kprobe() and
 * then a register_kprobe() of the same disabled probe queue up on it, in
 * that order (a mutex hands itself to its waiters first come, first
 * served).  The refused registration must not put back the flags it saw
 * before the enable: the probe would read disabled and disarmed, its
 * unregistration would leave the breakpoint in the text (and, at a shared
 * site, the count of enabled probes would be one too high for ever).
 */
#ifndef CONFIG_PREEMPT_RT
static struct kprobe *requeued;
static int enable_ret, reregister_ret;
static bool enable_done, reregister_done;
static atomic_t hits;

static int count_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(tester))
		atomic_inc(&hits);
	return 0;
}

static int enable_requeued(void *unused)
{
	enable_ret = enable_kprobe(requeued);
	WRITE_ONCE(enable_done, true);
	while (!kthread_should_stop())
		usleep_range(100, 200);
	return 0;
}

static int reregister_requeued(void *unused)
{
	reregister_ret = register_kprobe(requeued);
	WRITE_ONCE(reregister_done, true);
	while (!kthread_should_stop())
		usleep_range(100, 200);
	return 0;
}

/* Wait (sleeping, the mutex held) until @n tasks wait for the mutex. */
static bool wait_for_waiters(unsigned int n)
{
	u64 deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_REACH_MAX_NS;
	size_t waiting;

	do {
		raw_spin_lock(&kprobes_mutex.wait_lock);
		waiting = list_count_nodes(&kprobes_mutex.wait_list);
		raw_spin_unlock(&kprobes_mutex.wait_lock);
		if (waiting >= n)
			return true;
		usleep_range(50, 100);
	} while (!kprobe_kunit_past(deadline));
	return false;
}

/* An instruction of krc_target a breakpoint goes on (not an ftrace site). */
static kprobe_opcode_t *breakpoint_addr(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {});
	unsigned long size, offset;
	kprobe_opcode_t *addr;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)krc_target,
							    &size, &offset));
	for (offset = 0; offset < size; offset++) {
		*kp = (struct kprobe) { .addr = (void *)krc_target + offset };
		if (register_kprobe(kp))
			continue;
		addr = kp->addr;
		if (!kprobe_ftrace(kp)) {
			unregister_kprobe(kp);
			return addr;
		}
		unregister_kprobe(kp);
	}
	KUNIT_FAIL_AND_ABORT(test, "no breakpoint site in krc_target");
	return NULL;
}

static void requeue_round(struct kunit *test, kprobe_opcode_t *addr,
			  bool shared)
{
	struct kprobe *other = test_probe(test, &(struct kprobe) {
		.addr = addr, .pre_handler = count_pre });
	struct task_struct *enabler, *reregisterer;
	kprobe_opcode_t before = *addr;
	struct kprobe *head;
	bool queued;

	requeued = test_probe(test, &(struct kprobe) {
		.addr = addr, .pre_handler = count_pre,
		.flags = KPROBE_FLAG_DISABLED });
	KUNIT_ASSERT_EQ(test, register_kprobe(requeued), 0);
	if (shared)
		KUNIT_ASSERT_EQ(test, register_kprobe(other), 0);
	enable_done = false;
	reregister_done = false;

	mutex_lock(&kprobes_mutex);
	enabler = kthread_run(enable_requeued, NULL, "krc_enable");
	queued = !IS_ERR(enabler) && wait_for_waiters(1);
	reregisterer = queued ?
		kthread_run(reregister_requeued, NULL, "krc_register") :
		ERR_PTR(-EINVAL);
	queued = queued && !IS_ERR(reregisterer) && wait_for_waiters(2);
	mutex_unlock(&kprobes_mutex);

	if (!IS_ERR(enabler)) {
		KUNIT_EXPECT_TRUE(test, kprobe_kunit_wait_for_flag(&enable_done));
		kthread_stop(enabler);
	}
	if (!IS_ERR(reregisterer)) {
		KUNIT_EXPECT_TRUE(test, kprobe_kunit_wait_for_flag(&reregister_done));
		kthread_stop(reregisterer);
	}
	KUNIT_ASSERT_TRUE_MSG(test, queued, "the two calls never queued up");
	KUNIT_EXPECT_EQ(test, enable_ret, 0);
	KUNIT_EXPECT_EQ(test, reregister_ret, -EINVAL);

	head = get_kprobe(addr);
	KUNIT_ASSERT_NOT_NULL(test, head);
	KUNIT_EXPECT_FALSE_MSG(test, kprobe_disabled(requeued),
			       "shared %d: the refusal undid the enable", shared);
	KUNIT_EXPECT_TRUE_MSG(test, kprobe_has_flag(head, KPROBE_FLAG_ARMED),
			      "shared %d: armed, but not marked so", shared);
	if (shared)
		KUNIT_EXPECT_EQ(test, to_site(head)->nr_enabled, 2U);
	atomic_set(&hits, 0);
	KUNIT_EXPECT_EQ(test, call_target(6), krc_target_expected(6));
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), shared ? 2 : 1);

	/*
	 * Put back what the enable did, so that the unregistration below
	 * takes the breakpoint out and a failure here does not become a
	 * crash later.
	 */
	if (kprobe_disabled(requeued) ||
	    !kprobe_has_flag(head, KPROBE_FLAG_ARMED)) {
		mutex_lock(&kprobes_mutex);
		kprobe_flags_clear(requeued, KPROBE_FLAG_DISABLED);
		kprobe_flags_set(head, KPROBE_FLAG_ARMED);
		mutex_unlock(&kprobes_mutex);
	}
	unregister_kprobe(requeued);
	unregister_kprobe(other);
	KUNIT_EXPECT_NULL(test, get_kprobe(addr));
	/* The breakpoint went with the last probe. */
	KUNIT_EXPECT_EQ(test, *addr, before);
}

static void krc_refused_registration_writes_nothing(struct kunit *test)
{
	kprobe_opcode_t *addr = breakpoint_addr(test);

	requeue_round(test, addr, false);
	requeue_round(test, addr, true);
}
#else
static void krc_refused_registration_writes_nothing(struct kunit *test)
{
	kunit_skip(test, "the mutex's waiters are not on a list here");
}
#endif

static struct kunit_case kprobes_race_cases[] = {
	KUNIT_CASE(krc_kretprobe_leaves_shared_site),
	KUNIT_CASE(krc_post_only_after_own_pre),
	KUNIT_CASE(krc_post_follows_own_pre_when_disabled),
	KUNIT_CASE(krc_slot_outlives_stepping_hit),
	KUNIT_CASE(krc_unregister_under_irqs_off_hits),
	KUNIT_CASE(krc_refused_registration_writes_nothing),
	KUNIT_CASE(krc_interrupt_fault_not_the_probes),
	{}
};

static struct kunit_suite kprobes_race_suite = {
	.name = "kprobes_race",
	.init = krc_init,
	.test_cases = kprobes_race_cases,
};

kunit_test_suites(&kprobes_race_suite);

MODULE_DESCRIPTION("KUnit cases that force hits into registration windows");
MODULE_LICENSE("GPL");
