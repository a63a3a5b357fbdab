// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ftrace bridge: probes registered one at a time on ftrace call
 * sites, handed to ftrace in sets.
 *
 * A filter update rewrites the call site of every function ftrace
 * traces (ftrace has no update of one record), which on arm64 costs a
 * few milliseconds each: a loop registering a thousand entry probes
 * would spend seconds in ftrace.  So a single registration does not
 * touch ftrace.  The port plants a breakpoint on the instruction just
 * before the site (arm64: ftrace's own `mov x9, x30`, which ftrace never
 * rewrites after boot) and its trap handler runs the probe as if it had
 * been reached through the site.  The head carries KPROBE_FLAG_BRIDGE.
 * A debounced worker (a tenth of a second after the last such
 * registration, a second at most after the first) then hooks every such
 * site with one filter update and takes the breakpoints out.
 *
 * While both the breakpoint and the ftrace hook are in, every call
 * passes both, and the handlers must run exactly once:
 *
 *  - Before the hand-over (BRIDGE), the breakpoint fires.  Each passage
 *    that goes on to the site leaves a mark saying "this context already
 *    fired at this site"; the ftrace handler wipes a matching mark and
 *    otherwise ignores the call too, since every passage fired at the
 *    breakpoint.
 *  - In the hand-over (BRIDGE | BRIDGE_GRACE), the breakpoint only wipes
 *    its context's mark, and the ftrace handler fires unless it finds a
 *    mark: that call already fired at the breakpoint before the switch.
 *  - After one RCU and one RCU-tasks grace period, no passage that fired
 *    at the breakpoint can still be on its way to the site: those that
 *    trapped in interrupt context or are still in the trap handler are
 *    waited for by RCU, tasks preempted between the two by RCU-tasks.
 *    BRIDGE goes first (GRACE alone): ftrace fires every call and reads
 *    no mark, the breakpoint only resumes at the site.  Then the
 *    breakpoints go, then GRACE.  Marks must stop counting before the
 *    breakpoints go: once nothing wipes a mark on the way to the site, a
 *    mark left behind (below) would eat the next call's hit.
 *
 * A context has at most one passage between its breakpoint and its site:
 * nothing runs there but an exception return, and a probed function
 * called from a handler is a missed hit finished before the outer one
 * leaves its mark.  So a mark is one word per context: per task for task
 * context (the kretprobe_instances word of task_struct, which belongs to
 * kprobes and has no other user while kretprobes ride on rethook), per
 * CPU for each interrupt level, which cannot be preempted (hence not on
 * PREEMPT_RT).  A mark is left behind whenever the site's call does not
 * reach our handler (the site is not hooked yet, or ftrace's recursion
 * guard): harmless while the breakpoint is in, since the context passes
 * it again before it can reach the site, and it rewrites or wipes it.
 *
 * The worker holds kprobes_mutex from the filter update to the last
 * flag, so everything else sees a bridged head as "on its breakpoint"
 * or as plain: disarming a bridged head takes its breakpoint out, and
 * the worker does not find it any more.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include "internal.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "kprobes."

/*
 * Off by default for now: with kprobetorture flipping it (flip_bridge=1),
 * about one 20 s run in six or eight on arm64 (default kernel, two vCPUs)
 * loses every hit of an ftrace site with two probes for a while, not yet
 * explained.  kprobes.ftrace_bridge=1 turns it on; the KUnit cases do.
 */
static bool bridge_on;
module_param_named(ftrace_bridge, bridge_on, bool, 0644);
MODULE_PARM_DESC(ftrace_bridge, "Bridge probes registered alone on ftrace sites");

/* Long enough for a registration loop to fill a set, short for a user. */
#define BRIDGE_DELAY		(HZ / 10)
/* A steady stream of registrations does not put a hand-over off longer. */
#define BRIDGE_MAX_WAIT		HZ
/* A set this large is handed over at once. */
#define BRIDGE_SET_MAX		4096

