/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the generic kprobes core offers a port's trap handlers.  The hooks
 * a port implements are in <linux/kprobes_arch.h>.
 *
 * A port calls these, and nothing else from this file:
 *   kprobe_lookup()              the head at a hit address, or NULL
 *   kprobe_hit_begin(), kprobe_hit_begin_kcb()
 *                                start a hit, run the pre_handlers
 *   kprobe_site_hit_enter(), kprobe_site_walk_pre(),
 *   kprobe_site_walk_pre_post(), kprobe_site_hit_end()
 *                                the same for a detour
 *   kprobe_hit_wants_post()      must the port trap after the instruction?
 *   kprobe_hit_end(), kprobe_hit_end_kcb()
 *                                finish a hit, run the post_handlers
 *   kprobe_hit_abandon()         forget a hit that will not finish (oops)
 *   kprobe_reenter()             a hit under another hit on this CPU
 *   kprobe_hit_leave(), kprobe_hit_finish()
 *                                end a hit, nested or not
 *   kprobe_has_detour()          may a detour be entered at this head?
 *   kprobe_fault_in_hit_context(), kprobe_run_fault_handler()
 *                                a fault under a probe's handlers
 *   kprobe_count_trap()          first thing in a breakpoint handler
 *   kprobe_bridge_brk_fires(), kprobe_bridge_passed(),
 *   kprobe_bridge_ftrace_fires() a bridged ftrace site (below)
 *   kprobe_alloc_insn_slot(), kprobe_free_insn_slot()
 * and from <linux/kprobes.h> kprobe_running(), reset_current_kprobe(),
 * get_kprobe_ctlblk() and kprobes_inc_nmissed_count().  What comes before
 * them below (sites, flags, the table, per-CPU state, the handler walks)
 * is the core's, here only so that they can be inlined.
 *
 * How a hit flows: the port's breakpoint (or ftrace, or detour) handler
 * finds the head with kprobe_lookup().  If kprobe_running() is NULL it
 * calls kprobe_hit_begin(), which runs the pre_handlers; unless one of
 * them redirected execution (then the port just ends the hit with
 * reset_current_kprobe()), the port executes or emulates the original
 * instruction and calls kprobe_hit_end(), which runs the post_handlers.
 * A port may skip the trap after the instruction when
 * kprobe_hit_wants_post() says no post phase follows this hit, and then
 * ends the hit with reset_current_kprobe() before the instruction runs.
 * From the pre phase to the end of the post phase the CPU does not take
 * interrupts or preempt (the instruction runs with interrupts off): the
 * chain the hit walks stays valid, and nothing else runs as this hit.
 * A hit while a handler is running only counts kprobes_inc_nmissed_count()
 * and executes the instruction.  All of this runs with interrupts or
 * preemption off, never sleeps and never takes a lock.
 */
#ifndef _LINUX_KPROBES_HIT_H
#define _LINUX_KPROBES_HIT_H

#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rculist.h>
#include <linux/hash.h>
#include <linux/bits.h>

#ifdef CONFIG_KPROBES

/*
 * ---- Internal to kernel/kprobes/ --------------------------------------
 *
 * Everything from here to the next banner is here only so that the
 * helpers a port calls can be inlined.  Ports do not use it.
 */

/*
 * The site table (kernel/kprobes/table.c) maps each probed address to the
 * one kprobe a hit deals with, its "head", chained through the head's own
 * @hlist.  A probe alone at its address is its own head: registering it
 * allocates nothing.  A second probe at the address (or a detour, which
 * records its head) turns the site into a struct kprobe_site: its
 * embedded kprobe becomes the head, the users' probes hang off @kp.list
 * in registration order, and @chain lists, in the same order, those that
 * are enabled and have a handler: that array is all a hit walks.  A site, once made,
 * stays one until it is emptied.
 *
 * Ports treat every head alike; only the core reads these fields.
 */
struct kprobe_chain {
	struct rcu_head rcu;
	/*
	 * The chain's one probe when it is the only one and has a
	 * pre_handler but neither a post_handler nor a fault_handler, else
	 * NULL: the commonest site (a lone probe with a detour) is then one
	 * test and one call away from its handler, without the walk, and
	 * without naming the running probe in kprobe_in_handler (a fault
	 * in its handler has no fault_handler to go to).
	 */
	struct kprobe *lone;
	/*
	 * The chain's one probe when it is the only one and has a
	 * post_handler, else NULL: a detour's post phase calls it without
	 * the walks.
	 */
	struct kprobe *solo;
	/* Some probe here has a post_handler: hits on it have a post phase. */
	bool has_post;
	/* NULL-terminated. */
	struct kprobe *probes[];
};

