// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which A64 instructions a probe may take, and how each is executed:
 * stepped out of line (it does not care where it runs), simulated at the
 * hit (it reads or writes the pc, or state the trap around a step would
 * clobber), or refused.  The encodings are those of the Arm ARM; the
 * aarch64_insn_is_*() helpers of <asm/insn.h> name most of them.
 */
#include <linux/bits.h>
#include <linux/cpufeature.h>
#include <linux/kprobes.h>
#include <asm/insn.h>

#include "decode.h"

#define REFUSE(reason)	((struct arm64_probe_verdict){ ARM64_PROBE_REFUSED, reason })
#define ACCEPT(c)	((struct arm64_probe_verdict){ c, NULL })

/* FEAT_MOPS memory copy and set (CPYP/CPYM/CPYE, SETP/SETM/SETE, ...). */
static bool is_mops(u32 insn)
{
	return (insn & 0xfb200c00) == 0x19000400;
}

/* ldr s/d/q (literal); opc 0b11 is unallocated. */
static bool is_ldr_lit_fp(u32 insn)
{
	return (insn & 0x3f000000) == 0x1c000000 && (insn >> 30) != 3;
}

/* System registers the exception around a step overwrites. */
static bool sysreg_clobbered_by_trap(u32 sysreg)
{
	switch (sysreg) {
	case AARCH64_INSN_SPCLREG_ELR_EL1:
	case AARCH64_INSN_SPCLREG_SPSR_EL1:
	case AARCH64_INSN_SPCLREG_ELR_EL2:
	case AARCH64_INSN_SPCLREG_SPSR_EL2:
	case 0xc290:	/* ESR_EL1 */
	case 0xc300:	/* FAR_EL1 */
		return true;
	}
	return false;
}

/* PSTATE fields of "msr <field>, #imm", by op1:op2. */
#define MSR_IMM_UAO		(0 << 3 | 3)
#define MSR_IMM_PAN		(0 << 3 | 4)
#define MSR_IMM_SSBS		(3 << 3 | 1)
#define MSR_IMM_DIT		(3 << 3 | 2)
#define MSR_IMM_TCO		(3 << 3 | 4)
#define MSR_IMM_DAIFSET		(3 << 3 | 6)
#define MSR_IMM_DAIFCLR		(3 << 3 | 7)

static unsigned int msr_imm_field(u32 insn)
{
	return ((insn >> 16) & 7) << 3 | ((insn >> 5) & 7);
}

static struct arm64_probe_verdict classify_msr_imm(u32 insn,
						   const struct arm64_probe_policy *pol)
{
	switch (msr_imm_field(insn)) {
	case MSR_IMM_DAIFSET:
	case MSR_IMM_DAIFCLR:
		return pol->kernel ? ACCEPT(ARM64_PROBE_MSR_DAIF_IMM) :
				     ACCEPT(ARM64_PROBE_STEP);
	case MSR_IMM_UAO:
	case MSR_IMM_PAN:
	case MSR_IMM_SSBS:
	case MSR_IMM_DIT:
	case MSR_IMM_TCO:
		/* Kept across the trap that ends the step. */
		return ACCEPT(ARM64_PROBE_STEP);
	}
	/* SPSel, SVCR (SMSTART), ALLINT, ...: change how the trap is taken. */
	return REFUSE("msr to a PSTATE field a step cannot carry");
}

/* Barriers a step may run: DMB, DSB (and SSBB, PSSBB), DSB nXS, ISB, SB. */
static bool is_known_barrier(u32 insn)
{
	return aarch64_insn_is_dmb(insn) || aarch64_insn_is_dsb_base(insn) ||
	       aarch64_insn_is_dsb_nxs(insn) || aarch64_insn_is_isb(insn) ||
	       aarch64_insn_is_sb(insn) || aarch64_insn_is_clrex(insn);
}

/* SYS and SYSL: cache and TLB maintenance, address translation, ... */
static bool is_sys(u32 insn)
{
	return (insn & 0xffd80000) == 0xd5080000;
}

