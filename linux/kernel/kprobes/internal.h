/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the kprobes core share.  Nothing here is visible
 * outside kernel/kprobes/.
 *
 * Every probed address has one struct kprobe_site.  Its embedded kprobe is
 * what the hash table holds, what the architecture arms and what
 * current_kprobe points to during a hit; the probes users registered hang
 * off site->kp.list in registration order.  A single probe therefore costs
 * one extra list step on a hit and nothing else, and several probes at one
 * address need no special case.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/kprobes_arch.h>
#include <linux/module.h>

struct kprobe_site {
	/* kp.list heads the users' probes (see kprobes_arch.h). */
	struct kprobe kp;
	/* Users at this address that are neither disabled nor gone. */
	unsigned int nr_enabled;
	/* The breakpoint (or ftrace hook) is in place. */
	bool armed;
	/* The port built a detour: the site may be reached by a jump. */
	bool can_optimize;
	/* On the optimizer's queue (optimize.c). */
	struct list_head opt_node;
	struct rcu_head rcu;
};

static inline struct kprobe_site *to_site(struct kprobe *kp)
{
	return container_of(kp, struct kprobe_site, kp);
}

/* Serialises registration, arming and the site table; never on a hit. */
extern struct mutex probes_mutex;
/* kprobes/enabled: false while every probe is disarmed. */
extern bool kprobes_armed_globally;

#define KPROBE_TABLE_BITS	9
extern struct hlist_head kprobe_table[1 << KPROBE_TABLE_BITS];

/* Call @fn on every site; probes_mutex must be held. */
typedef void (*kprobe_site_fn_t)(struct kprobe_site *site, void *arg);
void kprobe_visit_sites(kprobe_site_fn_t fn, void *arg);

/* The NOKPROBE_SYMBOL() entries of the kernel image (vmlinux.lds.h). */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

/* core.c */
int kprobe_detach_batch(struct kprobe **kps, int num,
			struct kprobe_site **dead);
void kprobe_free_batch(struct kprobe **kps, int num,
		       struct kprobe_site **dead, int n);
bool kprobe_registered(struct kprobe *probe);
int kprobe_site_sync_arming(struct kprobe_site *site);
void kprobe_site_mark_gone(struct kprobe_site *site);

/* blacklist.c */
int __init kprobe_blacklist_init(void);
void kprobe_blacklist_add_module(struct module *mod);
void kprobe_blacklist_remove_module(struct module *mod);
extern struct list_head kprobe_blacklist;

/* kretprobe.c */
bool kprobe_is_kretprobe(struct kprobe *probe);

/* ftrace.c (CONFIG_KPROBES_ON_FTRACE) */
#ifdef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_arm(struct kprobe *probe);
int kprobe_ftrace_disarm(struct kprobe *probe);
#else
static inline int kprobe_ftrace_arm(struct kprobe *probe)
{
	return -ENODEV;
}

static inline int kprobe_ftrace_disarm(struct kprobe *probe)
{
	return -ENODEV;
}
#endif

/* optimize.c (CONFIG_OPTPROBES) */
#ifdef CONFIG_OPTPROBES
void kprobe_opt_prepare(struct kprobe_site *site);
void kprobe_opt_sync(struct kprobe_site *site);
void kprobe_opt_unoptimize(struct kprobe_site *site);
void kprobe_opt_retry_around(unsigned long addr);
void kprobe_opt_release(struct kprobe_site *site);
void kprobe_opt_flush(void);
void kprobe_set_optimization(bool on);
#else
static inline void kprobe_opt_prepare(struct kprobe_site *site) {}
static inline void kprobe_opt_sync(struct kprobe_site *site) {}
static inline void kprobe_opt_unoptimize(struct kprobe_site *site) {}
static inline void kprobe_opt_retry_around(unsigned long addr) {}
static inline void kprobe_opt_release(struct kprobe_site *site) {}
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
