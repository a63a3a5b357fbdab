// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: decide how a probed instruction will be replayed.
 *
 * The probe address must be an instruction boundary, which on x86 can only
 * be known by decoding the function from its start.  The instruction
 * itself then falls in one of three groups: ones whose effect depends on
 * where they run (relative branches, calls, returns, indirect branches)
 * are emulated at the hit; ones that must never be probed are refused;
 * everything else runs out of line in a slot followed by an int3, with
 * RIP-relative operands rebased to the slot, or, when nothing needs fixing
 * afterwards and no post_handler wants to run, followed by a jump back.
 */
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/kallsyms.h>
#include <linux/uaccess.h>
#include <asm/insn.h>
#include <asm/ibt.h>
#include <asm/text-patching.h>
#include <linux/memory.h>
#include <linux/extable.h>

#include "common.h"

/**
 * kprobe_read_original() - the text at @addr as it was before any probe
 * @addr: kernel text address
 * @buf: MAX_INSN_SIZE bytes
 *
 * An armed probe's int3 is replaced by the opcode it hides, and the bytes
 * of an optimized probe's jmp by those it displaced; gone heads are
 * disarmed and say nothing of the text there now.  Called under the
 * core's mutex, so the sites cannot change underneath.
 *
 * Return: 0, or -EFAULT when the text cannot be read.
 */
int kprobe_read_original(unsigned long addr, u8 *buf)
{
	unsigned long at;
	struct kprobe *p;

	if (copy_from_kernel_nofault(buf, (void *)addr, MAX_INSN_SIZE))
		return -EFAULT;
	for (at = addr - JMP32_INSN_SIZE + 1; at < addr + MAX_INSN_SIZE; at++) {
		p = get_kprobe((void *)at);
		/*
		 * An ftrace site's text is ftrace's business, not a probe's; a
		 * gone head's bytes are those of text that went away (new code
		 * may sit there now, and its own breakpoint is out).
		 */
		if (!p || kprobe_ftrace(p) || kprobe_gone(p))
			continue;
		if (at >= addr)
			buf[at - addr] = p->ainsn.bytes[0];
#ifdef CONFIG_OPTPROBES
		if (kprobe_optimized(p)) {
			int i;

			for (i = 0; i < JMP32_INSN_SIZE; i++)
				if (at + i >= addr && at + i < addr + MAX_INSN_SIZE)
					buf[at + i - addr] = p->ainsn.replaced[i];
		}
#endif
	}
	return 0;
}

/* Decode from the start of @addr's function up to @addr. */
static int check_boundary(unsigned long addr)
{
	unsigned long size, offset, pos;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -EILSEQ;
	for (pos = addr - offset; pos < addr; pos += insn.length) {
		if (kprobe_read_original(pos, buf) ||
		    insn_decode_kernel(&insn, buf) < 0 || !insn.length)
			return -EILSEQ;
	}
	return pos == addr ? 0 : -EILSEQ;
}

/* Instructions that must never run under a probe. */
static bool refused(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];
	u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);

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
	case 0xf4:		/* hlt */
	case 0x9a:		/* far call */
	case 0xea:		/* far jmp */
	case 0x8e:		/* mov to a segment register */
		return true;
	case 0xff:		/* far call/jmp through memory */
		return reg == 3 || reg == 5;
	case 0x0f:
		switch (op2) {
		case 0x01:	/* system group: swapgs, lgdt, vmcall, ... */
		case 0x05:	/* syscall */
		case 0x07:	/* sysret */
		case 0x0b:	/* ud2: BUG()/WARN() sites */
		case 0x34:	/* sysenter */
		case 0x35:	/* sysexit */
		case 0xb9:	/* ud1 */
		case 0xff:	/* ud0 */
			return true;
		}
	}
	return false;
}

/*
 * push, pop and register-to-register mov: what function prologues and
 * epilogues are made of.  Done on pt_regs they need no slot and no second
 * trap, even for a probe with a post_handler.  Only the 64-bit forms (and
 * the 32-bit mov) with legacy REX registers.
 */
static bool classify_reg_op(struct insn *insn, struct arch_specific_insn *ai)
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
		ai->replay = op < 0x58 ? KPROBE_X86_PUSH : KPROBE_X86_POP;
		ai->cond = (op & 7) | (X86_REX_B(rex) ? 8 : 0);
		return true;
	case 0x89:		/* mov reg -> r/m */
	case 0x8b:		/* mov r/m -> reg */
		if (X86_MODRM_MOD(modrm) != 3 ||
		    (insn->opnd_bytes != 8 && insn->opnd_bytes != 4))
			return false;
		ai->replay = KPROBE_X86_MOV;
		ai->cond = op == 0x89 ? rm | reg << 4 : reg | rm << 4;
		ai->asize = insn->opnd_bytes;
		return true;
	}
	return false;
}

