/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arm64 side of kprobes: a BRK marks a probe; the probed instruction is
 * simulated at the hit or run out of line, followed by a second BRK.
 * The generic contract is in <linux/kprobes_arch.h>.
 *
 * KVM's hypervisor objects include this header for NOKPROBE_SYMBOL, so
 * everything but the prototypes below stays under CONFIG_KPROBES.
 */
#ifndef _ASM_ARM64_KPROBES_H
#define _ASM_ARM64_KPROBES_H

#include <linux/linkage.h>
#include <asm-generic/kprobes.h>

struct pt_regs;

/*
 * debug-monitors.c calls these by name for the kprobes BRK immediates,
 * in code that the config may discard: they are declared either way.
 * They return DBG_HOOK_HANDLED or DBG_HOOK_ERROR.
 */
int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr);
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr);
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr);

struct ftrace_regs;
/* ftrace_entry.S calls it with the registers at an ftrace call site. */
asmlinkage void arm64_kprobe_ftrace_hit(struct pt_regs *regs,
					struct ftrace_regs *fregs);

#ifdef CONFIG_KPROBES
#include <linux/types.h>

typedef u32 kprobe_opcode_t;

/* A slot holds the instruction and the BRK that ends its step. */
#define KPROBE_INSN_SLOT_SIZE		8

/* A slot is entered with DAIF masked and left through a trap. */
#define KPROBE_PREEMPTIBLE_SLOTS	0

/* Zero words are udf #0: a slot filled with them traps wherever entered. */
#define KPROBE_SLOT_POISON		0x00

struct arm64_probe_policy;

struct arch_specific_insn {
	/* The out-of-line copy for ARM64_PROBE_STEP, else NULL. */
	kprobe_opcode_t *insn;
	/* For a simulated class, its simulator (decode.h), else NULL. */
	bool (*simulate)(u32 insn, unsigned long addr, struct pt_regs *regs,
			 const struct arm64_probe_policy *pol);
	/* enum arm64_probe_class (arch/arm64/kernel/probes/decode.h). */
	u8 class;
};

/* The outer hit, kept while a probe hit inside a handler steps. */
struct prev_kprobe {
	struct kprobe *kp;
	unsigned long status;
	unsigned long saved_irq;
};

struct kprobe_ctlblk {
	unsigned long kprobe_status;
	/* The probed context's DAIF bits: a step runs with all masked. */
	unsigned long saved_irq;
	struct prev_kprobe prev_kprobe;
	/* The core's (<linux/kprobes_hit.h>). */
	unsigned int hit_context;
};

#endif /* CONFIG_KPROBES */
#endif /* _ASM_ARM64_KPROBES_H */
