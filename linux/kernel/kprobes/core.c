// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes core: the site table, registration, enabling and the helpers the
 * architecture's trap handlers call on a hit.
 *
 * Updates take probes_mutex and publish with RCU; a hit only reads the
 * table under the protection its trap context already gives (interrupts
 * or preemption off), so it takes no lock and allocates nothing.  A site
 * is freed only after a grace period, which is also what guarantees that
 * no handler of a probe runs once unregister_kprobe() has returned.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/moduleloader.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/memory.h>
#include <linux/cpu.h>
#include <linux/bug.h>
#include <linux/mm.h>
#include <kunit/visibility.h>
#include <asm/sections.h>

#include "internal.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* The user probe whose handler runs on this CPU, for fault_handler. */
DEFINE_PER_CPU(struct kprobe *, kprobe_in_handler);

/* Serialises every change to sites and probes; never taken on a hit. */
DEFINE_MUTEX(probes_mutex);
bool kprobes_armed_globally = true;
static bool kprobes_ready;
/* Sites are the one allocation per probed address: no kmalloc rounding. */
static struct kmem_cache *site_cache;

/* --- what the arch's hit path calls --- */

int kprobe_run_fault_handler(struct kprobe *kp, struct pt_regs *regs,
			     int trapnr)
{
	struct kprobe *running = __this_cpu_read(kprobe_in_handler);
	struct kprobe *probe;

	/* A handler faulted: only that probe's fault_handler may answer. */
	if (running)
		return running->fault_handler ?
			running->fault_handler(running, regs, trapnr) : 0;

	/* Only a real site has probes; kprobe_busy and friends do not. */
	if (get_kprobe(kp->addr) != kp)
		return 0;
	/* The probed instruction faulted: it belongs to every probe here. */
	list_for_each_entry_rcu(probe, &kp->list, list) {
		if (kprobe_disabled(probe) || !probe->fault_handler)
			continue;
		if (probe->fault_handler(probe, regs, trapnr))
			return 1;
	}
	return 0;
}
NOKPROBE_SYMBOL(kprobe_run_fault_handler);

/**
 * kprobes_inc_nmissed_count() - count a hit whose handlers did not run
 * @kp: the site kprobe that was hit
 *
 * Every probe at the address missed the hit, so each one counts it.
 */
void kprobes_inc_nmissed_count(struct kprobe *kp)
{
	struct kprobe *probe;

	list_for_each_entry_rcu(probe, &kp->list, list)
		probe->nmissed++;
}
NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

/* Stands in for a running probe while kprobe_busy_begin() is in force. */
static struct kprobe kprobe_busy = {
	.addr = (void *)get_kprobe,
};

/**
 * kprobe_busy_begin() - make probe hits on this CPU count as missed
 *
 * For code that runs probe-handler-like work outside a probe hit (return
 * handlers, fprobe).  Disables preemption until kprobe_busy_end().
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	__this_cpu_write(current_kprobe, &kprobe_busy);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
}
NOKPROBE_SYMBOL(kprobe_busy_begin);

/** kprobe_busy_end() - end a kprobe_busy_begin() section */
void kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}
NOKPROBE_SYMBOL(kprobe_busy_end);

void dump_kprobe(struct kprobe *kp)
{
	pr_err("probe at %pS (symbol %s, offset %#x)\n", kp->addr,
	       kp->symbol_name ?: "-", kp->offset);
}
NOKPROBE_SYMBOL(dump_kprobe);

/* --- where a probe may go --- */

kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

