// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sites: what stands at an address where more than one probe sits, or
 * where the port keeps a detour (see struct kprobe_site).
 *
 * A site is made from the lone probe that was there first and takes its
 * place in the table; it keeps its users in registration order on its
 * list and, for the hit path, the ones with a handler in an array
 * that is replaced, never edited, so that a hit walks it without a lock.
 * Changes run under kprobes_mutex; what a hit might still be reading is
 * freed only after kprobe_wait_out_hits().
 */
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/init.h>

#include "internal.h"

/* Sites are the one allocation per probed address: no kmalloc rounding. */
static struct kmem_cache *site_cache;

/*
 * The chain of every site with nothing to run: a site always has a chain,
 * so a hit walks it without testing for NULL first.  Never freed.
 */
static union {
	struct kprobe_chain chain;
	u8 room[struct_size_t(struct kprobe_chain, probes, 1)];
} nothing_to_run;

static struct kprobe_chain *empty_chain(void)
{
	return &nothing_to_run.chain;
}

/* Free @chain once the hits that may be walking it are over. */
static void chain_retire(struct kprobe_chain *chain)
{
	if (chain != empty_chain())
		kfree_rcu(chain, rcu);
}

/*
 * A site's own post_handler while any probe there has one.  Hits never
 * call it (kprobe_hit_end_kcb() walks the chain of a site itself): it
 * marks the site as having a post phase for the optimizer, the debugfs
 * list and code outside the core that looks at a head's post_handler,
 * and does the right thing should anything call it anyway.
 */
static void site_post_handler(struct kprobe *kp, struct pt_regs *regs,
			      unsigned long flags)
{
	kprobe_run_post_handlers(kp, regs);
}
NOKPROBE_SYMBOL(site_post_handler);

/* --- making and changing sites, under kprobes_mutex --- */

/* Have the port copy the instruction at @kp's address into @kp. */
int kprobe_prepare_arch(struct kprobe *kp)
{
	if (kprobe_ftrace(kp))
		return arch_prepare_kprobe_ftrace(kp);
	return arch_prepare_kprobe(kp);
}

/**
 * kprobe_site_from() - a site for the address of the lone probe @lone
 * @lone: a head that is not a site
 *
 * The site carries a copy of @lone's arch state but is not in use until
 * kprobe_site_take_over() (or kprobe_site_discard()).
 *
 * Return: the site, or NULL without memory.
 */
struct kprobe_site *kprobe_site_from(struct kprobe *lone)
{
	struct kprobe_site *site = kmem_cache_zalloc(site_cache, GFP_KERNEL);
	struct kprobe *kp;

	if (!site)
		return NULL;
	kp = &site->kp;
	INIT_LIST_HEAD(&kp->list);
	INIT_HLIST_NODE(&kp->hlist);
	INIT_LIST_HEAD(&site->opt_node);
	RCU_INIT_POINTER(site->chain, empty_chain());
	kp->addr = lone->addr;
	kp->symbol_name = lone->symbol_name;
	kp->offset = lone->offset;
	kp->opcode = lone->opcode;
	kp->ainsn = lone->ainsn;
	kp->flags = (lone->flags & (KPROBE_FLAG_FTRACE | KPROBE_FLAG_GONE |
				    KPROBE_FLAG_ON_FUNC_ENTRY |
				    KPROBE_FLAG_ARMED | KPROBE_FLAG_BRIDGE)) |
		    KPROBE_FLAG_SITE | KPROBE_FLAG_DISABLED;
	return site;
}

/* Drop a site kprobe_site_from() made; the arch state stays @lone's. */
void kprobe_site_discard(struct kprobe_site *site)
{
	kmem_cache_free(site_cache, site);
}

static struct kprobe_chain *handler_chain(struct kprobe_site *site)
{
	return rcu_dereference_protected(site->chain,
					 lockdep_is_held(&kprobes_mutex));
}

/* Does a hit at the site call into @probe? */
static bool chain_wants(struct kprobe *probe)
{
	return !kprobe_disabled(probe) && !kprobe_gone(probe) &&
	       (probe->pre_handler || probe->post_handler);
}

/*
 * Room for a chain of @site's listed probes and one more; NULL without
 * memory unless @gfp says it may not fail.
 */
static struct kprobe_chain *chain_alloc(struct kprobe_site *site, gfp_t gfp)
{
	struct kprobe_chain *chain;
	struct kprobe *probe;
	unsigned int n = 2;	/* the one more and the terminating NULL */

