/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arm64 side of the uprobes contract (<linux/uprobes_arch.h>).
 */
#ifndef _ASM_UPROBES_H
#define _ASM_UPROBES_H

#include <asm/debug-monitors.h>
#include <asm/insn.h>

typedef __le32 uprobe_opcode_t;

#define MAX_UINSN_BYTES		AARCH64_INSN_SIZE
#define UPROBE_SWBP_INSN	cpu_to_le32(BRK64_OPCODE_UPROBES)
#define UPROBE_SWBP_INSN_SIZE	AARCH64_INSN_SIZE
#define UPROBE_XOL_SLOT_BYTES	(2 * AARCH64_INSN_SIZE)	/* insn, brk */

/**
 * struct arch_uprobe - a probed instruction
 * @insn: the instruction, as in the file
 * @class: how a hit carries it out (enum arm64_probe_class)
 */
struct arch_uprobe {
	__le32	insn;
	u8	class;
};

/**
 * struct arch_uprobe_task - a thread's state while in a slot
 * @saved_fault_code: thread.fault_code before the step, which marks it
 *	to tell a fault of the copy
 */
struct arch_uprobe_task {
	unsigned long	saved_fault_code;
};

/* Every hit comes by its breakpoint: no per-mm state. */
struct arch_uprobes_state { };

/* Called by the EL0 debug exception code (debug-monitors.c). */
int uprobe_brk_handler(struct pt_regs *regs, unsigned long esr);
#ifdef CONFIG_UPROBES
int uprobe_single_step_handler(struct pt_regs *regs, unsigned long esr);
#else
static inline int uprobe_single_step_handler(struct pt_regs *regs,
					     unsigned long esr)
{
	return DBG_HOOK_ERROR;
}
#endif

#endif /* _ASM_UPROBES_H */