/* Interrupt levels: softirq, hardirq, NMI (interrupt_context_level()). */
static DEFINE_PER_CPU(void *, bridge_irq_marks[3]);

static __always_inline void **bridge_mark(void)
{
	unsigned char level = interrupt_context_level();

	if (!level)
		return (void **)&current->kretprobe_instances.first;
	return this_cpu_ptr(&bridge_irq_marks[level - 1]);
}

/**
 * kprobe_bridge_brk_fires() - a bridge breakpoint of @head trapped
 * @head: the head whose site the breakpoint stands in for
 *
 * The port calls it before anything else of the hit.
 *
 * Return: true when the hit goes on as a trap on the site would; false
 * when the port only carries out the instruction under the breakpoint
 * and resumes at the site (hand-over, or nothing enabled there).
 */
bool kprobe_bridge_brk_fires(struct kprobe *head)
{
	void **mark;

	if (!kprobe_has_flag(head, KPROBE_FLAG_BRIDGE_GRACE))
		return !kprobe_disabled(head);
	mark = bridge_mark();
	if (*mark == head->addr)
		*mark = NULL;
	return false;
}
NOKPROBE_SYMBOL(kprobe_bridge_brk_fires);

/**
 * kprobe_bridge_passed() - a hit that fired at the breakpoint goes on
 * @head: its head
 *
 * Called after the handlers (or the missed count) of a fired bridge hit
 * that resumes at the site; not when a pre_handler redirected.
 */
void kprobe_bridge_passed(struct kprobe *head)
{
	*bridge_mark() = head->addr;
}
NOKPROBE_SYMBOL(kprobe_bridge_passed);

/**
 * kprobe_bridge_ftrace_fires() - may an ftrace call of @head fire?
 * @head: the head the port's ftrace handler found, disabled, gone or
 *	bridged (it tests the three flags at once and calls this only then)
 *
 * Return: true when the hit goes on.
 */
bool kprobe_bridge_ftrace_fires(struct kprobe *head)
{
	void **mark;

	if (kprobe_disabled(head))
		return false;
	if (!kprobe_has_flag(head, KPROBE_FLAG_BRIDGE))
		return true;
	mark = bridge_mark();
	if (*mark == head->addr) {
		*mark = NULL;
		return false;
	}
	return kprobe_has_flag(head, KPROBE_FLAG_BRIDGE_GRACE);
}
NOKPROBE_SYMBOL(kprobe_bridge_ftrace_fires);

/*
 * Where the hand-over is: KUnit cases stand in here to run a call at
 * the moment they test.
 */
void kprobe_bridge_step(enum kprobe_bridge_step step)
{
	KUNIT_STATIC_STUB_REDIRECT(kprobe_bridge_step, step);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_bridge_step);

static bool is_bridged(struct kprobe *head, void *arg)
{
	return kprobe_has_flag(head, KPROBE_FLAG_BRIDGE);
}

/* Under kprobes_mutex: bridged since the last hand-over, and since when. */
static unsigned int bridges_queued;
static unsigned long bridges_queued_since;
static bool bridge_failed;
/* KUnit cases that test the bridged state keep the worker off. */
static bool bridges_held;

/*
 * ftrace refused the set: hook those it takes one at a time and leave the
 * others on their breakpoints (slower hits, nothing wrong; every later
 * hand-over tries them again).  The hooked ones end up first in @heads.
 */
static unsigned int hook_one_by_one(struct kprobe **heads, unsigned int n,
				    int err)
{
	unsigned int i, hooked = 0;
	int ret;

	for (i = 0; i < n; i++) {
		ret = n > 1 ? kprobe_ftrace_arm(&heads[i], 1) : err;
		if (!ret)
			heads[hooked++] = heads[i];
		else
			err = ret;
	}
	if (hooked < n && !bridge_failed) {
		pr_warn("%u probes stay on breakpoints: ftrace refused them (%d)\n",
			n - hooked, err);
		bridge_failed = true;
	}
	return hooked;
}

