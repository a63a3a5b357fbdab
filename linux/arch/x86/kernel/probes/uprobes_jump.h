/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probes on 5-byte nops entered by a jump (uprobes_jump.c). */
#ifndef _X86_PROBES_UPROBES_JUMP_H
#define _X86_PROBES_UPROBES_JUMP_H

#include <linux/types.h>

struct arch_uprobe;
struct pt_regs;

void uprobe_jump_prepare(struct arch_uprobe *au, const u8 *text, size_t len);
bool uprobe_stub_syscall(struct pt_regs *regs);

#endif /* _X86_PROBES_UPROBES_JUMP_H */
