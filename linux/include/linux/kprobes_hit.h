/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the generic kprobes core offers a port's trap handlers: the table
 * that maps a probed address to its head, the heads themselves, and the
 * helpers a hit calls.  The hooks a port implements are in
 * <linux/kprobes_arch.h>.
 *
 * How a hit flows: the port's breakpoint (or ftrace, or detour) handler
 * finds the head with kprobe_lookup().  If kprobe_running() is NULL it
 * calls kprobe_hit_begin(), which runs the pre_handlers; unless one of
 * them redirected execution (then the port just ends the hit with
 * reset_current_kprobe()), the port executes or emulates the original
 * instruction and calls kprobe_hit_end(), which runs the post_handlers.
 * A port may skip the trap after the instruction when the head has no
 * post_handler (a lone probe's own; on a site the core sets it exactly
 * when some enabled probe there has one), and then ends the hit with
 * reset_current_kprobe() before the instruction runs.  A hit
 * while a handler is running only counts kprobes_inc_nmissed_count() and
 * executes the instruction.  All of this runs with interrupts or
 * preemption off, never sleeps and never takes a lock.
 */
#ifndef _LINUX_KPROBES_HIT_H
#define _LINUX_KPROBES_HIT_H

#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/hash.h>
#include <linux/bits.h>

#ifdef CONFIG_KPROBES

/*
 * The site table (kernel/kprobes/table.c) maps each probed address to the
 * one kprobe a hit deals with, its "head", chained through the head's own
 * @hlist.  A probe alone at its address is its own head: registering it
 * allocates nothing.  A second probe at the address (or a detour, which
 * records its head) turns the site into a struct kprobe_site: its
 * embedded kprobe becomes the head, the users' probes hang off @kp.list
 * in registration order, and @chain lists, in the same order, those that
 * have a handler: that array is all a hit walks.  A site, once made,
 * stays one until it is emptied.
 *
 * Ports treat every head alike; only the core reads these fields.
 */
struct kprobe_chain {
	struct rcu_head rcu;
	/* NULL-terminated. */
	struct kprobe *probes[];
};

struct kprobe_site {
	struct kprobe kp;
	/* The probes here with a handler, or NULL when there is none. */
	struct kprobe_chain __rcu *chain;
	/* Users at this address that are neither disabled nor gone. */
	unsigned int nr_enabled;
	/* On the optimizer's queue (kernel/kprobes/optimize.c). */
	struct list_head opt_node;
};

/* Flag bits only the core sets, on heads (cleared when a probe leaves). */
#define KPROBE_FLAG_DETOUR	BIT(27)	/* the port's detour may be entered */
#define KPROBE_FLAG_AGGR	BIT(28)	/* the head of a kprobe_site */
#define KPROBE_FLAG_ARMED	BIT(29)	/* breakpoint or ftrace hook in */
#define KPROBE_FLAG_IN_BATCH	BIT(30)	/* scratch mark, under the mutex */
#define KPROBE_CORE_FLAGS	(KPROBE_FLAG_DETOUR | KPROBE_FLAG_AGGR | \
				 KPROBE_FLAG_ARMED | KPROBE_FLAG_IN_BATCH)