struct kprobe_site {
	struct kprobe kp;
	/*
	 * The enabled probes here with a handler, never NULL (an empty
	 * chain when there is none).  Replaced, never edited: a hit in
	 * flight keeps its own.
	 */
	struct kprobe_chain __rcu *chain;
	/* Users at this address that are neither disabled nor gone. */
	unsigned int nr_enabled;
	/* On the optimizer's queue (kernel/kprobes/optimize.c). */
	struct list_head opt_node;
};

/* Flag bits only the core sets, on heads (cleared when a probe leaves). */
#define KPROBE_FLAG_BRIDGE	BIT(25)	/* reached through a bridge breakpoint */
#define KPROBE_FLAG_BRIDGE_GRACE BIT(26) /* being handed over to ftrace */
#define KPROBE_FLAG_DETOUR	BIT(27)	/* the port's detour may be entered */
#define KPROBE_FLAG_SITE	BIT(28)	/* the head of a kprobe_site */
#define KPROBE_FLAG_ARMED	BIT(29)	/* breakpoint or ftrace hook in */
#define KPROBE_FLAG_IN_BATCH	BIT(30)	/* scratch mark, under the mutex */
#define KPROBE_CORE_FLAGS	(KPROBE_FLAG_DETOUR | KPROBE_FLAG_SITE | \
				 KPROBE_FLAG_ARMED | KPROBE_FLAG_IN_BATCH | \
				 KPROBE_FLAG_BRIDGE | KPROBE_FLAG_BRIDGE_GRACE)
/* The bridge breakpoint is in: either flag (GRACE alone as it goes). */
#define KPROBE_FLAGS_BRIDGED	(KPROBE_FLAG_BRIDGE | KPROBE_FLAG_BRIDGE_GRACE)

/*
 * Flags change under kprobes_mutex only, but a hit may read the word at
 * any time: each change is a single store of the whole word.
 */
static inline void kprobe_flags_set(struct kprobe *p, u32 flags)
{
	WRITE_ONCE(p->flags, p->flags | flags);
}

static inline void kprobe_flags_clear(struct kprobe *p, u32 flags)
{
	WRITE_ONCE(p->flags, p->flags & ~flags);
}

static inline bool kprobe_is_site(const struct kprobe *p)
{
	return kprobe_has_flag(p, KPROBE_FLAG_SITE);
}

/*
 * The address -> head hash: buckets of heads chained through their
 * @hlist, a few heads per bucket so that the table costs a few bytes per
 * probe.  A resize moves the heads one at a time into a bigger (or
 * smaller) table that @future points to while it happens, so a lookup
 * that misses in one table goes on in the next (see table.c).
 */
struct kprobe_head_table {
	/* 64 - log2(number of buckets): the hash is a product's top bits. */
	unsigned int shift;
	struct kprobe_head_table __rcu *future;
	struct hlist_head *heads;
	struct rcu_head rcu;
};

extern struct kprobe_head_table __rcu *kprobe_head_table;

static __always_inline unsigned long kprobe_head_hash(const void *addr,
						      unsigned int shift)
{
	return ((unsigned long)addr * GOLDEN_RATIO_64) >> shift;
}

/*
 * The probe whose handler runs on this CPU, for fault_handler: one of a
 * site's, or a kretprobe's (a lone probe is found as the head instead).
 */
DECLARE_PER_CPU(struct kprobe *, kprobe_in_handler);

/*
 * The interrupt context this CPU's hit runs its handlers in, kept in
 * kprobe_ctlblk.hit_context: preempt_count() when the hit began, of which
 * the interrupt-nesting part (KPROBE_CONTEXT_BITS) is what counts.  An
 * interrupt or NMI that comes in while the handlers run (an ftrace-site
 * or detour hit runs them with interrupts on, and no hit keeps NMIs out)
 * counts at least one level more, so a fault it takes is told apart from
 * one of the handlers' own: it is not the probe's to answer.  Bits that
 * preempt_disable() and local_bh_disable() change are left out, as a
 * handler may use those; they are masked off when a fault asks, not at
 * every hit.
 */
#define KPROBE_CONTEXT_BITS	(NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)

