/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the probes' assembly that hands handlers a struct pt_regs without
 * taking an exception (the rethook trampoline, the ftrace call-site
 * entry): the fields an exception would have filled that such code must
 * fill itself, read from the CPU the same way in both places.
 */
#ifndef __ARM64_PROBES_PT_REGS_ASM_H
#define __ARM64_PROBES_PT_REGS_ASM_H

#include <asm/alternative.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>

/* PSTATE fields readable with MRS (Arm ARM, "Special-purpose registers"). */
#define SYS_PSTATE_SPSEL	sys_reg(3, 0, 4, 2, 0)
#define SYS_PSTATE_EL		sys_reg(3, 0, 4, 2, 2)
#define SYS_PSTATE_DIT		sys_reg(3, 3, 4, 2, 5)
#define SYS_PSTATE_SSBS		sys_reg(3, 3, 4, 2, 6)
#define SYS_PSTATE_TCO		sys_reg(3, 3, 4, 2, 7)

/*
 * Or PSTATE field \sreg into \acc when the CPU has \cap.  Without it,
 * one branch over the slot instead of two nops: several such fields are
 * read on every hit.
 */
	.macro	pstate_field acc, tmp, sreg, cap
alternative_if \cap
	mrs_s	\tmp, \sreg
	orr	\acc, \acc, \tmp
alternative_else
	b	. + 8			/* over the nop */
	nop
alternative_endif
	.endm

/*
 * \acc = the SPSR_EL1 an exception taken here would save, but for the
 * fields no register shows (BTYPE, UAO, IL, SS: the callers say why each
 * is 0 where they run).  NZCV is read first, before anything can change
 * it; \tmp is clobbered.
 */
	.macro	read_pstate acc, tmp
	mrs	\acc, nzcv
	mrs	\tmp, daif
	orr	\acc, \acc, \tmp
	mrs_s	\tmp, SYS_PSTATE_EL
	orr	\acc, \acc, \tmp
	mrs_s	\tmp, SYS_PSTATE_SPSEL
	orr	\acc, \acc, \tmp
	pstate_field \acc, \tmp, SYS_PSTATE_PAN, ARM64_HAS_PAN
	pstate_field \acc, \tmp, SYS_PSTATE_DIT, ARM64_HAS_DIT
	pstate_field \acc, \tmp, SYS_PSTATE_SSBS, ARM64_SSBS
	pstate_field \acc, \tmp, SYS_PSTATE_TCO, ARM64_MTE
	.endm

/*
 * The pt_regs at \base is no syscall and has no orig_x0, SDEI or
 * priority-mask state unless the CPU masks interrupts by priority:
 * handlers (and BPF programs, which copy the whole struct) read them.
 * \tmp is clobbered.
 */
	.macro	pt_regs_not_a_trap base, tmp
	/* syscallno, and the 32 bits of padding after it zero. */
	mov	\tmp, #(NO_SYSCALL & 0xffffffff)
	stp	xzr, \tmp, [\base, #S_PSTATE + 8]	/* orig_x0, syscallno */
alternative_if ARM64_HAS_GIC_PRIO_MASKING
	mrs_s	\tmp, SYS_ICC_PMR_EL1
alternative_else
	mov	\tmp, xzr
alternative_endif
	.if	S_PMR_SAVE - S_SDEI_TTBR1 != 8
	.error	"pmr_save no longer follows sdei_ttbr1 in struct pt_regs"
	.endif
	stp	xzr, \tmp, [\base, #S_SDEI_TTBR1]	/* sdei_ttbr1, pmr_save */
	.endm

#endif /* __ARM64_PROBES_PT_REGS_ASM_H */
