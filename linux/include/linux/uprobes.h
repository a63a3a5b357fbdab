/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Uprobes: breakpoints in user-space code, set by the kernel.
 *
 * Two interfaces share one engine (kernel/uprobes/):
 *
 *  - file probes, the interface of uprobe_events, perf and BPF: a probe
 *    is a (file, offset) pair and is armed in every process that maps
 *    the file there, subject to its consumers' filters;
 *  - process probes (struct pid_uprobe, struct pid_uretprobe): a probe
 *    is a (pid, virtual address) pair and is armed in that process only,
 *    for kernel modules that watch one program.
 *
 * What an architecture provides is in <linux/uprobes_arch.h>.
 */
#ifndef _LINUX_UPROBES_H
#define _LINUX_UPROBES_H

#include <linux/errno.h>
#include <linux/rbtree.h>
#include <linux/types.h>
#include <linux/wait.h>

struct inode;
struct mm_struct;
struct pt_regs;
struct task_struct;
struct uprobe;
struct vm_area_struct;

/* A consumer's handler returns this to have the probe leave this mm. */
#define UPROBE_HANDLER_REMOVE		1
#define UPROBE_HANDLER_MASK		1

/* Return probes pending in one thread before new ones are skipped. */
#define MAX_URETPROBE_DEPTH		64

/* What uprobe_get_trampoline_vaddr() says when an mm has none. */
#define UPROBE_NO_TRAMPOLINE_VADDR	(~0UL)

/**
 * struct uprobe_consumer - one user of a file probe
 * @handler: called at each hit, before the probed instruction runs;
 *	may sleep.  Returning UPROBE_HANDLER_REMOVE asks for the probe to
 *	leave the current mm: it does when every consumer's @filter then
 *	declines the mm.
 * @ret_handler: called when the probed function returns; @func is the
 *	probed address, @regs hold the return value.
 * @filter: whether the probe should be armed in @mm; NULL means yes.
 * @cons_node: the engine's link; not for consumers.
 */
struct uprobe_consumer {
	int (*handler)(struct uprobe_consumer *self, struct pt_regs *regs);
	int (*ret_handler)(struct uprobe_consumer *self, unsigned long func,
			   struct pt_regs *regs);
	bool (*filter)(struct uprobe_consumer *self, struct mm_struct *mm);

	struct list_head cons_node;
};

#ifdef CONFIG_UPROBES
#include <asm/uprobes.h>

/* Where a thread is with an instruction run out of line. */
enum uprobe_step {
	UPROBE_STEP_NONE,	/* not in a slot */
	UPROBE_STEP_RUNNING,	/* sent to run the copy in its slot */
	UPROBE_STEP_DONE,	/* the slot's breakpoint trapped */
	UPROBE_STEP_FAULTED,	/* the copy faulted or a fatal signal came */
};

/**
 * struct return_instance - a pending return probe of one thread
 * @next: the one pending below it (the list is a stack, newest first)
 * @orig_ret_vaddr: the return address the trampoline replaced
 * @entry_vaddr: the probed function's address
 * @entry_sp: stack pointer at its entry, to tell live frames from dead
 * @probe: the probe (a reference is held)
 * @tail_call: returns together with @next: entered by a tail call from
 *	a function whose return address was already the trampoline
 */
struct return_instance {
	struct return_instance	*next;
	unsigned long		orig_ret_vaddr;
	unsigned long		entry_vaddr;
	unsigned long		entry_sp;
	struct uprobe		*probe;
	bool			tail_call;
};

/**
 * struct uprobe_task - per-thread uprobe state, allocated at first use
 * @return_instances: pending return probes, newest first (perf's
 *	unwinder reads them)
 * @ri_cache: finished instances kept for reuse
 * @depth: entries in @return_instances
 * @vaddr: the probed address during a hit; consumers may borrow it to
 *	pass data from a handler to code it calls (trace_uprobe does)
 * @auprobe: the probe's instruction while its handlers run (perf's
 *	unwinder looks at it)
 * @step: enum uprobe_step
 * @stepping: the probe whose instruction runs in @slot (a reference)
 * @slot: the thread's XOL slot while it has one
 * @slot_trap: the breakpoint that ends the code in @slot
 * @autask: the port's state for the step
 * @signal_held: the step took TIF_SIGPENDING away (uprobe_deny_signal());
 *	its end recalculates it
 * @in_handler: a consumer's handler is running (registration calls
 *	from it are deferred)
 * @xol_dup_work: in a forked child, maps the XOL area its inherited
 *	return probes return through
 * @xol_dup_vaddr: where that area must go
 * @fork_work: in a forked child, takes out the breakpoints of the
 *	parent's process probes
 * @fork_parent_mm: the parent's mm for @fork_work (mmgrab()ed)
 */
