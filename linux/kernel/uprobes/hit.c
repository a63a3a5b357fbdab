// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A hit, from the breakpoint's trap to the instruction after it.
 *
 * The trap only flags the thread (TIF_UPROBE): handlers may sleep, so
 * they run from uprobe_notify_resume() on the way back to user mode.
 * There the probe is found from the address (its vma gives the file and
 * offset), the consumers run in registration order, and the probed
 * instruction is either emulated by the port or run from an XOL slot
 * that ends in a breakpoint.  That breakpoint brings the thread back
 * here, where the port fixes up the registers and the slot is returned.
 *
 * While a thread is in its slot, signals wait (uprobe_deny_signal()): a
 * handler running on the slot's address, or a probe hit from a handler
 * that needs a slot of its own, could not be undone.  A fatal signal, or
 * a fault of the copy itself, abandons the step instead, with the
 * instruction pointer back at the probe, and is then delivered.
 */
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>

#include "internal.h"

/**
 * uprobe_task_get() - the current thread's uprobe state
 *
 * Return: it, allocated on first use, or NULL without memory.
 */
struct uprobe_task *uprobe_task_get(void)
{
	if (!current->utask)
		current->utask = kzalloc(sizeof(*current->utask), GFP_KERNEL);
	return current->utask;
}

bool uprobe_breakpoint_trap(struct pt_regs *regs)
{
	struct uprobe_task *ut = current->utask;
	struct mm_struct *mm = current->mm;

	if (!mm || !test_bit(MMF_HAS_UPROBES, &mm->flags))
		return false;
	if (ut && ut->step == UPROBE_STEP_RUNNING) {
		/* In a slot, only the slot's own breakpoint is ours. */
		if (arch_uprobe_trap_vaddr(regs) != ut->slot_trap) {
			uprobe_xol_report_stray(mm, arch_uprobe_trap_vaddr(regs));
			return false;
		}
		ut->step = UPROBE_STEP_DONE;
	}
	set_thread_flag(TIF_UPROBE);
	return true;
}
NOKPROBE_SYMBOL(uprobe_breakpoint_trap);

/* Is the current mm's text at @vaddr our breakpoint?  1, 0 or -EFAULT. */
static int breakpoint_at(unsigned long vaddr)
{
	uprobe_opcode_t cur, bp = UPROBE_SWBP_INSN;

	/*
	 * Text may be execute-only (PROT_EXEC with x86 protection keys or
	 * arm64 EPAN): the user access faults although the thread just
	 * ran the instruction.  A forced read through the page tables, as
	 * a debugger's, still sees it; without it the caller would take
	 * the breakpoint for one just removed and send the thread back
	 * onto it for ever.
	 */
	if (copy_from_user(&cur, (void __user *)vaddr, sizeof(cur)) &&
	    access_remote_vm(current->mm, vaddr, &cur, sizeof(cur),
			     FOLL_FORCE) != sizeof(cur))
		return -EFAULT;
	return !memcmp(&cur, &bp, sizeof(cur));
}

/*
 * The probe armed at @vaddr in the current mm.  Caller is in an
 * uprobes_srcu read-side section.
 */
static struct uprobe *find_probe(unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct inode *inode = NULL;
	struct uprobe *u = NULL;
	unsigned long gen = 0;
	loff_t offset = 0;

	if (uprobe_addr_cache_lookup(mm, vaddr, &u))
		return u;

	/* The lookup under the vma's lock: its file cannot go meanwhile. */
	uprobe_addr_cache_begin(mm, &gen);
#ifdef CONFIG_PER_VMA_LOCK
	vma = lock_vma_under_rcu(mm, vaddr);
	if (vma) {
		if (vma->vm_file) {
			inode = file_inode(vma->vm_file);
			offset = uprobe_file_offset(vma, vaddr);
			u = uprobe_lookup_rcu(inode, offset);
		}
		vma_end_read(vma);
		goto found;
	}
#endif
	mmap_read_lock(mm);
	vma = vma_lookup(mm, vaddr);
	if (vma && vma->vm_file) {
		inode = file_inode(vma->vm_file);
		offset = uprobe_file_offset(vma, vaddr);
		u = uprobe_lookup_rcu(inode, offset);
	}
	mmap_read_unlock(mm);
#ifdef CONFIG_PER_VMA_LOCK
found:
#endif
	/* Only probed addresses: a program's own breakpoint stays out. */
	if (u)
		uprobe_addr_cache_store(mm, gen, vaddr, inode, offset);
	return u;
}

/* Can a hit use @u: found, and the port's copy of the text published? */
static bool probe_ready(struct uprobe *u)
{
	/* Acquire: pairs with uprobe_prepare() publishing the port's copy. */
	return u && test_bit_acquire(UPROBE_PREPARED, &u->flags) &&
	       !u->prepare_err;
}