kprobe_opcode_t * __weak arch_adjust_kprobe_addr(unsigned long addr,
						 unsigned long offset,
						 bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Turn (addr | symbol_name) + offset into the address to probe, in the
 * canonical symbol+offset form the arch may adjust (an ENDBR at entry, for
 * instance).  Both or neither given: -EINVAL; unknown symbol: -ENOENT.
 */
static kprobe_opcode_t *resolve_probe_addr(kprobe_opcode_t *addr,
					   const char *symbol_name,
					   unsigned long offset,
					   bool *on_func_entry)
{
	unsigned long target, sym_off, sym_size;

	if (!!addr == !!symbol_name)
		return ERR_PTR(-EINVAL);
	if (symbol_name) {
		addr = kprobe_lookup_name(symbol_name, offset);
		if (!addr)
			return ERR_PTR(-ENOENT);
	}
	target = (unsigned long)addr + offset;
	if (!kallsyms_lookup_size_offset(target, &sym_size, &sym_off))
		return ERR_PTR(-ENOENT);
	return arch_adjust_kprobe_addr(target - sym_off, sym_off, on_func_entry);
}

/**
 * kprobe_on_func_entry() - is this address a function's entry?
 * @addr: address, or NULL when @sym is given
 * @sym: symbol name, or NULL
 * @offset: offset from @addr or @sym
 *
 * Return: 0 at a function entry, -EINVAL elsewhere, -ENOENT when the
 * symbol cannot be found.  Registers nothing.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	kprobe_opcode_t *where;

	return kprobe_func_entry_of(addr, sym, offset, &where);
}

/*
 * kprobe_on_func_entry() that also gives the resolved address in @where:
 * kretprobes need it before registering.
 */
int kprobe_func_entry_of(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset, kprobe_opcode_t **where)
{
	bool on_entry;

	*where = resolve_probe_addr(addr, sym, offset, &on_entry);
	if (IS_ERR(*where))
		return PTR_ERR(*where);
	return on_entry ? 0 : -EINVAL;
}

static bool in_cfi_preamble(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (lookup_symbol_name(addr, name))
		return false;
	return str_has_prefix(name, "__cfi_") || str_has_prefix(name, "__pfx_");
}

/*
 * Can the text at @addr take a probe?  On success *@modp holds a reference
 * on the module that owns the text (NULL for the kernel image), so it
 * cannot go away while the probe is being planted.
 */
static int check_probe_text(struct kprobe *probe, struct module **modp)
{
	unsigned long addr = (unsigned long)probe->addr;
	unsigned long ftrace_addr;
	struct module *mod;
	int ret = 0;

	*modp = NULL;
	ftrace_addr = ftrace_location(addr);
	if (ftrace_addr == addr) {
		if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
			return -EINVAL;
		probe->flags |= KPROBE_FLAG_FTRACE;
	} else if (ftrace_addr) {
		/* Inside the ftrace call site, not at its start. */
		return -EILSEQ;
	}

	jump_label_lock();
	preempt_disable();
	if (!(core_kernel_text(addr) || is_module_text_address(addr)) ||
	    in_gate_area_no_mm(addr) ||
	    within_kprobe_blacklist(addr) ||
	    jump_label_text_reserved(probe->addr, probe->addr) ||
	    static_call_text_reserved(probe->addr, probe->addr) ||
	    find_bug(addr) || in_cfi_preamble(addr)) {
		ret = -EINVAL;
		goto out;
	}

	mod = __module_text_address(addr);
	if (mod) {
		/* A module on its way out cannot take new probes. */
		if (!try_module_get(mod)) {
			ret = -ENOENT;
			goto out;
		}
		/* Its init text is about to be freed once it is live. */
		if (within_module_init(addr, mod) && !module_is_coming(mod)) {
			module_put(mod);
			ret = -ENOENT;
			goto out;
		}
		*modp = mod;
	}
out:
	preempt_enable();
	jump_label_unlock();
	return ret;
}

/* --- registration --- */

static struct kprobe_site *new_site(struct kprobe *probe)
{
	struct kprobe_site *site = kmem_cache_zalloc(site_cache, GFP_KERNEL);
	int ret;

	if (!site)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&site->kp.list);
	INIT_HLIST_NODE(&site->kp.hlist);
	site->kp.addr = probe->addr;
	site->kp.symbol_name = probe->symbol_name;
	site->kp.offset = probe->offset;
	site->kp.flags = (probe->flags & (KPROBE_FLAG_FTRACE |
				      KPROBE_FLAG_ON_FUNC_ENTRY)) |
			 KPROBE_FLAG_DISABLED;
	if (kprobe_ftrace(probe)) {
#ifdef CONFIG_KPROBES_ON_FTRACE
		ret = arch_prepare_kprobe_ftrace(&site->kp);
#else
		ret = -EINVAL;
#endif
	} else {
		ret = arch_prepare_kprobe(&site->kp);
	}
	if (ret) {
		kmem_cache_free(site_cache, site);
		return ERR_PTR(ret);
	}
	kprobe_opt_prepare(site);
	return site;
}

