/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kprobes KUnit suites share: the core's (kernel/kprobes/) and
 * each port's (arch/<arch>/kernel/kprobes/).
 */
#ifndef _KERNEL_KPROBES_KUNIT_H
#define _KERNEL_KPROBES_KUNIT_H

#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/kprobes.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

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

#endif /* _KERNEL_KPROBES_KUNIT_H */
