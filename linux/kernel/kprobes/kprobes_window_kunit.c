// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The window-holding helpers of kprobes_window_kunit.h.
 */
#include <kunit/test.h>
#include <kunit/static_stub.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/timekeeping.h>

#include "internal.h"
#include "kprobes_window_kunit.h"

bool kprobe_kunit_past(u64 deadline)
{
	return ktime_get_mono_fast_ns() > deadline;
}

bool kprobe_kunit_wait_for_flag(bool *flag)
{
	u64 deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_REACH_MAX_NS;

	while (!READ_ONCE(*flag)) {
		if (kprobe_kunit_past(deadline))
			return false;
		usleep_range(50, 100);
	}
	return true;
}

static void hot_call(struct kprobe_hot_caller *h, int x)
{
	if (h->fn(x) != h->expected(x))
		WRITE_ONCE(h->wrong, true);
	atomic_long_inc(&h->calls);
}

void kprobe_kunit_hold(bool *holding, const bool *released)
{
	u64 deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_HOLD_MAX_NS;

	WRITE_ONCE(*holding, true);
	while (!READ_ONCE(*released) && !kprobe_kunit_past(deadline))
		cpu_relax();
}

static void hot_stretch(struct kprobe_hot_caller *h, int *x)
{
	u64 deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_HOLD_MAX_NS;
	unsigned long flags;

	local_irq_save(flags);
	WRITE_ONCE(h->in_stretch, true);
	do {
		hot_call(h, (*x)++ & 0xffff);
	} while (!h->watch(h) && !kprobe_kunit_past(deadline));
	WRITE_ONCE(h->in_stretch, false);
	local_irq_restore(flags);
	WRITE_ONCE(h->want_stretch, false);
	WRITE_ONCE(h->stretch_done, true);
}

static int hot_loop(void *data)
{
	struct kprobe_hot_caller *h = data;
	int x = 0;

	while (!READ_ONCE(h->stop)) {
		if (READ_ONCE(h->want_stretch))
			hot_stretch(h, &x);
		hot_call(h, x++ & 0xffff);
		/*
		 * A voluntary switch now and then: on preemptible kernels a
		 * detour is retired only after every task has made one.
		 */
		if (!(x % 16))
			usleep_range(10, 20);
	}
	return 0;
}

struct task_struct *kprobe_kunit_run_elsewhere(struct kunit *test,
					       int (*fn)(void *), void *data)
{
	struct task_struct *task;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	task = kthread_create(fn, data, "krc_other");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, cpumask_any_but(cpu_online_mask,
					   raw_smp_processor_id()));
	get_task_struct(task);
	wake_up_process(task);
	return task;
}

void kprobe_kunit_stop_hot_caller(struct kprobe_hot_caller *h)
{
	if (!h->task)
		return;
	WRITE_ONCE(h->stop, true);
	kthread_stop(h->task);
	put_task_struct(h->task);
	h->task = NULL;
}

KUNIT_DEFINE_ACTION_WRAPPER(stop_hot_caller_action, kprobe_kunit_stop_hot_caller,
			    struct kprobe_hot_caller *);

struct kprobe_hot_caller *
kprobe_kunit_start_hot_caller(struct kunit *test, int (*fn)(int x),
			      int (*expected)(int x))
{
	struct kprobe_hot_caller *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->fn = fn;
	h->expected = expected;
	h->task = kprobe_kunit_run_elsewhere(test, hot_loop, h);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, stop_hot_caller_action,
							h), 0);
	return h;
}

/*
 * Have the caller start a stretch with interrupts off, and wait until it
 * is seen running.  On a loaded host this CPU may get no time for the
 * whole of a stretch (KPROBE_KUNIT_HOLD_MAX_NS), which then ends
 * unseen: ask again.
 */
void kprobe_kunit_begin_stretch(struct kunit *test, struct kprobe_hot_caller *h)
{
	u64 deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_REACH_MAX_NS;

	while (!kprobe_kunit_past(deadline)) {
		WRITE_ONCE(h->stretch_done, false);
		WRITE_ONCE(h->want_stretch, true);
		while (!READ_ONCE(h->in_stretch) && !READ_ONCE(h->stretch_done) &&
		       !kprobe_kunit_past(deadline))
			usleep_range(50, 100);
		if (READ_ONCE(h->in_stretch))
			return;
	}
	KUNIT_FAIL_AND_ABORT(test, "the other CPU never began a stretch");
}

/*
 * Slots freed during a case are filled with instructions that trap and
 * kept out of reuse, so a hit that still runs in one after it was freed
 * oopses.  When a hot caller is named, each free also lets it make a few
 * more calls first.
 */
#define QUARANTINE_MAX	64

static struct kprobe_hot_caller *quarantine_caller;
static kprobe_opcode_t *quarantine[QUARANTINE_MAX];
int kprobe_kunit_nr_quarantined;

static void quarantine_slot(kprobe_opcode_t *slot)
{
	struct kprobe_hot_caller *h = quarantine_caller;
	u8 poison[KPROBE_INSN_SLOT_SIZE];
	long calls;
	u64 deadline;

	memset(poison, KPROBE_SLOT_POISON, sizeof(poison));
	arch_write_insn_slot(slot, poison, sizeof(poison));
	if (kprobe_kunit_nr_quarantined < QUARANTINE_MAX)
		quarantine[kprobe_kunit_nr_quarantined++] = slot;
	if (!h)
		return;
	calls = atomic_long_read(&h->calls) + 3;
	deadline = ktime_get_mono_fast_ns() + KPROBE_KUNIT_HOLD_MAX_NS;
	while (atomic_long_read(&h->calls) < calls && !kprobe_kunit_past(deadline))
		cpu_relax();
}

/* After the stub is gone: give the slots back for real. */
static void release_quarantine(void *unused)
{
	quarantine_caller = NULL;
	while (kprobe_kunit_nr_quarantined)
		kprobe_free_insn_slot(quarantine[--kprobe_kunit_nr_quarantined]);
}

void kprobe_kunit_quarantine_slots(struct kunit *test,
				   struct kprobe_hot_caller *h)
{
	kprobe_kunit_nr_quarantined = 0;
	quarantine_caller = h;
	/* Added before the stub, so it runs after the stub is deactivated. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, release_quarantine,
							NULL), 0);
	kunit_activate_static_stub(test, kprobe_free_insn_slot, quarantine_slot);
}
