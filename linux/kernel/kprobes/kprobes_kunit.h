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

#endif /* _KERNEL_KPROBES_KUNIT_H */