/*
 * New code now sits where a site's text went away (a module loaded where
 * an unloaded one was).  The old probes stay [GONE]; the site is prepared
 * afresh for the new code and @probe.
 */
static int revive_site(struct kprobe_site *site, struct kprobe *probe)
{
	struct kprobe *kp = &site->kp;
	int ret;

	memset(&kp->ainsn, 0, sizeof(kp->ainsn));
	kp->flags = (probe->flags & (KPROBE_FLAG_FTRACE |
				     KPROBE_FLAG_ON_FUNC_ENTRY)) |
		    KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE;
#ifdef CONFIG_KPROBES_ON_FTRACE
	if (kprobe_ftrace(kp))
		ret = arch_prepare_kprobe_ftrace(kp);
	else
#endif
		ret = arch_prepare_kprobe(kp);
	if (!ret) {
		kp->flags &= ~KPROBE_FLAG_GONE;
		kprobe_opt_prepare(site);
	}
	return ret;
}

static void free_site(struct kprobe_site *site)
{
	if (!kprobe_gone(&site->kp))
		arch_remove_kprobe(&site->kp);
	kprobe_opt_release(site);
	kmem_cache_free(site_cache, site);
}

/* Is @probe one of the probes at @site? */
static bool site_has_probe(struct kprobe_site *site, struct kprobe *probe)
{
	struct kprobe *q;

	list_for_each_entry(q, &site->kp.list, list)
		if (q == probe)
			return true;
	return false;
}

/* The site @probe is registered at, or NULL when @probe is not registered. */
static struct kprobe_site *site_of(struct kprobe *probe)
{
	struct kprobe *kp = get_kprobe(probe->addr);

	if (kp && site_has_probe(to_site(kp), probe))
		return to_site(kp);
	return NULL;
}

/*
 * @probe joins @site: on its list, and on the chain of pre_handlers a hit
 * walks when it has one.  Both keep registration order.
 */
static void link_probe(struct kprobe_site *site, struct kprobe *probe)
{
	struct hlist_node *last = &site->kp.hlist;

	list_add_tail_rcu(&probe->list, &site->kp.list);
	if (!probe->pre_handler)
		return;
	while (last->next)
		last = last->next;
	hlist_add_behind_rcu(&probe->hlist, last);
}

/* Hits may still be walking past @probe until a grace period has passed. */
static void unlink_probe(struct kprobe *probe)
{
	list_del_rcu(&probe->list);
	if (!hlist_unhashed(&probe->hlist))
		hlist_del_rcu(&probe->hlist);
}

/*
 * Sites touched by a batch are collected once each; the mark is only
 * used under probes_mutex and cleared before the mutex is released.
 */
static void collect_site(struct kprobe_site *site, struct kprobe_site **set,
			 int *n)
{
	if (site->in_batch)
		return;
	site->in_batch = true;
	set[(*n)++] = site;
}

static void uncollect_sites(struct kprobe_site **set, int n)
{
	int i;

	for (i = 0; i < n; i++)
		set[i]->in_batch = false;
}

/* Take @probe off its site; returns the site, or NULL if not registered. */
static struct kprobe_site *detach_probe(struct kprobe *probe)
{
	struct kprobe_site *site = site_of(probe);

	if (!site) {
		/* Not registered: say so the way callers expect. */
		probe->addr = NULL;
		return NULL;
	}
	unlink_probe(probe);
	probe->flags &= ~KPROBE_FLAG_OPTIMIZED;
	if (!kprobe_disabled(probe))
		site->nr_enabled--;
	return site;
}

/*
 * Detach @kps and disarm the sites left without enabled probes, all with
 * one round of text patching.  Sites left empty leave the table and end
 * up in @dead, to be freed after a grace period.  Returns their number.
 */
static int detach_locked(struct kprobe **kps, int num,
			 struct kprobe_site **dead)
{
	struct kprobe_site *site;
	int i, n = 0, nr_dead = 0;

	lockdep_assert_held(&probes_mutex);
	for (i = 0; i < num; i++) {
		site = detach_probe(kps[i]);
		if (site)
			collect_site(site, dead, &n);
	}
	uncollect_sites(dead, n);
	kprobe_sites_sync_arming(dead, n);
	for (i = 0; i < n; i++) {
		site = dead[i];
		if (!list_empty(&site->kp.list))
			continue;
		kprobe_table_del(site);
		/* Neighbours it kept from a jump may have one again. */
		kprobe_opt_retry_around((unsigned long)site->kp.addr);
		dead[nr_dead++] = site;
	}
	return nr_dead;
}

