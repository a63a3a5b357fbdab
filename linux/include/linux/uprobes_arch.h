/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contract between the uprobes engine (kernel/uprobes/) and an
 * architecture port, in both directions.
 *
 * How a hit works, whatever the architecture: the breakpoint traps; the
 * port's trap handler calls uprobe_breakpoint_trap(), which only flags
 * the thread; on the way back to user mode uprobe_notify_resume() runs
 * the handlers in process context (they may sleep), then the port either
 * carries the instruction out on pt_regs (arch_uprobe_emulate()) or the
 * engine copies it to a slot of the per-mm XOL area, followed by a
 * breakpoint, and resumes the thread there.  That second breakpoint
 * comes back through uprobe_breakpoint_trap() and the port fixes the
 * registers up as if the instruction had run in place.  No hardware
 * single-step is involved.
 *
 * A port's <asm/uprobes.h> defines:
 *   uprobe_opcode_t          the unit the breakpoint is made of
 *   UPROBE_SWBP_INSN         the breakpoint instruction
 *   UPROBE_SWBP_INSN_SIZE    its size; probe offsets are multiples of it
 *   UPROBE_XOL_SLOT_BYTES    bytes of one XOL slot
 *   MAX_UINSN_BYTES          the longest instruction
 *   struct arch_uprobe       the port's copy of a probed instruction
 *   struct arch_uprobe_task  per-thread state for a step
 * and implements the functions below.
 */
#ifndef _LINUX_UPROBES_ARCH_H
#define _LINUX_UPROBES_ARCH_H

#include <linux/uprobes.h>

#ifdef CONFIG_UPROBES

struct mm_struct;
struct pt_regs;

/* ---- The port provides ---- */

/**
 * arch_uprobe_prepare() - decide how a hit executes an instruction
 * @au: the probe's copy, zeroed
 * @text: the file's bytes at the probed offset
 * @len: how many of them there are (up to MAX_UINSN_BYTES; fewer at the
 *	end of the file)
 *
 * Called once per probe point, before its first breakpoint is written,
 * for the native instruction set.
 *
 * Return: 0, -EOPNOTSUPP for an instruction that cannot be probed safely,
 * -EILSEQ for bytes that do not decode.
 */
int arch_uprobe_prepare(struct arch_uprobe *au, const u8 *text, size_t len);

/* Whether @mm runs the native instruction set the port decodes. */
bool arch_uprobe_mm_supported(struct mm_struct *mm);

/**
 * arch_uprobe_emulate() - carry the instruction out at the hit
 * @au: the probe
 * @regs: user registers, instruction pointer at the probed address
 *
 * Return: true when @regs now hold the state after the instruction;
 * false when it must run out of line (registers untouched).
 */
bool arch_uprobe_emulate(struct arch_uprobe *au, struct pt_regs *regs);

/**
 * arch_uprobe_fill_slot() - the code a thread runs in its slot
 * @au: the probe
 * @slot: the slot's user address
 * @buf: UPROBE_XOL_SLOT_BYTES to fill
 *
 * The copy of the instruction, adjusted to run at @slot, followed by
 * UPROBE_SWBP_INSN.
 *
 * Return: the offset of that breakpoint in @buf.
 */
unsigned int arch_uprobe_fill_slot(struct arch_uprobe *au, unsigned long slot,
				   u8 *buf);

/*
 * Make @len bytes just written at @kaddr (the kernel's view of the XOL
 * page) executable at user address @vaddr.
 */
void arch_uprobe_sync_slot(void *kaddr, unsigned long vaddr, size_t len);

/* Prepare @regs to enter the slot at @ut->slot; 0 or -errno. */
int arch_uprobe_pre_xol(struct arch_uprobe *au, struct pt_regs *regs,
			struct uprobe_task *ut);

/*
 * The slot's breakpoint was reached: make @regs what they would be after
 * the instruction ran at @ut->vaddr.  0, or -errno to kill the thread
 * with SIGILL (the state cannot be made right).
 */
int arch_uprobe_post_xol(struct arch_uprobe *au, struct pt_regs *regs,
			 struct uprobe_task *ut);

/* Whether the copy trapped (a signal now waits); checked before post_xol. */
bool arch_uprobe_xol_was_trapped(struct task_struct *t);

/* Leave the slot without completing: back to the probed address. */
void arch_uprobe_abort_xol(struct arch_uprobe *au, struct pt_regs *regs,
			   struct uprobe_task *ut);

/* Where the breakpoint that trapped is, from the trap's registers. */
unsigned long arch_uprobe_trap_vaddr(struct pt_regs *regs);

/*
 * Make the function about to run return to @trampoline: @regs are those
 * at its first instruction.  Return: the return address replaced, or
 * -1UL when it could not be.
 */
unsigned long arch_uretprobe_hijack_return_addr(unsigned long trampoline,
						struct pt_regs *regs);

/*
 * Is @ri's frame still on the stack, for the check @ctx, with the stack
 * pointer in @regs?  Frames that a longjmp unwound are dropped.
 */
bool arch_uretprobe_frame_live(struct return_instance *ri,
			       enum uprobe_frame_check ctx,
			       struct pt_regs *regs);