#ifndef arch_kprobe_context_word
#define arch_kprobe_context_word()	preempt_count()
#endif

/* Note that this CPU's handlers run in the context it is in now. */
static __always_inline void kprobe_note_hit_context(void)
{
	__this_cpu_write(kprobe_ctlblk.hit_context,
			 arch_kprobe_context_word());
}

/*
 * The chain the pre phase of this CPU's hit on a site walked.  Its post
 * phase walks the same one, so a hit calls the post_handlers of exactly
 * the probes it called into before, whatever was enabled, disabled or
 * added meanwhile.  The chain is still there at the post phase: it is
 * freed only after a grace period, and a hit that has a post phase runs
 * with interrupts off.
 */
DECLARE_PER_CPU(struct kprobe_chain *, kprobe_hit_chain);

/*
 * The head get_kprobe() returns stands for every probe at its address.
 * The helpers below run the handlers of all of them; they are inline
 * because they are the whole cost of a hit besides the trap.
 */

/*
 * Call the pre_handlers on @chain in order until one redirects; with
 * @pass_post, pass by the probes that have a post_handler.
 */
static __always_inline bool __kprobe_walk_pre(struct kprobe_chain *chain,
					      struct pt_regs *regs,
					      const bool pass_post)
{
	bool redirected = false;
	struct kprobe **pp, *probe;

	for (pp = chain->probes; (probe = READ_ONCE(*pp)); pp++) {
		if (!probe->pre_handler || (pass_post && probe->post_handler))
			continue;
		__this_cpu_write(kprobe_in_handler, probe);
		if (probe->pre_handler(probe, regs)) {
			redirected = true;
			break;
		}
	}
	__this_cpu_write(kprobe_in_handler, NULL);
	return redirected;
}

/* Call the post_handlers on @chain in order. */
static __always_inline void __kprobe_walk_post(struct kprobe_chain *chain,
					       struct pt_regs *regs)
{
	struct kprobe **pp, *probe;

	for (pp = chain->probes; (probe = READ_ONCE(*pp)); pp++) {
		if (!probe->post_handler)
			continue;
		__this_cpu_write(kprobe_in_handler, probe);
		probe->post_handler(probe, regs, 0);
	}
	__this_cpu_write(kprobe_in_handler, NULL);
}

/**
 * kprobe_run_site_pre_handlers() - kprobe_run_pre_handlers() for a site
 * @p: a head known to be a site's
 * @regs: registers of the hit
 *
 * Notes the chain walked for the post phase.
 *
 * Return: as kprobe_run_pre_handlers().
 */
static __always_inline bool kprobe_run_site_pre_handlers(struct kprobe *p,
							 struct pt_regs *regs)
{
	struct kprobe_site *site = container_of(p, struct kprobe_site, kp);
	struct kprobe_chain *chain = rcu_dereference_raw(site->chain);

	__this_cpu_write(kprobe_hit_chain, chain);
	return __kprobe_walk_pre(chain, regs, false);
}

/* The same, out of line: keeps the lone-probe path of callers short. */
bool kprobe_site_pre_handlers(struct kprobe *p, struct pt_regs *regs);

/**
 * kprobe_run_pre_handlers() - run the pre_handlers at a probed address
 * @p: the head get_kprobe() returned
 * @regs: registers of the hit
 *
 * Return: true when a pre_handler returned non-zero, i.e. redirected
 * execution: the port must then neither execute the original instruction
 * nor call the post handlers.
 */
static __always_inline bool kprobe_run_pre_handlers(struct kprobe *p,
						    struct pt_regs *regs)
{
	if (kprobe_is_site(p))
		return kprobe_site_pre_handlers(p, regs);
	/*
	 * A lone probe is disarmed before disable_kprobe() returns; a hit
	 * that trapped on it before runs its handlers as it would have.
	 */
	if (!p->pre_handler)
		return false;
	/*
	 * A lone probe is its own head: kprobe_run_fault_handler() finds it
	 * without kprobe_in_handler, which only tells a site's probes apart.
	 */
	return p->pre_handler(p, regs);
}

/**
 * kprobe_run_post_handlers() - run the post_handlers at a probed address
 * @p: the head get_kprobe() returned; only call when
 *     kprobe_hit_wants_post(@p)
 * @regs: registers after the original instruction
 */
static __always_inline void kprobe_run_post_handlers(struct kprobe *p,
						     struct pt_regs *regs)
{
	struct kprobe_chain *chain;