/* Run the consumers' entry handlers; prepare a return probe if asked. */
static void run_handlers(struct uprobe *u, unsigned long vaddr,
			 struct pt_regs *regs, struct uprobe_task *ut)
{
	bool any = false, remove = true, want_return = false;
	struct uprobe_consumer *uc;

	ut->auprobe = &u->arch;
	ut->in_handler = true;
	list_for_each_entry_srcu(uc, &u->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu)) {
		int rc = 0;

		any = true;
		if (uc->handler) {
			rc = uc->handler(uc, regs);
			WARN_ONCE(rc & ~UPROBE_HANDLER_MASK,
				  "uprobes: %ps returned %#x\n", uc->handler, rc);
		}
		remove &= rc == UPROBE_HANDLER_REMOVE;
		want_return |= !!uc->ret_handler;
	}
	ut->in_handler = false;
	ut->auprobe = NULL;

	/*
	 * Consumers that all want out of this mm get no return either.  A
	 * kept probe without consumers was hit where taking it out failed
	 * (keep_for_strays() in register.c): it leaves this mm now.  Any
	 * other probe found without consumers may be an old one on its way
	 * out while a new one for the same instruction owns the breakpoint:
	 * that is left alone.
	 */
	if (any ? remove : test_bit(UPROBE_KEPT, &u->flags))
		uprobe_leave_current_mm(u, vaddr);
	else if (want_return)
		uprobe_prepare_return(u, regs, ut);
}

/* Send the thread into a slot to run the instruction; false if not. */
static bool start_step(struct uprobe *u, unsigned long vaddr,
		       struct pt_regs *regs, struct uprobe_task *ut)
{
	struct xol_area *area;
	unsigned long slot;
	unsigned int trap;

	area = uprobe_xol_get(current->mm);
	if (!area)
		return false;
	/*
	 * Found under SRCU, the probe may be past its last reference: its
	 * breakpoints are gone or going, so the thread just runs into the
	 * instruction again.
	 */
	if (!uprobe_hit_get(u))
		return false;
	slot = uprobe_xol_enter(area, ut, u, &trap);
	if (!slot) {
		uprobe_hit_put(u);
		return false;
	}

	ut->vaddr = vaddr;
	ut->slot_trap = slot + trap;
	if (arch_uprobe_pre_xol(&u->arch, regs, ut)) {
		uprobe_xol_leave(area, ut);
		uprobe_hit_put(u);
		return false;
	}
	ut->stepping = u;
	ut->step = UPROBE_STEP_RUNNING;
	return true;
}

/* Back from the slot (or leaving it early): complete the instruction. */
static void finish_step(struct uprobe_task *ut, struct pt_regs *regs)
{
	struct uprobe *u = ut->stepping;
	struct xol_area *area = current->mm->uprobes_state.xol_area;
	int err = 0;

	/*
	 * A signal that stopped the thread on the slot's breakpoint (a
	 * debugger's single-step, a watchpoint) came after the copy ran:
	 * complete it rather than run it twice.
	 */
	if (ut->step == UPROBE_STEP_DONE ||
	    instruction_pointer(regs) == ut->slot_trap)
		err = arch_uprobe_post_xol(&u->arch, regs, ut);
	else
		arch_uprobe_abort_xol(&u->arch, regs, ut);

	uprobe_xol_leave(area, ut);
	ut->stepping = NULL;
	ut->step = UPROBE_STEP_NONE;
	uprobe_hit_put(u);

	/*
	 * Signals held back during the step may go now.  Only a step that
	 * held one back took TIF_SIGPENDING away; the others leave the
	 * process's siglock alone.
	 */
	if (ut->signal_held) {
		ut->signal_held = false;
		spin_lock_irq(&current->sighand->siglock);
		recalc_sigpending();
		spin_unlock_irq(&current->sighand->siglock);
	}

	if (err)
		force_sig(SIGILL);
}

/*
 * The hit itself, however the thread came: handlers, then the
 * instruction.  In an SRCU read-side section, @u found and ready.
 */
static __always_inline void run_hit(struct uprobe *u, unsigned long vaddr,
				    struct pt_regs *regs)
{
	struct uprobe_task *ut;

	/* Handlers see the probed address; so does a restart. */
	instruction_pointer_set(regs, vaddr);
	ut = uprobe_task_get();
	if (!ut)
		return;
	run_handlers(u, vaddr, regs, ut);

	/* A handler that moved the thread elsewhere skips the instruction. */
	if (instruction_pointer(regs) != vaddr)
		return;
	if (arch_uprobe_emulate(&u->arch, regs))
		return;
	start_step(u, vaddr, regs, ut);
}

