// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 kprobes: what happens when a probe's BRK hits.
 *
 * Which path each event takes on arm64 in 6.12:
 *  - BRK #KPROBES_BRK_IMM (a probe) and BRK #KPROBES_BRK_SS_IMM (the end
 *    of an out-of-line step): el1_brk64() -> call_el1_break_hook() calls
 *    kprobe_brk_handler() / kprobe_ss_brk_handler() by immediate, with
 *    every DAIF bit masked and preemption off.  pc is the BRK itself.
 *  - a probe on an ftrace call site: ftrace_caller() calls
 *    kprobe_ftrace_handler() (ftrace_entry.S, then ftrace.c) with
 *    preemption and interrupts as the probed function had them; the
 *    hit turns preemption off.
 *  - a page fault in a handler or a stepped copy: do_page_fault() (and
 *    do_bad_area() for kernel addresses) call kprobe_page_fault().
 * Hardware single-step is never used: the slot ends with a BRK.
 */
#include <linux/cpufeature.h>
#include <linux/kdebug.h>
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>

#include "decode.h"

/*
 * The helpers of the hit path below are inlined into the BRK handlers:
 * a call with its signed frame is a measurable part of a hit.
 */

/*
 * BTYPE is set: the probed instruction was reached by an indirect branch.
 * No simulated instruction is a landing pad, so on guarded text (the
 * kernel's, where it enforces BTI) the CPU would raise a Branch Target
 * exception in place; simulating it would let the branch through.  On
 * unguarded text the instruction runs and, not being a branch to a
 * register, leaves BTYPE clear, as simulators expect to find it.
 */
static noinline bool btype_at_simulated(struct kprobe *probe,
					struct pt_regs *regs)
{
	if (system_supports_bti_kernel()) {
		pr_err("kprobes: indirect branch to %pS, not a landing pad\n",
		       probe->addr);
		return true;
	}
	regs->pstate &= ~PSR_BTYPE_MASK;
	return false;
}
NOKPROBE_SYMBOL(btype_at_simulated);

static __always_inline bool branch_target_fault(struct kprobe *probe,
						struct pt_regs *regs)
{
	/* Zero on nearly every hit. */
	if (likely(!(regs->pstate & PSR_BTYPE_MASK)))
		return false;
	return btype_at_simulated(probe, regs);
}

/*
 * Run the probed instruction for a hit whose pc is the probed address.
 * Simulated classes finish here; the rest go to their slot with DAIF
 * masked, so nothing runs on this CPU between the copy and the BRK after
 * it.
 *
 * The status says "executing the instruction" from here on, simulated or
 * not: a probe hit inside a simulator must see a reentered hit as one
 * (and give up rather than overwrite the outer hit's saved state), and a
 * fault there is not one of the handlers' to answer.
 */
static __always_inline int replay(struct kprobe *probe, struct pt_regs *regs,
				  struct kprobe_ctlblk *kcb, bool reentered)
{
	u64 pstate;

	kcb->kprobe_status = reentered ? KPROBE_REENTER : KPROBE_HIT_SS;
	/*
	 * Not kept in a local: on the rare BTYPE path it would be saved
	 * across a call, and the frame for it costs every hit.
	 */
	if (probe->ainsn.simulate) {
		if (likely(!branch_target_fault(probe, regs)) &&
		    probe->ainsn.simulate(probe->opcode,
					  (unsigned long)probe->addr, regs,
					  &arm64_kprobe_policy)) {
			kprobe_hit_finish(probe, regs, kcb, reentered);
			return DBG_HOOK_HANDLED;
		}
		/*
		 * A literal that cannot be read, or a branch into guarded
		 * text that is not a landing pad: the instruction would
		 * oops in place, so let the BRK oops here, at its address.
		 */
		kprobe_hit_leave(kcb, reentered);
		return DBG_HOOK_ERROR;
	}
	pstate = regs->pstate;
	kcb->saved_irq = pstate & DAIF_MASK;
	regs->pstate = pstate | DAIF_MASK;
	regs->pc = (unsigned long)probe->ainsn.insn;
	return DBG_HOOK_HANDLED;
}

/* A probe was hit while this CPU was already handling one. */
static int reenter(struct kprobe *probe, struct pt_regs *regs,
		   struct kprobe_ctlblk *kcb)
{
	if (!kprobe_reenter(probe, kcb))
		return DBG_HOOK_ERROR;
	return replay(probe, regs, kcb, true);
}
NOKPROBE_SYMBOL(reenter);

/*
 * A kprobes BRK with no probe at its address.  Another CPU may have
 * removed the probe after this one trapped on it; then the BRK is gone:
 * run the original.
 */