	if (!kprobe_is_site(p)) {
		/* As in kprobe_run_pre_handlers(): no kprobe_in_handler. */
		p->post_handler(p, regs, 0);
		return;
	}
	chain = __this_cpu_read(kprobe_hit_chain);
	if (chain)
		__kprobe_walk_post(chain, regs);
}

/*
 * ---- What a port calls -------------------------------------------------
 */

/**
 * kprobe_lookup() - the head at @addr, for a hit path
 * @addr: the probed address
 *
 * get_kprobe() for callers that run with interrupts or preemption off;
 * inline because every hit pays for it.
 *
 * Return: the head, or NULL.
 */
static __always_inline struct kprobe *kprobe_lookup(const void *addr)
{
	struct kprobe_head_table *t = rcu_dereference_raw(kprobe_head_table);
	struct hlist_head *head;
	struct hlist_node *node;
	struct kprobe *kp;

	do {
		head = &t->heads[kprobe_head_hash(addr, t->shift)];
		/*
		 * Links are read where they are: READ_ONCE() of a local
		 * would keep the walk's cursor on the stack.
		 */
		node = rcu_dereference_raw(hlist_first_rcu(head));
		for (; node; node = rcu_dereference_raw(hlist_next_rcu(node))) {
			kp = hlist_entry(node, struct kprobe, hlist);
			if (kp->addr == addr)
				return kp;
		}
		/* See what a resize moved before it took it out of here. */
		smp_rmb();
		t = rcu_dereference_raw(t->future);
	} while (t);
	return NULL;
}

/*
 * Does @p (a site's head) have a detour that hits may enter?  A hit that
 * sees the flag also sees what the port stored for the detour before it.
 */
static __always_inline bool kprobe_has_detour(const struct kprobe *p)
{
	/* Pairs with the release in kprobe_opt_try(). */
	return smp_load_acquire(&p->flags) & KPROBE_FLAG_DETOUR;
}

/**
 * kprobe_fault_in_hit_context() - may a fault be the running probe's?
 *
 * For a port's fault handler, about a fault taken while this CPU runs a
 * probe's handlers.
 *
 * Return: false when the fault was taken by an interrupt or NMI that came
 * in on top of the handlers: it goes to the normal fault handling.
 */
static __always_inline bool kprobe_fault_in_hit_context(void)
{
	return !((preempt_count() ^ __this_cpu_read(kprobe_ctlblk.hit_context)) &
		 KPROBE_CONTEXT_BITS);
}

/**
 * kprobe_hit_wants_post() - does this CPU's hit on @p have a post phase?
 * @p: the head the hit began with, its pre phase over
 *
 * A port asks after kprobe_hit_begin() whether it must trap after the
 * instruction.  On a site the answer comes from the chain this hit's pre
 * phase walked, not from the site as it is now: a hit runs the
 * post_handlers of exactly the probes whose pre_handlers it ran, whatever
 * joined or left in between.
 *
 * Return: true when kprobe_hit_end() has post_handlers to call.
 */
static __always_inline bool kprobe_hit_wants_post(struct kprobe *p)
{
	struct kprobe_chain *chain;

	if (!kprobe_is_site(p))
		return READ_ONCE(p->post_handler);
	/* Every pre phase on a site noted its chain, never NULL. */
	chain = __this_cpu_read(kprobe_hit_chain);
	return chain->has_post;
}

/**
 * kprobe_hit_begin() - make @p this CPU's hit and run its pre_handlers
 * @p: the head kprobe_lookup() returned
 * @regs: registers of the hit, ip as the port documents it for handlers
 *
 * Only when kprobe_running() is NULL.
 *
 * Return: true when a pre_handler redirected execution through @regs: the
 * port then ends the hit with reset_current_kprobe() and resumes where
 * @regs say, neither executing the original instruction nor calling
 * kprobe_hit_end().
 */
static __always_inline bool kprobe_hit_begin(struct kprobe *p,
					     struct pt_regs *regs)
{
	__this_cpu_write(current_kprobe, p);
	/* One per-CPU store, not a per-CPU pointer and a store through it. */
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
	kprobe_note_hit_context();
	return kprobe_run_pre_handlers(p, regs);
}

