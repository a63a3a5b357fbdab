// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a probe may go: turning a symbol and offset into an address, and
 * refusing text that must not take a breakpoint.  Refused are functions
 * marked NOKPROBE_SYMBOL (in the kernel and in modules), the
 * .kprobes.text and .noinstr.text sections and whatever the
 * architecture adds (the blacklist, one entry per range, read under RCU
 * by registration, hw_breakpoint and kgdb and changed under
 * kprobes_mutex as modules come and go), and the places other code
 * patches or reads as data: ftrace call sites without
 * KPROBES_ON_FTRACE, jump labels, static calls, BUG entries, CFI
 * preambles, the gate area.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/bug.h>
#include <linux/mm.h>
#include <asm/sections.h>

#include "internal.h"

/* --- the address of a probe --- */

kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

kprobe_opcode_t * __weak arch_adjust_kprobe_addr(unsigned long addr,
						 unsigned long offset,
						 bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Turn (addr | symbol_name) + offset into the address to probe, in the
 * canonical symbol+offset form the arch may adjust (an ENDBR at entry, for
 * instance).  Both or neither given: -EINVAL; unknown symbol: -ENOENT.
 */
kprobe_opcode_t *kprobe_resolve_addr(kprobe_opcode_t *addr,
				     const char *symbol_name,
				     unsigned long offset,
				     bool *on_func_entry)
{
	unsigned long target, sym_off, sym_size;

	if (!!addr == !!symbol_name)
		return ERR_PTR(-EINVAL);
	if (symbol_name) {
		addr = kprobe_lookup_name(symbol_name, offset);
		if (!addr)
			return ERR_PTR(-ENOENT);
	}
	target = (unsigned long)addr + offset;
	if (!kallsyms_lookup_size_offset(target, &sym_size, &sym_off))
		return ERR_PTR(-ENOENT);
	return arch_adjust_kprobe_addr(target - sym_off, sym_off, on_func_entry);
}

/**
 * kprobe_on_func_entry() - is this address a function's entry?
 * @addr: address, or NULL when @sym is given
 * @sym: symbol name, or NULL
 * @offset: offset from @addr or @sym
 *
 * Return: 0 at a function entry, -EINVAL elsewhere, -ENOENT when the
 * symbol cannot be found.  Registers nothing.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	kprobe_opcode_t *where;

	return kprobe_func_entry_of(addr, sym, offset, &where);
}

/*
 * kprobe_on_func_entry() that also gives the resolved address in @where:
 * kretprobes need it before registering.
 */
int kprobe_func_entry_of(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset, kprobe_opcode_t **where)
{
	bool on_entry;

	*where = kprobe_resolve_addr(addr, sym, offset, &on_entry);
	if (IS_ERR(*where))
		return PTR_ERR(*where);
	return on_entry ? 0 : -EINVAL;
}

static bool in_cfi_preamble(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (lookup_symbol_name(addr, name))
		return false;
	return str_has_prefix(name, "__cfi_") || str_has_prefix(name, "__pfx_");
}

/*
 * Ftrace owns its call sites and rewrites them, checking what it finds
 * there; without KPROBES_ON_FTRACE a breakpoint cannot sit on one.  An
 * earlier instruction of the function (arm64 puts the site after a nop
 * or BTI) still can: say where.
 */
static void refuse_ftrace_site(unsigned long addr)
{
	unsigned long size, offset;

	if (kallsyms_lookup_size_offset(addr, &size, &offset) && offset)
		pr_info_ratelimited("%pS is an ftrace call site, not probed: probe %pS instead\n",
				    (void *)addr, (void *)(addr - offset));
	else
		pr_info_ratelimited("%pS is an ftrace call site, not probed\n",
				    (void *)addr);
}

/*
 * Can the text at @addr take a probe?  On success *@modp holds a reference
 * on the module that owns the text (NULL for the kernel image), so it
 * cannot go away while the probe is being planted.
 */
int kprobe_check_text(struct kprobe *probe, struct module **modp)
{
	unsigned long addr = (unsigned long)probe->addr;
	unsigned long ftrace_addr;
	struct module *mod;
	int ret = 0;
	bool core;

	*modp = NULL;
	ftrace_addr = ftrace_location(addr);
	if (ftrace_addr == addr) {
		if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)) {
			refuse_ftrace_site(addr);
			return -EINVAL;
		}
		kprobe_flags_set(probe, KPROBE_FLAG_FTRACE);
	} else if (ftrace_addr && ftrace_addr < addr) {
		/* Inside the ftrace call site, not at its start. */
		return -EILSEQ;
	}
	/*
	 * Otherwise @addr may still be a function's first byte, with its
	 * call site further in (arm64 puts it after a nop or BTI): that is
	 * an ordinary instruction, probed with a breakpoint.
	 */

	jump_label_lock();
	preempt_disable();
	/*
	 * Look the module up once.  A module being freed turns UNFORMED
	 * while we look, so a second lookup may miss the module the first
	 * one found: the probe would then be planted with no reference on
	 * text that is about to go.
	 */
	core = core_kernel_text(addr);
	mod = core ? NULL : __module_text_address(addr);
	if ((!core && !mod) ||
	    in_gate_area_no_mm(addr) ||
	    within_kprobe_blacklist(addr) ||
	    jump_label_text_reserved(probe->addr, probe->addr) ||
	    static_call_text_reserved(probe->addr, probe->addr) ||
	    find_bug(addr) || in_cfi_preamble(addr)) {
		ret = -EINVAL;
		goto out;
	}
	if (mod) {
		/* A module on its way out cannot take new probes. */
		if (!try_module_get(mod)) {
			ret = -ENOENT;
			goto out;
		}
		/* Its init text is about to be freed once it is live. */
		if (within_module_init(addr, mod) && !module_is_coming(mod)) {
			module_put(mod);
			ret = -ENOENT;
			goto out;
		}
		*modp = mod;
	}
