// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: the int3 that marks a probe and what happens when it hits.
 *
 * Which path each event takes on x86_64 in 6.12:
 *  - int3 (probe hit, end of an out-of-line step): do_int3() calls
 *    kprobe_int3_handler() directly, before the die chain.
 *  - page fault in a handler or in a stepped instruction: the fault code
 *    calls kprobe_page_fault() -> kprobe_fault_handler() directly.
 *  - #GP: gp_try_fixup_and_notify() calls kprobe_fault_handler() directly.
 *  - other traps (#DE, #UD, #SS, ...) raised by a stepped instruction or a
 *    handler: the die chain, DIE_TRAP, reaches kprobe_exceptions_notify().
 * Single-stepping does not use TF/#DB: the slot ends with an int3.
 */
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/kdebug.h>
#include <linux/execmem.h>
#include <linux/kallsyms.h>
#include <linux/perf_event.h>
#include <asm/ibt.h>
#include <asm/set_memory.h>
#include <asm/sections.h>
#include <asm/text-patching.h>
#include <asm/traps.h>
#include <asm/switch_to.h>
#include <linux/uaccess.h>

#include "simulate.h"
#include "common.h"

/*
 * Breakpoints are written one byte each and made visible to every CPU
 * with a single synchronisation for the whole set: writing an int3 over
 * the first byte of an instruction (or the original byte back over it) is
 * safe without the text_poke_bp() dance, as either byte is a complete
 * instruction start for a CPU that fetches it.
 */
static void poke_breakpoints(struct kprobe **kps, int n, bool arm)
{
	u8 int3 = INT3_INSN_OPCODE;
	int i;

	for (i = 0; i < n; i++)
		text_poke(kps[i]->addr, arm ? &int3 : &kps[i]->opcode, 1);
	text_poke_sync();
	for (i = 0; i < n; i++) {
		if (arm)
			perf_event_text_poke(kps[i]->addr, &kps[i]->opcode, 1,
					     &int3, 1);
		else
			perf_event_text_poke(kps[i]->addr, &int3, 1,
					     &kps[i]->opcode, 1);
	}
}

void arch_arm_kprobes(struct kprobe **kps, int n)
{
	poke_breakpoints(kps, n, true);
}

void arch_disarm_kprobes(struct kprobe **kps, int n)
{
	poke_breakpoints(kps, n, false);
}

void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (!page)
		return NULL;
	/* Slots are only written through text_poke from here on. */
	set_memory_rox((unsigned long)page, 1);
	return page;
}

void arch_write_insn_slot(void *slot, const void *insn, size_t len)
{
	text_poke_copy(slot, insn, len);
}

/* An ENDBR at a function entry is part of the entry: probe after it. */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	u32 insn;

	if (!offset || offset == ENDBR_INSN_SIZE) {
		if (!copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)) &&
		    is_endbr(insn)) {
			*on_func_entry = true;
			return (kprobe_opcode_t *)(addr + ENDBR_INSN_SIZE);
		}
	}
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/* __switch_to returns on another task's stack: no return probe there. */
bool arch_kretprobe_blacklisted(unsigned long addr)
{
	return addr == (unsigned long)__switch_to;
}

int arch_populate_kprobe_blacklist(void)
{
	return kprobe_add_area_blacklist((unsigned long)__entry_text_start,
					 (unsigned long)__entry_text_end);
}

/* --- replaying the probed instruction --- */

/*
 * Carry out an emulated instruction on @regs, through the instruction
 * layer uprobes use as well.  Returns false when it could not (an
 * unreadable indirect target), in which case nothing changed.
 */
static __always_inline bool emulate(struct kprobe *probe, struct pt_regs *regs)
{
	unsigned long at = (unsigned long)probe->addr;

	/* Operands are computed with ip at the instruction itself. */
	regs->ip = at;
	return __x86_probe_emulate(&probe->ainsn.pi, probe->ainsn.bytes, at,
				   regs, &x86_probe_hit_mem);
}

/*
 * Run the probed instruction for a hit.  Emulated instructions finish
 * here.  With no post phase to follow, a boostable one goes to
 * the copy that jumps back by itself, and the hit is over.  The rest go to
 * their slot with interrupts off, so nothing can run on this CPU between
 * the slot and the int3 that ends it.  Inlined into the int3 handler:
 * every breakpoint hit runs it.
 */
