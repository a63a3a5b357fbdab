/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 side of kprobes: how a probed instruction is kept and replayed.
 * The generic contract is in <linux/kprobes_arch.h>.
 */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/percpu.h>
#include <asm/text-patching.h>
#include <asm/insn.h>
#include <asm/probe_insn.h>

typedef u8 kprobe_opcode_t;

/*
 * A slot holds the copy that is single-stepped (the instruction and an
 * int3) and, for boostable instructions, a second copy followed by a jump
 * back to the instruction after the probe.  An optimized probe's detour
 * takes a second slot (see opt.c).
 */
#define KPROBE_INSN_SLOT_SIZE	48
static_assert(KPROBE_INSN_SLOT_SIZE >= 2 * MAX_INSN_SIZE + INT3_INSN_SIZE +
	      JMP32_INSN_SIZE);

/*
 * The copy that jumps back by itself is only made on kernels without
 * preemption (prepare.c), so no task is ever preempted inside a slot but
 * in a detour.
 */
#define KPROBE_PREEMPTIBLE_SLOTS	0
#define KPROBE_BOOSTS			(!IS_ENABLED(CONFIG_PREEMPTION))
/* int3: a slot filled with it traps wherever it is entered. */
#define KPROBE_SLOT_POISON		INT3_INSN_OPCODE

/* A jump region: at most a 4-byte instruction and a 15-byte one after it. */
#define KPROBE_JUMP_REGION_MAX	(JMP32_INSN_SIZE - 1 + MAX_INSN_SIZE)

/* Where a detour's copy of the region starts (see opt.c). */
#define KPROBE_DETOUR_COPY	(16 + CALL_INSN_SIZE)

struct arch_specific_insn {
	/*
	 * The out-of-line copy: for X86_PROBE_STEP, and for indirect
	 * branches to fall back on when their target cannot be read.
	 */
	kprobe_opcode_t *insn;
	/*
	 * The copy that goes on by itself (a jump back follows it, or it is
	 * a ret), when the instruction may run out of line with nothing to
	 * fix up afterwards; else NULL.  Emulated instructions that have one
	 * use it for hits without a post phase.
	 */
	kprobe_opcode_t *boost;
	/* The original bytes, for emulation and for the debugfs dump. */
	u8 bytes[MAX_INSN_SIZE];
	/*
	 * What a hit does with them, as the decoder shared with uprobes
	 * decided (arch/x86/kernel/probes/decode.h): emulate or run the copy.
	 */
	struct x86_probe_insn pi;
	/* Stepping changes IF (popf): keep the result instead of the saved IF. */
	u8 sets_if:1;
	/* Stepping pushes flags (pushf): fix the pushed IF afterwards. */
	u8 pushes_flags:1;
#ifdef CONFIG_OPTPROBES
	/*
	 * The detour slot when the probe can be reached by a jmp, else NULL;
	 * hits use it only while the head has KPROBE_FLAG_DETOUR.  The
	 * relocated region starts KPROBE_DETOUR_COPY bytes in.
	 */
	kprobe_opcode_t *detour;
	/* Bytes of instructions the jmp covers, and the five it overwrites. */
	u8 region_len;
	u8 replaced[JMP32_INSN_SIZE];
	/*
	 * Where in the detour the probed instruction runs alone for a hit
	 * with a post phase, or 0 when the detour has no room or the
	 * instruction changes IF (see opt.c).
	 */
	u8 post_path;
	/*
	 * A detour hit with a post phase carries the instruction out on its
	 * own pt_regs instead (push, pop, register moves, nops; see opt.c).
	 */
	u8 post_in_place:1;
#endif
};

/* What a CPU remembers about a probe hit while the instruction steps. */
struct prev_kprobe {
	struct kprobe *kp;
	unsigned long status;
	unsigned long saved_irq;
};

struct kprobe_ctlblk {
	unsigned long kprobe_status;
	/* X86_EFLAGS_IF of the probed context: stepping runs with IF clear. */
	unsigned long saved_irq;
	/* The outer hit, while a probe hit inside a handler is stepped. */
	struct prev_kprobe prev_kprobe;
	/* The core's (<linux/kprobes_hit.h>). */
	unsigned int hit_context;
};

/*
 * preempt_count() masks PREEMPT_NEED_RESCHED out of this word, which the
 * core's test of a hit's context leaves out anyway.
 */
#define arch_kprobe_context_word()	raw_cpu_read_4(pcpu_hot.preempt_count)

int kprobe_int3_handler(struct pt_regs *regs);
#ifdef CONFIG_OPTPROBES
/* The detour's shared entry stubs and the handlers they call (opt.c). */
void kprobe_detour_entry(void);
void kprobe_detour_sp_entry(void);
void kprobe_detour_post_entry(void);
__visible void kprobe_detour_hit(struct pt_regs *regs);
__visible void kprobe_detour_sp_hit(struct pt_regs *regs);
__visible void kprobe_detour_post_hit(struct pt_regs *regs);
/* Send a hit with a post phase from a breakpoint through @p's detour. */
void kprobe_detour_step(struct kprobe *p, struct pt_regs *regs,
			struct kprobe_ctlblk *kcb);
#endif

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
