/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decoder interface arch/arm64/kernel/probes/uprobes.c was written
 * against, kept on top of decode.h until uprobes move to it directly
 * (uprobes_decode.c).
 */
#ifndef _ARM64_KERNEL_PROBES_DECODE_INSN_H
#define _ARM64_KERNEL_PROBES_DECODE_INSN_H

#include <asm/probes.h>

enum probe_insn {
	INSN_REJECTED,
	INSN_GOOD_NO_SLOT,	/* simulated: @handler set */
	INSN_GOOD,		/* stepped out of line */
};

enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api);

#endif /* _ARM64_KERNEL_PROBES_DECODE_INSN_H */
