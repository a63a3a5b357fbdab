// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Arming: keeping each site's breakpoint (or ftrace hook) in line with its
 * probes and the global switch (kprobes/enabled in debugfs).
 *
 * Text patching is the expensive part of registering a probe: every
 * change must be made visible to all CPUs, and an ftrace filter update
 * walks every traceable function.  So sites are brought in line in sets:
 * all breakpoints of a set are written and then synchronised once, and
 * all its ftrace sites go into the filter in one update.  A single
 * registration is a set of one, but where the port has a bridge, an
 * ftrace site in a set of one gets a breakpoint in front of it and
 * joins the filter later with others (bridge.c).
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/memory.h>
#include <linux/cpu.h>

#include "internal.h"

/* kprobes/enabled: false while every probe is disarmed. */
bool kprobes_armed_globally = true;

/* Write (or take out) the breakpoints of @kps, synchronised once. */
void kprobe_patch_breakpoints(struct kprobe **kps, int n, bool arm)
{
	if (!n)
		return;
	cpus_read_lock();
	mutex_lock(&text_mutex);
	if (arm)
		arch_arm_kprobes(kps, n);
	else
		arch_disarm_kprobes(kps, n);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
}

/*
 * Hook the ftrace sites of @kps.  ftrace takes or refuses a filter update
 * as a whole; when it refuses, hook them one at a time so that those it
 * accepts are armed and the error names the first it does not.
 */
static int hook_ftrace_sites(struct kprobe **kps, int n)
{
	int i, err, ret;

	if (!n)
		return 0;
	ret = kprobe_ftrace_arm(kps, n);
	if (!ret) {
		for (i = 0; i < n; i++)
			kprobe_flags_set(kps[i], KPROBE_FLAG_ARMED);
		return 0;
	}
	if (n == 1)
		return ret;
	ret = 0;
	for (i = 0; i < n; i++) {
		err = kprobe_ftrace_arm(&kps[i], 1);
		if (err)
			ret = ret ?: err;
		else
			kprobe_flags_set(kps[i], KPROBE_FLAG_ARMED);
	}
	return ret;
}

static void unhook_ftrace_sites(struct kprobe **kps, int n)
{
	int i, ret;

	if (!n || !kprobe_ftrace_disarm(kps, n))
		return;
	/*
	 * No memory for the set: one at a time needs none.  Removing
	 * entries cannot be refused short of ftrace being dead.
	 */
	for (i = 0; i < n; i++) {
		ret = kprobe_ftrace_disarm(&kps[i], 1);
		WARN_ON_ONCE(ret && ret != -ENODEV);
	}
}

/*
 * The four kinds of change a set of heads may need, each patched at once.
 * Bridged heads (bridge.c) go with the breakpoints.
 */
struct arming_plan {
	struct kprobe **arm_bp, **arm_ft, **disarm_bp, **disarm_ft;
	int n_arm_bp, n_arm_ft, n_disarm_bp, n_disarm_ft;
	/* A set of one: an ftrace head goes on a bridge if it can. */
	bool alone;
};

static void plan_arm_ftrace(struct arming_plan *plan, struct kprobe *kp)
{
	if (plan->alone && kprobe_bridge_wanted(kp)) {
		/* Before the breakpoint is in: the port and hits look. */
		kprobe_flags_set(kp, KPROBE_FLAG_BRIDGE);
		plan->arm_bp[plan->n_arm_bp++] = kp;
	} else {
		plan->arm_ft[plan->n_arm_ft++] = kp;
	}
}

static void plan_head(struct arming_plan *plan, struct kprobe *kp)
{
	bool ft = kprobe_ftrace(kp), armed = kprobe_has_flag(kp, KPROBE_FLAG_ARMED);
	unsigned int enabled = head_nr_enabled(kp);
	bool want = kprobes_armed_globally && enabled && !kprobe_gone(kp);

	if (kprobe_is_site(kp)) {
		/* Hits see the site enabled before it is armed, disabled after. */
		if (enabled)
			kprobe_flags_clear(kp, KPROBE_FLAG_DISABLED);
	}
	if (want && !armed) {
		if (ft)
			plan_arm_ftrace(plan, kp);
		else
			plan->arm_bp[plan->n_arm_bp++] = kp;
	} else if (!want && armed) {
		/* The jump goes before the breakpoint under it. */
		kprobe_opt_unoptimize(kp);
		if (ft && !kprobe_has_flag(kp, KPROBE_FLAG_BRIDGE))
			plan->disarm_ft[plan->n_disarm_ft++] = kp;
		else
			plan->disarm_bp[plan->n_disarm_bp++] = kp;
	}
}

static int carry_out(struct arming_plan *plan)
{
	int i, ret;

	kprobe_patch_breakpoints(plan->arm_bp, plan->n_arm_bp, true);
	for (i = 0; i < plan->n_arm_bp; i++) {
		kprobe_flags_set(plan->arm_bp[i], KPROBE_FLAG_ARMED);
		if (kprobe_has_flag(plan->arm_bp[i], KPROBE_FLAG_BRIDGE))
			kprobe_bridge_queue(plan->arm_bp[i]);
	}
	ret = hook_ftrace_sites(plan->arm_ft, plan->n_arm_ft);

	kprobe_patch_breakpoints(plan->disarm_bp, plan->n_disarm_bp, false);
	unhook_ftrace_sites(plan->disarm_ft, plan->n_disarm_ft);
	for (i = 0; i < plan->n_disarm_bp; i++)
		kprobe_flags_clear(plan->disarm_bp[i], KPROBE_FLAG_ARMED |
						       KPROBE_FLAG_BRIDGE);
	for (i = 0; i < plan->n_disarm_ft; i++)
		kprobe_flags_clear(plan->disarm_ft[i], KPROBE_FLAG_ARMED);
	return ret;
}