/*
 * The system space (0xd5000000-0xd53fffff).  Only encodings known to run
 * the same from a slot are stepped: what is unknown here may act on the
 * pc, or on state the trap around a step changes.
 */
static struct arm64_probe_verdict classify_system(u32 insn,
						  const struct arm64_probe_policy *pol)
{
	u32 sysreg;

	if (aarch64_insn_is_hint(insn)) {
		if ((insn & 0xfe0) == AARCH64_INSN_HINT_NOP)
			return ACCEPT(ARM64_PROBE_NOP);
		/*
		 * Where the kernel enforces BTI, a landing pad is stepped
		 * from a guarded slot with the BTYPE of the trap, so the
		 * CPU checks it as it would in place; elsewhere a kernel
		 * BTI is a no-op.  A user one is always stepped.
		 */
		if (pol->kernel && aarch64_insn_is_bti(insn) &&
		    !system_supports_bti_kernel())
			return ACCEPT(ARM64_PROBE_NOP);
		/* PAC*, AUT*, XPACLRI, YIELD, WFE, WFI, SEV, CSDB...:
		 * they read registers and SP only, which the step keeps.
		 */
		return ACCEPT(ARM64_PROBE_STEP);
	}
	if (aarch64_insn_is_msr_imm(insn))
		return classify_msr_imm(insn, pol);
	if (is_known_barrier(insn) || is_sys(insn))
		return ACCEPT(ARM64_PROBE_STEP);
	if (aarch64_insn_is_mrs(insn) || aarch64_insn_is_msr_reg(insn)) {
		sysreg = aarch64_insn_extract_system_reg(insn);
		if (!pol->kernel)
			return ACCEPT(ARM64_PROBE_STEP);
		if (sysreg == AARCH64_INSN_SPCLREG_DAIF)
			return ACCEPT(aarch64_insn_is_mrs(insn) ?
				     ARM64_PROBE_MRS_DAIF : ARM64_PROBE_MSR_DAIF);
		if (sysreg_clobbered_by_trap(sysreg))
			return REFUSE("system register the trap overwrites");
		return ACCEPT(ARM64_PROBE_STEP);
	}
	/* TSTART, TCOMMIT, WFET, WFIT, ...: not known to step safely. */
	return REFUSE("unknown system instruction");
}

/*
 * Branches, exception generation and system instructions (op0 0b101x):
 * an allow-list.  An encoding this file does not know may well be a
 * branch relative to the pc (CB<cc>, RETAASPPC, ...), which a step would
 * take relative to the slot.
 */
static struct arm64_probe_verdict classify_branch_system(u32 insn,
							 const struct arm64_probe_policy *pol)
{
	if (aarch64_insn_is_b(insn) || aarch64_insn_is_bl(insn))
		return ACCEPT(ARM64_PROBE_B);
	/* b.cond and (FEAT_HBC) bc.cond, which branches the same way. */
	if (aarch64_insn_is_bcond(insn))
		return ACCEPT(ARM64_PROBE_BCOND);
	if (aarch64_insn_is_cbz(insn) || aarch64_insn_is_cbnz(insn))
		return ACCEPT(ARM64_PROBE_CBZ);
	if (aarch64_insn_is_tbz(insn) || aarch64_insn_is_tbnz(insn))
		return ACCEPT(ARM64_PROBE_TBZ);
	if (aarch64_insn_is_br(insn) || aarch64_insn_is_blr(insn))
		return ACCEPT(ARM64_PROBE_BR_REG);
	if (aarch64_insn_is_ret(insn))
		return ACCEPT(ARM64_PROBE_RET);
	if (aarch64_insn_is_ret_auth(insn))
		return pol->kernel ? ACCEPT(ARM64_PROBE_RET_AUTH) :
				     REFUSE("retaa/retab with user keys");
	if (aarch64_insn_is_br_auth(insn) || aarch64_insn_is_blr_auth(insn))
		return REFUSE("authenticated branch to a register");
	if (aarch64_insn_is_exception(insn))
		return REFUSE("exception-generating instruction");
	if (aarch64_insn_is_eret(insn) || aarch64_insn_is_eret_auth(insn))
		return REFUSE("exception return");
	if ((insn & 0xffc00000) == 0xd5000000)
		return classify_system(insn, pol);
	return REFUSE("unknown branch or system instruction");
}

