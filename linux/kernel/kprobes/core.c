// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes core: registering, unregistering, enabling and disabling
 * probes.  Where a probe may go is decided in vet.c, what stands at an
 * address in site.c and table.c, arming in arming.c, and a hit's side
 * of all this in hit.c.
 *
 * Updates take kprobes_mutex and publish with RCU; a hit only reads the
 * table under the protection its trap context already gives (interrupts
 * or preemption off), so it takes no lock and allocates nothing.  A site
 * is freed only after a grace period, which is also what guarantees that
 * no handler of a probe runs once unregister_kprobe() has returned.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/module.h>
#include <kunit/visibility.h>

#include "internal.h"

/* Serialises every change to sites and probes; never taken on a hit. */
DEFINE_MUTEX(kprobes_mutex);
static bool kprobes_ready;

/**
 * kprobe_wait_out_hits() - wait until every hit already under way is over
 * @detours: a detour that hits may have entered is being retired
 *
 * Whatever a hit could reach and is now unpublished (a head out of the
 * table, a probe off its site, a chain replaced, a detour no longer
 * offered) may be freed once this returns: no CPU is still in a handler
 * or a slot it found before.  Hits run with interrupts or preemption off,
 * so one grace period covers them, expedited because tools remove probes
 * one by one by the thousand and each caller waits for it
 * (rcupdate.rcu_normal makes it a normal one where the IPIs would hurt).
 * A detour's copy of the region runs preemptibly, and so may the copies
 * a port lets run without a trap after them (KPROBE_PREEMPTIBLE_SLOTS):
 * a task preempted there must have left too, which takes RCU-tasks, a
 * wait for every task to schedule voluntarily, so it is paid only when a
 * detour is retired or the port asks for it.
 */
void kprobe_wait_out_hits(bool detours)
{
	synchronize_rcu_expedited();
	if (IS_ENABLED(CONFIG_PREEMPTION) && (detours || KPROBE_PREEMPTIBLE_SLOTS))
		synchronize_rcu_tasks();
}

/* --- registration --- */

/*
 * Lone probes are their own heads and on no site's list; they are kept on
 * this one instead, so that a registered probe's @list is never empty
 * (callers such as trace_kprobe tell registered probes by it).
 */
static LIST_HEAD(lone_probes);

/* Is @probe registered at @head? */
static bool head_has_probe(struct kprobe *head, struct kprobe *probe)
{
	struct kprobe *q;

	if (head == probe)
		return true;
	if (!kprobe_is_site(head))
		return false;
	list_for_each_entry(q, &head->list, list)
		if (q == probe)
			return true;
	return false;
}

/* The head @probe is registered at, or NULL when it is not registered. */
static struct kprobe *head_of(struct kprobe *probe)
{
	struct kprobe *head = get_kprobe(probe->addr);

	return head && head_has_probe(head, probe) ? head : NULL;
}

/* Free what a head that left the table owns; after a grace period. */
static void free_head(struct kprobe *head)
{
	if (!kprobe_gone(head))
		arch_remove_kprobe(head);
	if (kprobe_is_site(head))
		kprobe_site_free(to_site(head));
}

/*
 * Heads touched by a batch are collected once each; the mark is only
 * used under kprobes_mutex and cleared before the mutex is released.
 */
static void collect_head(struct kprobe *head, struct kprobe **set, int *n)
{
	if (kprobe_has_flag(head, KPROBE_FLAG_IN_BATCH))
		return;
	kprobe_flags_set(head, KPROBE_FLAG_IN_BATCH);
	set[(*n)++] = head;
}

static void uncollect_heads(struct kprobe **set, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kprobe_flags_clear(set[i], KPROBE_FLAG_IN_BATCH);
}

/* Take @probe off its head; returns the head, or NULL if not registered. */
static struct kprobe *detach_probe(struct kprobe *probe)
{
	struct kprobe *head = head_of(probe);
	struct kprobe_site *site;

	if (!head) {
		/* Not registered: say so the way callers expect. */
		probe->addr = NULL;
		return NULL;
	}
	if (head == probe) {
		/* Alone: it stays the head until it leaves the table. */
		list_del_init(&probe->list);
		return head;
	}
	site = to_site(head);
	kprobe_site_unlink(site, probe);
	kprobe_flags_clear(probe, KPROBE_FLAG_OPTIMIZED);
	if (!kprobe_disabled(probe))
		site->nr_enabled--;
	return head;
}

/*
 * Detach @kps and disarm the heads left without enabled probes, all with
 * one round of text patching.  Heads left without probes leave the table
 * and end up in @dead, to be freed after a grace period.  Returns their
 * number.
 */
