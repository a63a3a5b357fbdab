/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probes on 5-byte nops entered by a jump (uprobes_jump.c). */
#ifndef _X86_PROBES_UPROBES_JUMP_H
#define _X86_PROBES_UPROBES_JUMP_H

#include <linux/align.h>
#include <linux/types.h>

/* Each stub's size and alignment. */
#define UPROBE_STUB_LEN	16

struct arch_uprobe;
struct pt_regs;

void uprobe_jump_prepare(struct arch_uprobe *au, const u8 *text, size_t len);
bool uprobe_stub_syscall(struct pt_regs *regs);

/*
 * The r11, rcx and rax that the return trampoline and the stubs push
 * before their syscall, from @sp up (uprobes.c).
 */
bool uprobe_read_syscall_frame(unsigned long sp, unsigned long saved[3]);

/*
 * Could a syscall returning to @ip have come from a stub?  Stubs end on
 * their alignment; the return trampoline, 11 bytes into its slot, never
 * does, so this orders the two lookups without deciding between them.
 */
static inline bool uprobe_stub_return(unsigned long ip)
{
	return IS_ALIGNED(ip, UPROBE_STUB_LEN);
}

#endif /* _X86_PROBES_UPROBES_JUMP_H */
