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
#include <linux/hash.h>
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
#include <asm/sections.h>

#include "internal.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* The user probe whose handler runs on this CPU, for fault_handler. */
DEFINE_PER_CPU(struct kprobe *, kprobe_in_handler);

/* Serialises every change to sites and probes; never taken on a hit. */
DEFINE_MUTEX(probes_mutex);
bool kprobes_armed_globally = true;
struct hlist_head kprobe_table[1 << KPROBE_TABLE_BITS];
static bool kprobes_ready;

static struct hlist_head *site_bucket(const void *addr)
{
	return &kprobe_table[hash_ptr(addr, KPROBE_TABLE_BITS)];
}

void kprobe_visit_sites(kprobe_site_fn_t fn, void *arg)
{
	struct kprobe_site *site;
	struct hlist_node *next;
	unsigned int bkt;

	lockdep_assert_held(&probes_mutex);
	for (bkt = 0; bkt < ARRAY_SIZE(kprobe_table); bkt++)
		hlist_for_each_entry_safe(site, next, &kprobe_table[bkt], kp.hlist)
			fn(site, arg);
}

/**
 * get_kprobe() - the probe site at an address
 * @addr: a kernel text address
 *
 * Return: the kprobe that stands for every probe registered at @addr, or
 * NULL.  Safe from any context that holds off a grace period (trap
 * handlers, RCU readers) as well as under the core's mutex.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe_site *site;

	hlist_for_each_entry_rcu(site, site_bucket(addr), kp.hlist,
				 lockdep_is_held(&probes_mutex)) {
		if (site->kp.addr == addr)
			return &site->kp;
	}
	return NULL;
}
NOKPROBE_SYMBOL(get_kprobe);

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
	bool on_entry;
	kprobe_opcode_t *where = resolve_probe_addr(addr, sym, offset, &on_entry);

	if (IS_ERR(where))
		return PTR_ERR(where);
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

/* --- arming --- */

static int site_arm(struct kprobe_site *site)
{
	if (kprobe_ftrace(&site->kp)) {
		/* ftrace may refuse, e.g. when another ops modifies ip there. */
		int ret = kprobe_ftrace_arm(&site->kp);

		if (ret)
			return ret;
	} else {
		cpus_read_lock();
		mutex_lock(&text_mutex);
		arch_arm_kprobe(&site->kp);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
	}
	site->armed = true;
	return 0;
}

static void site_disarm(struct kprobe_site *site)
{
	kprobe_opt_unoptimize(site);
	if (kprobe_ftrace(&site->kp)) {
		WARN_ON_ONCE(kprobe_ftrace_disarm(&site->kp));
	} else {
		cpus_read_lock();
		mutex_lock(&text_mutex);
		arch_disarm_kprobe(&site->kp);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
	}
	site->armed = false;
}

static void site_post_handler(struct kprobe *kp, struct pt_regs *regs,
			      unsigned long flags)
{
	kprobe_run_post_handlers(kp, regs);
}
NOKPROBE_SYMBOL(site_post_handler);

/*
 * The site's own post_handler is set exactly when some live probe there
 * has one.  The arch reads it on a hit to decide whether the instruction
 * must be stepped with a trap afterwards or may run without one.
 */
static void site_update_post(struct kprobe_site *site)
{
	struct kprobe *probe;
	bool post = false;

	list_for_each_entry(probe, &site->kp.list, list)
		if (probe->post_handler && !kprobe_disabled(probe) &&
		    !kprobe_gone(probe))
			post = true;
	WRITE_ONCE(site->kp.post_handler, post ? site_post_handler : NULL);
}

/*
 * Bring the site's breakpoint in line with what its probes and the global
 * switch want.  Gone sites are never touched: their text is gone too.
 * Returns 0, or the error that kept the site from being armed.
 */