/**
 * kprobe_hit_begin_kcb() - kprobe_hit_begin() for a port that holds @kcb
 * @p: the head kprobe_lookup() returned
 * @regs: registers of the hit
 * @kcb: this CPU's get_kprobe_ctlblk()
 *
 * Where a per-CPU store costs an address computation (arm64), stores
 * through a pointer the port already has are cheaper.
 *
 * Return: as kprobe_hit_begin().
 */
static __always_inline bool kprobe_hit_begin_kcb(struct kprobe *p,
						 struct pt_regs *regs,
						 struct kprobe_ctlblk *kcb)
{
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	kcb->hit_context = arch_kprobe_context_word();
	return kprobe_run_pre_handlers(p, regs);
}

/* What a detour does once kprobe_site_walk_pre_post() returns. */
enum kprobe_detour_next {
	/* Run the copy of the region; the hit is over. */
	KPROBE_DETOUR_RESUME,
	/* A pre_handler redirected: resume where regs say; the hit is over. */
	KPROBE_DETOUR_REDIRECTED,
	/*
	 * Run the probed instruction with interrupts off, then finish with
	 * kprobe_hit_end(): some probe has a post_handler.
	 */
	KPROBE_DETOUR_POST,
};

/**
 * kprobe_site_hit_enter() - make @p this CPU's hit, for a port's detour
 * @p: the site's head the detour names
 *
 * Only when kprobe_running() is NULL.  The port then runs the pre phase
 * on the chain returned: kprobe_site_run_lone() on its lone when it has
 * one (the common case, which a port keeps inline: the jump-optimized
 * path is the cheapest hit there is, and one more call would show in
 * it), kprobe_site_walk_pre() when it has no post_handler, else
 * kprobe_site_walk_pre_post().
 *
 * Return: the chain the hit walks, never NULL.
 */
static __always_inline struct kprobe_chain *
kprobe_site_hit_enter(struct kprobe *p)
{
	struct kprobe_site *site = container_of(p, struct kprobe_site, kp);

	__this_cpu_write(current_kprobe, p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
	kprobe_note_hit_context();
	return rcu_dereference_raw(site->chain);
}

/**
 * kprobe_site_run_lone() - the pre phase on a chain of one plain probe
 * @probe: the chain's lone, from kprobe_site_hit_enter()'s chain
 * @regs: registers of the hit
 *
 * The same as kprobe_site_walk_pre() on that chain, without the walk and
 * without kprobe_in_handler: a lone has no fault_handler to find.
 *
 * Return: true when the pre_handler redirected execution; either way the
 * port ends the hit with reset_current_kprobe().
 */
static __always_inline bool kprobe_site_run_lone(struct kprobe *probe,
						 struct pt_regs *regs)
{
	return probe->pre_handler(probe, regs);
}

/**
 * kprobe_site_walk_pre() - the pre phase on a chain without post_handler
 * @chain: from kprobe_site_hit_enter(), chain->has_post clear
 * @regs: registers of the hit
 *
 * Return: true when a pre_handler redirected execution; either way the
 * port ends the hit with reset_current_kprobe().
 */
static __always_inline bool kprobe_site_walk_pre(struct kprobe_chain *chain,
						 struct pt_regs *regs)
{
	return __kprobe_walk_pre(chain, regs, false);
}

/**
 * kprobe_site_walk_pre_post() - the pre phase on a chain with post_handler
 * @chain: from kprobe_site_hit_enter(), chain->has_post set
 * @regs: registers of the hit
 * @post_path: the detour can run a post phase
 *	(arch_optimized_kprobe_runs_post())
 *
 * With a post path the hit remembers the chain and has a post phase.
 * Without one, the chain was published after the jump this hit came
 * through was taken out (see chain_publish()): its probes with a
 * post_handler joined after the hit began, and it passes them by rather
 * than run their pre_handlers alone.
 *
 * Return: what the port does next; for RESUME and REDIRECTED it ends the
 * hit with reset_current_kprobe(), for POST with kprobe_site_hit_end().
 */
static __always_inline enum kprobe_detour_next
kprobe_site_walk_pre_post(struct kprobe_chain *chain, struct pt_regs *regs,
			  bool post_path)
{
	struct kprobe *solo = chain->solo;
	bool redirected;

	if (!post_path)
		return __kprobe_walk_pre(chain, regs, true) ?
			KPROBE_DETOUR_REDIRECTED : KPROBE_DETOUR_RESUME;
	__this_cpu_write(kprobe_hit_chain, chain);
	if (solo) {
		__this_cpu_write(kprobe_in_handler, solo);
		redirected = solo->pre_handler &&
			     solo->pre_handler(solo, regs);
		__this_cpu_write(kprobe_in_handler, NULL);
	} else {
		redirected = __kprobe_walk_pre(chain, regs, false);
	}
	return redirected ? KPROBE_DETOUR_REDIRECTED : KPROBE_DETOUR_POST;
}

/**
 * kprobe_site_hit_end() - the post phase of a detour hit
 * @regs: registers after the instruction
 *
 * For the hit kprobe_site_walk_pre_post() answered KPROBE_DETOUR_POST: runs
 * the post_handlers of the chain its pre phase walked and ends it.
 */
static __always_inline void kprobe_site_hit_end(struct pt_regs *regs)
{
	struct kprobe_chain *chain = __this_cpu_read(kprobe_hit_chain);
	struct kprobe *solo = chain->solo;

	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_SSDONE);
	if (solo) {
		__this_cpu_write(kprobe_in_handler, solo);
		solo->post_handler(solo, regs, 0);
		__this_cpu_write(kprobe_in_handler, NULL);
	} else {
		__kprobe_walk_post(chain, regs);
	}
	reset_current_kprobe();
}

