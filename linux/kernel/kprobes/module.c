// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes whose text goes away: module unload, a module's init text once it
 * is live, and the kernel's init text after boot.  Such probes become
 * [GONE]: they stay registered, so their owners can still unregister them,
 * but nothing arms them again.  Modules also bring and take their own
 * blacklist entries.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <asm/sections.h>
#include <kunit/visibility.h>

#include "internal.h"

struct dying_text {
	bool (*within)(unsigned long addr, void *arg);
	void *arg;
};

static bool dying(struct kprobe *head, void *arg)
{
	struct dying_text *text = arg;

	return !kprobe_gone(head) &&
	       text->within((unsigned long)head->addr, text->arg);
}

/*
 * Mark gone every head whose address satisfies @within, all in one go
 * (one text synchronisation, one grace period) when there is memory for
 * the list, else one by one.
 */
static void kill_sites(bool (*within)(unsigned long addr, void *arg), void *arg)
{
	struct dying_text text = { .within = within, .arg = arg };
	struct kprobe **heads;
	unsigned int i, n;

	n = kprobe_collect_heads(dying, &text, NULL, 0);
	if (!n)
		return;
	heads = kvmalloc_array(n, sizeof(*heads), GFP_KERNEL);
	if (heads) {
		kprobe_collect_heads(dying, &text, heads, n);
		kprobe_heads_mark_gone(heads, n);
		kvfree(heads);
		return;
	}
	for (i = 0; i < n; i++) {
		struct kprobe *head = NULL;

		/* Finds the first live one left: the previous are gone now. */
		kprobe_collect_heads(dying, &text, &head, 1);
		if (!head)
			break;
		kprobe_heads_mark_gone(&head, 1);
	}
}

static bool in_kernel_init(unsigned long addr, void *unused)
{
	return addr >= (unsigned long)__init_begin &&
	       addr < (unsigned long)__init_end;
}

/**
 * kprobe_free_init_mem() - the kernel's init text is about to be freed
 *
 * Called once from kernel_init(); probes there become [GONE].
 */
void kprobe_free_init_mem(void)
{
	mutex_lock(&kprobes_mutex);
	kill_sites(in_kernel_init, NULL);
	mutex_unlock(&kprobes_mutex);
}

#ifdef CONFIG_MODULES
static bool in_module_going(unsigned long addr, void *mod)
{
	return within_module(addr, mod);
}

static bool in_module_init(unsigned long addr, void *mod)
{
	return within_module_init(addr, mod);
}

static bool in_module_blacklist(unsigned long addr, void *mod)
{
	return within_module(addr, mod) && within_kprobe_blacklist(addr);
}

/**
 * kprobe_module_coming() - a module's blacklist comes into force
 * @mod: the module, in MODULE_STATE_COMING
 *
 * Its text can be found (and probed) a little before the notifier runs,
 * so a probe may already sit on a function the module marks
 * NOKPROBE_SYMBOL: such probes become [GONE] before the module runs.
 * Called with kprobes_mutex held.
 */
void kprobe_module_coming(struct module *mod)
{
	lockdep_assert_held(&kprobes_mutex);
	kprobe_blacklist_add_module(mod);
	kill_sites(in_module_blacklist, mod);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_module_coming);

static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long state, void *data)
{
	struct module *mod = data;

	mutex_lock(&kprobes_mutex);
	switch (state) {
	case MODULE_STATE_COMING:
		kprobe_module_coming(mod);
		break;
	case MODULE_STATE_LIVE:
		/* Its init text is freed next. */
		kill_sites(in_module_init, mod);
		break;
	case MODULE_STATE_GOING:
		kill_sites(in_module_going, mod);
		kprobe_blacklist_remove_module(mod);
		break;
	}
	mutex_unlock(&kprobes_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block kprobes_module_nb = {
	.notifier_call = kprobes_module_callback,
	/* Before other users (tracing) look at the module's text. */
	.priority = 0,
};

static int __init kprobes_module_init(void)
{
	return register_module_notifier(&kprobes_module_nb);
}
early_initcall(kprobes_module_init);
#endif /* CONFIG_MODULES */