/*
 * The stack-frame instructions of function entries and exits, for
 * policies that simulate them: stp/ldp of two X registers with sp as
 * the base (pre- or post-indexed, or at an offset), and add/sub of an
 * immediate to sp (sub sp, sp, #n).  Kernel probes take only the pairs
 * at a non-negative offset (see struct arm64_probe_policy).  An ldp into
 * one register twice is CONSTRAINED UNPREDICTABLE: the hardware decides,
 * so it is stepped.
 */
/*
 * ldr/str of one W or X register (zero-extending, no ldrsw) at sp or the
 * frame pointer: the locals and spills of a usual function.  Immediate
 * offsets, unscaled or scaled, and for user probes the pre- and
 * post-indexed forms too; a write-back into the register it loads or
 * stores is CONSTRAINED UNPREDICTABLE and stepped.  Kernel probes take
 * only sp with a scaled, hence non-negative, offset and no write-back.
 */
static bool frame_slot(u32 insn, const struct arm64_probe_policy *pol)
{
	unsigned int rt = insn & 31, rn = (insn >> 5) & 31;
	unsigned int opc = (insn >> 22) & 3;
	bool scaled = insn & BIT(24), wback;

	/* size 1x (W or X), V 0, opc 00 (str) or 01 (ldr). */
	if ((insn & 0xbe000000) != 0xb8000000 || opc > 1)
		return false;
	if (!scaled && (insn & BIT(21)))		/* register offset */
		return false;
	/* Bits 11:10 of the unscaled forms: 00 ldur, 01 post, 11 pre. */
	if (!scaled && ((insn >> 10) & 3) == 2)		/* ldtr/sttr */
		return false;
	wback = !scaled && (insn & BIT(10));
	if (pol->kernel)
		return rn == 31 && scaled;
	if (rn != 31 && rn != 29)
		return false;
	return !(wback && rn == rt && rt != 31);
}

static enum arm64_probe_class frame_class(u32 insn,
					  const struct arm64_probe_policy *pol)
{
	unsigned int rt = insn & 31, rn = (insn >> 5) & 31;
	unsigned int rt2 = (insn >> 10) & 31;
	bool below_sp = insn & BIT(21);		/* imm7's sign */

	if (frame_slot(insn, pol))
		return ARM64_PROBE_FRAME_SLOT;
	switch (insn & 0xffc00000) {
	case 0xa8800000:	/* stp x, post-index */
	case 0xa9800000:	/* stp x, pre-index */
	case 0xa8c00000:	/* ldp x, post-index */
	case 0xa9c00000:	/* ldp x, pre-index */
		if (pol->kernel)
			return ARM64_PROBE_STEP;
		fallthrough;
	case 0xa9000000:	/* stp x, offset */
	case 0xa9400000:	/* ldp x, offset */
		if (rn != 31 || (pol->kernel && below_sp))
			return ARM64_PROBE_STEP;
		if ((insn & BIT(22)) && rt == rt2)
			return ARM64_PROBE_STEP;
		return ARM64_PROBE_FRAME_PAIR;
	case 0x91000000:	/* add sp, x|sp, #imm */
	case 0x91400000:	/* add sp, x|sp, #imm, lsl #12 */
	case 0xd1000000:	/* sub sp, x|sp, #imm */
	case 0xd1400000:	/* sub sp, x|sp, #imm, lsl #12 */
		return rt == 31 && !pol->kernel ? ARM64_PROBE_FRAME_SP :
						  ARM64_PROBE_STEP;
	default:
		return ARM64_PROBE_STEP;
	}
}

