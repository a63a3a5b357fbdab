/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emulation half of the x86-64 probe instruction decoder (decode.h),
 * inline.  Kprobes' int3 handler builds it with its memory accessors
 * known at compile time, so a hit makes no indirect call and reads its
 * own stack directly; other users call x86_probe_emulate().
 */
#ifndef _X86_KERNEL_PROBES_SIMULATE_H
#define _X86_KERNEL_PROBES_SIMULATE_H

#include <linux/compiler.h>
#include <asm/ptrace.h>
#include <asm/text-patching.h>

#include "decode.h"

bool x86_probe_indirect_target(const u8 *bytes, struct pt_regs *regs,
			       const struct x86_probe_mem *mem,
			       unsigned long *target);
bool x86_probe_kernel_read(unsigned long *val, unsigned long addr);

/*
 * The kernel stack of a breakpoint handler's context is always there, and
 * the int3 entry leaves a gap below it for an emulated push.
 */
static __always_inline bool x86_probe_kernel_stack_read(unsigned long *val,
							unsigned long addr)
{
	*val = *(unsigned long *)addr;
	return true;
}

static __always_inline bool x86_probe_kernel_stack_write(unsigned long addr,
							 unsigned long val)
{
	*(unsigned long *)addr = val;
	return true;
}

/*
 * Kernel memory as a kprobe hit sees it, known at compile time so that an
 * inlined emulation makes no indirect call: the stack directly, an
 * indirect branch's target through the checked read.
 */
static const struct x86_probe_mem x86_probe_hit_mem = {
	.read = x86_probe_kernel_read,
	.read_stack = x86_probe_kernel_stack_read,
	.write = x86_probe_kernel_stack_write,
};

/**
 * x86_probe_reg() - a general register in @regs by its encoding number
 * @regs: the registers
 * @nr: 0 (rax) to 15 (r15)
 *
 * Return: a pointer to its pt_regs word.
 */
static __always_inline unsigned long *x86_probe_reg(struct pt_regs *regs,
						    unsigned int nr)
{
	static const u8 word[16] = {
		offsetof(struct pt_regs, ax) / 8, offsetof(struct pt_regs, cx) / 8,
		offsetof(struct pt_regs, dx) / 8, offsetof(struct pt_regs, bx) / 8,
		offsetof(struct pt_regs, sp) / 8, offsetof(struct pt_regs, bp) / 8,
		offsetof(struct pt_regs, si) / 8, offsetof(struct pt_regs, di) / 8,
		offsetof(struct pt_regs, r8) / 8, offsetof(struct pt_regs, r9) / 8,
		offsetof(struct pt_regs, r10) / 8, offsetof(struct pt_regs, r11) / 8,
		offsetof(struct pt_regs, r12) / 8, offsetof(struct pt_regs, r13) / 8,
		offsetof(struct pt_regs, r14) / 8, offsetof(struct pt_regs, r15) / 8,
	};

	return (unsigned long *)regs + word[nr & 15];
}

static __always_inline bool x86_probe_loop_taken(const struct x86_probe_insn *pi,
						 struct pt_regs *regs)
{
	unsigned long mask = pi->asize == 4 ? 0xffffffffUL : ~0UL;
	unsigned long count;

	if (pi->cond == 0xe3)		/* jrcxz/jecxz: no decrement */
		return !(regs->cx & mask);
	count = (regs->cx - 1) & mask;
	regs->cx = (regs->cx & ~mask) | count;
	if (!count)
		return false;
	if (pi->cond == 0xe1)		/* loope */
		return regs->flags & X86_EFLAGS_ZF;
	if (pi->cond == 0xe0)		/* loopne */
		return !(regs->flags & X86_EFLAGS_ZF);
	return true;
}

static __always_inline bool x86_probe_push(struct pt_regs *regs,
					   const struct x86_probe_mem *mem,
					   unsigned long val)
{
	if (!mem->write(regs->sp - sizeof(long), val))
		return false;
	regs->sp -= sizeof(long);
	return true;
}

/* pop into the register numbered @nr. */
static __always_inline bool x86_probe_pop(struct pt_regs *regs,
					  const struct x86_probe_mem *mem,
					  unsigned int nr)
{
	unsigned long val;

	if (!mem->read_stack(&val, regs->sp))
		return false;
	/* sp first: pop %rsp loads the popped value. */
	regs->sp += sizeof(long);
	*x86_probe_reg(regs, nr) = val;
	return true;
}

/* X86_PROBE_MOV: a register to a register, 64 or 32 bits. */
static __always_inline void x86_probe_mov(struct pt_regs *regs,
					  const struct x86_probe_insn *pi)
{
	unsigned long val = *x86_probe_reg(regs, pi->cond >> 4);

	if (pi->asize == 4)
		val = (u32)val;
	*x86_probe_reg(regs, pi->cond) = val;
}

/* x86_probe_emulate(), for callers that inline it. */
static __always_inline bool __x86_probe_emulate(const struct x86_probe_insn *pi,
						const u8 *bytes,
						unsigned long addr,
						struct pt_regs *regs,
						const struct x86_probe_mem *mem)
{
	unsigned long next = addr + pi->len, val;

	switch (pi->op) {
	case X86_PROBE_NOP:
		break;
	case X86_PROBE_JMP:
		next += pi->rel;
		break;
	case X86_PROBE_CALL:
		if (!x86_probe_push(regs, mem, next))
			return false;
		next += pi->rel;
		break;
	case X86_PROBE_JCC:
		int3_emulate_jcc(regs, pi->cond, next, pi->rel);
		return true;
	case X86_PROBE_LOOP:
		if (x86_probe_loop_taken(pi, regs))
			next += pi->rel;
		break;
	case X86_PROBE_RET:
		if (!mem->read_stack(&val, regs->sp))
			return false;
		regs->sp += sizeof(long) + pi->rel;
		next = val;
		break;
	case X86_PROBE_JMP_IND:
	case X86_PROBE_CALL_IND:
		if (!x86_probe_indirect_target(bytes, regs, mem, &val))
			return false;
		if (pi->op == X86_PROBE_CALL_IND &&
		    !x86_probe_push(regs, mem, next))
			return false;
		next = val;
		break;
	case X86_PROBE_PUSH:
		if (!x86_probe_push(regs, mem, *x86_probe_reg(regs, pi->cond)))
			return false;
		break;
	case X86_PROBE_POP:
		if (!x86_probe_pop(regs, mem, pi->cond))
			return false;
		break;
	case X86_PROBE_MOV:
		x86_probe_mov(regs, pi);
		break;
	case X86_PROBE_CLI:
		regs->flags &= ~X86_EFLAGS_IF;
		break;
	case X86_PROBE_STI:
		regs->flags |= X86_EFLAGS_IF;
		break;
	default:
		return false;
	}
	regs->ip = next;
	return true;
}

#endif /* _X86_KERNEL_PROBES_SIMULATE_H */