bool uprobe_handle_direct(struct pt_regs *regs, unsigned long vaddr)
{
	struct uprobe *u;
	bool found;
	int idx;

	idx = srcu_read_lock(&uprobes_srcu);
	u = find_probe(vaddr);
	found = probe_ready(u);
	if (found)
		run_hit(u, vaddr, regs);
	srcu_read_unlock(&uprobes_srcu, idx);
	return found;
}

static void handle_breakpoint(struct pt_regs *regs)
{
	unsigned long vaddr = arch_uprobe_trap_vaddr(regs);
	bool direct;
	struct uprobe *u;
	int idx;

	if (uprobe_at_trampoline(vaddr)) {
		uprobe_handle_trampoline(regs);
		return;
	}

	idx = srcu_read_lock(&uprobes_srcu);
	uprobe_race_point(UPROBE_RACE_BEFORE_LOOKUP, vaddr);
	u = find_probe(vaddr);
	if (!probe_ready(u)) {
		uprobe_race_point(UPROBE_RACE_AFTER_MISS, vaddr);
		if (breakpoint_at(vaddr) <= 0) {
			/*
			 * Just taken out (or the text went): run the
			 * instruction again, as it is now.
			 */
			instruction_pointer_set(regs, vaddr);
			goto out;
		}
		/*
		 * The probe we trapped on may have gone between the trap
		 * and the lookup, and a new one have written its breakpoint
		 * since.  A probe is findable and prepared before its
		 * breakpoint is written: having seen the breakpoint, a
		 * second look finds its probe, if there is one.  Pairs
		 * with the smp_wmb() before poke() writes a breakpoint.
		 */
		smp_rmb();
		u = find_probe(vaddr);
		if (!probe_ready(u)) {
			/* The program's own breakpoint, or a stray in a slot. */
			uprobe_xol_report_stray(current->mm, vaddr);
			force_sig(SIGTRAP);
			goto out;
		}
	}

	direct = arch_uprobe_direct_wanted(&u->arch, vaddr);
	run_hit(u, vaddr, regs);
	srcu_read_unlock(&uprobes_srcu, idx);
	/*
	 * The next hits may come without the trap.  Outside the read-side
	 * section: that takes the mmap_lock and looks the probe up again.
	 */
	if (direct)
		uprobe_direct_try(vaddr);
	return;
out:
	srcu_read_unlock(&uprobes_srcu, idx);
}

/**
 * uprobe_notify_resume() - TIF_UPROBE work on the way to user mode
 * @regs: the user registers
 */
void uprobe_notify_resume(struct pt_regs *regs)
{
	struct uprobe_task *ut = current->utask;

	clear_thread_flag(TIF_UPROBE);
	if (ut && ut->stepping) {
		if (ut->step != UPROBE_STEP_RUNNING)
			finish_step(ut, regs);
		return;
	}
	handle_breakpoint(regs);
}

/**
 * uprobe_deny_signal() - hold signals back while in a slot
 *
 * Called first thing by get_signal().
 *
 * Return: true when the thread must go on (into its slot) with signals
 * held; a fatal signal or a fault of the copy ends the step first.
 */
bool uprobe_deny_signal(void)
{
	struct uprobe_task *ut = current->utask;
	bool abandon;

	if (likely(!ut || !ut->stepping))
		return false;
	if (!task_sigpending(current))
		return true;

	abandon = __fatal_signal_pending(current) ||
		  arch_uprobe_xol_was_trapped(current);
	/* Held, not lost: finish_step() recalculates it. */
	spin_lock_irq(&current->sighand->siglock);
	clear_thread_flag(TIF_SIGPENDING);
	spin_unlock_irq(&current->sighand->siglock);
	ut->signal_held = true;
	if (abandon) {
		ut->step = UPROBE_STEP_FAULTED;
		set_thread_flag(TIF_UPROBE);
	}
	return true;
}

/**
 * uprobe_get_trap_addr() - where a trap happened, as the program sees it
 * @regs: the registers of the trap
 *
 * Return: the probed address for a trap in a slot, else the instruction
 * pointer.
 */
unsigned long uprobe_get_trap_addr(struct pt_regs *regs)
{
	struct uprobe_task *ut = current->utask;

	if (unlikely(ut && ut->stepping))
		return ut->vaddr;
	return instruction_pointer(regs);
}

/**
 * uprobe_get_swbp_addr() - the address of the breakpoint that trapped
 * @regs: the registers of the breakpoint trap, as the trap left them
 *
 * The port knows whether its breakpoint leaves the instruction pointer on
 * itself or past it; modules that watch uprobe traps (SystemTap's runtime,
 * the uprobes torture modules) ask here instead of knowing every port.
 *
 * Return: the user address of the breakpoint instruction.
 */
unsigned long uprobe_get_swbp_addr(struct pt_regs *regs)
{
	return arch_uprobe_trap_vaddr(regs);
}
EXPORT_SYMBOL_GPL(uprobe_get_swbp_addr);