/*
 * Is a logical immediate's N:immr:imms a valid bitmask for the operand
 * size?  Reserved encodings are UNDEFINED and left to step (and trap).
 */
static bool logical_imm_valid(u32 insn, bool sf)
{
	unsigned int n = (insn >> 22) & 1, imms = (insn >> 10) & 63;
	unsigned int v = n << 6 | (~imms & 63);
	unsigned int size;

	if (!v || (!sf && n))
		return false;
	size = 1U << (fls(v) - 1);
	return size >= 2 && (imms & (size - 1)) != size - 1;
}

/*
 * Data processing on registers alone that sets no flags: add/sub and
 * and/orr/eor with an immediate or a shifted register (mov and most
 * prologue arithmetic), movz/movn/movk.  They cost one trap simulated
 * instead of two stepped.  In the immediate forms register 31 is sp: a
 * kernel probe may read it but not write it (see struct
 * arm64_probe_policy).
 */
static bool alu_class(u32 insn, const struct arm64_probe_policy *pol)
{
	bool sf = insn & BIT(31), flags = insn & BIT(29);
	unsigned int rd = insn & 31, opc = (insn >> 29) & 3;

	if ((insn & 0x1f800000) == 0x11000000)		/* add/sub #imm */
		return !flags && !(pol->kernel && rd == 31);
	if ((insn & 0x1f800000) == 0x12000000)		/* logical #imm */
		return opc != 3 && logical_imm_valid(insn, sf) &&
		       !(pol->kernel && rd == 31);
	if ((insn & 0x1f800000) == 0x12800000)		/* mov wide */
		return opc != 1 && (sf || !(insn & BIT(22)));
	/* Shifted register: a 32-bit shift by 32 or more is unallocated. */
	if (!sf && (insn & BIT(15)))
		return false;
	if ((insn & 0x1f000000) == 0x0a000000)		/* logical, register */
		return opc != 3;
	if ((insn & 0x1f200000) == 0x0b000000)		/* add/sub, register */
		return !flags && ((insn >> 22) & 3) != 3;
	return false;
}

/* Data processing, loads and stores, SIMD and FP. */
static enum arm64_probe_class data_class(u32 insn,
					 const struct arm64_probe_policy *pol)
{
	enum arm64_probe_class class = ARM64_PROBE_STEP;

	if (pol->frame)
		class = frame_class(insn, pol);
	if (class == ARM64_PROBE_STEP && alu_class(insn, pol))
		class = ARM64_PROBE_ALU;
	return class;
}

/**
 * arm64_probe_classify() - what a probe does with @insn
 * @insn: the instruction, in CPU byte order
 * @pol: the probe user's policy
 *
 * Return: the class, with a reason when it is ARM64_PROBE_REFUSED.
 */
struct arm64_probe_verdict arm64_probe_classify(u32 insn,
						const struct arm64_probe_policy *pol)
{
	if (aarch64_insn_is_class_branch_sys(insn))
		return classify_branch_system(insn, pol);
	if (aarch64_insn_is_adr_adrp(insn))
		return ACCEPT(ARM64_PROBE_ADR);
	if (aarch64_insn_is_ldr_lit(insn) || aarch64_insn_is_ldrsw_lit(insn))
		return ACCEPT(ARM64_PROBE_LDR_LIT);
	if (aarch64_insn_is_prfm_lit(insn))
		return ACCEPT(ARM64_PROBE_NOP);
	if (is_ldr_lit_fp(insn))
		return pol->kernel ? ACCEPT(ARM64_PROBE_LDR_LIT_FP) :
				     REFUSE("SIMD/FP literal load");
	if (arm64_insn_is_exclusive(insn))
		return REFUSE("load/store exclusive");
	if (is_mops(insn))
		return REFUSE("memory copy/set sequence (MOPS)");
	return ACCEPT(data_class(insn, pol));
}
