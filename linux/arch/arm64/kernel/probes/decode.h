/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The arm64 probe instruction layer, shared by kprobes and uprobes: what a
 * probe may do with one A64 instruction (decode.c) and how an instruction
 * that depends on where it runs is carried out on pt_regs (simulate.c).
 * It knows instructions, not probes; what differs between kernel and user
 * probes is a struct arm64_probe_policy.
 */
#ifndef _ARM64_KERNEL_PROBES_DECODE_H
#define _ARM64_KERNEL_PROBES_DECODE_H

#include <linux/types.h>
#include <asm/ptrace.h>

enum arm64_probe_class {
	ARM64_PROBE_REFUSED,	/* must not be probed */
	ARM64_PROBE_STEP,	/* runs the same anywhere: out of line */
	ARM64_PROBE_NOP,	/* nop, prfm lit, unenforced bti: pc moves */
	ARM64_PROBE_B,		/* b, bl */
	ARM64_PROBE_BCOND,	/* b.cond */
	ARM64_PROBE_CBZ,	/* cbz, cbnz */
	ARM64_PROBE_TBZ,	/* tbz, tbnz */
	ARM64_PROBE_ADR,	/* adr, adrp */
	ARM64_PROBE_BR_REG,	/* br, blr */
	ARM64_PROBE_RET,	/* ret: the commonest, its own simulator */
	ARM64_PROBE_RET_AUTH,	/* retaa, retab */
	ARM64_PROBE_LDR_LIT,	/* ldr w/x, ldrsw (literal) */
	ARM64_PROBE_LDR_LIT_FP,	/* ldr s/d/q (literal) */
	ARM64_PROBE_MRS_DAIF,	/* mrs xt, daif */
	ARM64_PROBE_MSR_DAIF,	/* msr daif, xt */
	ARM64_PROBE_MSR_DAIF_IMM, /* msr daifset/daifclr, #imm */
	ARM64_PROBE_FRAME_PAIR,	/* stp/ldp of two X registers at sp */
	ARM64_PROBE_FRAME_SP,	/* add/sub #imm to sp */
	ARM64_PROBE_ALU,	/* add/sub, logical, mov wide: no flags */
	ARM64_PROBE_FRAME_SLOT,	/* ldr/str of one W or X register at sp, x29 */
};

/*
 * Where kernel and user probes differ.  A kernel probe steps its copy
 * with DAIF masked and a trap after it, so whatever reads or writes DAIF
 * must be simulated; a user probe runs its copy in user mode, where such
 * instructions trap or act on the user's state as they would in place.
 */
struct arm64_probe_policy {
	/* Kernel text: DAIF and pointer authentication done at the hit. */
	bool kernel;
	/*
	 * Simulate the stack-frame instructions of function entries and
	 * exits (ARM64_PROBE_FRAME_*) instead of stepping them, so that a
	 * usual entry costs one trap; needs @write.  With @kernel, only
	 * those that leave sp alone and touch nothing below it: the
	 * breakpoint's own frame is there, and returning from it restores
	 * sp by popping that frame, whatever pt_regs say.
	 */
	bool frame;
	/* Read @len bytes of the probed context's memory; 0 or -EFAULT. */
	int (*read)(void *dst, unsigned long src, size_t len);
	/* Write @len bytes into it; 0 or -EFAULT. */
	int (*write)(unsigned long dst, const void *src, size_t len);
};

extern const struct arm64_probe_policy arm64_kprobe_policy;

/**
 * struct arm64_probe_verdict - what arm64_probe_classify() decided
 * @class: enum arm64_probe_class
 * @why: for ARM64_PROBE_REFUSED, a few words for the log
 */
struct arm64_probe_verdict {
	enum arm64_probe_class class;
	const char *why;
};

struct arm64_probe_verdict arm64_probe_classify(u32 insn,
						const struct arm64_probe_policy *pol);

/*
 * A class's simulator: carries out @insn as if it ran at @addr, pc
 * included; false, with @regs unchanged, when it cannot.  Called with
 * PSTATE.BTYPE clear (arm64_probe_simulate() clears it for its callers).
 */
typedef bool (*arm64_probe_sim_fn)(u32 insn, unsigned long addr,
				   struct pt_regs *regs,
				   const struct arm64_probe_policy *pol);

arm64_probe_sim_fn arm64_probe_simulator(enum arm64_probe_class class);

/*
 * Carry out @insn, classified as @class, as if it ran at @addr: on return
 * @regs hold the state after it, pc included.  False when it cannot be
 * done (a literal that cannot be read), with @regs unchanged.
 */
bool arm64_probe_simulate(u32 insn, enum arm64_probe_class class,
			  unsigned long addr, struct pt_regs *regs,
			  const struct arm64_probe_policy *pol);

/* Load/store exclusive, single and pair (o2 == 0): LDXR..STLXP, CASP. */
static inline bool arm64_insn_is_exclusive(u32 insn)
{
	return (insn & 0x3f800000) == 0x08000000;
}

/* The load half of arm64_insn_is_exclusive(), which opens a sequence. */
static inline bool arm64_insn_is_exclusive_load(u32 insn)
{
	return arm64_insn_is_exclusive(insn) && (insn & (1U << 22));
}

/* Is @class one that arm64_probe_simulate() carries out? */
static inline bool arm64_probe_simulated(enum arm64_probe_class class)
{
	return class != ARM64_PROBE_REFUSED && class != ARM64_PROBE_STEP;
}

/*
 * May an instruction of @class run out of line when its simulator
 * declines (sp not 16-byte aligned, a stack access that faults)?  The
 * copy then does what the instruction does in place, fault included.
 */
static inline bool arm64_probe_may_step(enum arm64_probe_class class)
{
	return class == ARM64_PROBE_STEP || class == ARM64_PROBE_FRAME_PAIR ||
	       class == ARM64_PROBE_FRAME_SP || class == ARM64_PROBE_FRAME_SLOT;
}

#endif /* _ARM64_KERNEL_PROBES_DECODE_H */
