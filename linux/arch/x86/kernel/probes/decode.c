// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The x86-64 probe instruction decoder (see decode.h).
 *
 * A probed instruction falls in one of three groups.  Those whose effect
 * depends on where they run (relative and indirect branches, calls,
 * returns) and the few that function prologues are made of (push, pop,
 * register moves, nops) are carried out on pt_regs at the hit: no copy,
 * no second trap.  Those that must never run under a probe are refused.
 * Everything else runs out of line; a RIP-relative operand then needs
 * fixing, by rebasing its displacement (kernel slots are within reach)
 * or, for user slots that may be anywhere, by addressing through a
 * scratch register loaded with the RIP the instruction expects.
 */
#include <linux/errno.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <asm/insn.h>
#include <asm/insn-eval.h>
#include <asm/ptrace.h>
#include <asm/text-patching.h>

#include "decode.h"
#include "simulate.h"

/* Never probed, in any context. */
static bool refused_always(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];
	u8 modrm = insn->modrm.bytes[0];

	if (insn_has_emulate_prefix(insn) || insn_masking_exception(insn))
		return true;
	switch (op) {
	case 0xcc:		/* int3: someone else's breakpoint */
	case 0xcd:		/* int n */
	case 0xce:		/* into */
	case 0xcf:		/* iret */
	case 0xca:		/* far ret */
	case 0xcb:
	case 0xf1:		/* int1 */
	case 0x9a:		/* far call */
	case 0xea:		/* far jmp */
		return true;
	case 0xff:		/* far call/jmp through memory */
		return X86_MODRM_REG(modrm) == 3 || X86_MODRM_REG(modrm) == 5;
	case 0xc7:		/* xbegin: its fallback is RIP-relative */
		return modrm == 0xf8;
	case 0x0f:
		switch (op2) {
		case 0x05:	/* syscall: may never come back (sigreturn) */
		case 0x07:	/* sysret */
		case 0x0b:	/* ud2: deliberate traps */
		case 0x34:	/* sysenter */
		case 0x35:	/* sysexit */
		case 0xb9:	/* ud1 */
		case 0xff:	/* ud0 */
			return true;
		}
	}
	return false;
}

static bool has_prefix(struct insn *insn, u8 prefix)
{
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p)
		if (p == prefix)
			return true;
	return false;
}

/* Privileged or special in the kernel only. */
static bool refused_in_kernel(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];

	return op == 0xf4 ||			/* hlt */
	       op == 0x8e ||			/* mov to a segment register */
	       (op == 0x0f && op2 == 0x01);	/* system group */
}

/*
 * push, pop and register-to-register mov, the stuff of prologues and
 * epilogues: 64-bit forms (and the 32-bit mov) on legacy registers.
 */
static bool classify_reg_op(struct insn *insn, struct x86_probe_insn *pi)
{
	u8 op = insn->opcode.bytes[0], modrm = insn->modrm.bytes[0];
	u8 rex = insn->rex_prefix.nbytes ? insn->rex_prefix.bytes[0] : 0;
	u8 rm, reg;

	if (insn_is_rex2(insn))
		return false;
	rm = X86_MODRM_RM(modrm) | (X86_REX_B(rex) ? 8 : 0);
	reg = X86_MODRM_REG(modrm) | (X86_REX_R(rex) ? 8 : 0);
	switch (op) {
	case 0x50 ... 0x5f:
		if (insn->opnd_bytes != 8)
			return false;
		pi->op = op < 0x58 ? X86_PROBE_PUSH : X86_PROBE_POP;
		pi->cond = (op & 7) | (X86_REX_B(rex) ? 8 : 0);
		return true;
	case 0x89:		/* mov reg -> r/m */
	case 0x8b:		/* mov r/m -> reg */
		if (X86_MODRM_MOD(modrm) != 3 ||
		    (insn->opnd_bytes != 8 && insn->opnd_bytes != 4))
			return false;
		pi->op = X86_PROBE_MOV;
		pi->cond = op == 0x89 ? rm | reg << 4 : reg | rm << 4;
		pi->asize = insn->opnd_bytes;
		return true;
	}
	return false;
}

/*
 * f3 0f 1e fa, whether or not this kernel uses IBT itself (is_endbr()
 * only knows the kernel's configuration): user code has it either way.
 */