/**
 * kprobe_detach_batch() - first half of unregistering several probes
 * @kps: the probes
 * @num: how many
 * @dead: room for @num sites; filled with the sites left empty
 *
 * After this no new hit runs the handlers of @kps.  Hand the filled
 * entries of @dead to kprobe_free_batch().
 *
 * Return: how many entries of @dead were filled.
 */
int kprobe_detach_batch(struct kprobe **kps, int num,
			struct kprobe_site **dead)
{
	int n;

	mutex_lock(&probes_mutex);
	n = detach_locked(kps, num, dead);
	mutex_unlock(&probes_mutex);
	return n;
}

/**
 * kprobe_free_batch() - second half: wait out running hits, then free
 * @kps: the probes given to kprobe_detach_batch()
 * @num: how many
 * @dead: the sites it returned
 * @n: how many sites
 */
void kprobe_free_batch(struct kprobe **kps, int num,
		       struct kprobe_site **dead, int n)
{
	bool detours = false;
	int i;

	/*
	 * One grace period for the whole batch: after it no CPU can be in a
	 * handler of these probes or in a slot of these sites.  Expedited,
	 * because tools remove probes one by one by the thousand and each
	 * caller waits for it; rcupdate.rcu_normal turns it into a normal
	 * one where the IPIs would hurt.
	 */
	synchronize_rcu_expedited();
	/*
	 * Only a detour's copy of the region runs with preemption possible
	 * (boosting is off on preemptible kernels): a task preempted there
	 * must have left before the detour goes.  RCU-tasks waits for every
	 * task to schedule voluntarily, so do it only when there is one.
	 */
	for (i = 0; i < n; i++)
		detours |= dead[i]->can_optimize;
	if (detours && IS_ENABLED(CONFIG_PREEMPTION))
		synchronize_rcu_tasks();
	for (i = 0; i < n; i++)
		free_site(dead[i]);
	for (i = 0; i < num; i++) {
		INIT_LIST_HEAD(&kps[i]->list);
		INIT_HLIST_NODE(&kps[i]->hlist);
	}
}

