/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the kprobes core share.  Nothing here is visible
 * outside kernel/kprobes/.
 *
 * struct kprobe_site and the table are in <linux/kprobes_hit.h>: the
 * ports' hit paths look heads up inline.
 *
 * Locks, outermost first (a hit takes none of them):
 *   kprobes_mutex (probes, sites, the table, arming, the optimizer's queue)
 *   ftrace's own locks (the filter updates of ftrace.c)
 *   cpus_read_lock() (around text patching)
 *   jump_label_lock() (checking text against jump labels)
 *   text_mutex (writing text)
 *   slot_mutex (slots.c: the pages of instruction slots)
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/module.h>

static inline struct kprobe_site *to_site(struct kprobe *kp)
{
	return container_of(kp, struct kprobe_site, kp);
}

/* Serialises registration, arming and the site table; never on a hit. */
extern struct mutex kprobes_mutex;
/* kprobes/enabled: false while every probe is disarmed. */
extern bool kprobes_armed_globally;

/* table.c: the address -> head table; changes need kprobes_mutex. */
void kprobe_table_reserve(unsigned int more);
void kprobe_table_add(struct kprobe *head);
void kprobe_table_replace(struct kprobe *old, struct kprobe *new);
void kprobe_table_del(struct kprobe *head);
unsigned int kprobe_table_buckets(void);
/* Call @fn on every head; @fn must not add or remove heads. */
typedef void (*kprobe_head_fn_t)(struct kprobe *head, void *arg);
void kprobe_visit_heads(kprobe_head_fn_t fn, void *arg);
typedef bool (*kprobe_head_filter_t)(struct kprobe *head, void *arg);
unsigned int kprobe_collect_heads(kprobe_head_filter_t want, void *arg,
				  struct kprobe **heads, unsigned int max);

/*
 * Probes at @head that are neither disabled nor gone.  A lone probe is on
 * lone_probes (core.c) while registered, so its @list is empty once it
 * has been detached.
 */
static inline unsigned int head_nr_enabled(struct kprobe *head)
{
	if (kprobe_is_site(head))
		return to_site(head)->nr_enabled;
	return !list_empty(&head->list) && !kprobe_disabled(head);
}

/* The NOKPROBE_SYMBOL() entries of the kernel image (vmlinux.lds.h). */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

/* core.c */
void kprobe_wait_out_hits(bool detours);
int kprobe_detach_batch(struct kprobe **kps, int num, struct kprobe **dead);
void kprobe_free_batch(struct kprobe **kps, int num, struct kprobe **dead,
		       int n);
bool kprobe_registered(struct kprobe *probe);

/* vet.c: where a probe may go, and the blacklist */
kprobe_opcode_t *kprobe_resolve_addr(kprobe_opcode_t *addr,
				     const char *symbol_name,
				     unsigned long offset,
				     bool *on_func_entry);
int kprobe_func_entry_of(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset, kprobe_opcode_t **where);
int kprobe_check_text(struct kprobe *probe, struct module **modp);
int kprobe_check_text_still_there(struct kprobe *probe, struct module *mod);
int __init kprobe_blacklist_init(void);
void kprobe_blacklist_add_module(struct module *mod);
void kprobe_blacklist_remove_module(struct module *mod);
extern struct list_head kprobe_blacklist;

/* site.c */
int __init kprobe_site_init(void);
int kprobe_prepare_arch(struct kprobe *kp);
struct kprobe_site *kprobe_site_from(struct kprobe *lone);
void kprobe_site_discard(struct kprobe_site *site);
int kprobe_site_take_over(struct kprobe_site *site, struct kprobe *lone,
			  bool in_table);
struct kprobe_site *kprobe_site_with_detour(struct kprobe *lone, bool in_table);
int kprobe_site_link(struct kprobe_site *site, struct kprobe *probe);
void kprobe_site_unlink(struct kprobe_site *site, struct kprobe *probe);
int kprobe_site_flipped(struct kprobe_site *site, struct kprobe *probe);
int kprobe_site_revive(struct kprobe_site *site, struct kprobe *probe);
void kprobe_site_clear_chain(struct kprobe_site *site);
void kprobe_site_free(struct kprobe_site *site);

/* arming.c */
int kprobe_set_armed_globally(bool on);
void kprobe_patch_breakpoints(struct kprobe **kps, int n, bool arm);
int kprobe_heads_sync_arming(struct kprobe **heads, int n);
int kprobe_head_sync_arming(struct kprobe *head);
void kprobe_heads_mark_gone(struct kprobe **heads, int n);

/* module.c */
void kprobe_module_coming(struct module *mod);

/* kretprobe.c */
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
bool kprobe_is_kretprobe(struct kprobe *probe);
#else
static inline bool kprobe_is_kretprobe(struct kprobe *probe)
{
	return false;
}
#endif

/* ftrace.c (CONFIG_KPROBES_ON_FTRACE) */
#ifdef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_arm(struct kprobe **kps, int n);
int kprobe_ftrace_disarm(struct kprobe **kps, int n);
#else
static inline int kprobe_ftrace_arm(struct kprobe **kps, int n)
{
	return -ENODEV;
}

static inline int kprobe_ftrace_disarm(struct kprobe **kps, int n)
{
	return -ENODEV;
}
#endif

/* bridge.c (CONFIG_KPROBES_FTRACE_BRIDGE) */
enum kprobe_bridge_step {
	KPROBE_BRIDGE_HOOKED,	/* the set is in the ftrace filter */
	KPROBE_BRIDGE_GRACE,	/* its heads have KPROBE_FLAG_BRIDGE_GRACE */
	KPROBE_BRIDGE_PLAIN,	/* ftrace fires every call, breakpoints in */
	KPROBE_BRIDGE_UNPLANTED, /* breakpoints out, GRACE not yet cleared */
	KPROBE_BRIDGE_NR_STEPS
};

#ifdef CONFIG_KPROBES_FTRACE_BRIDGE
bool kprobe_bridge_wanted(struct kprobe *head);
void kprobe_bridge_queue(struct kprobe *head);
void kprobe_bridge_step(enum kprobe_bridge_step step);
#else
static inline bool kprobe_bridge_wanted(struct kprobe *head)
{
	return false;
}

static inline void kprobe_bridge_queue(struct kprobe *head) {}
#endif

/* optimize.c (CONFIG_OPTPROBES) */
#ifdef CONFIG_OPTPROBES
void kprobe_opt_block_around(unsigned long addr);
void kprobe_opt_try(struct kprobe_site *site);
void kprobe_opt_sync(struct kprobe *head);
void kprobe_opt_unoptimize(struct kprobe *head);
void kprobe_opt_retry_around(unsigned long addr);
void kprobe_opt_release(struct kprobe_site *site);
bool kprobe_opt_runs_post(struct kprobe_site *site);

void kprobe_set_optimization(bool on);
#else
static inline void kprobe_opt_block_around(unsigned long addr) {}
static inline void kprobe_opt_try(struct kprobe_site *site) {}
static inline void kprobe_opt_sync(struct kprobe *head) {}
static inline void kprobe_opt_unoptimize(struct kprobe *head) {}
static inline void kprobe_opt_retry_around(unsigned long addr) {}
static inline void kprobe_opt_release(struct kprobe_site *site) {}
static inline bool kprobe_opt_runs_post(struct kprobe_site *site)
{
	return false;
}

static inline void kprobe_set_optimization(bool on) {}
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