static noinline int no_probe_at(kprobe_opcode_t *addr)
{
	__le32 insn;

	/* Not aarch64_insn_read(): what that calls may be probed. */
	if (!arm64_kprobe_policy.read(&insn, (unsigned long)addr, sizeof(insn)) &&
	    le32_to_cpu(insn) != BRK64_OPCODE_KPROBES)
		return DBG_HOOK_HANDLED;
	return DBG_HOOK_ERROR;
}
NOKPROBE_SYMBOL(no_probe_at);

#ifdef CONFIG_KPROBES_FTRACE_BRIDGE
/*
 * A BRK on ftrace's `mov x9, x30` standing in for the call site after it
 * (kernel/kprobes/bridge.c): the hit is the one ftrace would give, pc at
 * the site, and it resumes at the site, where the call goes on to any
 * other ftrace user of the function.  ftrace_caller takes the return
 * address from x9, so x9 follows what the handlers left in x30 (a
 * rethook's trampoline, or a new return address).
 */
static noinline int bridge_brk(kprobe_opcode_t *addr, struct pt_regs *regs)
{
	struct kprobe *head = kprobe_lookup(addr + 1);
	unsigned long site = (unsigned long)(addr + 1);

	if (head && !kprobe_has_flag(head, KPROBE_FLAGS_BRIDGED)) {
		/*
		 * A lone head a site just replaced loses its flags after
		 * the switch: the table holds the site by then, which
		 * carries the bridge on.
		 */
		smp_rmb();	/* pairs with kprobe_site_take_over()'s smp_wmb() */
		head = kprobe_lookup(addr + 1);
	}
	if (!head || !kprobe_has_flag(head, KPROBE_FLAGS_BRIDGED))
		return no_probe_at(addr);
	regs->regs[9] = regs->regs[30];
	regs->pc = site;
	/* As after the mov, which sets no BTYPE. */
	regs->pstate &= ~PSR_BTYPE_MASK;
	/* As the ftrace path shows the site: an EL1 trap leaves it stale. */
	regs->syscallno = NO_SYSCALL;
	if (!kprobe_bridge_brk_fires(head))
		return DBG_HOOK_HANDLED;
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(head);
	} else if (kprobe_hit_begin(head, regs)) {
		reset_current_kprobe();
		return DBG_HOOK_HANDLED;
	} else if (kprobe_hit_wants_post(head)) {
		/* As on the ftrace path: past the site, then back to it. */
		regs->pc = site + AARCH64_INSN_SIZE;
		kprobe_hit_end(head, regs);
		regs->pc = site;
	} else {
		reset_current_kprobe();
	}
	regs->regs[9] = regs->regs[30];
	kprobe_bridge_passed(head);
	return DBG_HOOK_HANDLED;
}
NOKPROBE_SYMBOL(bridge_brk);
#else
static inline int bridge_brk(kprobe_opcode_t *addr, struct pt_regs *regs)
{
	return no_probe_at(addr);
}
#endif

/**
 * kprobe_brk_handler() - a kprobes BRK hit in kernel mode
 * @regs: registers, pc at the BRK
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR when the BRK is not ours
 * (the kernel then oopses).
 */
int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)instruction_pointer(regs);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *probe, *cur = kprobe_running();

	kprobe_count_trap();
	probe = kprobe_lookup(addr);
	/*
	 * A gone head's text is no longer ours (freed init text, a new
	 * module): a BRK there was planted by someone else.
	 */
	if (unlikely(!probe))
		return bridge_brk(addr, regs);
	if (unlikely(kprobe_gone(probe)))
		return no_probe_at(addr);
	if (cur)
		return reenter(probe, regs, kcb);

	if (kprobe_hit_begin_kcb(probe, regs, kcb)) {
		/*
		 * A handler redirected execution through regs, as a return
		 * would: the BTYPE of the branch that reached the probe
		 * must not meet the new pc's landing-pad check.
		 */
		regs->pstate &= ~PSR_BTYPE_MASK;
		reset_current_kprobe();
		return DBG_HOOK_HANDLED;
	}
	return replay(probe, regs, kcb, false);
}
NOKPROBE_SYMBOL(kprobe_brk_handler);

/**
 * kprobe_ss_brk_handler() - the BRK at the end of a slot: the copy ran
 * @regs: registers, pc at that BRK
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR when no step was expected
 * here.
 */
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();
	bool reentered;

	/* A probe without a slot has a NULL insn: insn + 1 is no pc. */
	if (!cur || !(kcb->kprobe_status & (KPROBE_HIT_SS | KPROBE_REENTER)) ||
	    instruction_pointer(regs) != (unsigned long)(cur->ainsn.insn + 1))
		return DBG_HOOK_ERROR;

	reentered = kcb->kprobe_status == KPROBE_REENTER;
	regs->pstate = (regs->pstate & ~DAIF_MASK) | kcb->saved_irq;
	regs->pc = (unsigned long)(cur->addr + 1);
	kprobe_hit_finish(cur, regs, kcb, reentered);
	return DBG_HOOK_HANDLED;
}
NOKPROBE_SYMBOL(kprobe_ss_brk_handler);

