/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What arm64 uprobes keep of a probed instruction (struct arch_uprobe in
 * <asm/uprobes.h> embeds it).  Kprobes keep theirs in <asm/kprobes.h>;
 * both use the instruction layer of arch/arm64/kernel/probes/decode.h.
 */
#ifndef _ASM_ARM64_PROBES_H
#define _ASM_ARM64_PROBES_H

#include <linux/types.h>

struct pt_regs;

typedef u32 probe_opcode_t;
typedef void (probes_handler_t)(u32 opcode, long addr, struct pt_regs *regs);

struct arch_probe_insn {
	/* Carries out an instruction that is not stepped, else NULL. */
	probes_handler_t *handler;
};

#endif /* _ASM_ARM64_PROBES_H */