static void hand_over(void)
{
	struct kprobe **heads;
	unsigned int i, n;
	int ret;

	lockdep_assert_held(&kprobes_mutex);
	bridges_queued = 0;
	n = kprobe_collect_heads(is_bridged, NULL, NULL, 0);
	if (!n)
		return;
	heads = kvmalloc_array(n, sizeof(*heads), GFP_KERNEL);
	if (!heads)
		return;		/* They work on their breakpoints meanwhile. */
	kprobe_collect_heads(is_bridged, NULL, heads, n);
	ret = kprobe_ftrace_arm(heads, n);
	if (ret)
		n = hook_one_by_one(heads, n, ret);
	if (!n) {
		kvfree(heads);
		return;
	}
	kprobe_bridge_step(KPROBE_BRIDGE_HOOKED);
	for (i = 0; i < n; i++)
		kprobe_flags_set(heads[i], KPROBE_FLAG_BRIDGE_GRACE);
	kprobe_bridge_step(KPROBE_BRIDGE_GRACE);
	synchronize_rcu();
	synchronize_rcu_tasks();
	for (i = 0; i < n; i++)
		kprobe_flags_clear(heads[i], KPROBE_FLAG_BRIDGE);
	kprobe_bridge_step(KPROBE_BRIDGE_PLAIN);
	kprobe_patch_breakpoints(heads, n, false);
	kprobe_bridge_step(KPROBE_BRIDGE_UNPLANTED);
	for (i = 0; i < n; i++)
		kprobe_flags_clear(heads[i], KPROBE_FLAG_BRIDGE_GRACE);
	kvfree(heads);
}

static void bridge_work_fn(struct work_struct *work)
{
	guard(mutex)(&kprobes_mutex);
	if (!bridges_held)
		hand_over();
}

static DECLARE_DELAYED_WORK(bridge_work, bridge_work_fn);

/**
 * kprobe_bridges_hold() - turn the bridge on and hold the worker off, or not
 * @hold: true to bridge lone registrations and keep them on their
 *	breakpoints; false to go back to the default (off)
 *
 * For KUnit cases that check the bridged state, which the worker could
 * otherwise end at any moment; kprobe_bridges_flush() still hands over.
 */
void kprobe_bridges_hold(bool hold)
{
	guard(mutex)(&kprobes_mutex);
	bridges_held = hold;
	WRITE_ONCE(bridge_on, hold);
	if (!hold && bridges_queued)
		mod_delayed_work(system_wq, &bridge_work, 0);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_bridges_hold);

/*
 * Can @head go on a breakpoint before its site?  Only ftrace heads, only
 * where the port has the instruction for it.
 */
bool kprobe_bridge_wanted(struct kprobe *head)
{
	return READ_ONCE(bridge_on) && kprobe_ftrace(head) &&
	       arch_kprobe_ftrace_bridge_ok(head);
}

/* @head's bridge breakpoint is in: hand it over soon. */
void kprobe_bridge_queue(struct kprobe *head)
{
	unsigned long waited, delay = 0;

	lockdep_assert_held(&kprobes_mutex);
	if (!bridges_queued++)
		bridges_queued_since = jiffies;
	waited = jiffies - bridges_queued_since;
	if (bridges_queued < BRIDGE_SET_MAX && waited < BRIDGE_MAX_WAIT)
		delay = min(BRIDGE_DELAY, BRIDGE_MAX_WAIT - waited);
	mod_delayed_work(system_wq, &bridge_work, delay);
}

/**
 * kprobe_bridges_flush() - hand every bridged probe over to ftrace now
 *
 * For tests that want hits to take the ftrace path from here on; it waits
 * two grace periods when there is anything to do.
 */
void kprobe_bridges_flush(void)
{
	cancel_delayed_work_sync(&bridge_work);
	guard(mutex)(&kprobes_mutex);
	hand_over();
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_bridges_flush);
