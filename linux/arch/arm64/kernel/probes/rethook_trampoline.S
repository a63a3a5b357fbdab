/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a function hooked by rethook returns to.  Handling a return costs
 * no exception: the trampoline lays the registers the return left out as
 * a struct pt_regs below the caller's sp, runs the return handlers through
 * rethook_trampoline_handler() and returns to the real caller with what
 * the handlers left in the registers.
 *
 * The frame is the one a BRK here would have given (the kprobes_arm64
 * suite compares the two): x0-x30 and sp as the ret left them, pc this
 * trampoline, and a PSTATE read from the CPU.  The fields of SPSR_EL1
 * that have a register (NZCV, DAIF, CurrentEL and SPSel for M[3:0], PAN,
 * DIT, SSBS, TCO) are read where the CPU has them; BTYPE is 0 after a
 * ret, which sets none.  Left at 0: UAO, which an exception clears and
 * the kernel never sets; IL, which is 0 in any context that runs
 * instructions; SS, set only while a debugger single-steps, which it
 * cannot do into here without stepping the ret first, where a trap would
 * show SS as clear too; and the fields of extensions 6.12 does not use
 * (ALLINT, PM, EXLOCK).  No handler can tell the difference.
 *
 * The pt_regs carries the frame record an exception from EL1 would, so
 * unwinding from a handler goes through this trampoline to the real
 * caller (rethook_find_ret_addr(), by the frame pointer the entry saw).
 */
#include <linux/linkage.h>

#include "pt_regs_asm.h"

/* x4-x29 to (stp) or from (ldp) their pt_regs slots at sp. */
	.macro	pt_regs_pairs op
	\op	x4, x5, [sp, #S_X4]
	\op	x6, x7, [sp, #S_X6]
	\op	x8, x9, [sp, #S_X8]
	\op	x10, x11, [sp, #S_X10]
	\op	x12, x13, [sp, #S_X12]
	\op	x14, x15, [sp, #S_X14]
	\op	x16, x17, [sp, #S_X16]
	\op	x18, x19, [sp, #S_X18]
	\op	x20, x21, [sp, #S_X20]
	\op	x22, x23, [sp, #S_X22]
	\op	x24, x25, [sp, #S_X24]
	\op	x26, x27, [sp, #S_X26]
	\op	x28, x29, [sp, #S_X28]
	.endm

	.pushsection .kprobes.text, "ax"
SYM_CODE_START(arch_rethook_trampoline)
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	/* PSTATE before anything can change it. */
	read_pstate x2, x3
	adr	x1, arch_rethook_trampoline
	stp	x1, x2, [sp, #S_PC]
	pt_regs_pairs stp
	add	x2, sp, #PT_REGS_SIZE
	stp	x30, x2, [sp, #S_LR]
	pt_regs_not_a_trap sp, x3
	stp	x29, x1, [sp, #S_STACKFRAME]
	/* rethook finds the hooked call by the frame pointer it recorded. */
	mov	x1, x29
	add	x29, sp, #S_STACKFRAME
	mov	x0, sp
	/* It points regs->pc at the real return address. */
	bl	rethook_trampoline_handler

	/* The handlers' registers; flags too, as a trap's return would. */
	ldr	x0, [sp, #S_PSTATE]
	and	x0, x0, #(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)
	msr	nzcv, x0
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	pt_regs_pairs ldp
	/* pc is the real return address: x30 holds it after a ret. */
	ldr	x30, [sp, #S_PC]
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(arch_rethook_trampoline)
	.popsection
