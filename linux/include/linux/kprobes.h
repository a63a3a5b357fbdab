/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel probes: break into (almost) any kernel instruction and run a
 * handler there, or when a function returns.
 *
 * This header is the interface for probe users (modules, tracing, BPF,
 * fault injection).  The contract between the generic core in
 * kernel/kprobes/ and the architecture code is in <linux/kprobes_arch.h>.
 * Documentation/trace/kprobes.rst describes the behaviour.
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <linux/compiler.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/ftrace.h>
#include <linux/objpool.h>
#include <linux/rethook.h>
#include <asm/kprobes.h>

/* Largest per-instance private area a kretprobe may ask for. */
#define KRETPROBE_MAX_DATA_SIZE	4096

/* The name instruction-slot pages carry in /proc/kallsyms. */
#define KPROBE_INSN_PAGE_SYM		"kprobe_insn_page"

#ifdef CONFIG_KPROBES
/* Where a CPU is in handling a probe hit: kprobe_ctlblk.kprobe_status. */
#define KPROBE_HIT_ACTIVE	0x00000001
#define KPROBE_HIT_SS		0x00000002
#define KPROBE_REENTER		0x00000004
#define KPROBE_HIT_SSDONE	0x00000008
#else
/* Just enough for code that names these types without probes built in. */
typedef int kprobe_opcode_t;
struct arch_specific_insn {
	int dummy;
};
#endif

struct kprobe;
struct pt_regs;
struct kretprobe;
struct kretprobe_instance;

typedef int (*kprobe_pre_handler_t)(struct kprobe *, struct pt_regs *);
typedef void (*kprobe_post_handler_t)(struct kprobe *, struct pt_regs *,
				      unsigned long flags);
typedef int (*kprobe_fault_handler_t)(struct kprobe *, struct pt_regs *,
				      int trapnr);
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *,
				   struct pt_regs *);

/**
 * struct kprobe - one probe on one kernel instruction
 * @hlist: used by the core; do not touch.  Links a probe that is alone at
 *	its address into the core's address table.
 * @list: used by the core: links the probe to the other probes at its
 *	address, or to the core's list of probes alone at theirs.  It is never
 *	empty while the probe is registered, which is how callers such as
 *	trace_kprobe tell a registered probe from an idle one.
 * @nmissed: hits that did not run the handlers because another probe handler
 *	was already running on that CPU.
 * @addr: the probed address; set by the caller or filled in at registration
 *	from @symbol_name + @offset.
 * @symbol_name: symbol to probe, instead of @addr.
 * @offset: byte offset from @symbol_name (or from @addr's symbol).
 * @pre_handler: runs before the probed instruction.  A non-zero return means
 *	the handler has redirected execution through regs: the instruction is
 *	then not executed and @post_handler is not called.
 * @post_handler: runs after the probed instruction executed.
 * @fault_handler: runs if a fault happens while this probe's handlers or
 *	its out-of-line instruction run; return non-zero if it fixed the fault.
 * @opcode: the original first opcode unit at @addr (core and arch use).
 * @ainsn: the arch's copy of the probed instruction.
 * @flags: KPROBE_FLAG_*; only KPROBE_FLAG_DISABLED may be set by the caller.
 */
struct kprobe {
	struct hlist_node hlist;
	struct list_head list;
	unsigned long nmissed;
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_fault_handler_t fault_handler;
	kprobe_opcode_t opcode;
	struct arch_specific_insn ainsn;
	u32 flags;
};

#define KPROBE_FLAG_GONE	1	/* its text went away (module unload) */
#define KPROBE_FLAG_DISABLED	2	/* registered but not armed */
#define KPROBE_FLAG_OPTIMIZED	4	/* reached by a jump, not a breakpoint */
#define KPROBE_FLAG_FTRACE	8	/* reached through the ftrace call site */
#define KPROBE_FLAG_ON_FUNC_ENTRY 16	/* placed at a function's entry */

