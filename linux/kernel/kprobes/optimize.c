// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jump optimization, the arch-neutral half (see <linux/kprobes_arch.h>).
 *
 * A breakpoint site whose port can build a detour for it is queued once
 * its breakpoint is armed.  The optimizer, a delayed work item, takes
 * everything queued at once, waits until no CPU and no task can still be
 * inside any of the regions (the breakpoints divert whoever arrives later)
 * and has the port swap the breakpoints for jumps in one batch.
 *
 * A site loses its jump synchronously, before anything else changes, as
 * soon as it must not have one: disabled or disarmed, unregistered, a
 * post_handler added where the detour cannot run a post phase (it then
 * needs the trap after the instruction, and is published only once the
 * jump is out: see chain_publish() in site.c), another probe planted
 * inside its region, its text going away, or the sysctl
 * debug.kprobes-optimization set to 0.  The sysctl takes the detours away
 * too: breakpoint hits run the relocated copy of a region when there is
 * one, and "off" is what a user turns to when relocated code is suspect.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/workqueue.h>
#include <linux/sysctl.h>
#include <linux/memory.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "internal.h"

/*
 * Start at once: the optimizer takes whatever is queued when it runs, so
 * probes registered together are still optimized together, and a probe on
 * its own gets its jump within a grace period.
 */
#define OPTIMIZE_DELAY	0

static int optimization_on = 1;
static LIST_HEAD(opt_queue);
static void kprobe_optimizer(struct work_struct *work);
static DECLARE_DELAYED_WORK(optimizer_work, kprobe_optimizer);

/**
 * kprobe_opt_runs_post() - may @site keep a jump while it has a post phase?
 * @site: a site
 *
 * Return: true when @site has a detour and the port can run post phases
 * from it.
 */
bool kprobe_opt_runs_post(struct kprobe_site *site)
{
	return kprobe_has_flag(&site->kp, KPROBE_FLAG_DETOUR) &&
	       arch_optimized_kprobe_runs_post(&site->kp);
}

static bool wants_jump(struct kprobe_site *site)
{
	return optimization_on && kprobe_has_flag(&site->kp, KPROBE_FLAG_DETOUR) &&
	       kprobe_has_flag(&site->kp, KPROBE_FLAG_ARMED) &&
	       !kprobe_ftrace(&site->kp) && !kprobe_gone(&site->kp) &&
	       !kprobe_disabled(&site->kp) &&
	       (!site->kp.post_handler || kprobe_opt_runs_post(site));
}

/* The flag shows on the site and on every probe there. */
static void show_optimized(struct kprobe_site *site, bool on)
{
	struct kprobe *probe;

	if (on)
		kprobe_flags_set(&site->kp, KPROBE_FLAG_OPTIMIZED);
	else
		kprobe_flags_clear(&site->kp, KPROBE_FLAG_OPTIMIZED);
	list_for_each_entry(probe, &site->kp.list, list) {
		if (on)
			kprobe_flags_set(probe, KPROBE_FLAG_OPTIMIZED);
		else
			kprobe_flags_clear(probe, KPROBE_FLAG_OPTIMIZED);
	}
}

/* Take the jump out (and the site off the queue); the breakpoint stays. */
void kprobe_opt_unoptimize(struct kprobe *head)
{
	struct kprobe_site *site = to_site(head);

	lockdep_assert_held(&kprobes_mutex);
	/* Lone probes never have a detour. */
	if (!kprobe_is_site(head))
		return;
	list_del_init(&site->opt_node);
	if (!kprobe_optimized(head))
		return;
	cpus_read_lock();
	mutex_lock(&text_mutex);
	arch_unoptimize_kprobe(head);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	show_optimized(site, false);
}

/* After any change to @head: queue it for a jump, or take its jump out. */
void kprobe_opt_sync(struct kprobe *head)
{
	struct kprobe_site *site = to_site(head);

	lockdep_assert_held(&kprobes_mutex);
	if (!kprobe_is_site(head))
		return;
	if (!wants_jump(site)) {
		kprobe_opt_unoptimize(head);
		return;
	}
	if (kprobe_optimized(head)) {
		show_optimized(site, true);	/* for a newly added probe */
		return;
	}
	if (list_empty(&site->opt_node)) {
		list_add_tail(&site->opt_node, &opt_queue);
		schedule_delayed_work(&optimizer_work, OPTIMIZE_DELAY);
	}
}

/*
 * @site may no longer be jumped to, and its detour goes.  The site stays
 * armed throughout, so the order matters: breakpoint hits leave through
 * the detour while the jump is taken out, then no new hit may enter it,
 * then those inside are waited out, and only then is it freed.
 */