/**
 * kprobe_hit_end_kcb() - kprobe_hit_end() for a port that holds @kcb
 * @p: the head the hit began with
 * @regs: registers after the instruction
 * @kcb: this CPU's get_kprobe_ctlblk()
 */
static __always_inline void kprobe_hit_end_kcb(struct kprobe *p,
					       struct pt_regs *regs,
					       struct kprobe_ctlblk *kcb)
{
	/*
	 * Read before the status store, which the compiler cannot tell
	 * apart from @p and would otherwise make it read @p again.
	 */
	kprobe_post_handler_t post = p->post_handler;
	bool site = kprobe_is_site(p);

	if (site) {
		if (kprobe_hit_wants_post(p)) {
			kcb->kprobe_status = KPROBE_HIT_SSDONE;
			kprobe_run_post_handlers(p, regs);
		}
	} else if (post) {
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		/* As kprobe_run_pre_handlers(): no kprobe_in_handler. */
		post(p, regs, 0);
	}
	reset_current_kprobe();
}

/**
 * kprobe_hit_end() - the original instruction has executed: finish the hit
 * @p: the head the hit began with
 * @regs: registers after the instruction
 */
static __always_inline void kprobe_hit_end(struct kprobe *p,
					   struct pt_regs *regs)
{
	kprobe_hit_end_kcb(p, regs, get_kprobe_ctlblk());
}

/**
 * kprobe_hit_abandon() - forget this CPU's hit: it will not finish
 *
 * For a port's die notifier, when the kernel oopses under a hit and a
 * debugger may resume it: no handler is running any more.
 */
static __always_inline void kprobe_hit_abandon(void)
{
	__this_cpu_write(kprobe_in_handler, NULL);
	reset_current_kprobe();
}

/*
 * A probe hit while this CPU handles another one runs no handlers: it
 * only has its instruction carried out, and the outer hit's state waits
 * in kcb->prev_kprobe meanwhile.  There is room for one such level.
 */
void kprobe_report_nested(struct kprobe *p);

/**
 * kprobe_reenter() - start a hit on @p under the one this CPU handles
 * @p: the head that was hit
 * @kcb: this CPU's get_kprobe_ctlblk()
 *
 * Counts the hit as missed and keeps the outer hit's state.
 *
 * Return: false when the outer hit is itself a nested one: there is no
 * room left, the port must give up on the trap (oops) rather than lose
 * the outer hit.
 */
static __always_inline bool kprobe_reenter(struct kprobe *p,
					   struct kprobe_ctlblk *kcb)
{
	if (unlikely(kcb->kprobe_status == KPROBE_REENTER)) {
		kprobe_report_nested(p);
		return false;
	}
	kprobes_inc_nmissed_count(p);
	kcb->prev_kprobe.kp = kprobe_running();
	kcb->prev_kprobe.status = kcb->kprobe_status;
	kcb->prev_kprobe.saved_irq = kcb->saved_irq;
	__this_cpu_write(current_kprobe, p);
	return true;
}

/**
 * kprobe_hit_leave() - this CPU is done with a hit, nested or not
 * @kcb: this CPU's get_kprobe_ctlblk()
 * @nested: the hit began with kprobe_reenter()
 *
 * For a hit that ends without a post phase: a nested one gives the CPU
 * back to the outer hit, an outer one leaves it free.
 */