static __always_inline void replay(struct kprobe *probe, struct pt_regs *regs,
				   struct kprobe_ctlblk *kcb, bool reentered)
{
	kprobe_opcode_t *copy = probe->ainsn.boost;

#ifdef CONFIG_OPTPROBES
	/*
	 * The detour's copy of the region serves as well: probes queued for
	 * a jump skip the single step that way until the jump is in, and
	 * while a jump is written or taken out this is the way out that
	 * does not land inside it.  A post phase then needs the detour's
	 * post path (without one, the site has no jump while it has a post
	 * phase).
	 */
	if (kprobe_has_detour(probe)) {
		copy = probe->ainsn.detour + KPROBE_DETOUR_COPY;
		if (!reentered && probe->ainsn.post_path &&
		    kprobe_hit_wants_post(probe)) {
			kprobe_detour_step(probe, regs, kcb);
			return;
		}
	}
#endif
	/* A nested hit ran no handlers: it has no post phase either. */
	if (copy && (reentered || !kprobe_hit_wants_post(probe))) {
		kprobe_hit_leave(kcb, reentered);
		regs->ip = (unsigned long)copy;
		return;
	}
	if (probe->ainsn.pi.op != X86_PROBE_STEP) {
		if (emulate(probe, regs)) {
			kprobe_hit_finish(probe, regs, kcb, reentered);
			return;
		}
		/*
		 * An indirect branch whose target cannot be read: the original
		 * would fault, so run the copy as plain code and let it fault
		 * there, with this CPU no longer inside a probe.
		 */
		kprobe_hit_leave(kcb, reentered);
		regs->ip = (unsigned long)probe->ainsn.insn;
		return;
	}
	kcb->kprobe_status = reentered ? KPROBE_REENTER : KPROBE_HIT_SS;
	kcb->saved_irq = regs->flags & X86_EFLAGS_IF;
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)probe->ainsn.insn;
}

/* The int3 at the end of @probe's slot fired: the copy has executed. */
static int step_done(struct kprobe *probe, struct pt_regs *regs,
		     struct kprobe_ctlblk *kcb)
{
	bool reentered = kcb->kprobe_status == KPROBE_REENTER;

	regs->ip = (unsigned long)probe->addr + probe->ainsn.pi.len;
	if (probe->ainsn.pushes_flags)
		*(unsigned long *)regs->sp |= kcb->saved_irq;
	if (!probe->ainsn.sets_if)
		regs->flags = (regs->flags & ~X86_EFLAGS_IF) | kcb->saved_irq;
	kprobe_hit_finish(probe, regs, kcb, reentered);
	return 1;
}
NOKPROBE_SYMBOL(step_done);

/* A probe was hit while this CPU was already handling one. */
static int reenter(struct kprobe *probe, struct pt_regs *regs,
		   struct kprobe_ctlblk *kcb)
{
	/*
	 * A third level has nowhere to keep its state: left unclaimed, the
	 * int3 oopses here (do_int3() finds no owner), as arm64's BRK does.
	 */
	if (!kprobe_reenter(probe, kcb))
		return 0;
	replay(probe, regs, kcb, true);
	return 1;
}
NOKPROBE_SYMBOL(reenter);

/*
 * Every breakpoint but the commonest hit (see kprobe_int3_handler()):
 * @probe is the head at @addr when no probe is running on this CPU, else
 * not looked up yet.
 */
static noinline int int3_hit(struct pt_regs *regs, kprobe_opcode_t *addr,
			     struct kprobe *probe)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (cur) {
		if ((kcb->kprobe_status & (KPROBE_HIT_SS | KPROBE_REENTER)) &&
		    cur->ainsn.insn &&
		    addr == cur->ainsn.insn + cur->ainsn.pi.len)
			return step_done(cur, regs, kcb);
		probe = kprobe_lookup(addr);
	}
	/*
	 * A [GONE] head had its int3 taken out with its text: an int3 there
	 * now was planted by someone else (kgdb, or it is in new code loaded
	 * at that address), and the gone probe has nothing to replay.
	 */
	if (!probe || kprobe_gone(probe)) {
		/*
		 * Another CPU may have removed the probe after this one
		 * trapped on it; then the int3 is gone: run the original.
		 */
		if (*addr != INT3_INSN_OPCODE) {
			regs->ip = (unsigned long)addr;
			return 1;
		}
		return 0;
	}
	if (cur)
		return reenter(probe, regs, kcb);

	if (kprobe_hit_begin(probe, regs)) {
		/* A handler redirected execution through regs. */
		reset_current_kprobe();
		return 1;
	}
	/* replay() points ip wherever the instruction is to run or resume. */
	replay(probe, regs, kcb, false);
	return 1;
}
NOKPROBE_SYMBOL(int3_hit);