static int detach_locked(struct kprobe **kps, int num, struct kprobe **dead)
{
	struct kprobe *head;
	int i, n = 0, nr_dead = 0;

	lockdep_assert_held(&kprobes_mutex);
	for (i = 0; i < num; i++) {
		head = detach_probe(kps[i]);
		if (head)
			collect_head(head, dead, &n);
	}
	uncollect_heads(dead, n);
	kprobe_heads_sync_arming(dead, n);
	for (i = 0; i < n; i++) {
		head = dead[i];
		if (!list_empty(&head->list))
			continue;
		kprobe_table_del(head);
		dead[nr_dead++] = head;
	}
	/* Neighbours they kept from a jump may have one again. */
	for (i = 0; i < nr_dead; i++)
		kprobe_opt_retry_around((unsigned long)dead[i]->addr);
	return nr_dead;
}

/**
 * kprobe_detach_batch() - first half of unregistering several probes
 * @kps: the probes
 * @num: how many
 * @dead: room for @num heads; filled with those that left the table
 *
 * After this no new hit runs the handlers of @kps.  Hand the filled
 * entries of @dead to kprobe_free_batch().
 *
 * Return: how many entries of @dead were filled.
 */
int kprobe_detach_batch(struct kprobe **kps, int num, struct kprobe **dead)
{
	int n;

	mutex_lock(&kprobes_mutex);
	n = detach_locked(kps, num, dead);
	mutex_unlock(&kprobes_mutex);
	return n;
}

/**
 * kprobe_free_batch() - second half: wait out running hits, then free
 * @kps: the probes given to kprobe_detach_batch()
 * @num: how many
 * @dead: the heads it returned
 * @n: how many heads
 */
void kprobe_free_batch(struct kprobe **kps, int num, struct kprobe **dead,
		       int n)
{
	bool detours = false;
	int i;

	/* One wait for the whole batch. */
	for (i = 0; i < n; i++)
		detours |= kprobe_has_flag(dead[i], KPROBE_FLAG_DETOUR);
	kprobe_wait_out_hits(detours);
	for (i = 0; i < n; i++)
		free_head(dead[i]);
	for (i = 0; i < num; i++) {
		/*
		 * Not registered where its ->addr said (detach_probe()
		 * cleared that): its links may be in use at another
		 * address, the caller's mistake to undo, not ours to wipe.
		 */
		if (!kps[i]->addr)
			continue;
		INIT_LIST_HEAD(&kps[i]->list);
		INIT_HLIST_NODE(&kps[i]->hlist);
		kprobe_flags_clear(kps[i], KPROBE_CORE_FLAGS);
	}
}

static void unregister_batch(struct kprobe **kps, int num)
{
	struct kprobe *one, **dead = &one;
	int n;

	if (num <= 0)
		return;
	if (num > 1)
		dead = kvcalloc(num, sizeof(*dead), GFP_KERNEL | __GFP_NOFAIL);
	n = kprobe_detach_batch(kps, num, dead);
	kprobe_free_batch(kps, num, dead, n);
	if (dead != &one)
		kvfree(dead);
}

/**
 * kprobe_registered() - is @probe registered (possibly disabled or gone)?
 * @probe: a probe
 *
 * Return: true when it is.
 */
bool kprobe_registered(struct kprobe *probe)
{
	guard(mutex)(&kprobes_mutex);
	return probe->addr && head_of(probe);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_registered);

/* What a failed registration gives back to the caller's probe. */
struct reg_undo {
	kprobe_opcode_t *addr;
	u32 flags;
	/*
	 * vet_probe() wrote to the probe.  A probe it refused is someone
	 * else's (registered already): a failed batch must not write to it.
	 */
	bool taken_over;
	/* Held while the probe is planted, so its text stays. */
	struct module *mod;
};

/*
 * First step: resolve @probe's address and check that it may be probed.
 * A probe that is already registered is refused and left as it is: its
 * fields belong to the core, which changes them under the mutex only
 * (enable_kprobe() may be doing so right now).  So the check and the
 * first writes, and what the undo saves, happen under the mutex together.
 */