static inline bool kprobe_has_flag(const struct kprobe *kp, u32 flag)
{
	/* Hits read the word while the core changes other bits of it. */
	return (READ_ONCE(kp->flags) & flag) != 0;
}

static inline bool kprobe_gone(struct kprobe *kp)
{
	return kprobe_has_flag(kp, KPROBE_FLAG_GONE);
}

/* A gone probe counts as disabled: nothing can arm it again. */
static inline bool kprobe_disabled(struct kprobe *kp)
{
	return kprobe_has_flag(kp, KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE);
}

static inline bool kprobe_optimized(struct kprobe *kp)
{
	return kprobe_has_flag(kp, KPROBE_FLAG_OPTIMIZED);
}

static inline bool kprobe_ftrace(struct kprobe *kp)
{
	return kprobe_has_flag(kp, KPROBE_FLAG_FTRACE);
}

/**
 * struct kretprobe - a probe on a function's return
 * @kp: the entry probe the core plants at the function's first instruction.
 * @handler: runs when the function returns; regs show the return value.
 * @entry_handler: runs at entry; a non-zero return means "do not watch this
 *	call's return".
 * @maxactive: how many calls may be watched at once; 0 picks a default
 *	from the number of CPUs and is written back here.
 * @nmissed: returns not watched because no instance was free.
 * @data_size: bytes of per-call private data in kretprobe_instance.data.
 * @rh: the rethook that swaps return addresses (core use).
 *
 * Return probes are built on rethook, which owns the return trampoline and
 * the per-task list of pending returns.
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int nmissed;
	size_t data_size;
	struct rethook *rh;
};

#define KRETPROBE_MAXACTIVE_MAX 4096

/**
 * struct kretprobe_instance - one watched call of a kretprobe'd function
 * @node: rethook's record of the call (core use).
 * @data: @data_size bytes the entry handler may fill for the return handler.
 *
 * Reach the kretprobe with get_kretprobe(), the caller's return address with
 * get_kretprobe_retaddr() and the task with current (handlers run in the
 * task that made the call).
 */
struct kretprobe_instance {
	struct rethook_node node;
	char data[];
};

/* A function on which no kretprobe may be placed (the arch names them). */
struct kretprobe_blackpoint {
	const char *name;
	void *addr;
};

/* One range of text where probes are refused. */
struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
	struct rcu_head rcu;
};

#ifdef CONFIG_KPROBES
DECLARE_PER_CPU(struct kprobe *, current_kprobe);
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* The probe whose handlers this CPU is running, or NULL. */
static inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);
int disable_kprobe(struct kprobe *kp);
int enable_kprobe(struct kprobe *kp);

struct kprobe *get_kprobe(void *addr);
void kprobe_busy_begin(void);
void kprobe_busy_end(void);
void kprobes_inc_nmissed_count(struct kprobe *p);
void dump_kprobe(struct kprobe *kp);

int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);
kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
/* The port's (see <linux/kprobes_arch.h>); kprobe_page_fault() needs it. */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);

bool within_kprobe_blacklist(unsigned long addr);
int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

void kprobe_free_init_mem(void);
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);

bool is_kprobe_insn_slot(unsigned long addr);
#else /* !CONFIG_KPROBES */
/* Without kprobes every request fails cleanly and nothing is ever hit. */
static inline struct kprobe *kprobe_running(void) { return NULL; }
static inline struct kprobe *get_kprobe(void *addr) { return NULL; }
static inline int register_kprobe(struct kprobe *kp) { return -EOPNOTSUPP; }
static inline void unregister_kprobe(struct kprobe *kp) { }
static inline int register_kprobes(struct kprobe **kps, int n) { return -EOPNOTSUPP; }
static inline void unregister_kprobes(struct kprobe **kps, int n) { }
static inline int disable_kprobe(struct kprobe *kp) { return -EOPNOTSUPP; }
static inline int enable_kprobe(struct kprobe *kp) { return -EOPNOTSUPP; }
static inline void kprobe_busy_begin(void) { }
static inline void kprobe_busy_end(void) { }
static inline void kprobe_free_init_mem(void) { }
static inline bool is_kprobe_insn_slot(unsigned long addr) { return false; }
static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr) { return 0; }

