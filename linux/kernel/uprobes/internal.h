/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the uprobes engine share.
 *
 * A probe point is a struct uprobe: one per (inode, offset), found by a
 * hit through an RCU hash and by an mmap through an rbtree sorted by
 * inode and offset.  Consumers hang off it in registration order.  The
 * breakpoint itself lives in the page tables of every mm that maps the
 * file there and that some consumer's filter accepts; nothing records
 * which mms those are, the file's reverse map finds them again.
 *
 * Lifetimes.  Each registered consumer holds a reference on its uprobe
 * (->ref); the last one unhashes it.  A hit runs under uprobes_srcu, but
 * a thread stepping the probe's copy and a pending return instance hold
 * it past their read-side section: they count in ->hits, a per-CPU
 * reference that many threads of one process can take and drop at once
 * without sharing a cache line.  The unhashing kills ->hits, and the
 * probe is freed an SRCU grace period after the last of those is gone.
 *
 * Locks, outermost first:
 *   uprobe->register_rwsem (one registration change at a time)
 *   uprobes_dup_mmap_sem (read by fork, write by a registration walk)
 *   mmap_lock of an mm being walked
 *   uprobe->prepare_lock (reading the file once; also under the
 *     mmap_lock of an mm being mapped, held for writing)
 *   uprobes_tree_lock (the rbtree and the hash, for writers)
 * and uprobe->consumer_lock (the consumer list, for writers), taken
 * under register_rwsem alone, with nothing inside it.
 */
#ifndef _KERNEL_UPROBES_INTERNAL_H
#define _KERNEL_UPROBES_INTERNAL_H

#include <linux/uprobes.h>
#include <linux/uprobes_arch.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/percpu-rwsem.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/srcu.h>
#include <linux/wait.h>
#include <linux/jump_label.h>
#include <linux/mm.h>

struct uprobe {
	struct rb_node		rb;		/* in uprobes_tree */
	struct hlist_node	hash;		/* in uprobes_hash */
	refcount_t		ref;		/* registrations, walks */
	struct percpu_ref	hits;		/* steps, return instances */
	u64			xol_key;	/* names its copy in XOL slots */
	struct inode		*inode;		/* holds a reference */
	loff_t			offset;
	loff_t			ref_ctr_offset;
	struct rw_semaphore	register_rwsem;	/* one change at a time */
	struct mutex		consumer_lock;	/* writers of @consumers */
	struct mutex		prepare_lock;	/* one uprobe_prepare() */
	struct list_head	consumers;	/* RCU (uprobes_srcu) */
	unsigned long		flags;
	int			prepare_err;	/* the port's verdict */
	uprobe_opcode_t		orig_opcode;	/* what the breakpoint hides */
	struct arch_uprobe	arch;
	struct rcu_head		rcu;
};

/* uprobe->flags */
enum {
	UPROBE_PREPARED,	/* the port has looked at the instruction */
	UPROBE_ARMED,		/* a breakpoint of this probe was written */
	UPROBE_KEPT,		/* held for stray breakpoints, never freed */
};

extern struct srcu_struct uprobes_srcu;

/* probes.c: the uprobe objects */
struct uprobe *uprobe_get_or_create(struct inode *inode, loff_t offset,
				    loff_t ref_ctr_offset);
struct uprobe *uprobe_lookup_rcu(struct inode *inode, loff_t offset);
struct uprobe *uprobe_get(struct uprobe *uprobe);
void uprobe_put(struct uprobe *uprobe);
bool uprobe_tryget(struct uprobe *uprobe);

/*
 * A hit's hold on the probe it found under SRCU, for a step or a return
 * instance: refused once the probe is unhashed, so nothing new starts on
 * a probe on its way out.
 */
static inline bool uprobe_hit_get(struct uprobe *uprobe)
{
	return percpu_ref_tryget_live(&uprobe->hits);
}

/* Another hold for a copy of a return instance (fork). */
static inline void uprobe_hit_dup(struct uprobe *uprobe)
{
	percpu_ref_get(&uprobe->hits);
}

static inline void uprobe_hit_put(struct uprobe *uprobe)
{
	percpu_ref_put(&uprobe->hits);
}

bool uprobes_any(void);
int uprobes_in_range(struct inode *inode, loff_t start, loff_t end,
		     struct uprobe **out, int max);

/* text.c: reading the file, writing an mm's text */
int uprobe_prepare(struct uprobe *uprobe, struct file *file);
void uprobe_direct_try(unsigned long vaddr);
int uprobe_install(struct uprobe *uprobe, struct vm_area_struct *vma,
		   unsigned long vaddr);
int uprobe_remove(struct uprobe *uprobe, struct mm_struct *mm,
		  unsigned long vaddr);

/* sdt.c: SDT semaphores */
int uprobe_ref_ctr_update(struct uprobe *uprobe, struct mm_struct *mm,
			  short d);
void uprobe_ref_ctr_mmap(struct vm_area_struct *vma);
void uprobe_ref_ctr_forget_mm(struct mm_struct *mm);
void uprobe_ref_ctr_forget_uprobe(struct uprobe *uprobe);

