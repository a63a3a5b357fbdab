/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86-64 side of the uprobes contract (<linux/uprobes_arch.h>).
 */
#ifndef _ASM_X86_UPROBES_H
#define _ASM_X86_UPROBES_H

#include <linux/types.h>
#include <asm/probe_insn.h>

typedef u8 uprobe_opcode_t;

#define MAX_UINSN_BYTES		16
#define UPROBE_XOL_SLOT_BYTES	32	/* an instruction and an int3 */
#define UPROBE_SWBP_INSN	0xcc
#define UPROBE_SWBP_INSN_SIZE	1

/**
 * struct arch_uprobe - a probed instruction
 * @insn: its bytes in the file (perf's unwinder looks at them)
 * @ixol: what runs in a slot: @insn, with a RIP-relative operand
 *	addressed through @scratch
 * @pi: how a hit carries it out
 * @scratch: register standing in for RIP in @ixol, or -1
 * @nop5: the instruction is the 5-byte nop, which a jump may replace
 *	(uprobes_jump.c)
 */
struct arch_uprobe {
	u8			insn[MAX_UINSN_BYTES];
	u8			ixol[MAX_UINSN_BYTES];
	struct x86_probe_insn	pi;
	s8			scratch;
	bool			nop5;
};

/**
 * struct arch_uprobe_task - a thread's state while in a slot
 * @saved_scratch: the scratch register's own value
 * @saved_trap_nr: thread.trap_nr before the step, which marks it to tell
 *	a fault of the copy
 */
struct arch_uprobe_task {
	unsigned long		saved_scratch;
	unsigned long		saved_trap_nr;
};

struct uprobe_stub_table;

/**
 * struct arch_uprobes_state - per-mm state of the port
 * @stubs: the stubs 5-byte nops jump to (uprobes_jump.c), or NULL
 * @stubs_mm: the mm @stubs was taken for; a fork copies the mm_struct
 *	before the engine tells the port, and the copy is not its owner
 */
struct arch_uprobes_state {
	struct uprobe_stub_table	*stubs;
	struct mm_struct		*stubs_mm;
};

/* The port enters some probes without their breakpoint (uprobes_arch.h). */
#define ARCH_UPROBE_DIRECT_ENTRY

bool uprobe_jump_wanted(unsigned long vaddr);

/*
 * Asked on every breakpoint hit: the test that rules out everything but
 * 5-byte nops stays inline, so other probes do not pay a call for it.
 */
static inline bool arch_uprobe_direct_wanted(struct arch_uprobe *au,
					     unsigned long vaddr)
{
	return au->nop5 && uprobe_jump_wanted(vaddr);
}

#endif /* _ASM_X86_UPROBES_H */