	list_for_each_entry(probe, &site->kp.list, list)
		n++;
	return kmalloc(struct_size(chain, probes, n), gfp);
}

/*
 * Taking a probe off a site cannot fail, and cannot be done in place
 * either: a hit between its pre and post phase holds the old chain and
 * must find there every probe whose pre_handler it ran.  So the smaller
 * chain is waited for.  It is a few pointers per probe at one address.
 */
#define CHAIN_SHRINK_GFP	(GFP_KERNEL | __GFP_NOFAIL)

/*
 * Fill @new from the list as it is now, in list (registration) order,
 * and make it the site's chain; hits that took the old one keep it
 * until a grace period has passed.
 *
 * The site's own post_handler says "some probe on the chain has one" to
 * the optimizer.  Where the port's detour runs post phases itself, that
 * changes nothing.  Otherwise the optimizer gives no jump to such a
 * site: a hit that traps after the instruction resumes right behind it,
 * inside the jump.  So a chain with a post_handler goes out only once
 * the jump is out.  The mark goes as soon as the chain without one is
 * out: hits on the old chain may still be stepping, but the optimizer
 * waits for every hit in flight before it writes a jump again.  A hit
 * that came in through the jump before it went out and meets the new
 * chain passes its post_handler probes by (see kprobe_site_walk_pre_post()).
 */
static void chain_publish(struct kprobe_site *site, struct kprobe_chain *new)
{
	struct kprobe_chain *old = handler_chain(site);
	struct kprobe *probe;
	unsigned int n = 0;
	bool post = false;

	list_for_each_entry(probe, &site->kp.list, list) {
		if (!chain_wants(probe))
			continue;
		new->probes[n++] = probe;
		post |= !!probe->post_handler;
	}
	new->probes[n] = NULL;
	new->has_post = post;
	new->lone = n == 1 && !post && !new->probes[0]->fault_handler ?
		    new->probes[0] : NULL;
	new->solo = n == 1 && post ? new->probes[0] : NULL;
	if (!n) {
		kfree(new);
		new = empty_chain();
	}
	if (post) {
		if (!kprobe_opt_runs_post(site))
			kprobe_opt_unoptimize(&site->kp);
		WRITE_ONCE(site->kp.post_handler, site_post_handler);
	}
	rcu_assign_pointer(site->chain, new);
	if (!post)
		WRITE_ONCE(site->kp.post_handler, NULL);
	chain_retire(old);
}

/*
 * @probe joins @site: on its list and, when it is enabled and has a
 * handler, on the chain a hit walks.  Both keep registration order.  A
 * lone probe leaves the list of lone probes for it.
 */
int kprobe_site_link(struct kprobe_site *site, struct kprobe *probe)
{
	struct kprobe_chain *chain = chain_alloc(site, GFP_KERNEL);

	if (!chain)
		return -ENOMEM;
	list_del_init(&probe->list);
	/* Handlers must see a fully set up probe before it can be hit. */
	list_add_tail_rcu(&probe->list, &site->kp.list);
	chain_publish(site, chain);
	if (!kprobe_disabled(probe))
		site->nr_enabled++;
	return 0;
}

/* Hits may still see @probe until a grace period has passed. */
void kprobe_site_unlink(struct kprobe_site *site, struct kprobe *probe)
{
	list_del_rcu(&probe->list);
	chain_publish(site, chain_alloc(site, CHAIN_SHRINK_GFP));
}

/**
 * kprobe_site_flipped() - @probe at @site was just enabled or disabled
 * @site: the site
 * @probe: one of its probes, its flag already changed
 *
 * Hits that began before keep the chain they took, so each calls the
 * post_handlers of the probes whose pre_handlers it called, no others.
 *
 * Return: 0, or -ENOMEM when an enabled probe could not be put on the
 * chain (a disabled one is always taken off).
 */
int kprobe_site_flipped(struct kprobe_site *site, struct kprobe *probe)
{
	bool off = kprobe_disabled(probe);
	struct kprobe_chain *chain;

	chain = chain_alloc(site, off ? CHAIN_SHRINK_GFP : GFP_KERNEL);
	if (!chain)
		return -ENOMEM;
	chain_publish(site, chain);
	return 0;
}