/**
 * kprobe_heads_sync_arming() - bring a set of heads in line at once
 * @heads: the heads
 * @n: how many
 *
 * Arms the heads that have enabled probes (while the global switch is on)
 * and disarms the others, with one text synchronisation and one ftrace
 * filter update for the whole set, then lets the optimizer know.  Gone
 * heads are never armed: their text is gone too.
 *
 * Return: 0, or the first error that kept a head from being armed; the
 * others are in line all the same.
 */
int kprobe_heads_sync_arming(struct kprobe **heads, int n)
{
	struct kprobe *one[4];
	struct arming_plan plan = {};
	struct kprobe **room = one;
	int i, ret;

	lockdep_assert_held(&kprobes_mutex);
	if (n > 1) {
		room = kvmalloc_array(n, 4 * sizeof(*room), GFP_KERNEL);
		if (!room) {
			/* Slower, never wrong: one head at a time. */
			for (i = 0, ret = 0; i < n; i++)
				ret = kprobe_heads_sync_arming(&heads[i], 1) ?: ret;
			return ret;
		}
	}
	plan.arm_bp = room;
	plan.arm_ft = room + n;
	plan.disarm_bp = room + 2 * n;
	plan.disarm_ft = room + 3 * n;
	plan.alone = n == 1;
	for (i = 0; i < n; i++)
		plan_head(&plan, heads[i]);
	ret = carry_out(&plan);
	for (i = 0; i < n; i++) {
		if (kprobe_is_site(heads[i]) && !head_nr_enabled(heads[i]))
			kprobe_flags_set(heads[i], KPROBE_FLAG_DISABLED);
		/* A jump in place of the breakpoint, or not (optimize.c). */
		kprobe_opt_sync(heads[i]);
	}
	if (room != one)
		kvfree(room);
	return ret;
}

/**
 * kprobe_head_sync_arming() - kprobe_heads_sync_arming() for one head
 * @head: the head
 *
 * Return: 0 or the error that kept @head from being armed.
 */
int kprobe_head_sync_arming(struct kprobe *head)
{
	return kprobe_heads_sync_arming(&head, 1);
}

/*
 * The text under @heads is about to be freed: mark every probe there
 * [GONE].  They stay registered until their owners unregister them.  The
 * text is still mapped when we are told (module notifier,
 * kprobe_free_init_mem()), so the breakpoints are taken out properly:
 * code that still runs before the memory is released must not trap on a
 * site nobody looks up.  The heads stay in the table, but a breakpoint
 * found at one of their addresses later is someone else's (a debugger's,
 * or in new code loaded there): sites publish an empty chain, so that no
 * gone probe's handler can run, and ports decline hits on gone heads.
 */
void kprobe_heads_mark_gone(struct kprobe **heads, int n)
{
	struct kprobe *probe;
	bool detours = false;
	int i;

	lockdep_assert_held(&kprobes_mutex);
	for (i = 0; i < n; i++) {
		kprobe_flags_set(heads[i], KPROBE_FLAG_GONE);
		if (!kprobe_is_site(heads[i]))
			continue;
		to_site(heads[i])->nr_enabled = 0;
		list_for_each_entry(probe, &heads[i]->list, list)
			kprobe_flags_set(probe, KPROBE_FLAG_GONE);
		kprobe_site_clear_chain(to_site(heads[i]));
	}
	/* Gone heads are disarmed, and stay so. */
	kprobe_heads_sync_arming(heads, n);
	/* The slots and detours may still be in use by hits finishing. */
	for (i = 0; i < n; i++)
		detours |= kprobe_has_flag(heads[i], KPROBE_FLAG_DETOUR);
	kprobe_wait_out_hits(detours);
	for (i = 0; i < n; i++) {
		arch_remove_kprobe(heads[i]);
		if (kprobe_is_site(heads[i]))
			kprobe_opt_release(to_site(heads[i]));
	}
}

static void sync_one(struct kprobe *head, void *arg)
{
	int *err = arg;

	*err = kprobe_head_sync_arming(head) ?: *err;
}

/**
 * kprobe_set_armed_globally() - arm or disarm every site
 * @on: the new state of the global switch
 *
 * Each probe's own disabled state is left alone.  All sites change in
 * one go (one text synchronisation, one ftrace update) when there is
 * memory for the list, else one by one.
 *
 * Return: 0, or the error of a site that could not be armed.
 */
int kprobe_set_armed_globally(bool on)
{
	struct kprobe **heads;
	unsigned int i, n, failed = 0;
	int err = 0;

	guard(mutex)(&kprobes_mutex);
	if (kprobes_armed_globally == on)
		return 0;
	kprobes_armed_globally = on;
	n = kprobe_collect_heads(NULL, NULL, NULL, 0);
	heads = kvmalloc_array(n, sizeof(*heads), GFP_KERNEL);
	if (heads) {
		kprobe_collect_heads(NULL, NULL, heads, n);
		err = kprobe_heads_sync_arming(heads, n);
		for (i = 0; i < n; i++) {
			if (on && head_nr_enabled(heads[i]) &&
			    !kprobe_gone(heads[i]) &&
			    !kprobe_has_flag(heads[i], KPROBE_FLAG_ARMED))
				failed++;
		}
		kvfree(heads);
	} else {
		kprobe_visit_heads(sync_one, &err);
		failed = !!err;
	}
	if (failed)
		pr_warn("Kprobes globally enabled, but %u of %u probe sites could not be armed\n",
			failed, n);
	else
		pr_info("Kprobes globally %s\n", on ? "enabled" : "disabled");
	return err;
}