out:
	preempt_enable();
	jump_label_unlock();
	return ret;
}

#ifdef CONFIG_MODULES
static int module_text_still_there(unsigned long addr, struct module *mod)
{
	if (within_kprobe_blacklist(addr))
		return -EINVAL;
	/*
	 * A module whose load fails goes without waiting for the
	 * references held on it, and its GOING pass may be over: find it
	 * again rather than trust the pointer.
	 */
	scoped_guard(preempt) {
		if (__module_text_address(addr) != mod ||
		    mod->state == MODULE_STATE_GOING)
			return -ENOENT;
	}
	return within_module_init(addr, mod) && !module_is_coming(mod) ?
		-ENOENT : 0;
}
#else
/* Without modules kprobe_check_text() never finds one. */
static int module_text_still_there(unsigned long addr, struct module *mod)
{
	return 0;
}
#endif

/*
 * kprobe_check_text() for what may have changed since, now under
 * kprobes_mutex: init text declared gone in between (a module gone live,
 * the kernel freeing its init memory).  The code that declares it sets
 * the new state first and then takes the mutex to mark the probes there
 * [GONE]; a probe attached after that pass would stay live on freed
 * text.  Seen under the mutex, the old state means the pass has not
 * started and will find this probe.  Likewise a module's blacklist,
 * which comes into force under the mutex when the module is coming, and
 * a module going because its load failed.
 */
int kprobe_check_text_still_there(struct kprobe *probe, struct module *mod)
{
	unsigned long addr = (unsigned long)probe->addr;

	lockdep_assert_held(&kprobes_mutex);
	if (mod)
		return module_text_still_there(addr, mod);
	return is_kernel_inittext(addr) &&
	       system_state >= SYSTEM_FREEING_INITMEM ? -EINVAL : 0;
}

/* --- the blacklist --- */

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

/* Caller holds kprobes_mutex, or is the only one running (boot). */
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

#ifdef CONFIG_MODULES
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

	lockdep_assert_held(&kprobes_mutex);
	while (fn < mod->kprobe_blacklist + mod->num_kprobe_blacklist)
		kprobe_add_ksym_blacklist(*fn++);
	add_module_range(mod->kprobes_text_start, mod->kprobes_text_size);
	add_module_range(mod->noinstr_text_start, mod->noinstr_text_size);
}

/* A module is gone: drop every entry inside it. */
void kprobe_blacklist_remove_module(struct module *mod)
{
	struct kprobe_blacklist_entry *range, *next;

	lockdep_assert_held(&kprobes_mutex);
	list_for_each_entry_safe(range, next, &kprobe_blacklist, list) {
		if (!within_module(range->start_addr, mod))
			continue;
		list_del_rcu(&range->list);
		kfree_rcu(range, rcu);
	}
}
#endif /* CONFIG_MODULES */
