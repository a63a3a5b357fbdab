// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rethook for arm64: a hooked function returns to a trampoline that is a
 * single BRK, so the return is handled in an exception with the registers
 * the CPU saved, PSTATE included, rather than a frame built by hand.
 * The arm64 unwinder finds the real return addresses through
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
 * kretprobe_brk_handler() - a hooked function returned to the trampoline
 * @regs: registers at the trampoline's BRK
 * @esr: the exception syndrome
 *
 * Runs the return handlers and resumes at the real return address.
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR for a stray BRK.
 */
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	if (instruction_pointer(regs) != (unsigned long)arch_rethook_trampoline)
		return DBG_HOOK_ERROR;
	/* Sets pc to the real return address. */
	rethook_trampoline_handler(regs, regs->regs[29]);
	return DBG_HOOK_HANDLED;
}
NOKPROBE_SYMBOL(kretprobe_brk_handler);