struct uprobe_task {
	struct return_instance		*return_instances;
	struct return_instance		*ri_cache;
	unsigned int			depth;

	unsigned long			vaddr;
	struct arch_uprobe		*auprobe;

	enum uprobe_step		step;
	struct uprobe			*stepping;
	unsigned long			slot;
	unsigned long			slot_trap;
	struct arch_uprobe_task		autask;
	bool				signal_held;

	bool				in_handler;

	struct callback_head		xol_dup_work;
	unsigned long			xol_dup_vaddr;
	struct callback_head		fork_work;
	struct mm_struct		*fork_parent_mm;
};

/* What arch_uretprobe_frame_live() is asked about. */
enum uprobe_frame_check {
	UPROBE_FRAME_CALL,	/* a new call is being probed */
	UPROBE_FRAME_TAIL_CALL,	/* the same, tail-called from a probed one */
	UPROBE_FRAME_RETURN,	/* the trampoline was reached */
};

struct xol_area;
struct uprobe_addr_cache;

/**
 * struct uprobes_state - per-mm state, NULL until a hit needs it
 * @xol_area: the slots and the return trampoline
 * @addr_cache: the probed addresses hits have seen, with their files
 * @nr_pid_probes: process probes on this mm (forks of an mm without
 *	any skip their fixing up); changed under the process probes' lock
 * @arch: the port's
 */
struct uprobes_state {
	struct xol_area			*xol_area;
	struct uprobe_addr_cache	*addr_cache;
	unsigned int			nr_pid_probes;
	struct arch_uprobes_state	arch;
};

void __init uprobes_init(void);

struct uprobe *uprobe_register(struct inode *inode, loff_t offset,
			       loff_t ref_ctr_offset,
			       struct uprobe_consumer *uc);
int uprobe_apply(struct uprobe *uprobe, struct uprobe_consumer *uc, bool add);
void uprobe_unregister_nosync(struct uprobe *uprobe,
			      struct uprobe_consumer *uc);
void uprobe_unregister_sync(void);

/* Hooks the rest of the kernel calls. */

/**
 * uprobe_breakpoint_trap() - a user breakpoint trapped; is it ours?
 * @regs: user registers at the trap
 *
 * Called by the arch's trap handler with interrupts off.  Never sleeps.
 *
 * Return: true when uprobes will deal with it on the way back to user
 * mode; the trap handler must then not signal the thread.
 */
bool uprobe_breakpoint_trap(struct pt_regs *regs);
int uprobe_mmap(struct vm_area_struct *vma);
void uprobe_munmap(struct vm_area_struct *vma, unsigned long start,
		   unsigned long end);
void uprobe_start_dup_mmap(void);
void uprobe_end_dup_mmap(void);
void uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm);
void uprobe_free_utask(struct task_struct *t);
void uprobe_copy_process(struct task_struct *t, unsigned long flags);
void uprobe_notify_resume(struct pt_regs *regs);
bool uprobe_deny_signal(void);
void uprobe_clear_state(struct mm_struct *mm);
unsigned long uprobe_get_trap_addr(struct pt_regs *regs);
unsigned long uprobe_get_swbp_addr(struct pt_regs *regs);
unsigned long uprobe_get_trampoline_vaddr(void);

/*
 * Process probes: one process, one virtual address.
 */

/* Which kind of process probe a registration_callback() is about. */
enum uprobe_type {
	UPTY_UPROBE,
	UPTY_URETPROBE,
};

/**
 * struct pid_uprobe - a probe on an instruction of one process
 * @pid: the process (thread group) to probe
 * @vaddr: the instruction's address in it; must be in a private,
 *	executable mapping of a file
 * @handler: called by the thread that hits the probe, before the
 *	instruction runs; may sleep
 * @registration_callback: when a register or unregister call made from
 *	a handler completes (such calls are deferred): @reg is 1 for
 *	register, 0 for unregister; @result what the call would have
 *	returned
 *
 * The caller sets the fields above and leaves the rest zeroed.  The
 * probe is armed in that process only: other processes running the
 * same file never trap.  It is shared by all of the process's threads,
 * present and future, is taken out of forked children, and goes away by
 * itself when the process execs or exits (unregistering it afterwards
 * does nothing).
 */