static int vet_probe(struct kprobe *probe, struct reg_undo *undo)
{
	kprobe_opcode_t *addr;
	struct kprobe *head;
	bool on_entry, taken;

	undo->taken_over = false;
	undo->mod = NULL;
	addr = kprobe_resolve_addr(probe->addr, probe->symbol_name,
				   probe->offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	mutex_lock(&kprobes_mutex);
	head = get_kprobe(addr);
	/*
	 * Registered already: at this address, or at another one its
	 * caller has since written into ->addr.  A registered probe is on
	 * a list; a fresh one has no links, an unregistered one empty ones
	 * (kprobe_free_batch()) or, taken off a site twice in one batch, a
	 * poisoned back link.
	 */
	taken = (head && head_has_probe(head, probe)) ||
		(probe->list.next && !list_empty(&probe->list) &&
		 probe->list.prev != LIST_POISON2);
	if (!taken) {
		undo->addr = probe->addr;
		undo->flags = probe->flags;
		undo->taken_over = true;
		probe->addr = addr;
		probe->flags &= KPROBE_FLAG_DISABLED;
		if (on_entry)
			kprobe_flags_set(probe, KPROBE_FLAG_ON_FUNC_ENTRY);
		probe->nmissed = 0;
		INIT_HLIST_NODE(&probe->hlist);
		INIT_LIST_HEAD(&probe->list);
	}
	mutex_unlock(&kprobes_mutex);
	if (taken)
		return -EINVAL;
	return kprobe_check_text(probe, &undo->mod);
}

/* @probe is the first at its address: it becomes the head itself. */
static int attach_alone(struct kprobe *probe)
{
	struct kprobe_site *site;
	int ret;

	ret = kprobe_prepare_arch(probe);
	if (ret)
		return ret;
	/* Sites whose jump would skip the new breakpoint lose it. */
	kprobe_opt_block_around((unsigned long)probe->addr);
	list_add(&probe->list, &lone_probes);
	site = kprobe_site_with_detour(probe, false);
	kprobe_table_add(site ? &site->kp : probe);
	return 0;
}

/* Second step, under the mutex: put @probe at its address. */
static int attach_probe(struct kprobe *probe)
{
	struct kprobe *head = get_kprobe(probe->addr);
	struct kprobe_site *site;
	int ret;

	/* Twice in one batch: the first one is already attached. */
	if (!list_empty(&probe->list))
		return -EINVAL;
	if (!head)
		return attach_alone(probe);
	if (kprobe_is_site(head)) {
		site = to_site(head);
	} else {
		site = kprobe_site_from(head);
		if (!site)
			return -ENOMEM;
		ret = kprobe_site_take_over(site, head, true);
		if (ret) {
			kprobe_site_discard(site);
			return ret;
		}
	}
	if (kprobe_gone(&site->kp)) {
		ret = kprobe_site_revive(site, probe);
		if (ret)
			return ret;
	}
	return kprobe_site_link(site, probe);
}

/*
 * Register @kps as one operation: vet them all, attach them all, then arm
 * every head they need with one round of text patching.  On any error
 * the probes attached so far are detached again, one grace period frees
 * what was made for them, and every probe is given back as it came.
 */
static int register_batch(struct kprobe **kps, int num)
{
	struct kprobe *one, **heads = &one;
	struct reg_undo undo_one, *undo = &undo_one;
	int i, n = 0, vetted, attached = 0, ret = 0;

	if (!kprobes_ready)
		return -EAGAIN;
	if (num <= 0)
		return -EINVAL;
	if (num > 1) {
		/* One allocation for both: less for a big batch to ask for. */
		heads = kvcalloc(num, sizeof(*heads) + sizeof(*undo), GFP_KERNEL);
		if (!heads)
			return -ENOMEM;
		undo = (struct reg_undo *)(heads + num);
	}
	for (vetted = 0; vetted < num && !ret; vetted++)
		ret = vet_probe(kps[vetted], &undo[vetted]);
	if (ret)
		goto out_restore;

	mutex_lock(&kprobes_mutex);
	/* One resize for the whole batch rather than one per doubling. */
	kprobe_table_reserve(num);
	for (; attached < num; attached++) {
		ret = kprobe_check_text_still_there(kps[attached], undo[attached].mod) ?:
		      attach_probe(kps[attached]);
		if (ret)
			break;
	}
	if (!ret) {
		/* Only now: a head may have become a site during the batch. */
		for (i = 0; i < num; i++)
			collect_head(get_kprobe(kps[i]->addr), heads, &n);
		uncollect_heads(heads, n);
		ret = kprobe_heads_sync_arming(heads, n);
	}
	if (ret)
		n = detach_locked(kps, attached, heads);
	mutex_unlock(&kprobes_mutex);
	if (ret)
		kprobe_free_batch(kps, attached, heads, n);

out_restore:
	for (i = vetted - 1; i >= 0; i--) {
		module_put(undo[i].mod);
		/*
		 * A failed registration leaves the caller's probes as they
		 * were, and does not touch those it refused.
		 */
		if (ret && undo[i].taken_over) {
			kps[i]->addr = undo[i].addr;
			WRITE_ONCE(kps[i]->flags, undo[i].flags);
		}
	}
	if (heads != &one)
		kvfree(heads);
	return ret;
}

/**
 * register_kprobe() - plant a probe
 * @probe: the probe, zeroed and then given @addr or @symbol_name
 *         (+ @offset) and the handlers
 *
 * Return: 0 once the probe is live (or registered disabled, when
 * KPROBE_FLAG_DISABLED is set); @probe->addr then holds the probed address.
 * Errors: -EINVAL for a bad request (both or neither of @addr and
 * @symbol_name, an address outside kernel text or in the blacklist, @probe
 * already registered, an instruction that cannot be probed); -EILSEQ when
 * the address is not on an instruction boundary; -ENOENT for an unknown
 * symbol or a module going away; -ENOMEM; -EAGAIN before the core is up;
 * or ftrace's error when the ftrace call site cannot be hooked.  On error
 * nothing is left registered and @probe's @addr and @flags are as the
 * caller set them.
 */
int register_kprobe(struct kprobe *probe)
{
	return register_batch(&probe, 1);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/**
 * unregister_kprobe() - remove a probe
 * @probe: a probe registered with register_kprobe(), possibly [GONE]
 *
 * When this returns, no handler of @probe runs or will run and @probe may be freed.
 * An unregistered @probe only has its @addr cleared.
 */
void unregister_kprobe(struct kprobe *probe)
{
	unregister_batch(&probe, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/**
 * register_kprobes() - register several probes, all or none
 * @kps: the probes
 * @num: how many
 *
 * The whole set is planted with one round of text patching (and one
 * ftrace filter update for probes on ftrace call sites), so a large set
 * costs far less than registering its probes one by one.
 *
 * Return: 0, or the first error (see register_kprobe()); then none of
 * @kps is registered and each is as the caller set it.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	return register_batch(kps, num);
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * unregister_kprobes() - unregister several probes at once
 * @kps: the probes; any mix of live, disabled and [GONE] ones
 * @num: how many
 *
 * One round of text patching and one grace period for the whole set.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	unregister_batch(kps, num);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/* Flip @probe's own switch and its site's count of enabled probes. */
static void set_disabled_flag(struct kprobe *probe, bool enable)
{
	if (enable)
		kprobe_flags_clear(probe, KPROBE_FLAG_DISABLED);
	else
		kprobe_flags_set(probe, KPROBE_FLAG_DISABLED);
}

/* Return: 0, or -ENOMEM (enabling only) with nothing changed. */
static int flip_probe(struct kprobe *head, struct kprobe *probe, bool enable)
{
	int ret;

	set_disabled_flag(probe, enable);
	if (!kprobe_is_site(head))
		return 0;
	ret = kprobe_site_flipped(to_site(head), probe);
	if (ret) {
		set_disabled_flag(probe, !enable);
		return ret;
	}
	to_site(head)->nr_enabled += enable ? 1 : -1;
	return 0;
}

static int set_probe_enabled(struct kprobe *probe, bool enable)
{
	struct kprobe *head;
	int ret;

	guard(mutex)(&kprobes_mutex);
	head = head_of(probe);
	if (!head)
		return -EINVAL;
	if (kprobe_gone(probe))
		return enable ? -EINVAL : 0;
	if (enable == !kprobe_disabled(probe))
		return 0;
	ret = flip_probe(head, probe, enable);
	if (ret)
		return ret;
	ret = kprobe_head_sync_arming(head);
	if (ret && enable) {
		flip_probe(head, probe, false);
		kprobe_head_sync_arming(head);
	}
	return ret;
}

/**
 * disable_kprobe() - stop a registered probe's handlers, keep it registered
 * @kp: the probe
 *
 * Return: 0, or -EINVAL when @kp is not registered.
 */
int disable_kprobe(struct kprobe *kp)
{
	return set_probe_enabled(kp, false);
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * enable_kprobe() - re-enable a disabled probe
 * @kp: the probe
 *
 * Return: 0, -EINVAL when @kp is not registered or its text is gone,
 * -ENOMEM when it shares its address with others and the chain of
 * handlers hits walk could not be rebuilt, or the error that kept it
 * from being armed (in each case it stays disabled).
 */
int enable_kprobe(struct kprobe *kp)
{
	return set_probe_enabled(kp, true);
}
EXPORT_SYMBOL_GPL(enable_kprobe);

static int __init init_kprobes(void)
{
	int ret;

	ret = kprobe_site_init();
	if (ret)
		return ret;
	ret = kprobe_blacklist_init();
	if (ret)
		pr_err("no blacklist (error %d): probes are not restricted\n",
		       ret);
	ret = arch_init_kprobes();
	kprobes_ready = !ret;
	return ret;
}
early_initcall(init_kprobes);