static bool is_endbr64(struct insn *insn)
{
	return insn->opcode.bytes[1] == 0x1e && insn->modrm.bytes[0] == 0xfa &&
	       has_prefix(insn, 0xf3);
}

/* Fill in @pi->op for what the hit carries out; STEP otherwise. */
static void classify_op(struct insn *insn, const u8 *bytes,
			enum x86_probe_ctx ctx, struct x86_probe_insn *pi)
{
	u8 op = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];
	u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);

	pi->op = X86_PROBE_STEP;
	if (classify_reg_op(insn, pi))
		return;
	pi->rel = insn->immediate.value;
	switch (op) {
	case 0xeb:
	case 0xe9:
		pi->op = X86_PROBE_JMP;
		return;
	case 0xe8:
		pi->op = X86_PROBE_CALL;
		return;
	case 0x70 ... 0x7f:
		pi->op = X86_PROBE_JCC;
		pi->cond = op & 0xf;
		return;
	case 0xe0 ... 0xe3:
		pi->op = X86_PROBE_LOOP;
		pi->cond = op;
		pi->asize = insn->addr_bytes;
		return;
	case 0xc3:
	case 0xc2:
		pi->op = X86_PROBE_RET;
		pi->rel = op == 0xc2 ? insn->immediate.value : 0;
		return;
	case 0xfa:
	case 0xfb:
		/* In user mode they fault (#GP) as they would in place. */
		if (ctx == X86_PROBE_KERNEL)
			pi->op = op == 0xfa ? X86_PROBE_CLI : X86_PROBE_STI;
		return;
	case 0x90:
		/* Plain nop; with REX.B it is xchg with r8. */
		if (!insn->rex_prefix.nbytes)
			pi->op = X86_PROBE_NOP;
		return;
	case 0xff:
		if (reg == 2)
			pi->op = X86_PROBE_CALL_IND;
		else if (reg == 4)
			pi->op = X86_PROBE_JMP_IND;
		return;
	case 0x0f:
		if (op2 >= 0x80 && op2 <= 0x8f) {
			pi->op = X86_PROBE_JCC;
			pi->cond = op2 & 0xf;
		} else if (op2 == 0x1f || is_endbr64(insn)) {
			pi->op = X86_PROBE_NOP;	/* multi-byte nop, endbr64 */
		}
		return;
	}
}

/**
 * x86_probe_classify() - decode @bytes and decide what a hit does
 * @bytes: the instruction (original bytes, no breakpoint)
 * @avail: how many bytes there are
 * @ctx: kernel or user text
 * @pi: filled in
 *
 * Return: 0, -EILSEQ when the bytes do not decode, -EINVAL (kernel) or
 * -EOPNOTSUPP (user) for an instruction that must not be probed.
 */
int x86_probe_classify(const u8 *bytes, size_t avail, enum x86_probe_ctx ctx,
		       struct x86_probe_insn *pi)
{
	int refused = ctx == X86_PROBE_KERNEL ? -EINVAL : -EOPNOTSUPP;
	struct insn insn;

	memset(pi, 0, sizeof(*pi));
	if (insn_decode(&insn, bytes, avail, INSN_MODE_64) < 0 || !insn.length)
		return -EILSEQ;
	if (refused_always(&insn) ||
	    (ctx == X86_PROBE_KERNEL && refused_in_kernel(&insn)))
		return refused;
	pi->len = insn.length;
	classify_op(&insn, bytes, ctx, pi);
	/*
	 * CPUs disagree on a branch with an operand-size prefix (AMD
	 * truncates the ip to 16 bits, Intel ignores the prefix).
	 */
	if (!x86_probe_runs_anywhere(pi->op) && has_prefix(&insn, 0x66))
		return refused;
	return 0;
}

/**
 * x86_probe_indirect_target() - an indirect branch's target, read the way
 *	the CPU would
 * @bytes: the instruction
 * @regs: the registers, ip at the instruction
 * @mem: how to read the context's memory
 * @target: the target
 *
 * Return: false when it cannot be read.
 */