static __always_inline void kprobe_hit_leave(struct kprobe_ctlblk *kcb,
					     bool nested)
{
	if (nested) {
		__this_cpu_write(current_kprobe, kcb->prev_kprobe.kp);
		kcb->kprobe_status = kcb->prev_kprobe.status;
		kcb->saved_irq = kcb->prev_kprobe.saved_irq;
	} else {
		reset_current_kprobe();
	}
}

/**
 * kprobe_hit_finish() - the instruction of a hit, nested or not, has run
 * @p: the head the hit began with
 * @regs: registers after the instruction
 * @kcb: this CPU's get_kprobe_ctlblk()
 * @nested: the hit began with kprobe_reenter()
 *
 * kprobe_hit_end_kcb() for an outer hit, kprobe_hit_leave() for a nested
 * one, which has no post phase.
 */
static __always_inline void kprobe_hit_finish(struct kprobe *p,
					      struct pt_regs *regs,
					      struct kprobe_ctlblk *kcb,
					      bool nested)
{
	if (nested)
		kprobe_hit_leave(kcb, true);
	else
		kprobe_hit_end_kcb(p, regs, kcb);
}

/*
 * A fault hit while @p's handlers (or its out-of-line instruction) ran:
 * give the fault_handler of the probe that was running a chance to fix
 * it.  Returns its verdict (non-zero: fixed).
 */
int kprobe_run_fault_handler(struct kprobe *p, struct pt_regs *regs,
			     int trapnr);

/* Instruction slots: KPROBE_INSN_SLOT_SIZE bytes of executable memory
 * within reach of kernel text.  Free only once no CPU can be in the slot.
 */
kprobe_opcode_t *kprobe_alloc_insn_slot(void);
void kprobe_free_insn_slot(kprobe_opcode_t *slot);

#if IS_ENABLED(CONFIG_KPROBES_TORTURE_TEST)
/*
 * Kernel-mode breakpoint traps taken on this CPU, whoever's they were.
 * Only kernels built for kprobetorture count them: it tells a hit our
 * handlers dropped (the CPU trapped) from a CPU that ran through a
 * breakpoint memory held without trapping at all, which only a faulty
 * CPU or emulator does (QEMU's multi-threaded TCG running a stale
 * translation of patched text).
 */
DECLARE_PER_CPU(unsigned long, kprobe_traps_taken);

/* A port calls this first thing in its kernel-mode breakpoint handler. */
static __always_inline void kprobe_count_trap(void)
{
	__this_cpu_inc(kprobe_traps_taken);
}
#else
static __always_inline void kprobe_count_trap(void) { }
#endif

#ifdef CONFIG_KPROBES_FTRACE_BRIDGE
/*
 * A head with KPROBE_FLAG_BRIDGE sits on an ftrace call site but is
 * reached (also) through the port's bridge breakpoint on the instruction
 * before it (kernel/kprobes/bridge.c says why and how); the breakpoint
 * stays in a little longer, while only KPROBE_FLAG_BRIDGE_GRACE is left.
 * The port's breakpoint handler, finding no head at the trap address but
 * one with either flag (KPROBE_FLAGS_BRIDGED) at the site after it, asks
 * kprobe_bridge_brk_fires(): if false, it
 * carries out the instruction under the breakpoint and resumes at the
 * site; if true, it carries it out, runs the hit with pc at the site as
 * its ftrace handler would, and calls kprobe_bridge_passed() unless a
 * pre_handler redirected.  Its ftrace handler treats a head that is
 * disabled, gone or bridged (one test of the three flags) with
 * kprobe_bridge_ftrace_fires().  All three run with preemption off.
 */
bool kprobe_bridge_brk_fires(struct kprobe *head);
void kprobe_bridge_passed(struct kprobe *head);
bool kprobe_bridge_ftrace_fires(struct kprobe *head);
/* For KUnit: hand every bridged head over now; turn the bridge on, held. */
void kprobe_bridges_flush(void);
void kprobe_bridges_hold(bool hold);
#else
static inline void kprobe_bridges_flush(void) {}
static inline void kprobe_bridges_hold(bool hold) {}
#endif

#endif /* CONFIG_KPROBES */
#endif /* _LINUX_KPROBES_HIT_H */