static void block_site(struct kprobe_site *site)
{
	kprobe_opt_unoptimize(&site->kp);
	WRITE_ONCE(site->kp.flags, site->kp.flags & ~KPROBE_FLAG_DETOUR);
	kprobe_wait_out_hits(true);
	arch_remove_optimized_kprobe(&site->kp);
}

/* The site at @at, if it has a detour whose region covers @addr. */
static struct kprobe_site *covering(unsigned long at, unsigned long addr)
{
	struct kprobe *kp = get_kprobe((void *)at);

	if (!kp || !kprobe_is_site(kp) || !kprobe_has_flag(kp, KPROBE_FLAG_DETOUR) ||
	    !arch_within_optimized_kprobe(kp, addr))
		return NULL;
	return to_site(kp);
}

/**
 * kprobe_opt_block_around() - a breakpoint is about to appear at @addr
 * @addr: its address
 *
 * Sites whose region covers @addr lose their detour: the new breakpoint
 * must not be jumped over.
 */
void kprobe_opt_block_around(unsigned long addr)
{
	struct kprobe_site *site;
	unsigned long at;

	lockdep_assert_held(&kprobes_mutex);
	for (at = addr - 1; at > addr - KPROBE_JUMP_REGION_MAX; at--) {
		site = covering(at, addr);
		if (site)
			block_site(site);
	}
}

/**
 * kprobe_opt_try() - give @site a detour if its region allows
 * @site: a breakpoint or ftrace site without one
 *
 * The site may be live: hits see the flag only after what the port
 * stored for the detour.
 */
void kprobe_opt_try(struct kprobe_site *site)
{
	lockdep_assert_held(&kprobes_mutex);
	if (!optimization_on || kprobe_ftrace(&site->kp) ||
	    arch_prepare_optimized_kprobe(&site->kp))
		return;
	/* Pairs with kprobe_has_detour(): the detour is built before. */
	smp_store_release(&site->kp.flags, site->kp.flags | KPROBE_FLAG_DETOUR);
}

/* A lone probe at @kp may have a detour now: it needs a site for it. */
static void retry_lone(struct kprobe *kp)
{
	struct kprobe_site *site = kprobe_site_with_detour(kp, true);

	if (site)
		kprobe_opt_sync(&site->kp);
}

/*
 * The head at @addr is gone from the table: neighbours it blocked may get
 * their detour back.
 */
void kprobe_opt_retry_around(unsigned long addr)
{
	struct kprobe_site *site;
	unsigned long at;
	struct kprobe *kp;

	lockdep_assert_held(&kprobes_mutex);
	for (at = addr - 1; at > addr - KPROBE_JUMP_REGION_MAX; at--) {
		kp = get_kprobe((void *)at);
		/* Heads without probes are on their way out. */
		if (!kp || list_empty(&kp->list) || kprobe_ftrace(kp) ||
		    kprobe_gone(kp))
			continue;
		if (!kprobe_is_site(kp)) {
			retry_lone(kp);
			continue;
		}
		site = to_site(kp);
		if (kprobe_has_flag(kp, KPROBE_FLAG_DETOUR))
			continue;
		kprobe_opt_try(site);
		kprobe_opt_sync(kp);
	}
}

/* Free the detour of a site nobody can reach any more. */
void kprobe_opt_release(struct kprobe_site *site)
{
	if (kprobe_has_flag(&site->kp, KPROBE_FLAG_DETOUR)) {
		kprobe_flags_clear(&site->kp, KPROBE_FLAG_DETOUR);
		arch_remove_optimized_kprobe(&site->kp);
	}
}

static void kprobe_optimizer(struct work_struct *work)
{
	struct kprobe_site *site, *next;
	struct kprobe **batch;
	LIST_HEAD(taken);
	int n = 0, max = 0;

	mutex_lock(&kprobes_mutex);
	list_splice_init(&opt_queue, &taken);
	mutex_unlock(&kprobes_mutex);
	if (list_empty(&taken))
		return;
	/*
	 * Every site taken has its breakpoint armed, so whoever reaches one
	 * of the regions now is diverted; wait out those already inside.
	 * Without the mutex: registration goes on meanwhile, and a site that
	 * changes in between simply leaves the list.
	 */
	kprobe_wait_out_hits(true);

	mutex_lock(&kprobes_mutex);
	list_for_each_entry(site, &taken, opt_node)
		max++;
	batch = max ? kmalloc_array(max, sizeof(*batch), GFP_KERNEL) : NULL;
	list_for_each_entry_safe(site, next, &taken, opt_node) {
		list_del_init(&site->opt_node);
		if (!batch) {
			/* Breakpoints keep working; try again later. */
			kprobe_opt_sync(&site->kp);
			continue;
		}
		if (wants_jump(site))
			batch[n++] = &site->kp;
	}
	if (n) {
		cpus_read_lock();
		mutex_lock(&text_mutex);
		arch_optimize_kprobes(batch, n);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
		while (n--)
			show_optimized(to_site(batch[n]), true);
	}
	kfree(batch);
	mutex_unlock(&kprobes_mutex);
}

