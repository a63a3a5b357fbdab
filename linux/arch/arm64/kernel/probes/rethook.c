// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rethook for arm64: a hooked function returns to arch_rethook_trampoline
 * (rethook_trampoline.S), which saves the registers the return left, runs
 * the return handlers through rethook_trampoline_handler() (kernel/trace/,
 * built untraced, so a function tracer's return hook cannot hook it) and
 * goes on to the real return address, without an exception.  The arm64
 * unwinder finds the real return addresses through
 * rethook_find_ret_addr() with the frame pointer recorded here.
 */
#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <asm/debug-monitors.h>

/*
 * Called at a function's entry, before its prologue: x30 still holds the
 * return address (and is not yet signed), x29 the caller's frame, which
 * the epilogue restores before the return reaches the trampoline.
 */
void arch_rethook_prepare(struct rethook_node *rh, struct pt_regs *regs,
			  bool mcount)
{
	rh->ret_addr = regs->regs[30];
	rh->frame = regs->regs[29];
	regs->regs[30] = (unsigned long)arch_rethook_trampoline;
}
NOKPROBE_SYMBOL(arch_rethook_prepare);

/* After a real ret, x30 holds the address it went to. */
void arch_rethook_fixup_return(struct pt_regs *regs,
			       unsigned long correct_ret_addr)
{
	regs->regs[30] = correct_ret_addr;
}
NOKPROBE_SYMBOL(arch_rethook_fixup_return);

/**
 * kretprobe_brk_handler() - a BRK #KRETPROBES_BRK_IMM in kernel mode
 * @regs: registers at the BRK
 * @esr: the exception syndrome
 *
 * Returns are handled without a trap, so nothing of ours plants this
 * immediate any more; debug-monitors.c still routes it here.
 *
 * Return: DBG_HOOK_ERROR: the BRK is someone else's, the kernel oopses.
 */
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	return DBG_HOOK_ERROR;
}
NOKPROBE_SYMBOL(kretprobe_brk_handler);