/*
 * Is a hit on @probe the commonest one: a lone probe, not gone, whose
 * instruction goes on from its boosted copy with no post phase?  A lone
 * probe's post_handler is the caller's and does not change while it is
 * registered.
 */
static __always_inline bool boosted_alone(struct kprobe *probe)
{
	return !(READ_ONCE(probe->flags) & (KPROBE_FLAG_SITE | KPROBE_FLAG_GONE)) &&
	       probe->ainsn.boost && !probe->post_handler;
}

/**
 * kprobe_int3_handler() - an int3 in kernel mode: is it ours?
 * @regs: registers, with ip just past the int3
 *
 * Called by do_int3() with interrupts off.  The commonest hit (see
 * boosted_alone()) is handled here with few registers to save; the rest
 * in int3_hit().
 *
 * Return: 1 when the trap was a probe hit or the end of an out-of-line
 * step, 0 otherwise.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	kprobe_opcode_t *addr;
	struct kprobe *probe = NULL;

	if (user_mode(regs))
		return 0;
	kprobe_count_trap();
	addr = (kprobe_opcode_t *)(regs->ip - INT3_INSN_SIZE);
	if (likely(!kprobe_running())) {
		probe = kprobe_lookup(addr);
		if (probe && boosted_alone(probe)) {
			/* As replay() would, without the cases it tells apart. */
			if (!kprobe_hit_begin(probe, regs))
				regs->ip = (unsigned long)probe->ainsn.boost;
			reset_current_kprobe();
			return 1;
		}
	}
	return int3_hit(regs, addr, probe);
}
NOKPROBE_SYMBOL(kprobe_int3_handler);

/* Does @ip run @cur's instruction on its own, on a single step's terms? */
static bool in_step_copy(struct kprobe *cur, unsigned long ip)
{
	if (ip == (unsigned long)cur->ainsn.insn)
		return true;
#ifdef CONFIG_OPTPROBES
	/* Where the detour runs the instruction alone for a post phase. */
	return cur->ainsn.post_path &&
	       ip == (unsigned long)cur->ainsn.detour + cur->ainsn.post_path;
#else
	return false;
#endif
}
NOKPROBE_SYMBOL(in_step_copy);

/**
 * kprobe_fault_handler() - a fault while this CPU handles a probe hit
 * @regs: registers at the fault
 * @trapnr: the x86 trap number
 *
 * A fault in the out-of-line copy is made to look as if it happened at the
 * probed address, so exception fixups and oops reports see the real
 * instruction.  Either way the probe's fault_handler may claim the fault.
 * Return: non-zero when it did.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (unlikely(in_step_copy(cur, regs->ip)) &&
	    (kcb->kprobe_status & (KPROBE_HIT_SS | KPROBE_REENTER))) {
		bool reentered = kcb->kprobe_status == KPROBE_REENTER;

		regs->ip = (unsigned long)cur->addr;
		regs->flags = (regs->flags & ~X86_EFLAGS_IF) | kcb->saved_irq;
		kprobe_hit_leave(kcb, reentered);
		return reentered ? 0 : kprobe_run_fault_handler(cur, regs, trapnr);
	}
	/*
	 * In a handler, or in whatever interrupted it: ftrace-site and
	 * detour hits run handlers with interrupts on, and an NMI may come
	 * in on top of any hit.  An interrupt's fault is its own business,
	 * fixed up (or not) as if no probe were running.
	 */
	if ((kcb->kprobe_status & (KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE)) &&
	    kprobe_fault_in_hit_context())
		return kprobe_run_fault_handler(cur, regs, trapnr);
	return 0;
}
NOKPROBE_SYMBOL(kprobe_fault_handler);

/* Traps that reach kprobes through the die chain (see the top comment). */
static int kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	struct die_args *args = data;

	if (val != DIE_TRAP || user_mode(args->regs) || !kprobe_running())
		return NOTIFY_DONE;
	return kprobe_fault_handler(args->regs, args->trapnr) ?
		NOTIFY_STOP : NOTIFY_DONE;
}
NOKPROBE_SYMBOL(kprobe_exceptions_notify);

static struct notifier_block kprobe_die_nb = {
	.notifier_call = kprobe_exceptions_notify,
	/* Ahead of everyone: a probe's state must be repaired first. */
	.priority = INT_MAX,
};

int __init arch_init_kprobes(void)
{
	return register_die_notifier(&kprobe_die_nb);
}