/* Fill in how a hit replays @insn; returns false when it must step. */
static bool classify_emulated(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 op = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];
	u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);

	if (classify_reg_op(insn, ai))
		return true;
	ai->rel = insn->immediate.value;
	switch (op) {
	case 0xeb:
	case 0xe9:
		ai->replay = KPROBE_X86_JMP;
		return true;
	case 0xe8:
		ai->replay = KPROBE_X86_CALL;
		return true;
	case 0x70 ... 0x7f:
		ai->replay = KPROBE_X86_JCC;
		ai->cond = op & 0xf;
		return true;
	case 0xe0 ... 0xe3:
		ai->replay = KPROBE_X86_LOOP;
		ai->cond = op;
		ai->asize = insn->addr_bytes;
		return true;
	case 0xc3:
	case 0xc2:
		ai->replay = KPROBE_X86_RET;
		ai->rel = op == 0xc2 ? insn->immediate.value : 0;
		return true;
	case 0xfa:
		ai->replay = KPROBE_X86_CLI;
		return true;
	case 0xfb:
		ai->replay = KPROBE_X86_STI;
		return true;
	case 0x90:
		/* Plain nop; with REX.B it is xchg with r8. */
		if (insn->rex_prefix.nbytes)
			return false;
		ai->replay = KPROBE_X86_NOP;
		return true;
	case 0xff:
		if (reg == 2 || reg == 4) {
			ai->replay = reg == 2 ? KPROBE_X86_CALL_IND :
						KPROBE_X86_JMP_IND;
			return true;
		}
		return false;
	case 0x0f:
		if (op2 >= 0x80 && op2 <= 0x8f) {
			ai->replay = KPROBE_X86_JCC;
			ai->cond = op2 & 0xf;
			return true;
		}
		if (op2 == 0x1f) {	/* multi-byte nop */
			ai->replay = KPROBE_X86_NOP;
			return true;
		}
		return false;
	}
	if (is_endbr(*(u32 *)insn->kaddr)) {
		ai->replay = KPROBE_X86_NOP;
		return true;
	}
	return false;
}

/* Copy the instruction to run at @to, rebasing a RIP-relative operand. */
static int relocate(u8 *buf, unsigned long from, unsigned long to,
		    struct insn *insn, struct arch_specific_insn *ai)
{
	memcpy(buf, ai->bytes, ai->len);
	if (insn_rip_relative(insn)) {
		s64 disp = (s64)insn->displacement.value + (s64)from - (s64)to;

		if (disp != (s32)disp)
			return -ERANGE;
		*(s32 *)(buf + insn_offset_displacement(insn)) = (s32)disp;
	}
	return 0;
}

/*
 * May the instruction run out of line and simply jump back, with no trap
 * to fix things up?  Not when a fault there must be fixed up through the
 * exception table (the table knows the original address only), and not
 * when a task could be preempted inside the copy: the slot would then have
 * to outlive every such task, which a grace period does not guarantee.
 */
static bool boostable(unsigned long addr)
{
	if (IS_ENABLED(CONFIG_PREEMPTION))
		return false;
	return !search_exception_tables(addr);
}

/*
 * Build the out-of-line copies: the one to single-step, ending with an
 * int3 that hands control back, and (when boostable) one ending with a
 * jump to the next instruction.
 */
static int prepare_slot(unsigned long addr, struct insn *insn,
			struct arch_specific_insn *ai, bool boost)
{
	u8 buf[KPROBE_INSN_SLOT_SIZE];
	kprobe_opcode_t *slot;
	unsigned int len = ai->len, at = len + INT3_INSN_SIZE;
	int ret;

	slot = kprobe_alloc_insn_slot();
	if (!slot)
		return -ENOMEM;
	ret = relocate(buf, addr, (unsigned long)slot, insn, ai);
	if (ret)
		goto fail;
	buf[len] = INT3_INSN_OPCODE;
	if (boost) {
		unsigned long copy = (unsigned long)slot + at;

		ret = relocate(buf + at, addr, copy, insn, ai);
		if (ret)
			goto fail;
		__text_gen_insn(buf + at + len, JMP32_INSN_OPCODE,
				(void *)(copy + len), (void *)(addr + len),
				JMP32_INSN_SIZE);
		at += len + JMP32_INSN_SIZE;
		ai->boost = slot + len + INT3_INSN_SIZE;
	}
	arch_write_insn_slot(slot, buf, at);
	ai->insn = slot;
	return 0;
fail:
	kprobe_free_insn_slot(slot);
	return ret;
}

int arch_prepare_kprobe(struct kprobe *probe)
{
	struct arch_specific_insn *ai = &probe->ainsn;
	unsigned long addr = (unsigned long)probe->addr;
	bool patched_by_alternatives;
	struct insn insn;
	int ret;

	/* Alternatives may rewrite this text at any time: keep out. */
	scoped_guard(mutex, &text_mutex)
		patched_by_alternatives = alternatives_text_reserved(probe->addr,
								     probe->addr);
	if (patched_by_alternatives)
		return -EINVAL;
	ret = check_boundary(addr);
	if (ret)
		return ret;
	memset(ai, 0, sizeof(*ai));
	if (kprobe_read_original(addr, ai->bytes))
		return -EFAULT;
	if (insn_decode_kernel(&insn, ai->bytes) < 0)
		return -EILSEQ;
	if (refused(&insn))
		return -EINVAL;
	ai->len = insn.length;
	probe->opcode = ai->bytes[0];
	if (classify_emulated(&insn, ai)) {
		/* Indirect branches keep a copy to fall back on (see replay()). */
		if (ai->replay == KPROBE_X86_JMP_IND ||
		    ai->replay == KPROBE_X86_CALL_IND)
			return prepare_slot(addr, &insn, ai, false);
		return 0;
	}

	ai->replay = KPROBE_X86_STEP;
	ai->sets_if = insn.opcode.bytes[0] == 0x9d;		/* popf */
	ai->pushes_flags = insn.opcode.bytes[0] == 0x9c;	/* pushf */
	return prepare_slot(addr, &insn, ai, boostable(addr));
}

void arch_remove_kprobe(struct kprobe *probe)
{
	if (probe->ainsn.insn) {
		kprobe_free_insn_slot(probe->ainsn.insn);
		probe->ainsn.insn = NULL;
		probe->ainsn.boost = NULL;
	}
}
