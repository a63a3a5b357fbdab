// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Points of the hit path where a race test may hold the hitting thread
 * (CONFIG_UPROBES_RACE_HOOKS, off in production builds; on, a hit pays
 * one patched-out branch per point while no hook is set).
 *
 * A kprobe cannot hold these windows open: its handler may not sleep,
 * and a CPU spinning in one (interrupts off, at a breakpoint hit) ends
 * no RCU grace period, while the registrations the test runs meanwhile
 * on the other CPU wait for one (uprobes_dup_mmap_sem).  The hook is called
 * in the hitting task inside its uprobes_srcu read-side section, so it
 * may sleep, and clearing it waits for every call in progress.
 */
#include <linux/jump_label.h>
#include <linux/srcu.h>
#include <linux/uprobes.h>

#include "internal.h"

DEFINE_STATIC_KEY_FALSE(uprobe_race_hooked);
static uprobe_race_hook_t race_hook;

void __uprobe_race_point(enum uprobe_race_point point, unsigned long vaddr)
{
	uprobe_race_hook_t hook = READ_ONCE(race_hook);

	if (hook)
		hook(point, vaddr);
}

/**
 * uprobe_set_race_hook() - hold hits at the points of enum uprobe_race_point
 * @hook: called at each point of every hit, in the hitting task, with the
 *	  trapped address; it may sleep.  NULL removes the hook.
 *
 * Only for tests: a module that set a hook must clear it before it goes.
 * Clearing returns once no call of the previous hook is running.  Calls
 * are not counted: a second hook replaces the first.
 */
void uprobe_set_race_hook(uprobe_race_hook_t hook)
{
	WRITE_ONCE(race_hook, hook);
	if (hook) {
		static_branch_enable(&uprobe_race_hooked);
		return;
	}
	static_branch_disable(&uprobe_race_hooked);
	synchronize_srcu(&uprobes_srcu);
}
EXPORT_SYMBOL_GPL(uprobe_set_race_hook);
