// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Entry lanes: a probe registered on its own at an ftrace call site gets
 * a call site of its own.  The port provides KPROBE_FTRACE_LANES
 * trampolines; each lane in use pairs one with an ftrace_ops
 * registered as a direct call, so a hit goes from the function's fentry
 * call straight into the lane's trampoline, which knows its probe: no
 * ftrace_ops walk, no table lookup.
 *
 * Lanes are few because each one is an ftrace_ops of its own, which every
 * call ftrace dispatches through its list (the function tracer on, say)
 * tests in turn.  Batches, and single probes once the lanes are taken,
 * share the one ops of ftrace.c: the lanes are for the handful of probes a
 * user puts on by hand or with a tracing tool.
 *
 * Each hooking of a lane gets an ftrace_ops of its own, freed when it is
 * unhooked (ftrace has waited for its callers by then).  The lane itself
 * waits for RCU-tasks before it serves another probe: a task preempted
 * inside the trampoline still reads the lane's slot when it resumes, and
 * must find nothing there, not the next probe.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "internal.h"

/* The head each lane serves, read by the port's trampoline, or NULL. */
struct kprobe __rcu *kprobe_lane_heads[KPROBE_FTRACE_LANES];

enum lane_state {
	LANE_FREE,
	LANE_USED,
	/* Unhooked, waiting for tasks that may still be in its trampoline. */
	LANE_COOLING,
};

struct kprobe_lane {
	/* While the lane is in use. */
	struct ftrace_ops *ops;
	struct rcu_head rcu;
	/* Changed under kprobes_mutex but for COOLING -> FREE (the callback). */
	enum lane_state state;
};

static struct kprobe_lane lanes[KPROBE_FTRACE_LANES];

/*
 * Another ftrace user that changes ip (livepatch) at a lane's site: the
 * trampoline is entered with the new ip as its return address and returns
 * there after the handlers, and it never calls the traced function
 * itself, so sharing needs nothing from us.
 */
static int lane_ops_func(struct ftrace_ops *ops, enum ftrace_ops_cmd cmd)
{
	return 0;
}

static void lane_cooled(struct rcu_head *rcu)
{
	struct kprobe_lane *lane = container_of(rcu, struct kprobe_lane, rcu);

	/* Pairs with the acquire in kprobe_lane_arm(): the lane is done with. */
	smp_store_release(&lane->state, LANE_FREE);
}

static int lane_of(struct kprobe *head)
{
	int i;

	for (i = 0; i < KPROBE_FTRACE_LANES; i++)
		if (rcu_access_pointer(kprobe_lane_heads[i]) == head)
			return i;
	return -1;
}

/**
 * kprobe_lane_arm() - hook @head's ftrace site through a free lane
 * @head: a head on an ftrace call site, not hooked yet
 *
 * Return: 0 when a lane took it; -EBUSY when none is free, or ftrace's
 * error (another direct call is at the site, say): then the caller hooks
 * it the shared way.
 */
int kprobe_lane_arm(struct kprobe *head)
{
	unsigned long ip = (unsigned long)head->addr;
	struct kprobe_lane *lane = NULL;
	struct ftrace_ops *ops;
	int i, ret;

	lockdep_assert_held(&kprobes_mutex);
	for (i = 0; i < KPROBE_FTRACE_LANES; i++) {
		/* Pairs with the release in lane_cooled(). */
		if (smp_load_acquire(&lanes[i].state) == LANE_FREE) {
			lane = &lanes[i];
			break;
		}
	}
	if (!lane)
		return -EBUSY;
	ops = kzalloc(sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	ops->ops_func = lane_ops_func;
	ret = ftrace_set_filter_ip(ops, ip, 0, 1);
	if (ret)
		goto fail;
	/* Published before the call is patched in: the first hit finds it. */
	rcu_assign_pointer(kprobe_lane_heads[i], head);
	ret = register_ftrace_direct(ops, kprobe_lane_entries[i]);
	if (ret) {
		RCU_INIT_POINTER(kprobe_lane_heads[i], NULL);
		goto fail;
	}
	lane->ops = ops;
	WRITE_ONCE(lane->state, LANE_USED);
	return 0;
fail:
	ftrace_free_filter(ops);
	kfree(ops);
	return ret;
}

/**
 * kprobe_lane_disarm() - unhook @head if a lane serves it
 * @head: a hooked head
 *
 * The lane serves no probe any more when this returns; it takes another
 * once every task that may be inside its trampoline has left.
 *
 * Return: true when @head was on a lane.
 */
bool kprobe_lane_disarm(struct kprobe *head)
{
	int i = lane_of(head);
	int ret;

	lockdep_assert_held(&kprobes_mutex);
	if (i < 0)
		return false;
	ret = unregister_ftrace_direct(lanes[i].ops, kprobe_lane_entries[i],
				       true);
	/*
	 * Only a dead ftrace refuses; its sites call nothing any more, but
	 * ftrace may still hold the ops then: leave it to it.
	 */
	if (!WARN_ON_ONCE(ret && ret != -ENODEV) && !ret)
		kfree(lanes[i].ops);
	lanes[i].ops = NULL;
	RCU_INIT_POINTER(kprobe_lane_heads[i], NULL);
	WRITE_ONCE(lanes[i].state, LANE_COOLING);
	call_rcu_tasks(&lanes[i].rcu, lane_cooled);
	return true;
}

/**
 * kprobe_lane_replace() - a lane's head is replaced in the table
 * @old: the head that leaves
 * @new: the head that takes its place, for the same address
 *
 * Hits find one or the other until a grace period has passed, as table
 * lookups do.
 */
void kprobe_lane_replace(struct kprobe *old, struct kprobe *new)
{
	int i = lane_of(old);

	lockdep_assert_held(&kprobes_mutex);
	if (i >= 0)
		rcu_assign_pointer(kprobe_lane_heads[i], new);
}

/**
 * kprobe_on_lane() - does a lane serve @head?
 * @head: a head
 *
 * For tests and the debugfs list.
 *
 * Return: true when @head's site is hooked through a lane of its own.
 */
bool kprobe_on_lane(struct kprobe *head)
{
	return lane_of(head) >= 0;
}
