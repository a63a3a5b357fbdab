/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Holding a window open for the kprobes KUnit race cases: a thread on
 * another CPU that calls a probed function over and over (with a stretch
 * of interrupts-off calls on request, which also holds back any text
 * synchronisation), and a quarantine that poisons freed instruction
 * slots and keeps them out of reuse.  The core's kprobes_race suite and
 * the ports' suites (kprobes_x86) use them; kprobes_window_kunit.c.
 */
#ifndef _KERNEL_KPROBES_WINDOW_KUNIT_H
#define _KERNEL_KPROBES_WINDOW_KUNIT_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/sched.h>

/* The longest a case holds the other CPU; each ends far sooner. */
#define KPROBE_KUNIT_HOLD_MAX_NS	(2 * NSEC_PER_SEC)
/*
 * The longest a case sleeps waiting for the other CPU to get somewhere.
 * Generous: under TCG on a busy host the other vCPU may get little time.
 */
#define KPROBE_KUNIT_REACH_MAX_NS	(20 * NSEC_PER_SEC)

/*
 * A thread on the other CPU calling @fn over and over, checking each
 * result; on request, it makes one stretch of calls with interrupts off,
 * calling @watch after each until @watch says it has seen enough.
 */
struct kprobe_hot_caller {
	struct task_struct *task;
	int (*fn)(int x);
	int (*expected)(int x);
	bool (*watch)(struct kprobe_hot_caller *h);
	atomic_long_t calls;
	bool want_stretch, in_stretch, stretch_done;
	bool stop, wrong;
};

bool kprobe_kunit_past(u64 deadline);
/*
 * For a handler holding its hit open: set *@holding, then spin until
 * *@released is set or KPROBE_KUNIT_HOLD_MAX_NS have passed.
 */
void kprobe_kunit_hold(bool *holding, const bool *released);
/* Wait (sleeping) until *@flag is set; false after REACH_MAX_NS. */
bool kprobe_kunit_wait_for_flag(bool *flag);
/* Start @fn(@data) on a CPU other than this one; skips on one CPU. */
struct task_struct *kprobe_kunit_run_elsewhere(struct kunit *test,
					       int (*fn)(void *), void *data);
/* A hot caller of @fn on another CPU, stopped when the case ends. */
struct kprobe_hot_caller *
kprobe_kunit_start_hot_caller(struct kunit *test, int (*fn)(int x),
			      int (*expected)(int x));
void kprobe_kunit_stop_hot_caller(struct kprobe_hot_caller *h);
/* Have @h start an interrupts-off stretch and wait until it runs. */
void kprobe_kunit_begin_stretch(struct kunit *test,
				struct kprobe_hot_caller *h);
/*
 * Until the case ends, poison each instruction slot the core frees and
 * keep it out of reuse; with @h, let it make a few calls after each free.
 */
void kprobe_kunit_quarantine_slots(struct kunit *test,
				   struct kprobe_hot_caller *h);
/* Slots quarantined since kprobe_kunit_quarantine_slots(). */
extern int kprobe_kunit_nr_quarantined;

#endif /* _KERNEL_KPROBES_WINDOW_KUNIT_H */
