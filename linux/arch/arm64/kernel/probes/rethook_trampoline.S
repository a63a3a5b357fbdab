/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a function hooked by rethook returns to.  The BRK hands the
 * return to kretprobe_brk_handler(), which never resumes here.
 */
#include <linux/linkage.h>
#include <asm/brk-imm.h>

	.pushsection .kprobes.text, "ax"
SYM_CODE_START(arch_rethook_trampoline)
	brk	#KRETPROBES_BRK_IMM
	b	.
SYM_CODE_END(arch_rethook_trampoline)
	.popsection