bool x86_probe_indirect_target(const u8 *bytes, struct pt_regs *regs,
			       const struct x86_probe_mem *mem,
			       unsigned long *target)
{
	void __user *ea;
	struct insn insn;
	int off;

	if (insn_decode(&insn, bytes, MAX_INSN_SIZE, INSN_MODE_64) < 0)
		return false;
	if (X86_MODRM_MOD(insn.modrm.value) == 3) {
		off = insn_get_modrm_rm_off(&insn, regs);
		if (off < 0)
			return false;
		*target = *(unsigned long *)((void *)regs + off);
		return true;
	}
	/* Addresses are computed with ip at the instruction itself. */
	ea = insn_get_addr_ref(&insn, regs);
	if (ea == (void __user *)-1L)
		return false;
	return mem->read(target, (unsigned long)ea);
}
NOKPROBE_SYMBOL(x86_probe_indirect_target);

/**
 * x86_probe_emulate() - carry out @pi on @regs as if it ran at @addr
 * @pi: what x86_probe_classify() decided
 * @bytes: the instruction's bytes
 * @addr: where it is
 * @regs: the registers, ip at @addr; on success, the state after it
 * @mem: how to reach the context's memory
 *
 * The out-of-line form of __x86_probe_emulate() (simulate.h).
 *
 * Return: true when done; false, @regs unchanged, when @pi->op is not
 * carried out at the hit or memory could not be reached.
 */
bool x86_probe_emulate(const struct x86_probe_insn *pi, const u8 *bytes,
		       unsigned long addr, struct pt_regs *regs,
		       const struct x86_probe_mem *mem)
{
	return __x86_probe_emulate(pi, bytes, addr, regs, mem);
}
NOKPROBE_SYMBOL(x86_probe_emulate);

/**
 * x86_probe_relocate() - copy an instruction to run at another address
 * @bytes: the instruction
 * @len: its length
 * @from: where it is
 * @to: where the copy will run
 * @out: @len bytes for the copy
 *
 * A RIP-relative operand's displacement is rebased so that the copy
 * reaches the same memory.  Relative branches are not fixed up: they are
 * emulated, never copied.
 *
 * Return: 0, -EILSEQ when the bytes do not decode, -ERANGE when the
 * operand is out of a 32-bit displacement's reach from @to.
 */
int x86_probe_relocate(const u8 *bytes, unsigned int len, unsigned long from,
		       unsigned long to, u8 *out)
{
	struct insn insn;
	s64 disp;

	if (insn_decode(&insn, bytes, len, INSN_MODE_64) < 0 ||
	    insn.length != len)
		return -EILSEQ;
	memcpy(out, bytes, len);
	if (!insn_rip_relative(&insn))
		return 0;
	disp = (s64)insn.displacement.value + (s64)from - (s64)to;
	if (disp != (s32)disp)
		return -ERANGE;
	put_unaligned((s32)disp, (s32 *)(out + insn_offset_displacement(&insn)));
	return 0;
}

/**
 * x86_probe_flow() - where an instruction can send control
 * @bytes: the instruction
 * @avail: how many bytes there are
 * @addr: where it is
 * @flow: filled in
 *
 * For scans of a whole function (what may jump into a range), so it
 * answers for every instruction, including those a probe refuses.
 *
 * Return: 0, or -EILSEQ when the bytes do not decode.
 */
int x86_probe_flow(const u8 *bytes, size_t avail, unsigned long addr,
		   struct x86_probe_flow *flow)
{
	struct insn insn;
	u8 op, op2;
	bool rel;

	memset(flow, 0, sizeof(*flow));
	if (insn_decode(&insn, bytes, avail, INSN_MODE_64) < 0 || !insn.length)
		return -EILSEQ;
	op = insn.opcode.bytes[0];
	op2 = insn.opcode.bytes[1];
	flow->len = insn.length;
	switch (op) {
	case 0x70 ... 0x7f:		/* jcc rel8 */
	case 0xe0 ... 0xe3:		/* loop, jrcxz */
	case 0xe8:			/* call */
	case 0xe9:			/* jmp */
	case 0xeb:
		rel = true;
		break;
	case 0xc7:			/* xbegin */
		rel = insn.modrm.bytes[0] == 0xf8;
		break;
	case 0x0f:			/* jcc rel32 */
		rel = op2 >= 0x80 && op2 <= 0x8f;
		break;
	case 0xff:
		flow->indirect_jump = X86_MODRM_REG(insn.modrm.bytes[0]) == 4;
		fallthrough;
	default:
		rel = false;
	}
	if (rel)
		flow->target = addr + insn.length + insn.immediate.value;
	return 0;
}