/* With no kprobes there is no list to consult, so refuse everything. */
static inline bool within_kprobe_blacklist(unsigned long addr) { return true; }

static inline int kprobe_get_kallsym(unsigned int nr, unsigned long *value, char *type,
				     char *name)
{
	return -ERANGE;
}
#endif /* CONFIG_KPROBES */

#if defined(CONFIG_KPROBES) && defined(CONFIG_OPTPROBES)
void wait_for_kprobe_optimizer(void);
#else
static inline void wait_for_kprobe_optimizer(void) { }
#endif
/* Detours live in the ordinary slots, which is_kprobe_insn_slot() covers. */
static inline bool is_kprobe_optinsn_slot(unsigned long addr) { return false; }

#ifdef CONFIG_KPROBES_ON_FTRACE
void kprobe_ftrace_kill(void);
#else
static inline void kprobe_ftrace_kill(void) { }
#endif

#if defined(CONFIG_KPROBES) && defined(CONFIG_KRETPROBES)
int register_kretprobe(struct kretprobe *krp);
void unregister_kretprobe(struct kretprobe *krp);
int register_kretprobes(struct kretprobe **krps, int num);
void unregister_kretprobes(struct kretprobe **krps, int num);
#else
static inline int register_kretprobe(struct kretprobe *krp) { return -EOPNOTSUPP; }
static inline void unregister_kretprobe(struct kretprobe *krp) { }
static inline int register_kretprobes(struct kretprobe **krps, int n) { return -EOPNOTSUPP; }
static inline void unregister_kretprobes(struct kretprobe **krps, int n) { }
#endif

/* A kretprobe is switched on and off through its entry probe. */
static inline int disable_kretprobe(struct kretprobe *krp) { return disable_kprobe(&krp->kp); }
static inline int enable_kretprobe(struct kretprobe *krp) { return enable_kprobe(&krp->kp); }

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
/* Our core implements return probes on rethook only; a port without
 * rethook must add it (see Documentation/trace/kprobes.rst).
 */
#error "kretprobes need CONFIG_RETHOOK on this architecture"
#endif

#ifdef CONFIG_KRETPROBE_ON_RETHOOK
/* rethook keeps the kretprobe as its private data for its whole life. */
static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *inst)
{
	return (struct kretprobe *)READ_ONCE(inst->node.rethook)->data;
}

static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *inst)
{
	return inst->node.ret_addr;
}

static nokprobe_inline bool is_kretprobe_trampoline(unsigned long ip)
{
	return is_rethook_trampoline(ip);
}

static nokprobe_inline unsigned long
kretprobe_find_ret_addr(struct task_struct *task, void *frame, struct llist_node **pos)
{
	return rethook_find_ret_addr(task, (unsigned long)frame, pos);
}
#else
static nokprobe_inline bool is_kretprobe_trampoline(unsigned long ip) { return false; }

static nokprobe_inline unsigned long
kretprobe_find_ret_addr(struct task_struct *task, void *frame, struct llist_node **pos)
{
	return 0;
}
#endif

/* Pending returns of a dead task are rethook's to flush, not ours. */
static inline void kprobe_flush_task(struct task_struct *tk) { }

/*
 * kprobe_page_fault - let the probe being handled on this CPU see a fault
 * @regs: registers at the fault
 * @trap: the architecture's trap or fault status number
 *
 * Called early by the arch page-fault handlers.  True when a probe's fault
 * handler dealt with the fault.  Faults in user mode, in preemptible
 * context or with no probe running on this CPU are never kprobes' business.
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs, unsigned int trap)
{
	return IS_ENABLED(CONFIG_KPROBES) && !user_mode(regs) && !preemptible() &&
	       kprobe_running() && kprobe_fault_handler(regs, trap);
}

#endif /* _LINUX_KPROBES_H */