/**
 * kprobe_site_clear_chain() - the text under @site went away
 * @site: a site whose probes were just marked [GONE]
 *
 * Hits find nothing to run here any more: whatever traps at the address
 * from now on is not ours (see kprobe_heads_mark_gone()).  Hits already
 * under way keep the chain they took.
 */
void kprobe_site_clear_chain(struct kprobe_site *site)
{
	struct kprobe_chain *old = handler_chain(site);

	RCU_INIT_POINTER(site->chain, empty_chain());
	WRITE_ONCE(site->kp.post_handler, NULL);
	chain_retire(old);
}

/**
 * kprobe_site_take_over() - a lone probe's site replaces it as the head
 * @site: from kprobe_site_from(@lone)
 * @lone: the lone probe, now the site's first user
 * @in_table: @lone is in the table (else the caller adds @site)
 *
 * A hit that found @lone before the switch still runs @lone's handlers
 * with @lone's copy of the arch state, which @site now owns and frees
 * only after a grace period.  @lone's hash link stays as it is for lookups
 * still walking through it; it is not used again while @lone is
 * registered.
 *
 * Return: 0, or -ENOMEM with nothing changed.
 */
int kprobe_site_take_over(struct kprobe_site *site, struct kprobe *lone,
			  bool in_table)
{
	int ret = kprobe_site_link(site, lone);

	if (ret)
		return ret;
	if (site->nr_enabled)
		kprobe_flags_clear(&site->kp, KPROBE_FLAG_DISABLED);
	if (in_table)
		kprobe_table_replace(lone, &site->kp);
	/*
	 * A hit that finds @lone without its core flags looks again and
	 * must then find @site: a bridge breakpoint is only ours while its
	 * head says bridged (arm64 bridge_brk()).
	 */
	smp_wmb();
	kprobe_flags_clear(lone, KPROBE_CORE_FLAGS);
	return 0;
}

/*
 * New code now sits where a site's text went away (a module loaded where
 * an unloaded one was).  The old probes stay [GONE]; the site is prepared
 * afresh for the new code and @probe.
 */
int kprobe_site_revive(struct kprobe_site *site, struct kprobe *probe)
{
	struct kprobe *kp = &site->kp;
	int ret;

	memset(&kp->ainsn, 0, sizeof(kp->ainsn));
	WRITE_ONCE(kp->flags, (probe->flags & (KPROBE_FLAG_FTRACE |
					       KPROBE_FLAG_ON_FUNC_ENTRY)) |
			      KPROBE_FLAG_SITE | KPROBE_FLAG_DISABLED |
			      KPROBE_FLAG_GONE);
	ret = kprobe_prepare_arch(kp);
	if (!ret) {
		kprobe_flags_clear(kp, KPROBE_FLAG_GONE);
		kprobe_opt_block_around((unsigned long)kp->addr);
		kprobe_opt_try(site);
	}
	return ret;
}

/**
 * kprobe_site_with_detour() - turn a lone probe into a site with a detour
 * @lone: a lone probe, registered and prepared
 * @in_table: @lone is in the table (else the caller adds the site)
 *
 * A detour records its head, so a probe that can have one must stand on
 * a site of its own from the moment it gets it.
 *
 * Return: the site, now @lone's head, or NULL when the port builds no
 * detour here (or there was no memory); then nothing changed.
 */
struct kprobe_site *kprobe_site_with_detour(struct kprobe *lone, bool in_table)
{
	struct kprobe_site *site;

	if (!IS_ENABLED(CONFIG_OPTPROBES) || kprobe_ftrace(lone))
		return NULL;
	site = kprobe_site_from(lone);
	if (!site)
		return NULL;
	kprobe_opt_try(site);
	if (!kprobe_has_flag(&site->kp, KPROBE_FLAG_DETOUR))
		goto discard;
	if (!kprobe_site_take_over(site, lone, in_table))
		return site;
	kprobe_opt_release(site);
discard:
	kprobe_site_discard(site);
	return NULL;
}

/* Free a site that left the table, once no hit can reach it. */
void kprobe_site_free(struct kprobe_site *site)
{
	/* Nobody can reach the chain any more. */
	struct kprobe_chain *chain = rcu_dereference_protected(site->chain, 1);

	kprobe_opt_release(site);
	if (chain != empty_chain())
		kfree(chain);
	kmem_cache_free(site_cache, site);
}

int __init kprobe_site_init(void)
{
	site_cache = KMEM_CACHE(kprobe_site, 0);
	return site_cache ? 0 : -ENOMEM;
}