/**
 * x86_probe_riprel_to_reg() - address a RIP-relative operand through a
 *	register instead
 * @bytes: the instruction
 * @pi: its classification
 * @out: @pi->len bytes: the instruction, rewritten when it needs it
 *
 * The operand [rip + disp] becomes [reg + disp], reg being one of rdi,
 * rsi and rbp that the instruction does not name; loaded with the
 * address after the original instruction, it finds the same memory from
 * anywhere.  None of the three is used implicitly by an instruction with
 * a memory ModRM operand.
 *
 * Return: the register's number, -ENOENT when the instruction is not
 * RIP-relative (@out is then a plain copy), -EINVAL for an encoding this
 * does not handle.
 */
int x86_probe_riprel_to_reg(const u8 *bytes, const struct x86_probe_insn *pi,
			    u8 *out)
{
	static const u8 candidates[] = { X86_PROBE_DI, X86_PROBE_SI, X86_PROBE_BP };
	int reg, vvvv = -1, i, scratch = -1;
	struct insn insn;
	u8 modrm;

	memcpy(out, bytes, pi->len);
	if (insn_decode(&insn, bytes, pi->len, INSN_MODE_64) < 0)
		return -EINVAL;
	if (!insn_rip_relative(&insn))
		return -ENOENT;
	if (insn_is_rex2(&insn))
		return -EINVAL;

	modrm = insn.modrm.bytes[0];
	reg = X86_MODRM_REG(modrm);
	if (insn.rex_prefix.nbytes && X86_REX_R(insn.rex_prefix.bytes[0]))
		reg |= 8;
	if (insn_is_avx(&insn)) {
		/* R and vvvv are stored inverted; EVEX keeps vvvv in P1 too. */
		u8 b1 = insn.vex_prefix.bytes[1];
		u8 vb = insn.vex_prefix.nbytes == 2 ? b1 : insn.vex_prefix.bytes[2];

		if (!(b1 & 0x80))
			reg |= 8;
		vvvv = ~X86_VEX_V(vb) & 0xf;
	}
	for (i = 0; i < ARRAY_SIZE(candidates); i++) {
		if (candidates[i] != reg && candidates[i] != vvvv) {
			scratch = candidates[i];
			break;
		}
	}
	if (scratch < 0)
		return -EINVAL;

	/* mod 10 (disp32 from a base register), rm = scratch. */
	out[insn_offset_modrm(&insn)] = 0x80 | (modrm & 0x38) | scratch;
	/* The base register's high bit (B) must be clear. */
	if (insn.rex_prefix.nbytes)
		out[insn_offset_rex_prefix(&insn)] &= ~0x01;
	else if (insn_is_avx(&insn) && insn.vex_prefix.nbytes > 2)
		out[insn_offset_vex_prefix(&insn) + 1] |= 0x20;	/* ~B */
	return scratch;
}

static bool user_read(unsigned long *val, unsigned long addr)
{
	return !get_user(*val, (unsigned long __user *)addr);
}

static bool user_write(unsigned long addr, unsigned long val)
{
	return !put_user(val, (unsigned long __user *)addr);
}

/* The current task's user memory, from process context. */
const struct x86_probe_mem x86_probe_user_mem = {
	.read = user_read,
	.read_stack = user_read,
	.write = user_write,
};

/**
 * x86_probe_kernel_read() - read a word of kernel memory that may fault
 * @val: the word
 * @addr: where
 *
 * For what emulation reads that is not the stack (an indirect branch's
 * target in memory), from a breakpoint handler: inline, no call out (a
 * probe on a helper used here would be hit again from inside its own
 * emulation); a bad address faults into the exception table instead of
 * oopsing.  User and non-canonical addresses are refused up front: the
 * first would take the user fault path, the second a #GP.
 *
 * Return: false when it cannot be read.
 */
bool x86_probe_kernel_read(unsigned long *val, unsigned long addr)
{
	if (addr < TASK_SIZE_MAX ||
	    !__is_canonical_address(addr, boot_cpu_data.x86_virt_bits))
		return false;
	__get_kernel_nofault(val, (unsigned long *)addr, unsigned long, fault);
	return true;
fault:
	return false;
}
NOKPROBE_SYMBOL(x86_probe_kernel_read);

/* Kernel memory, from a breakpoint handler (kprobes inline these). */
const struct x86_probe_mem x86_probe_kernel_mem = {
	.read = x86_probe_kernel_read,
	.read_stack = x86_probe_kernel_stack_read,
	.write = x86_probe_kernel_stack_write,
};
