/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decoded form of a probed x86-64 instruction, which struct
 * arch_specific_insn (kprobes) and struct arch_uprobe (uprobes) embed.
 * The decoder that fills it in and the code that acts on it are private
 * to arch/x86/kernel/probes/ (decode.h there).
 */
#ifndef _ASM_X86_PROBE_INSN_H
#define _ASM_X86_PROBE_INSN_H

#include <linux/types.h>

/**
 * struct x86_probe_insn - an instruction as a probe sees it
 * @op: enum x86_probe_op (decode.h)
 * @len: its length
 * @cond: what @op says
 * @asize: operand size for X86_PROBE_MOV, address size for LOOP
 * @rel: branch displacement, or ret's immediate
 */
struct x86_probe_insn {
	u8	op;
	u8	len;
	u8	cond;
	u8	asize;
	s32	rel;
};

#endif /* _ASM_X86_PROBE_INSN_H */