static void unregister_batch(struct kprobe **kps, int num)
{
	struct kprobe_site *one, **dead = &one;
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
	bool ret;

	mutex_lock(&probes_mutex);
	ret = probe->addr && site_of(probe);
	mutex_unlock(&probes_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_registered);

/* What a failed registration gives back to the caller's probe. */
struct reg_undo {
	kprobe_opcode_t *addr;
	u32 flags;
	/* Held while the probe is planted, so its text stays. */
	struct module *mod;
};

/*
 * First step, without the mutex: resolve @probe's address and check that
 * it may be probed.  A probe that is already registered is left as it is.
 */
static int vet_probe(struct kprobe *probe, struct reg_undo *undo)
{
	kprobe_opcode_t *addr;
	struct kprobe *kp;
	bool on_entry, taken;

	undo->addr = probe->addr;
	undo->flags = probe->flags;
	undo->mod = NULL;
	addr = resolve_probe_addr(probe->addr, probe->symbol_name, probe->offset,
				  &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	mutex_lock(&probes_mutex);
	kp = get_kprobe(addr);
	taken = kp && site_has_probe(to_site(kp), probe);
	mutex_unlock(&probes_mutex);
	if (taken)
		return -EINVAL;

	probe->addr = addr;
	probe->flags &= KPROBE_FLAG_DISABLED;
	if (on_entry)
		probe->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	probe->nmissed = 0;
	INIT_HLIST_NODE(&probe->hlist);
	INIT_LIST_HEAD(&probe->list);
	return check_probe_text(probe, &undo->mod);
}

/* Second step, under the mutex: put @probe on its site, new or not. */
static int attach_probe(struct kprobe *probe, struct kprobe_site **sitep)
{
	struct kprobe *kp = get_kprobe(probe->addr);
	struct kprobe_site *site;
	int ret;

	/* Twice in one batch: the first one is already attached. */
	if (!list_empty(&probe->list))
		return -EINVAL;
	if (kp) {
		site = to_site(kp);
		if (kprobe_gone(kp)) {
			ret = revive_site(site, probe);
			if (ret)
				return ret;
		}
	} else {
		site = new_site(probe);
		if (IS_ERR(site))
			return PTR_ERR(site);
		kprobe_table_add(site);
	}
	/* Handlers must see a fully set up probe before it can be hit. */
	link_probe(site, probe);
	if (!kprobe_disabled(probe))
		site->nr_enabled++;
	*sitep = site;
	return 0;
}

/*
 * Register @kps as one operation: vet them all, attach them all, then arm
 * every site they need with one round of text patching.  On any error
 * the probes attached so far are detached again, one grace period frees
 * what was made for them, and every probe is given back as it came.
 */
static int register_batch(struct kprobe **kps, int num)
{
	struct kprobe_site *one, **sites = &one, *site;
	struct reg_undo undo_one, *undo = &undo_one;
	int i, n = 0, vetted, attached = 0, ret = 0;

	if (!kprobes_ready)
		return -EAGAIN;
	if (num <= 0)
		return -EINVAL;
	if (num > 1) {
		sites = kvcalloc(num, sizeof(*sites), GFP_KERNEL);
		undo = kvcalloc(num, sizeof(*undo), GFP_KERNEL);
		if (!sites || !undo) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	for (vetted = 0; vetted < num && !ret; vetted++)
		ret = vet_probe(kps[vetted], &undo[vetted]);
	if (ret)
		goto out_restore;

	mutex_lock(&probes_mutex);
	kprobe_table_reserve(num);
	for (; attached < num; attached++) {
		ret = attach_probe(kps[attached], &site);
		if (ret)
			break;
		collect_site(site, sites, &n);
	}
	uncollect_sites(sites, n);
	if (!ret)
		ret = kprobe_sites_sync_arming(sites, n);
	if (ret)
		n = detach_locked(kps, attached, sites);
	mutex_unlock(&probes_mutex);
	if (ret)
		kprobe_free_batch(kps, attached, sites, n);

out_restore:
	for (i = vetted - 1; i >= 0; i--) {
		module_put(undo[i].mod);
		/* A failed registration leaves the caller's probes as they were. */
		if (ret) {
			kps[i]->addr = undo[i].addr;
			kps[i]->flags = undo[i].flags;
		}
	}
out_free:
	if (sites != &one) {
		kvfree(sites);
		kvfree(undo);
	}
	return ret;
}

/**
 * register_kprobe() - plant a probe
 * @probe: the probe; set @addr or @symbol_name (+ @offset) and the handlers
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

static int set_probe_enabled(struct kprobe *probe, bool enable)
{
	struct kprobe_site *site;
	int ret = 0;

	mutex_lock(&probes_mutex);
	site = site_of(probe);
	if (!site) {
		ret = -EINVAL;
		goto out;
	}
	if (kprobe_gone(probe)) {
		ret = enable ? -EINVAL : 0;
		goto out;
	}
	if (enable && kprobe_disabled(probe)) {
		probe->flags &= ~KPROBE_FLAG_DISABLED;
		site->nr_enabled++;
		ret = kprobe_site_sync_arming(site);
		if (ret) {
			probe->flags |= KPROBE_FLAG_DISABLED;
			site->nr_enabled--;
			kprobe_site_sync_arming(site);
		}
	} else if (!enable && !kprobe_disabled(probe)) {
		probe->flags |= KPROBE_FLAG_DISABLED;
		site->nr_enabled--;
		kprobe_site_sync_arming(site);
	}
out:
	mutex_unlock(&probes_mutex);
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
 * Return: 0, -EINVAL when @kp is not registered or its text is gone, or
 * the error that kept it from being armed (then it stays disabled).
 */
int enable_kprobe(struct kprobe *kp)
{
	return set_probe_enabled(kp, true);
}
EXPORT_SYMBOL_GPL(enable_kprobe);

static int __init init_kprobes(void)
{
	int ret;

	site_cache = KMEM_CACHE(kprobe_site, 0);
	if (!site_cache)
		return -ENOMEM;
	ret = kprobe_blacklist_init();
	if (ret)
		pr_err("no blacklist (error %d): probes are not restricted\n",
		       ret);
	ret = arch_init_kprobes();
	kprobes_ready = !ret;
	return ret;
}
early_initcall(init_kprobes);
