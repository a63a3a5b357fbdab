// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hit side of the core: the per-CPU state of a hit and the
 * out-of-line half of <linux/kprobes_hit.h>, which a port's trap and
 * ftrace handlers call.  Everything here runs with interrupts or
 * preemption off, takes no lock and allocates nothing; it only reads
 * what the update side (core.c, site.c, table.c) has published.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/percpu.h>

#include "internal.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/*
 * The probe whose handler runs on this CPU, for fault_handler: one of a
 * site's, or a kretprobe's (a lone probe is found as the head instead).
 */
DEFINE_PER_CPU(struct kprobe *, kprobe_in_handler);
#if IS_ENABLED(CONFIG_KPROBES_TORTURE_TEST)
DEFINE_PER_CPU(unsigned long, kprobe_traps_taken);
EXPORT_PER_CPU_SYMBOL_GPL(kprobe_traps_taken);
#endif

DEFINE_PER_CPU(struct kprobe_chain *, kprobe_hit_chain);

bool kprobe_site_pre_handlers(struct kprobe *p, struct pt_regs *regs)
{
	return kprobe_run_site_pre_handlers(p, regs);
}
NOKPROBE_SYMBOL(kprobe_site_pre_handlers);

int kprobe_run_fault_handler(struct kprobe *kp, struct pt_regs *regs,
			     int trapnr)
{
	struct kprobe *running = __this_cpu_read(kprobe_in_handler);
	struct kprobe *probe;

	/*
	 * A handler faulted: only that probe's fault_handler may answer,
	 * and only for a fault of the handler's own context.
	 */
	if (running)
		return running->fault_handler && kprobe_fault_in_hit_context() ?
			running->fault_handler(running, regs, trapnr) : 0;

	/* Only a real head has probes; kprobe_busy and friends do not. */
	if (get_kprobe(kp->addr) != kp)
		return 0;
	if (!kprobe_is_site(kp))
		return kp->fault_handler && !kprobe_disabled(kp) ?
			kp->fault_handler(kp, regs, trapnr) : 0;
	/*
	 * Nothing named while a site's hit is in its handlers or the port's
	 * emulation: the handler is the chain's lone, which has no
	 * fault_handler, or it is the emulation's own checked read.  Neither
	 * fault is the probed instruction's, which every probe here shares.
	 */
	if (__this_cpu_read(kprobe_ctlblk.kprobe_status) &
	    (KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE))
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
 * @kp: the head that was hit
 *
 * Every probe at the address missed the hit, so each one counts it.
 */
void kprobes_inc_nmissed_count(struct kprobe *kp)
{
	struct kprobe *probe;

	if (!kprobe_is_site(kp)) {
		kp->nmissed++;
		return;
	}
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
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
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

void kprobe_report_nested(struct kprobe *p)
{
	pr_err("probe hit while stepping a nested probe\n");
	dump_kprobe(p);
}
NOKPROBE_SYMBOL(kprobe_report_nested);