/*
 * The trampoline code put at the start of every XOL area; *@size gets its
 * length.  Reaching it either traps (a breakpoint: the engine sees a hit
 * at the area's first address) or enters the kernel some other way that
 * calls uprobe_handle_trampoline().
 */
const void *arch_uprobe_trampoline(size_t *size);

/*
 * ---- Entering a probe without its breakpoint (optional) ----
 *
 * A port that defines ARCH_UPROBE_DIRECT_ENTRY in <asm/uprobes.h> may
 * replace a breakpoint that trapped with a cheaper way into the same hit
 * (x86: a jump to a stub that makes a syscall).  The breakpoint is
 * always written first and put back before the original instruction is:
 * the engine's arming and disarming stay what they are, with one more
 * step before each poke that finds the text changed.
 */
#ifdef ARCH_UPROBE_DIRECT_ENTRY
/*
 * Such a port's <asm/uprobes.h> also defines arch_uprobe_direct_wanted(au,
 * vaddr), inline since every breakpoint hit asks it: whether a trap on
 * the probe is worth trying arch_uprobe_direct_enter() for.
 */

/**
 * arch_uprobe_direct_enter() - replace a breakpoint with a direct entry
 * @au: the probe, armed at @vaddr in @mm
 * @mm: current->mm; its mmap_lock held for writing
 * @vaddr: where
 *
 * Return: 0, or -errno with the breakpoint still in place.
 */
int arch_uprobe_direct_enter(struct arch_uprobe *au, struct mm_struct *mm,
			     unsigned long vaddr);

/**
 * arch_uprobe_direct_leave() - put the breakpoint back at @vaddr
 * @au: the probe
 * @mm: the mm; its mmap_lock held
 * @vaddr: where
 *
 * Return: 1 when a direct entry was replaced by the breakpoint, 0 when
 * there was none, or -errno.
 */
int arch_uprobe_direct_leave(struct arch_uprobe *au, struct mm_struct *mm,
			     unsigned long vaddr);

/* A fork copied @oldmm, direct entries included, to @newmm. */
void arch_uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm);

/* @mm is being torn down. */
void arch_uprobe_clear_state(struct mm_struct *mm);
#else
static inline bool arch_uprobe_direct_wanted(struct arch_uprobe *au,
					     unsigned long vaddr)
{
	return false;
}

static inline int arch_uprobe_direct_enter(struct arch_uprobe *au,
					   struct mm_struct *mm,
					   unsigned long vaddr)
{
	return -EOPNOTSUPP;
}

static inline int arch_uprobe_direct_leave(struct arch_uprobe *au,
					   struct mm_struct *mm,
					   unsigned long vaddr)
{
	return 0;
}

static inline void arch_uprobe_dup_mmap(struct mm_struct *oldmm,
					struct mm_struct *newmm) { }
static inline void arch_uprobe_clear_state(struct mm_struct *mm) { }
#endif

/* ---- The engine provides ---- */

/*
 * uprobe_breakpoint_trap() is declared in <linux/uprobes.h>: the arch's
 * trap code may call it from outside the port.
 */

/**
 * uprobe_handle_trampoline() - a probed function returned
 * @regs: user registers, with the function's return value and the stack
 *	pointer it returned with
 *
 * Runs the return handlers and sets the instruction pointer to where the
 * function returns.  For ports whose trampoline enters the kernel
 * without a breakpoint (x86's uretprobe syscall).
 */
void uprobe_handle_trampoline(struct pt_regs *regs);

/**
 * uprobe_handle_direct() - a thread reached @vaddr by a direct entry
 * @regs: user registers as they were at @vaddr, instruction pointer
 *	included
 * @vaddr: the probed address
 *
 * Runs the hit as the breakpoint would have, in the calling context
 * (process context, may sleep).
 *
 * Return: true when a probe was found there; false leaves @regs alone,
 * and the port decides where the thread goes on.
 */
bool uprobe_handle_direct(struct pt_regs *regs, unsigned long vaddr);

/**
 * uprobe_text_replace() - compare and swap bytes of an mm's text
 * @mm: the mm; its mmap_lock held
 * @vaddr: the first byte, with all @len in one page
 * @old: what the text must hold
 * @new: what it gets
 * @len: how many bytes
 *
 * Done under the page lock, like the engine's own breakpoint writes, and
 * into the mm's own copy of the page.  No cross-CPU synchronisation: the
 * port orders its writes.
 *
 * Return: 1 when written, 0 when the text was not @old, or -errno.
 */
int uprobe_text_replace(struct mm_struct *mm, unsigned long vaddr,
			const u8 *old, const u8 *new, size_t len);

/**
 * uprobe_text_read() - read bytes of an mm's text
 * @mm: the mm; its mmap_lock held
 * @vaddr: the first byte, with all @len in one page
 * @buf: where to
 * @len: how many bytes
 *
 * Return: 0 or -errno.
 */
int uprobe_text_read(struct mm_struct *mm, unsigned long vaddr, u8 *buf,
		     size_t len);

#endif /* CONFIG_UPROBES */
#endif /* _LINUX_UPROBES_ARCH_H */