int kprobe_site_sync_arming(struct kprobe_site *site)
{
	int ret = 0;
	bool want;

	lockdep_assert_held(&probes_mutex);
	site_update_post(site);
	if (kprobe_gone(&site->kp))
		return 0;
	want = kprobes_armed_globally && site->nr_enabled;
	/* Hits see the site enabled before it is armed, disabled after. */
	if (site->nr_enabled)
		site->kp.flags &= ~KPROBE_FLAG_DISABLED;
	if (want && !site->armed)
		ret = site_arm(site);
	else if (!want && site->armed)
		site_disarm(site);
	if (!site->nr_enabled)
		site->kp.flags |= KPROBE_FLAG_DISABLED;
	/* A jump in place of the breakpoint, or not (optimize.c). */
	kprobe_opt_sync(site);
	return ret;
}

/*
 * The text under @site is about to be freed: mark every probe there [GONE].
 * They stay registered until their owners unregister them.  The text is
 * still mapped when we are told (module notifier, kprobe_free_init_mem()),
 * so the breakpoint is taken out properly: init code that still runs
 * before the memory is released must not trap on a site nobody looks up.
 */
void kprobe_site_mark_gone(struct kprobe_site *site)
{
	struct kprobe *probe;

	lockdep_assert_held(&probes_mutex);
	if (kprobe_gone(&site->kp))
		return;
	if (site->armed)
		site_disarm(site);
	site->kp.flags |= KPROBE_FLAG_GONE;
	list_for_each_entry(probe, &site->kp.list, list)
		probe->flags |= KPROBE_FLAG_GONE;
	site->nr_enabled = 0;
	/* The slot may still be in use by a CPU finishing a hit. */
	synchronize_rcu();
	arch_remove_kprobe(&site->kp);
	kprobe_opt_release(site);
}

/* --- registration --- */

