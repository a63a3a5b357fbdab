// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: decide how a probed instruction will be replayed.
 *
 * The probe address must be an instruction boundary, which on x86 can only
 * be known by decoding the function from its start.  What a hit does with
 * the instruction is decided by the probe instruction layer kprobes share
 * with uprobes (decode.h): emulated at the hit, refused, or run
 * out of line in a slot followed by an int3, with RIP-relative operands
 * rebased to the slot, or, when nothing needs fixing afterwards and no
 * post_handler wants to run, followed by a jump back.
 */
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/kallsyms.h>
#include <linux/uaccess.h>
#include <asm/insn.h>
#include <asm/text-patching.h>
#include <linux/memory.h>
#include <linux/extable.h>

#include "decode.h"
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

/*
 * May the instruction run out of line and simply jump back, with no trap
 * to fix things up?  Not when a fault there must be fixed up through the
 * exception table (the table knows the original address only), and not
 * when a task could be preempted inside the copy: the slot would then have
 * to outlive every such task, which a grace period does not guarantee.
 */
static bool boostable(unsigned long addr)
{
	if (!KPROBE_BOOSTS)
		return false;
	return !search_exception_tables(addr);
}

/* The opcode byte past any prefixes. */
static u8 opcode_of(const u8 *bytes)
{
	struct insn insn;

	if (insn_decode_kernel(&insn, bytes) < 0)
		return 0;
	return insn.opcode.bytes[0];
}

/*
 * Build the out-of-line copies: with @step the one to single-step, ending
 * with an int3 that hands control back; with @boost one that goes on by
 * itself, ending with a jump to the next instruction unless it is a ret.
 * The slot starts with the first of them.
 */
static int prepare_slot(unsigned long addr, struct arch_specific_insn *ai,
			bool step, bool boost)
{
	u8 buf[KPROBE_INSN_SLOT_SIZE];
	kprobe_opcode_t *slot;
	unsigned int len = ai->pi.len, at = 0;
	int ret;

	slot = kprobe_alloc_insn_slot();
	if (!slot)
		return -ENOMEM;
	if (step) {
		ret = x86_probe_relocate(ai->bytes, len, addr, (unsigned long)slot,
					 buf);
		if (ret)
			goto fail;
		buf[len] = INT3_INSN_OPCODE;
		at = len + INT3_INSN_SIZE;
	}
	if (boost) {
		unsigned long copy = (unsigned long)slot + at;

		ret = x86_probe_relocate(ai->bytes, len, addr, copy, buf + at);
		if (ret)
			goto fail;
		ai->boost = slot + at;
		at += len;
		if (ai->pi.op != X86_PROBE_RET) {
			__text_gen_insn(buf + at, JMP32_INSN_OPCODE,
					(void *)(copy + len), (void *)(addr + len),
					JMP32_INSN_SIZE);
			at += JMP32_INSN_SIZE;
		}
	}
	arch_write_insn_slot(slot, buf, at);
	if (step)
		ai->insn = slot;
	return 0;
fail:
	ai->boost = NULL;
	kprobe_free_insn_slot(slot);
	return ret;
}

int arch_prepare_kprobe(struct kprobe *probe)
{
	struct arch_specific_insn *ai = &probe->ainsn;
	unsigned long addr = (unsigned long)probe->addr;
	bool patched_by_alternatives;
	int ret;
	u8 op;

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
	/* What to do with it is the shared instruction layer's call. */
	ret = x86_probe_classify(ai->bytes, MAX_INSN_SIZE, X86_PROBE_KERNEL,
				 &ai->pi);
	if (ret)
		return ret;
	probe->opcode = ai->bytes[0];
	switch (ai->pi.op) {
	case X86_PROBE_STEP:
		op = opcode_of(ai->bytes);
		ai->sets_if = op == 0x9d;		/* popf */
		ai->pushes_flags = op == 0x9c;		/* pushf */
		return prepare_slot(addr, ai, true, boostable(addr));
	case X86_PROBE_JMP_IND:
	case X86_PROBE_CALL_IND:
		/* A copy to fall back on (see replay()). */
		return prepare_slot(addr, ai, true, false);
	case X86_PROBE_NOP:
	case X86_PROBE_PUSH:
	case X86_PROBE_POP:
	case X86_PROBE_MOV:
	case X86_PROBE_RET:
		/*
		 * Emulated when a post phase follows; without one, running
		 * the instruction itself costs less than carrying it out on
		 * pt_regs and finishing the hit.  A copy that cannot be had
		 * only means emulating every time.
		 */
		if (boostable(addr))
			prepare_slot(addr, ai, false, true);
		return 0;
	default:
		return 0;
	}
}

#if KPROBE_BOOSTS
bool arch_kprobe_boostable(struct kprobe *head)
{
	return head->ainsn.boost;
}
#endif

void arch_remove_kprobe(struct kprobe *probe)
{
	/* The slot starts with the step copy, or the boost copy alone. */
	kprobe_opcode_t *slot = probe->ainsn.insn ?: probe->ainsn.boost;

	if (slot) {
		kprobe_free_insn_slot(slot);
		probe->ainsn.insn = NULL;
		probe->ainsn.boost = NULL;
	}
}