/*
 * The copy in a slot faulted.  pc stays in the slot and the hit stays
 * this CPU's: whether the fault is resolved is the kernel's to decide
 * after this returns (a KFENCE page, a spurious translation fault, a
 * fault_handler that repaired the registers), and a resolved fault
 * retries the copy, which ends the hit at its BRK, once.  Had pc gone
 * back to the probed address, the retry would be a second hit and run
 * every pre_handler again.  A fault that is not resolved oopses, and
 * kprobe_die_notify() reports it at the probed address.
 *
 * The fault_handlers see the fault where the instruction lives, with the
 * probed context's DAIF, as they would without the probe.
 */
static int slot_fault(struct kprobe *cur, struct pt_regs *regs,
		      struct kprobe_ctlblk *kcb, int trapnr)
{
	unsigned long slot_pc = regs->pc;
	u64 step_daif = regs->pstate & DAIF_MASK;
	int handled;

	regs->pc = (unsigned long)cur->addr;
	regs->pstate = (regs->pstate & ~DAIF_MASK) | kcb->saved_irq;
	handled = kprobe_run_fault_handler(cur, regs, trapnr);
	if (!handled || regs->pc == (unsigned long)cur->addr) {
		/* Unresolved, or resolved for the copy to run again. */
		regs->pc = slot_pc;
		regs->pstate = (regs->pstate & ~DAIF_MASK) | step_daif;
		return handled;
	}
	/* The fault_handler sent execution elsewhere: the step is over. */
	reset_current_kprobe();
	return handled;
}
NOKPROBE_SYMBOL(slot_fault);

/**
 * kprobe_fault_handler() - a fault while this CPU handles a probe hit
 * @regs: registers at the fault
 * @trapnr: the ESR of the fault, truncated
 *
 * A fault in the out-of-line copy is left to the kernel (see
 * slot_fault()); the probe's fault_handler may claim it, or one in a
 * handler.  A fault in a nested hit's copy, in a simulator, or in an
 * interrupt that came in on top of the handlers is not the handlers'
 * business.
 *
 * Return: non-zero when a fault_handler claimed the fault.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (kcb->kprobe_status == KPROBE_HIT_SS &&
	    instruction_pointer(regs) == (unsigned long)cur->ainsn.insn)
		return slot_fault(cur, regs, kcb, trapnr);
	/*
	 * In a handler, or in whatever interrupted it: ftrace-site hits run
	 * handlers with interrupts as the function had them, and a pseudo-NMI
	 * may come in on top of any hit.  An interrupt's fault is its own,
	 * fixed up (or not) as if no probe were running.
	 */
	if ((kcb->kprobe_status & (KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE)) &&
	    kprobe_fault_in_hit_context())
		return kprobe_run_fault_handler(cur, regs, trapnr);
	return 0;
}
NOKPROBE_SYMBOL(kprobe_fault_handler);

/*
 * An oops inside a hit (a handler's bug, FPAC on a simulated retaa, a
 * Branch Target or undefined-instruction exception in a slot) kills the
 * task, but the hit's state is per CPU and would stay: every later hit on
 * this CPU would look nested and be missed.  The hit is over with the
 * task, nested ones included, so all of it goes.  An oops in a slot is
 * reported at the probed address, where the instruction lives.
 *
 * Lowest priority: a debugger that takes the oops and resumes the task
 * stops the chain before this, and the hit goes on.
 */
static int kprobe_die_notify(struct notifier_block *nb, unsigned long val,
			     void *data)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;

	if (val != DIE_OOPS || !cur)
		return NOTIFY_DONE;
	if (regs && !user_mode(regs) &&
	    (kcb->kprobe_status & (KPROBE_HIT_SS | KPROBE_REENTER)) &&
	    cur->ainsn.insn &&
	    instruction_pointer(regs) == (unsigned long)cur->ainsn.insn) {
		regs->pc = (unsigned long)cur->addr;
		regs->pstate = (regs->pstate & ~DAIF_MASK) | kcb->saved_irq;
	}
	kcb->prev_kprobe.kp = NULL;
	kcb->prev_kprobe.status = 0;
	kcb->kprobe_status = 0;
	kprobe_hit_abandon();
	return NOTIFY_DONE;
}
NOKPROBE_SYMBOL(kprobe_die_notify);

static struct notifier_block kprobe_die_nb = {
	.notifier_call = kprobe_die_notify,
	.priority = INT_MIN,
};

/* BRKs reach the handlers through debug-monitors.c; oopses need a word. */
int __init arch_init_kprobes(void)
{
	return register_die_notifier(&kprobe_die_nb);
}