/* register.c */
bool uprobe_wanted_by(struct uprobe *uprobe, struct mm_struct *mm);
void uprobe_leave_current_mm(struct uprobe *uprobe, unsigned long vaddr);

/* A vma a probe may go into: private, executable, of a file. */
static inline bool uprobe_vma_ok(struct vm_area_struct *vma, bool install)
{
	vm_flags_t f = vma->vm_flags;

	if (!vma->vm_file || (f & (VM_HUGETLB | VM_MAYSHARE)))
		return false;
	return !install || (f & VM_MAYEXEC);
}

static inline unsigned long uprobe_vaddr(struct vm_area_struct *vma,
					 loff_t offset)
{
	return vma->vm_start + offset - ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
}

static inline loff_t uprobe_file_offset(struct vm_area_struct *vma,
					unsigned long vaddr)
{
	return ((loff_t)vma->vm_pgoff << PAGE_SHIFT) + (vaddr - vma->vm_start);
}

/*
 * xol.c: the per-mm area of slots and the return trampoline.  The area's
 * layout is here so that every trap can ask inline whether it is the
 * trampoline's, before it looks for a probe.
 */
struct xol_slot {
	u64		key;	/* uprobe->xol_key of the copy here; 0: none */
	atomic_t	users;	/* threads sent here, or XOL_SLOT_FILLING */
	unsigned int	trap;	/* offset of the copy's breakpoint */
};

struct xol_area {
	wait_queue_head_t	wq;		/* for a slot no thread is in */
	struct mutex		fill_lock;	/* one slot refilled at a time */
	struct page		*code_page;
	unsigned long		base;		/* user address */
	unsigned int		first;		/* the first slot for copies */
	struct xol_slot		slots[];
};

/* Where @mm's return trampoline is, or UPROBE_NO_TRAMPOLINE_VADDR. */
static inline unsigned long uprobe_xol_trampoline_vaddr(struct mm_struct *mm)
{
	/* Pairs with the release in xol_area_create(): a complete area. */
	struct xol_area *xa = smp_load_acquire(&mm->uprobes_state.xol_area);

	return xa ? xa->base : UPROBE_NO_TRAMPOLINE_VADDR;
}

struct xol_area *uprobe_xol_get(struct mm_struct *mm);
unsigned long uprobe_xol_enter(struct xol_area *area, struct uprobe_task *ut,
			       struct uprobe *u, unsigned int *trap);
void uprobe_xol_leave(struct xol_area *area, struct uprobe_task *ut);
void uprobe_xol_forget(struct xol_area *area, struct uprobe_task *ut);
void uprobe_xol_report_stray(struct mm_struct *mm, unsigned long trap);
void uprobe_dup_xol_work(struct callback_head *work);
void uprobe_xol_drop(struct mm_struct *mm);

/* addr_cache.c: where an mm's probed addresses map */
bool uprobe_addr_cache_lookup(struct mm_struct *mm, unsigned long vaddr,
			      struct uprobe **uprobe);
void uprobe_addr_cache_begin(struct mm_struct *mm, unsigned long *gen);
void uprobe_addr_cache_store(struct mm_struct *mm, unsigned long gen,
			     unsigned long vaddr, struct inode *inode,
			     loff_t offset);
void uprobe_addr_cache_forget(struct mm_struct *mm, unsigned long start,
			      unsigned long end);
void uprobe_addr_cache_drop(struct mm_struct *mm);

/* hit.c */
struct uprobe_task *uprobe_task_get(void);

/* register.c: no registration walk while a fork copies an mm */
extern struct percpu_rw_semaphore uprobes_dup_mmap_sem;

/* pid.c: process probes, called from hooks.c only */
int uprobe_pid_fork(struct task_struct *child);
void uprobe_pid_mm_gone(struct mm_struct *mm);

/* race_hooks.c: holds for race tests, nothing without the option */
#ifdef CONFIG_UPROBES_RACE_HOOKS
DECLARE_STATIC_KEY_FALSE(uprobe_race_hooked);
void __uprobe_race_point(enum uprobe_race_point point, unsigned long vaddr);

/* A patched-out branch while no test holds hits. */
static inline void uprobe_race_point(enum uprobe_race_point point,
				     unsigned long vaddr)
{
	if (static_branch_unlikely(&uprobe_race_hooked))
		__uprobe_race_point(point, vaddr);
}
#else
static inline void uprobe_race_point(enum uprobe_race_point point,
				     unsigned long vaddr)
{
}
#endif

/* return.c */
/* Is the trap at @vaddr the current mm's return trampoline's? */
static inline bool uprobe_at_trampoline(unsigned long vaddr)
{
	return vaddr == uprobe_xol_trampoline_vaddr(current->mm);
}

void uprobe_prepare_return(struct uprobe *uprobe, struct pt_regs *regs,
			   struct uprobe_task *ut);
void uprobe_free_return_instances(struct uprobe_task *ut);
int uprobe_dup_return_instances(struct uprobe_task *parent,
				struct uprobe_task *child);

#endif /* _KERNEL_UPROBES_INTERNAL_H */