static inline bool kprobe_aggr(const struct kprobe *p)
{
	return kprobe_has_flag(p, KPROBE_FLAG_AGGR);
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

/*
 * The address -> head hash: buckets of heads chained through their
 * @hlist, a few heads per bucket so that the table costs a few bytes per
 * probe.  A resize moves the heads one at a time into a bigger (or
 * smaller) table that @future points to while it happens, so a lookup
 * that misses in one table goes on in the next (see table.c).
 */
struct kprobe_site_table {
	/* 64 - log2(number of buckets): the hash is a product's top bits. */
	unsigned int shift;
	struct kprobe_site_table __rcu *future;
	struct hlist_head *heads;
	struct rcu_head rcu;
};

extern struct kprobe_site_table __rcu *kprobe_sites;

static __always_inline unsigned long kprobe_site_hash(const void *addr,
						      unsigned int shift)
{
	return ((unsigned long)addr * GOLDEN_RATIO_64) >> shift;
}

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
	struct kprobe_site_table *t = rcu_dereference_raw(kprobe_sites);
	struct hlist_head *head;
	struct hlist_node *node;
	struct kprobe *kp;

	do {
		head = &t->heads[kprobe_site_hash(addr, t->shift)];
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
 * The probe whose handler runs on this CPU, for fault_handler: one of a
 * site's, or a kretprobe's (a lone probe is found as the head instead).
 */
DECLARE_PER_CPU(struct kprobe *, kprobe_in_handler);

/*
 * Which probes the pre phase of this CPU's hit found enabled: for a site,
 * the chain it walked and a bit per probe on it; for a lone probe, bit 0.
 * The post phase of the same hit runs the post_handlers of exactly those,
 * so a probe enabled or added between the two phases never gets a
 * post_handler call without the pre_handler call before it.  A site's
 * chain is still there at the post phase: it is freed only after a grace
 * period, and a hit that has a post phase runs with interrupts off.
 */
struct kprobe_hit_record {
	struct kprobe_chain *chain;
	unsigned long enabled;	/* bit i: chain->probes[i], or the lone probe */
};
DECLARE_PER_CPU(struct kprobe_hit_record, kprobe_hit_record);

/*
 * The head get_kprobe() returns stands for every probe at its address.
 * The helpers below run the handlers of all of them; they are inline
 * because they are the whole cost of a hit besides the trap.
 */

/**
 * kprobe_run_site_pre_handlers() - kprobe_run_pre_handlers() for a site
 * @p: a head known to be a site's, such as the one a detour names
 * @regs: registers of the hit
 *
 * Return: as kprobe_run_pre_handlers().
 */
static __always_inline bool kprobe_run_site_pre_handlers(struct kprobe *p,
							 struct pt_regs *regs)
{
	struct kprobe_site *site = container_of(p, struct kprobe_site, kp);
	struct kprobe_chain *chain = rcu_dereference_raw(site->chain);
	struct kprobe_hit_record *hit = this_cpu_ptr(&kprobe_hit_record);
	unsigned long enabled = 0;
	bool redirected = false;
	struct kprobe *probe;
	unsigned int i;

	hit->chain = chain;
	if (!chain)
		return false;
	for (i = 0; (probe = READ_ONCE(chain->probes[i])); i++) {
		if (kprobe_disabled(probe))
			continue;
		/* Beyond the mask, the post phase looks at the flag again. */
		if (i < BITS_PER_LONG)
			enabled |= BIT(i);
		if (!probe->pre_handler)
			continue;
		__this_cpu_write(kprobe_in_handler, probe);
		if (probe->pre_handler(probe, regs)) {
			redirected = true;
			break;
		}
	}
	hit->enabled = enabled;
	__this_cpu_write(kprobe_in_handler, NULL);
	return redirected;
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
	bool enabled;

	if (kprobe_aggr(p))
		return kprobe_site_pre_handlers(p, regs);
	enabled = !kprobe_disabled(p);
	__this_cpu_write(kprobe_hit_record.enabled, enabled);
	if (!enabled || !p->pre_handler)
		return false;
	/*
	 * A lone probe is its own head: kprobe_run_fault_handler() finds it
	 * without kprobe_in_handler, which only tells a site's probes apart.
	 */
	return p->pre_handler(p, regs);
}

/**
 * kprobe_run_post_handlers() - run the post_handlers at a probed address
 * @p: the head get_kprobe() returned; only call when @p->post_handler
 * @regs: registers after the original instruction
 */
static __always_inline void kprobe_run_post_handlers(struct kprobe *p,
						     struct pt_regs *regs)
{
	struct kprobe_hit_record *hit = this_cpu_ptr(&kprobe_hit_record);
	struct kprobe *probe;
	unsigned int i;

	/* The probes the pre phase of this hit found enabled, no others. */
	if (!kprobe_aggr(p)) {
		/* As in kprobe_run_pre_handlers(): no kprobe_in_handler. */
		if (hit->enabled)
			p->post_handler(p, regs, 0);
		return;
	}
	for (i = 0; hit->chain && (probe = READ_ONCE(hit->chain->probes[i])); i++) {
		if (i < BITS_PER_LONG ? !(hit->enabled & BIT(i)) :
					kprobe_disabled(probe))
			continue;
		if (!probe->post_handler)
			continue;
		__this_cpu_write(kprobe_in_handler, probe);
		probe->post_handler(probe, regs, 0);
	}
	__this_cpu_write(kprobe_in_handler, NULL);
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
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	return kprobe_run_pre_handlers(p, regs);
}

/*
 * kprobe_hit_begin() for a head known to be a site's (a detour always
 * names one), with the site's pre_handlers walked inline: the
 * jump-optimized path is the cheapest hit there is, and one more call
 * would show in it.
 */
static __always_inline bool kprobe_site_hit_begin(struct kprobe *p,
						  struct pt_regs *regs)
{
	__this_cpu_write(current_kprobe, p);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	return kprobe_run_site_pre_handlers(p, regs);
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
	bool site = kprobe_aggr(p);

	if (post) {
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		if (site)
			kprobe_run_post_handlers(p, regs);
		else if (__this_cpu_read(kprobe_hit_record.enabled))
			/*
			 * Only when the hit began with the probe enabled, and
			 * then even if it was disabled meanwhile.  As in
			 * kprobe_run_pre_handlers(), no kprobe_in_handler.
			 */
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

#endif /* CONFIG_KPROBES */
#endif /* _LINUX_KPROBES_HIT_H */
