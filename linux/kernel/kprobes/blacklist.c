// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text where probes are refused: functions marked NOKPROBE_SYMBOL (in the
 * kernel and in modules), the .kprobes.text and .noinstr.text sections and
 * whatever the architecture adds.  Each refused range is one entry; the
 * list is read under RCU (registration, hw_breakpoint, kgdb) and changed
 * under probes_mutex when modules come and go.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <asm/sections.h>

#include "internal.h"

LIST_HEAD(kprobe_blacklist);

static bool in_section(unsigned long addr, const char *start, const char *end)
{
	return addr >= (unsigned long)start && addr < (unsigned long)end;
}

bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	return in_section(addr, __kprobes_text_start, __kprobes_text_end);
}

int __weak arch_populate_kprobe_blacklist(void)
{
	return 0;
}

static bool in_listed_range(unsigned long addr)
{
	struct kprobe_blacklist_entry *range;
	bool found = false;

	guard(rcu)();
	list_for_each_entry_rcu(range, &kprobe_blacklist, list)
		found |= addr >= range->start_addr && addr < range->end_addr;
	return found;
}

/**
 * within_kprobe_blacklist() - may no probe go at @addr?
 * @addr: kernel text address
 *
 * Also refuses compiler-made clones (foo.isra.0, foo.constprop.1, ...) of a
 * refused function foo: the clone runs the same code in the same context.
 *
 * Return: true when probes are refused at @addr.
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	char name[KSYM_NAME_LEN], *dot = NULL;
	unsigned long base = 0;

	if (arch_within_kprobe_blacklist(addr) || in_listed_range(addr))
		return true;
	if (!lookup_symbol_name(addr, name))
		dot = strchr(name, '.');
	if (dot) {
		*dot = '\0';
		base = kallsyms_lookup_name(name);
	}
	return base && in_listed_range(base);
}

/* Caller holds probes_mutex, or is the only one running (boot). */
static int add_blacklist_range(unsigned long start, unsigned long end)
{
	struct kprobe_blacklist_entry *range;

	range = kzalloc(sizeof(*range), GFP_KERNEL);
	if (range) {
		range->start_addr = start;
		range->end_addr = end;
		list_add_tail_rcu(&range->list, &kprobe_blacklist);
	}
	return range ? 0 : -ENOMEM;
}

/**
 * kprobe_add_ksym_blacklist() - refuse probes in the function at @entry
 * @entry: any address inside a function
 *
 * Return: the function's size, or a negative errno.
 */
int kprobe_add_ksym_blacklist(unsigned long entry)
{
	unsigned long len, off;
	int err;

	if (!kernel_text_address(entry) || !kallsyms_lookup_size_offset(entry, &len, &off))
		return -EINVAL;
	err = add_blacklist_range(entry - off, entry - off + len);
	return err ?: len;
}

/**
 * kprobe_add_area_blacklist() - refuse probes in [@start, @end)
 * @start: first address
 * @end: first address past the area
 *
 * Adds one entry per function in the area, so the blacklist file names
 * them.
 *
 * Return: 0 or a negative errno.
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	unsigned long addr;
	int ret;

	for (addr = start; addr < end; addr += ret) {
		ret = kprobe_add_ksym_blacklist(addr);
		if (ret < 0)
			return ret;
		if (!ret)	/* a zero-sized symbol: step past it */
			ret = 1;
	}
	return 0;
}

static int __init blacklist_section(const char *start, const char *end)
{
	return kprobe_add_area_blacklist((unsigned long)start, (unsigned long)end);
}

int __init kprobe_blacklist_init(void)
{
	unsigned long *entry;
	int ret;

	for (entry = __start_kprobe_blacklist; entry < __stop_kprobe_blacklist;
	     entry++) {
		void *fn = dereference_symbol_descriptor((void *)*entry);

		ret = kprobe_add_ksym_blacklist((unsigned long)fn);
		if (ret == -EINVAL)
			continue;	/* not text (or not in kallsyms) */
		if (ret < 0)
			return ret;
	}
	ret = blacklist_section(__kprobes_text_start, __kprobes_text_end) ?:
	      blacklist_section(__noinstr_text_start, __noinstr_text_end);
	return ret ?: arch_populate_kprobe_blacklist();
}

static void add_module_range(void *start, unsigned int size)
{
	unsigned long s = (unsigned long)start;

	if (start && size)
		kprobe_add_area_blacklist(s, s + size);
}

/* A module is coming: refuse its NOKPROBE_SYMBOL functions and sections. */
void kprobe_blacklist_add_module(struct module *mod)
{
	unsigned long *fn = mod->kprobe_blacklist;

	lockdep_assert_held(&probes_mutex);
	while (fn < mod->kprobe_blacklist + mod->num_kprobe_blacklist)
		kprobe_add_ksym_blacklist(*fn++);
	add_module_range(mod->kprobes_text_start, mod->kprobes_text_size);
	add_module_range(mod->noinstr_text_start, mod->noinstr_text_size);
}

/* A module is gone: drop every entry inside it. */
void kprobe_blacklist_remove_module(struct module *mod)
{
	struct kprobe_blacklist_entry *range, *next;

	lockdep_assert_held(&probes_mutex);
	list_for_each_entry_safe(range, next, &kprobe_blacklist, list) {
		if (!within_module(range->start_addr, mod))
			continue;
		list_del_rcu(&range->list);
		kfree_rcu(range, rcu);
	}
}