struct pid_op;

struct pid_uprobe {
	pid_t			pid;
	unsigned long		vaddr;
	void			(*handler)(struct pid_uprobe *u,
					   struct pt_regs *regs);
	void			(*registration_callback)(struct pid_uprobe *u,
							 int reg,
							 enum uprobe_type type,
							 int result);

	/* private: */
	struct uprobe_consumer	consumer;
	struct uprobe		*point;
	struct mm_struct	*mm;
	struct list_head	node;
	struct pid_op		*op;	/* a call queued by a handler */
	struct pid_op		*spare;	/* for an unregister from a handler */
	int			state;
	u8			type;
};

struct pid_uretprobe;

/**
 * struct pid_uretprobe_instance - one return of a probed function
 * @rp: the return probe
 * @ret_addr: where the function returns to
 */
struct pid_uretprobe_instance {
	struct pid_uretprobe	*rp;
	unsigned long		ret_addr;
};

/**
 * struct pid_uretprobe - a probe on the returns of one process's function
 * @u: @u.pid, @u.vaddr (the function's first instruction) and
 *	@u.registration_callback as for a struct pid_uprobe; @u.handler
 *	is not used
 * @handler: called when the function returns, @regs holding its return
 *	value (regs_return_value())
 */
struct pid_uretprobe {
	struct pid_uprobe	u;
	void			(*handler)(struct pid_uretprobe_instance *ri,
					   struct pt_regs *regs);
};

int register_pid_uprobe(struct pid_uprobe *u);
void unregister_pid_uprobe(struct pid_uprobe *u);
int register_pid_uretprobe(struct pid_uretprobe *rp);
void unregister_pid_uretprobe(struct pid_uretprobe *rp);

/**
 * enum uprobe_race_point - where a race test may hold a hit
 * @UPROBE_RACE_BEFORE_LOOKUP: the thread trapped, its probe not yet looked up
 * @UPROBE_RACE_AFTER_MISS: no probe found, the text not yet read back
 */
enum uprobe_race_point {
	UPROBE_RACE_BEFORE_LOOKUP,
	UPROBE_RACE_AFTER_MISS,
};

#ifdef CONFIG_UPROBES_RACE_HOOKS
typedef void (*uprobe_race_hook_t)(enum uprobe_race_point point,
				   unsigned long vaddr);
void uprobe_set_race_hook(uprobe_race_hook_t hook);
#endif

#else /* !CONFIG_UPROBES */

struct uprobes_state { };

#define uprobe_get_trap_addr(regs)	instruction_pointer(regs)

static inline void uprobes_init(void) { }
static inline struct uprobe *uprobe_register(struct inode *inode,
					     loff_t offset,
					     loff_t ref_ctr_offset,
					     struct uprobe_consumer *uc)
{ return ERR_PTR(-EOPNOTSUPP); }
static inline int uprobe_apply(struct uprobe *uprobe,
			       struct uprobe_consumer *uc, bool add)
{ return -EOPNOTSUPP; }
static inline void uprobe_unregister_nosync(struct uprobe *uprobe,
					    struct uprobe_consumer *uc) { }
static inline void uprobe_unregister_sync(void) { }
static inline bool uprobe_breakpoint_trap(struct pt_regs *regs)
{ return false; }
static inline int uprobe_mmap(struct vm_area_struct *vma) { return 0; }
static inline void uprobe_munmap(struct vm_area_struct *vma,
				 unsigned long start, unsigned long end) { }
static inline void uprobe_start_dup_mmap(void) { }
static inline void uprobe_end_dup_mmap(void) { }
static inline void uprobe_dup_mmap(struct mm_struct *oldmm,
				   struct mm_struct *newmm) { }
static inline void uprobe_notify_resume(struct pt_regs *regs) { }
static inline bool uprobe_deny_signal(void) { return false; }
static inline void uprobe_free_utask(struct task_struct *t) { }
static inline void uprobe_copy_process(struct task_struct *t,
				       unsigned long flags) { }
static inline void uprobe_clear_state(struct mm_struct *mm) { }
#endif /* !CONFIG_UPROBES */
#endif /* _LINUX_UPROBES_H */