static struct kprobe_site *new_site(struct kprobe *probe)
{
	struct kprobe_site *site = kzalloc(sizeof(*site), GFP_KERNEL);
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
		kfree(site);
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
	kfree(site);
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
 * Arming failed right after @probe joined @site: take it off again so the
 * caller is left with nothing registered.
 */
static void undo_add(struct kprobe_site *site, struct kprobe *probe)
{
	list_del_rcu(&probe->list);
	if (!kprobe_disabled(probe))
		site->nr_enabled--;
	if (list_empty(&site->kp.list)) {
		hlist_del_rcu(&site->kp.hlist);
		/* Neighbours the new site kept from a jump may have one again. */
		kprobe_opt_retry_around((unsigned long)site->kp.addr);
		/* A trap on another CPU may be looking the site up. */
		synchronize_rcu();
		free_site(site);
	} else {
		if (!site->nr_enabled)
			site->kp.flags |= KPROBE_FLAG_DISABLED;
		site_update_post(site);
		kprobe_opt_sync(site);
	}
	INIT_LIST_HEAD(&probe->list);
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
 * symbol or a module going away; -ENOMEM; or ftrace's error when the
 * ftrace call site cannot be hooked.  On error nothing is left registered
 * and @probe's @addr and @flags are as the caller set them.
 */
int register_kprobe(struct kprobe *probe)
{
	kprobe_opcode_t *asked_addr = probe->addr;
	u32 asked_flags = probe->flags;
	struct kprobe_site *site;
	struct kprobe *kp;
	struct module *mod;
	kprobe_opcode_t *addr;
	bool on_entry;
	int ret;

	if (!kprobes_ready)
		return -EAGAIN;
	addr = resolve_probe_addr(probe->addr, probe->symbol_name, probe->offset,
				  &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);

	mutex_lock(&probes_mutex);
	kp = get_kprobe(addr);
	if (kp && site_has_probe(to_site(kp), probe)) {
		ret = -EINVAL;
		goto unlock;
	}
	mutex_unlock(&probes_mutex);

	probe->addr = addr;
	probe->flags &= KPROBE_FLAG_DISABLED;
	if (on_entry)
		probe->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	probe->nmissed = 0;
	INIT_HLIST_NODE(&probe->hlist);
	INIT_LIST_HEAD(&probe->list);

	ret = check_probe_text(probe, &mod);
	if (ret)
		goto restore;

	mutex_lock(&probes_mutex);
	kp = get_kprobe(addr);
	if (kp) {
		site = to_site(kp);
		if (kprobe_gone(kp)) {
			ret = revive_site(site, probe);
			if (ret)
				goto put;
		}
	} else {
		site = new_site(probe);
		if (IS_ERR(site)) {
			ret = PTR_ERR(site);
			goto put;
		}
		hlist_add_head_rcu(&site->kp.hlist, site_bucket(addr));
	}
	/* Handlers must see a fully set up probe before it can be hit. */
	list_add_tail_rcu(&probe->list, &site->kp.list);
	if (!kprobe_disabled(probe))
		site->nr_enabled++;
	ret = kprobe_site_sync_arming(site);
	if (ret)
		undo_add(site, probe);
put:
	module_put(mod);
	mutex_unlock(&probes_mutex);
restore:
	/* A failed registration leaves the caller's probe as it was. */
	if (ret) {
		probe->addr = asked_addr;
		probe->flags = asked_flags;
	}
	return ret;
unlock:
	mutex_unlock(&probes_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobe);

/*
 * First half of unregistering: take @probe off its site so no new hit can run
 * its handlers.  Returns the site if it is now empty and must be freed
 * after a grace period, else NULL.
 */
static struct kprobe_site *detach_probe(struct kprobe *probe)
{
	struct kprobe_site *site;

	lockdep_assert_held(&probes_mutex);
	site = site_of(probe);
	if (!site) {
		/* Not registered: say so the way callers expect. */
		probe->addr = NULL;
		return NULL;
	}
	list_del_rcu(&probe->list);
	probe->flags &= ~KPROBE_FLAG_OPTIMIZED;
	if (!kprobe_disabled(probe))
		site->nr_enabled--;
	if (list_empty(&site->kp.list)) {
		site->nr_enabled = 0;
		if (site->armed)
			site_disarm(site);
		hlist_del_rcu(&site->kp.hlist);
		kprobe_opt_retry_around((unsigned long)site->kp.addr);
		return site;
	}
	kprobe_site_sync_arming(site);
	return NULL;
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
	int i, n = 0;

	mutex_lock(&probes_mutex);
	for (i = 0; i < num; i++) {
		dead[n] = detach_probe(kps[i]);
		if (dead[n])
			n++;
	}
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
	int i;

	/* One grace period for the whole batch: after it no CPU can be in a
	 * handler of these probes or in a slot of these sites.
	 */
	synchronize_rcu();
	/* A task preempted in a detour or boosted copy must have left it. */
	if (n && IS_ENABLED(CONFIG_OPTPROBES) && IS_ENABLED(CONFIG_PREEMPTION))
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
	struct kprobe_site **dead;
	int n;

	if (num <= 0)
		return;
	dead = kcalloc(num, sizeof(*dead), GFP_KERNEL | __GFP_NOFAIL);
	n = kprobe_detach_batch(kps, num, dead);
	kprobe_free_batch(kps, num, dead, n);
	kfree(dead);
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
 * Return: 0, or the first error; then the probes registered so far have
 * been removed again.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	int i, ret;

	if (num <= 0)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		ret = register_kprobe(kps[i]);
		if (ret) {
			unregister_batch(kps, i);
			return ret;
		}
	}
	return 0;
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * unregister_kprobes() - unregister several probes with one grace period
 * @kps: the probes
 * @num: how many
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
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(kprobe_table); i++)
		INIT_HLIST_HEAD(&kprobe_table[i]);
	ret = kprobe_blacklist_init();
	if (ret)
		pr_err("no blacklist (error %d): probes are not restricted\n",
		       ret);
	ret = arch_init_kprobes();
	kprobes_ready = !ret;
	return ret;
}
early_initcall(init_kprobes);
