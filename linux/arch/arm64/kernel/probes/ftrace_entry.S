/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The way into a probe on an ftrace call site.  ftrace_caller calls
 * kprobe_ftrace_handler() (with DYNAMIC_FTRACE_WITH_CALL_OPS, straight
 * from the site's ops literal while the probes' ops is the site's only
 * user) with an ftrace_regs holding x0-x8, fp, lr, sp and the pc after
 * the site, and nothing more.  Handlers are owed the pt_regs a BRK on the
 * site would give: this lays one out from the ftrace_regs and from the
 * registers ftrace_caller leaves alone, runs the hit in C (ftrace.c) and
 * hands back what the handlers changed.
 *
 * The frame:
 *  - x0-x8, fp, lr and sp are the function's, from the ftrace_regs;
 *  - x9 holds the return address as well: the patched entry copies x30
 *    into it (`mov x9, x30`) just before the site, as a BRK would show;
 *  - x12-x28 are as the site had them: ftrace_caller does not use them;
 *  - x10 and x11 are ftrace_caller's scratch (the sp and the ops).  At a
 *    function's entry they are the caller's scratch registers and hold
 *    nothing the function reads, so no handler has a value to expect;
 *  - pc is the site, the probe's address;
 *  - PSTATE is read from the CPU as the rethook trampoline reads it
 *    (pt_regs_asm.h); ftrace_caller sets no flag on the way here.  BTYPE
 *    is 0, as at the site: it is reached by falling through from
 *    `mov x9, x30`.  UAO, IL and SS are 0 for the reasons given in
 *    rethook_trampoline.S.
 *
 * Handed back: x0-x8, fp and lr through the ftrace_regs, which
 * ftrace_caller restores them from; x18-x28 and NZCV directly; the pc
 * when a pre_handler redirected (ftrace.c writes it).  Changes to x9-x17
 * and sp are dropped, and the C code of the hit may leave x9-x17 changed:
 * ftrace sites are only in compiled functions, whose entry reads none of
 * x9-x17 (AAPCS scratch registers), and ftrace_caller restores sp itself,
 * as its own callbacks rely on.
 */
#include <linux/cfi_types.h>
#include <linux/linkage.h>

#include "pt_regs_asm.h"

/* x12-x17 to their pt_regs slots at sp. */
	.macro	save_scratch
	stp	x12, x13, [sp, #S_X12]
	stp	x14, x15, [sp, #S_X14]
	stp	x16, x17, [sp, #S_X16]
	.endm

/* x18-x27 to (stp) or from (ldp) their pt_regs slots at sp. */
	.macro	saved_pairs op
	\op	x18, x19, [sp, #S_X18]
	\op	x20, x21, [sp, #S_X20]
	\op	x22, x23, [sp, #S_X22]
	\op	x24, x25, [sp, #S_X24]
	\op	x26, x27, [sp, #S_X26]
	.endm

/* Copy \nregs (1 or 2) registers from [\from, #\src] to [\to, #\dst]. */
	.macro	copy_regs nregs, to, dst, from, src
	.if	\nregs == 2
	ldp	x4, x5, [\from, #\src]
	stp	x4, x5, [\to, #\dst]
	.else
	ldr	x4, [\from, #\src]
	str	x4, [\to, #\dst]
	.endif
	.endm

	.pushsection .kprobes.text, "ax"
/*
 * kprobe_ftrace_handler(ip, parent_ip, ops, fregs): x0 is the site, x3
 * the ftrace_regs; x29 and x30 are ftrace_caller's frame and return.
 * Typed: without CALL_OPS (kCFI rules it out) ftrace_ops_list_func()
 * calls it indirectly from C, which checks the type under kCFI.
 */
SYM_TYPED_FUNC_START(kprobe_ftrace_handler)
	sub	sp, sp, #PT_REGS_SIZE
	stp	x10, x11, [sp, #S_X10]
	/* PSTATE before anything can change it. */
	read_pstate x10, x11
	stp	x0, x10, [sp, #S_PC]
	save_scratch
	saved_pairs stp
	/* x4 and x5 are free now: x4 was ftrace_caller's, x5-x8 are copied. */
	copy_regs 2, sp, S_X0, x3, FREGS_X0
	copy_regs 2, sp, S_X2, x3, FREGS_X2
	copy_regs 2, sp, S_X4, x3, FREGS_X4
	copy_regs 2, sp, S_X6, x3, FREGS_X6
	ldr	x4, [x3, #FREGS_X8]
	stp	x4, x9, [sp, #S_X8]
	ldr	x4, [x3, #FREGS_FP]
	stp	x28, x4, [sp, #S_X28]
	copy_regs 2, sp, S_LR, x3, FREGS_LR		/* lr, sp */
	pt_regs_not_a_trap sp, x4
	stp	x29, x30, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	mov	x19, x3
	mov	x0, sp
	mov	x1, x3
	bl	arm64_kprobe_ftrace_hit

	copy_regs 2, x19, FREGS_X0, sp, S_X0
	copy_regs 2, x19, FREGS_X2, sp, S_X2
	copy_regs 2, x19, FREGS_X4, sp, S_X4
	copy_regs 2, x19, FREGS_X6, sp, S_X6
	copy_regs 1, x19, FREGS_X8, sp, S_X8
	copy_regs 2, x19, FREGS_FP, sp, S_FP		/* fp, lr */
	/* The handlers' flags, as a trap's return would give them. */
	ldr	x4, [sp, #S_PSTATE]
	and	x4, x4, #(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)
	msr	nzcv, x4
	saved_pairs ldp
	ldr	x28, [sp, #S_X28]
	ldp	x29, x30, [sp, #S_STACKFRAME]
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_FUNC_END(kprobe_ftrace_handler)
	.popsection
