/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86-64 probe instruction decoder: what a breakpoint-based probe may
 * do with one instruction, for kernel and user probes alike.  It works
 * on the instruction's bytes, its address and a struct pt_regs, and
 * knows nothing of kprobes or uprobes: what differs between kernel and
 * user text is the context argument and the memory accessors.
 */
#ifndef _X86_KERNEL_PROBES_DECODE_H
#define _X86_KERNEL_PROBES_DECODE_H

#include <linux/types.h>
#include <asm/probe_insn.h>

struct pt_regs;

/* How a hit carries out the probed instruction. */
enum x86_probe_op {
	X86_PROBE_STEP,		/* runs out of line, position independent */
	X86_PROBE_NOP,		/* nop, endbr64: the ip moves on */
	X86_PROBE_JMP,		/* jmp rel8/rel32 */
	X86_PROBE_JCC,		/* jcc rel8/rel32; @cond: the condition */
	X86_PROBE_CALL,		/* call rel32 */
	X86_PROBE_RET,		/* ret, ret imm16; @rel: the imm16 */
	X86_PROBE_LOOP,		/* loop, loope, loopne, jrcxz; @cond: opcode */
	X86_PROBE_JMP_IND,	/* jmp through a register or memory */
	X86_PROBE_CALL_IND,	/* call through a register or memory */
	X86_PROBE_CLI,		/* kernel only */
	X86_PROBE_STI,		/* kernel only */
	X86_PROBE_PUSH,		/* push %reg; @cond: register number */
	X86_PROBE_POP,		/* pop %reg; @cond: register number */
	X86_PROBE_MOV,		/* mov %reg,%reg; @cond: dst | src << 4 */
};

enum x86_probe_ctx {
	X86_PROBE_KERNEL,	/* kernel text, kernel stack */
	X86_PROBE_USER,		/* 64-bit user text, user stack */
};

/*
 * Memory of the probed context, for what emulation reads and writes:
 * @read for an indirect branch's target, @read_stack for pops and
 * returns, @write for pushes.  Each returns false on a fault.
 */
struct x86_probe_mem {
	bool (*read)(unsigned long *val, unsigned long addr);
	bool (*read_stack)(unsigned long *val, unsigned long addr);
	bool (*write)(unsigned long addr, unsigned long val);
};

extern const struct x86_probe_mem x86_probe_user_mem;
extern const struct x86_probe_mem x86_probe_kernel_mem;

/*
 * Ops whose effect does not depend on where the instruction runs, so a
 * copy elsewhere (after x86_probe_relocate()) does the same.
 */
static inline bool x86_probe_runs_anywhere(u8 op)
{
	return op == X86_PROBE_STEP || op == X86_PROBE_NOP ||
	       op == X86_PROBE_PUSH || op == X86_PROBE_POP ||
	       op == X86_PROBE_MOV || op == X86_PROBE_CLI ||
	       op == X86_PROBE_STI;
}

/**
 * struct x86_probe_flow - where an instruction can send control
 * @len: its length
 * @indirect_jump: a jmp through a register or memory
 * @target: a relative branch's destination (jmp, jcc, call, loop,
 *	xbegin's fallback), else 0
 */
struct x86_probe_flow {
	u8		len;
	bool		indirect_jump;
	unsigned long	target;
};

int x86_probe_classify(const u8 *bytes, size_t avail, enum x86_probe_ctx ctx,
		       struct x86_probe_insn *pi);
bool x86_probe_emulate(const struct x86_probe_insn *pi, const u8 *bytes,
		       unsigned long addr, struct pt_regs *regs,
		       const struct x86_probe_mem *mem);
int x86_probe_relocate(const u8 *bytes, unsigned int len, unsigned long from,
		       unsigned long to, u8 *out);
int x86_probe_flow(const u8 *bytes, size_t avail, unsigned long addr,
		   struct x86_probe_flow *flow);

/* Register numbers as ModRM encodes them. */
enum {
	X86_PROBE_AX, X86_PROBE_CX, X86_PROBE_DX, X86_PROBE_BX,
	X86_PROBE_SP, X86_PROBE_BP, X86_PROBE_SI, X86_PROBE_DI,
};

int x86_probe_riprel_to_reg(const u8 *bytes, const struct x86_probe_insn *pi,
			    u8 *out);

#endif /* _X86_KERNEL_PROBES_DECODE_H */