/**
 * wait_for_kprobe_optimizer() - run the optimizer now and wait for it
 *
 * When this returns, every site that was queued for a jump has one (or
 * was found unable to take one), so callers such as tests and benchmarks
 * see the result of optimization without waiting for the work to run.
 */
void wait_for_kprobe_optimizer(void)
{
	flush_delayed_work(&optimizer_work);
}
EXPORT_SYMBOL_IF_KUNIT(wait_for_kprobe_optimizer);

/* Could the head at @kp be given a detour? */
static bool may_regain_detour(struct kprobe *kp)
{
	return !list_empty(&kp->list) && !kprobe_ftrace(kp) && !kprobe_gone(kp);
}

/*
 * Optimization on: sites get their detours back and are queued for a
 * jump.  Lone probes need a site for theirs, which changes the table: they
 * are counted (@l->kps NULL) or collected here, and given one afterwards.
 */
struct lone_heads {
	struct kprobe **kps;
	unsigned int n, max;
};

static void regain_detour(struct kprobe *head, void *arg)
{
	struct lone_heads *l = arg;

	if (!may_regain_detour(head))
		return;
	if (!kprobe_is_site(head)) {
		if (l->kps && l->n < l->max)
			l->kps[l->n] = head;
		l->n++;
		return;
	}
	if (!kprobe_has_flag(head, KPROBE_FLAG_DETOUR))
		kprobe_opt_try(to_site(head));
	kprobe_opt_sync(head);
}

static void optimization_back_on(void)
{
	struct lone_heads l = {};
	unsigned int i;

	kprobe_visit_heads(regain_detour, &l);
	if (!l.n)
		return;
	/* Without memory lone probes keep their breakpoints: slower, not wrong. */
	l.kps = kvmalloc_array(l.n, sizeof(*l.kps), GFP_KERNEL);
	if (!l.kps)
		return;
	l.max = l.n;
	l.n = 0;
	kprobe_visit_heads(regain_detour, &l);
	for (i = 0; i < l.n; i++)
		retry_lone(l.kps[i]);
	kvfree(l.kps);
}

/*
 * Optimization off, first pass: the jump goes, then no new hit may enter
 * the detour (as in block_site()).  The scratch mark says which detours
 * the second pass frees, once the hits inside them are over.
 */
static void retire_detour(struct kprobe *head, void *unused)
{
	if (!kprobe_is_site(head) || !kprobe_has_flag(head, KPROBE_FLAG_DETOUR))
		return;
	kprobe_opt_unoptimize(head);
	WRITE_ONCE(head->flags, (head->flags & ~KPROBE_FLAG_DETOUR) |
				KPROBE_FLAG_IN_BATCH);
}

static void free_retired_detour(struct kprobe *head, void *unused)
{
	if (!kprobe_has_flag(head, KPROBE_FLAG_IN_BATCH))
		return;
	kprobe_flags_clear(head, KPROBE_FLAG_IN_BATCH);
	arch_remove_optimized_kprobe(head);
}

/**
 * kprobe_set_optimization() - turn jump optimization on or off
 * @on: the new setting
 *
 * Off takes every jump and every detour out before returning, so no hit
 * runs relocated code any more; on gives every site that can have one a
 * detour and queues it for a jump.  What debug.kprobes-optimization
 * writes.
 */
void kprobe_set_optimization(bool on)
{
	mutex_lock(&kprobes_mutex);
	optimization_on = on;
	if (on) {
		optimization_back_on();
	} else {
		kprobe_visit_heads(retire_detour, NULL);
		/* One wait for all of them. */
		kprobe_wait_out_hits(true);
		kprobe_visit_heads(free_retired_detour, NULL);
	}
	mutex_unlock(&kprobes_mutex);
	if (!on)
		pr_info("jump optimization is off\n");
}

static int optimization_sysctl(const struct ctl_table *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	int value = optimization_on, ret;
	struct ctl_table t = *table;

	t.data = &value;
	ret = proc_dointvec_minmax(&t, write, buffer, lenp, ppos);
	if (!ret && write)
		kprobe_set_optimization(value);
	return ret;
}

static struct ctl_table optimization_table[] = {
	{
		.procname	= "kprobes-optimization",
		.data		= &optimization_on,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= optimization_sysctl,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init kprobes_optimization_init(void)
{
	register_sysctl_init("debug", optimization_table);
	return 0;
}
late_initcall(kprobes_optimization_init);
