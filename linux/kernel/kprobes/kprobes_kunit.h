/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kprobes KUnit suites share: the core's (kernel/kprobes/) and
 * each port's (arch/<arch>/kernel/probes/).
 */
#ifndef _KERNEL_KPROBES_KUNIT_H
#define _KERNEL_KPROBES_KUNIT_H

#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/irq_work.h>
#include <linux/timekeeping.h>

KUNIT_DEFINE_ACTION_WRAPPER(kprobe_kunit_unregister, unregister_kprobe,
			    struct kprobe *);

/*
 * A probe that is unregistered when the case ends, however it ends: an
 * assertion that fails halfway must not leave it in the table, least of
 * all in memory that is gone.
 */
static inline struct kprobe *test_probe(struct kunit *test,
					const struct kprobe *init)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, kp);
	*kp = *init;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							kprobe_kunit_unregister,
							kp), 0);
	return kp;
}

/* What a caller may see of a registered probe (trace_kprobe relies on it). */
static inline bool looks_registered(struct kprobe *kp)
{
	return !list_empty(&kp->list) || !hlist_unhashed(&kp->hlist);
}

/*
 * A handler that faults, for the fault_handler cases of every suite: the
 * pre_handler reads the guard page after a vmalloc area (nothing is
 * mapped there, so the read faults and its exception-table entry fixes
 * it), and the fault_handler notes the trap number it is given.
 */
static struct {
	void *area;
	int failed_reads;	/* reads the pre_handler saw fail */
	int faults;		/* fault_handler calls */
	int trapnr;		/* what the last one was given */
} kunit_fault __maybe_unused;

KUNIT_DEFINE_ACTION_WRAPPER(kunit_fault_vfree, vfree, const void *);

/* Reset the counts and make the area, freed when the case ends. */
static inline void kunit_fault_setup(struct kunit *test)
{
	memset(&kunit_fault, 0, sizeof(kunit_fault));
	kunit_fault.trapnr = -1;
	kunit_fault.area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, kunit_fault.area);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kunit_fault_vfree,
							kunit_fault.area), 0);
}

static inline int kunit_fault_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long val;

	if (copy_from_kernel_nofault(&val, kunit_fault.area + PAGE_SIZE,
				     sizeof(val)))
		kunit_fault.failed_reads++;
	return 0;
}

static inline int kunit_fault_note(struct kprobe *kp, struct pt_regs *regs,
				   int trapnr)
{
	kunit_fault.faults++;
	kunit_fault.trapnr = trapnr;
	return 0;	/* let the exception table fix it */
}

/*
 * The same read made by an interrupt that comes in while a handler runs:
 * the pre_handler queues an irq_work on its own CPU and spins until it has
 * run.  That fault is the interrupt's: the probe's fault_handler must not
 * see it (had it returned 1, the interrupt's fixup would have been
 * skipped).  Only hits that run handlers with interrupts on (ftrace-site
 * and detour hits on x86) can show it; the pre_handler notes the others.
 */
static struct {
	int hits;
	int failed_reads;	/* reads the interrupt saw fail */
	bool done;		/* the irq_work ran */
	bool irqs_off;		/* the handler ran with interrupts off */
} kunit_irq_fault __maybe_unused;

static inline void kunit_irq_fault_read(struct irq_work *work)
{
	unsigned long val;

	if (copy_from_kernel_nofault(&val, kunit_fault.area + PAGE_SIZE,
				     sizeof(val)))
		kunit_irq_fault.failed_reads++;
	WRITE_ONCE(kunit_irq_fault.done, true);
}

static struct irq_work kunit_irq_fault_work __maybe_unused =
	IRQ_WORK_INIT_HARD(kunit_irq_fault_read);

static inline int kunit_irq_fault_pre(struct kprobe *kp, struct pt_regs *regs)
{
	u64 deadline = ktime_get_mono_fast_ns() + 2 * NSEC_PER_SEC;

	kunit_irq_fault.hits++;
	if (irqs_disabled()) {
		kunit_irq_fault.irqs_off = true;
		return 0;
	}
	irq_work_queue(&kunit_irq_fault_work);
	while (!READ_ONCE(kunit_irq_fault.done) &&
	       ktime_get_mono_fast_ns() < deadline)
		cpu_relax();
	return 0;
}

/*
 * One call of @fn(3) through @kp (with kunit_irq_fault_pre and
 * kunit_fault_note, after kunit_fault_setup()), checked.
 */
static inline void kunit_irq_fault_call(struct kunit *test, struct kprobe *kp,
					int (*fn)(int x), int expected)
{
	memset(&kunit_irq_fault, 0, sizeof(kunit_irq_fault));
	kunit_fault.faults = 0;
	KUNIT_EXPECT_EQ(test, fn(3), expected);
	KUNIT_EXPECT_EQ(test, kunit_irq_fault.hits, 1);
	if (kunit_irq_fault.irqs_off)
		kunit_skip(test, "%ps: this hit runs handlers with interrupts off",
			   kp->addr);
	/* The window held: the interrupt faulted inside the handler... */
	KUNIT_EXPECT_TRUE(test, kunit_irq_fault.done);
	KUNIT_EXPECT_EQ(test, kunit_irq_fault.failed_reads, 1);
	/* ...and its fault was fixed up without the probe's fault_handler. */
	KUNIT_EXPECT_EQ_MSG(test, kunit_fault.faults, 0,
			    "%ps: the probe answered an interrupt's fault",
			    kp->addr);
}

#endif /* _KERNEL_KPROBES_KUNIT_H */
