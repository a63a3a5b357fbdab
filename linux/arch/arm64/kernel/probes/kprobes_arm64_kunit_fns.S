/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Functions for the kprobes_arm64 KUnit suite, one per instruction class:
 * each takes x0 and returns x0, and the variable named after it with
 * _insn holds the address of the instruction the suite probes.  Written in assembly so that the
 * instruction under test is exactly the one named.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>

	.text

/*
 * PROBED(x) stores the address of the instruction after it in the
 * variable x_insn.  A label in the text itself would show in kallsyms and
 * split the function in two.
 */
#define PROBED(name)					\
	.pushsection .rodata, "a";			\
	.p2align 3;					\
	.globl name##_insn;				\
name##_insn:						\
	.quad 9999f;					\
	.popsection;					\
9999:

SYM_FUNC_START(kpa_bcond)
	cmp	x0, #5
PROBED(kpa_bcond)
	b.lt	1f
	mov	x0, #2
	ret
1:	mov	x0, #1
	ret
SYM_FUNC_END(kpa_bcond)

SYM_FUNC_START(kpa_bcond_hi)
	cmp	x0, #5
PROBED(kpa_bcond_hi)
	b.hi	1f
	mov	x0, #2
	ret
1:	mov	x0, #1
	ret
SYM_FUNC_END(kpa_bcond_hi)

SYM_FUNC_START(kpa_cbz)
PROBED(kpa_cbz)
	cbz	x0, 1f
	mov	x0, #7
	ret
1:	mov	x0, #9
	ret
SYM_FUNC_END(kpa_cbz)

/* The 32-bit form: x0 = 1 << 32 has w0 == 0. */
SYM_FUNC_START(kpa_cbnz)
PROBED(kpa_cbnz)
	cbnz	w0, 1f
	mov	x0, #3
	ret
1:	mov	x0, #4
	ret
SYM_FUNC_END(kpa_cbnz)

/* Bit 33: the bit number's top bit is b5, bit 31 of the encoding. */
SYM_FUNC_START(kpa_tbz)
PROBED(kpa_tbz)
	tbz	x0, #33, 1f
	mov	x0, #5
	ret
1:	mov	x0, #6
	ret
SYM_FUNC_END(kpa_tbz)

SYM_FUNC_START(kpa_tbnz)
PROBED(kpa_tbnz)
	tbnz	w0, #2, 1f
	mov	x0, #5
	ret
1:	mov	x0, #6
	ret
SYM_FUNC_END(kpa_tbnz)

SYM_FUNC_START(kpa_b)
PROBED(kpa_b)
	b	1f
	mov	x0, #0
	ret
1:	add	x0, x0, #1
	ret
SYM_FUNC_END(kpa_b)

SYM_FUNC_START(kpa_callee)
	add	x0, x0, #10
	ret
SYM_FUNC_END(kpa_callee)

SYM_FUNC_START(kpa_bl)
	mov	x9, x30
PROBED(kpa_bl)
	bl	kpa_callee
	mov	x30, x9
	ret
SYM_FUNC_END(kpa_bl)

SYM_FUNC_START(kpa_adr)
PROBED(kpa_adr)
	adr	x0, kpa_bl
	ret
SYM_FUNC_END(kpa_adr)

SYM_FUNC_START(kpa_adrp)
PROBED(kpa_adrp)
	adrp	x0, kpa_literals
	ret
SYM_FUNC_END(kpa_adrp)

SYM_FUNC_START(kpa_ldr_x)
PROBED(kpa_ldr_x)
	ldr	x0, kpa_lit64
	ret
SYM_FUNC_END(kpa_ldr_x)

SYM_FUNC_START(kpa_ldr_w)
	mov	x0, #-1
PROBED(kpa_ldr_w)
	ldr	w0, kpa_lit32
	ret
SYM_FUNC_END(kpa_ldr_w)

SYM_FUNC_START(kpa_ldrsw)
PROBED(kpa_ldrsw)
	ldrsw	x0, kpa_lit32
	ret
SYM_FUNC_END(kpa_ldrsw)

SYM_FUNC_START(kpa_prfm)
PROBED(kpa_prfm)
	prfm	pldl1keep, kpa_lit64
	add	x0, x0, #1
	ret
SYM_FUNC_END(kpa_prfm)

/*
 * Indirect branches to landing pads (bti is written as its hint so any
 * assembler takes it).  On guarded text br x1 leaves BTYPE j, br x16 jc
 * and blr c; each pad accepts the BTYPE it is reached with.
 */
SYM_FUNC_START(kpa_br)
	adr	x1, 1f
PROBED(kpa_br)
	br	x1
	mov	x0, #0
	ret
1:
PROBED(kpa_pad_j)
	hint	36			/* bti j */
	mov	x0, #1
	ret
SYM_FUNC_END(kpa_br)

SYM_FUNC_START(kpa_br16)
	adr	x16, 1f
PROBED(kpa_br16)
	br	x16
	mov	x0, #0
	ret
1:
PROBED(kpa_pad_c16)
	hint	34			/* bti c: accepts jc */
	mov	x0, #3
	ret
SYM_FUNC_END(kpa_br16)

SYM_FUNC_START(kpa_blr_pad)
	mov	x9, x30
	adr	x1, 1f
PROBED(kpa_blr_pad)
	blr	x1
	mov	x30, x9
	ret
1:
PROBED(kpa_pad_c)
	hint	34			/* bti c */
	add	x0, x0, #2
	ret
SYM_FUNC_END(kpa_blr_pad)

SYM_FUNC_START(kpa_blr)
	mov	x9, x30
	adr	x1, kpa_callee
PROBED(kpa_blr)
	blr	x1
	mov	x30, x9
	ret
SYM_FUNC_END(kpa_blr)

SYM_FUNC_START(kpa_ret)
	add	x0, x0, #1
PROBED(kpa_ret)
	ret
SYM_FUNC_END(kpa_ret)

SYM_FUNC_START(kpa_nop)
PROBED(kpa_nop)
	nop
	add	x0, x0, #1
	ret
SYM_FUNC_END(kpa_nop)

/* Returns DAIF as this code sees it. */
SYM_FUNC_START(kpa_mrs_daif)
PROBED(kpa_mrs_daif)
	mrs	x0, daif
	ret
SYM_FUNC_END(kpa_mrs_daif)

/* Masks IRQs, returns DAIF as that left it, then puts DAIF back. */
SYM_FUNC_START(kpa_daifset)
	mrs	x1, daif
PROBED(kpa_daifset)
	msr	daifset, #2
	mrs	x0, daif
	msr	daif, x1
	ret
SYM_FUNC_END(kpa_daifset)

/* Sets DAIF to x0, returns what it reads back, then puts DAIF back. */
SYM_FUNC_START(kpa_msr_daif)
	mrs	x1, daif
PROBED(kpa_msr_daif)
	msr	daif, x0
	mrs	x0, daif
	msr	daif, x1
	ret
SYM_FUNC_END(kpa_msr_daif)

/* Returns DAIF after a stepped instruction: the step must not leak its mask. */
SYM_FUNC_START(kpa_daif_step)
PROBED(kpa_daif_step)
	add	x0, x0, x0, uxtx	/* extended register: stepped */
	mrs	x0, daif
	ret
SYM_FUNC_END(kpa_daif_step)

/* A signed frame: paciasp ... autiasp, with the autiasp probed. */
SYM_FUNC_START(kpa_autiasp)
	hint	#25			/* paciasp */
	stp	x29, x30, [sp, #-16]!
	add	x0, x0, #1
	ldp	x29, x30, [sp], #16
PROBED(kpa_autiasp)
	hint	#29			/* autiasp */
	ret
SYM_FUNC_END(kpa_autiasp)

/* retaa: only called where the CPU has pointer authentication. */
SYM_FUNC_START(kpa_retaa)
	hint	#25			/* paciasp */
	add	x0, x0, #1
PROBED(kpa_retaa)
	.inst	0xd65f0bff		/* retaa */
SYM_FUNC_END(kpa_retaa)

/*
 * Returns x0 + 1 with the flags of x0 - 5 and every temporary register
 * set from x0, so that the frame at its ret (probed) and the one a
 * kretprobe's trampoline builds after it have something to agree on.
 */
SYM_FUNC_START(kpa_flags_ret)
	add	x9, x0, #9
	add	x10, x0, #10
	add	x11, x0, #11
	add	x12, x0, #12
	add	x13, x0, #13
	add	x14, x0, #14
	add	x15, x0, #15
	add	x16, x0, #16
	add	x17, x0, #17
	add	x1, x0, #1
	cmp	x0, #5
	mov	x0, x1
PROBED(kpa_flags_ret)
	ret
SYM_FUNC_END(kpa_flags_ret)

/*
 * kstrdup(x0, x1), an ftrace-traced function, called with x12-x16 at
 * x2 + 12..16 and the flags of cmp x2, #5: what its ftrace call site
 * shows handlers is compared with what a BRK after the site shows.
 */
SYM_FUNC_START(kpa_call_traced)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	add	x12, x2, #12
	add	x13, x2, #13
	add	x14, x2, #14
	add	x15, x2, #15
	add	x16, x2, #16
	cmp	x2, #5
	bl	kstrdup
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(kpa_call_traced)

SYM_FUNC_START(kpa_stack)
PROBED(kpa_stack)
	stp	x29, x30, [sp, #-32]!
	str	x0, [sp, #16]
	ldr	x1, [sp, #16]
	add	x0, x1, x0
	ldp	x29, x30, [sp], #32
	ret
SYM_FUNC_END(kpa_stack)

/*
 * Register data processing, simulated (ARM64_PROBE_ALU): each form the
 * simulator decodes once, 32- and 64-bit, register 31 as sp and as xzr.
 */
SYM_FUNC_START(kpa_add_imm)
PROBED(kpa_add_imm)
	add	x0, x0, #0x123, lsl #12
	ret
SYM_FUNC_END(kpa_add_imm)

/* 0 - 3 wraps in 32 bits, and the upper half is cleared. */
SYM_FUNC_START(kpa_sub_imm_w)
PROBED(kpa_sub_imm_w)
	sub	w0, w0, #3
	ret
SYM_FUNC_END(kpa_sub_imm_w)

/* Returns x0 when the probed mov read sp right. */
SYM_FUNC_START(kpa_mov_sp)
PROBED(kpa_mov_sp)
	mov	x1, sp
	mov	x2, sp
	sub	x1, x1, x2
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_mov_sp)

SYM_FUNC_START(kpa_mov_reg)
PROBED(kpa_mov_reg)
	mov	x1, x0
	add	x0, x1, #1
	ret
SYM_FUNC_END(kpa_mov_reg)

SYM_FUNC_START(kpa_eor_imm)
PROBED(kpa_eor_imm)
	eor	x0, x0, #0x5555555555555555
	ret
SYM_FUNC_END(kpa_eor_imm)

/* An element of 32 bits, rotated: ones at both ends. */
SYM_FUNC_START(kpa_and_imm_w)
PROBED(kpa_and_imm_w)
	and	w0, w0, #0xff0000ff
	ret
SYM_FUNC_END(kpa_and_imm_w)

/* An element of 16 bits, rotated and repeated. */
SYM_FUNC_START(kpa_orr_imm)
PROBED(kpa_orr_imm)
	orr	x0, x0, #0x0ff00ff00ff00ff0
	ret
SYM_FUNC_END(kpa_orr_imm)

SYM_FUNC_START(kpa_bic_lsr)
PROBED(kpa_bic_lsr)
	bic	x0, x0, x0, lsr #3
	ret
SYM_FUNC_END(kpa_bic_lsr)

SYM_FUNC_START(kpa_eon_ror_w)
PROBED(kpa_eon_ror_w)
	eon	w0, w0, w0, ror #5
	ret
SYM_FUNC_END(kpa_eon_ror_w)

SYM_FUNC_START(kpa_add_lsl)
PROBED(kpa_add_lsl)
	add	x0, x0, x0, lsl #4
	ret
SYM_FUNC_END(kpa_add_lsl)

SYM_FUNC_START(kpa_neg_asr_w)
PROBED(kpa_neg_asr_w)
	neg	w0, w0, asr #2
	ret
SYM_FUNC_END(kpa_neg_asr_w)

SYM_FUNC_START(kpa_movk)
PROBED(kpa_movk)
	movk	x0, #0xbeef, lsl #48
	ret
SYM_FUNC_END(kpa_movk)

SYM_FUNC_START(kpa_movn_w)
	add	x0, x0, #1
PROBED(kpa_movn_w)
	movn	w0, #5, lsl #16
	ret
SYM_FUNC_END(kpa_movn_w)

SYM_FUNC_START(kpa_movz)
	add	x0, x0, #1
PROBED(kpa_movz)
	movz	x0, #0x1234, lsl #32
	ret
SYM_FUNC_END(kpa_movz)

/*
 * A frame pair at a non-negative offset from sp, which a kernel probe
 * simulates (ARM64_PROBE_FRAME_PAIR): the store, then the load.
 */
SYM_FUNC_START(kpa_frame_stp)
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	mov	x1, #7
PROBED(kpa_frame_stp)
	stp	x0, x1, [sp, #16]
	ldp	x1, x0, [sp, #16]
	add	x0, x0, x1, lsl #1
	ldp	x29, x30, [sp], #32
	ret
SYM_FUNC_END(kpa_frame_stp)

SYM_FUNC_START(kpa_frame_ldp)
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	mov	x1, #7
	stp	x0, x1, [sp, #16]
PROBED(kpa_frame_ldp)
	ldp	x1, x0, [sp, #16]
	add	x0, x0, x1, lsl #1
	ldp	x29, x30, [sp], #32
	ret
SYM_FUNC_END(kpa_frame_ldp)

SYM_FUNC_START(kpa_frame_str)
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
PROBED(kpa_frame_str)
	str	x0, [sp, #24]
	ldr	x1, [sp, #24]
	add	x0, x1, #3
	ldp	x29, x30, [sp], #32
	ret
SYM_FUNC_END(kpa_frame_str)

/* Returns x0 plus its upper half, loaded as a W register from the stack. */
SYM_FUNC_START(kpa_frame_ldr_w)
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	str	x0, [sp, #16]
PROBED(kpa_frame_ldr_w)
	ldr	w1, [sp, #20]
	add	x0, x0, x1
	ldp	x29, x30, [sp], #32
	ret
SYM_FUNC_END(kpa_frame_ldr_w)

/*
 * Loads the 16-byte literal into q16 and returns its upper half (x0 == 0)
 * or its lower half: a SIMD literal load that is stepped out of line
 * would read the slot's neighbourhood instead.  Caller holds
 * kernel_neon_begin().
 */
SYM_FUNC_START(kpa_ldr_q)
PROBED(kpa_ldr_q)
	ldr	q16, kpa_lit128
	cbz	x0, 1f
	mov	x0, v16.d[0]
	ret
1:	mov	x0, v16.d[1]
	ret
SYM_FUNC_END(kpa_ldr_q)

/* ldr s clears the rest of v18: the sum of its halves is the word. */
SYM_FUNC_START(kpa_ldr_s)
	movi	v18.2d, #0xffffffffffffffff
PROBED(kpa_ldr_s)
	ldr	s18, kpa_lit32
	mov	x0, v18.d[1]
	mov	x1, v18.d[0]
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_ldr_s)

/* Returns the u64 at x1: a stepped load whose address may fault. */
SYM_FUNC_START(kpa_load)
PROBED(kpa_load)
	ldr	x0, [x1]
	ret
SYM_FUNC_END(kpa_load)

SYM_FUNC_START(kpa_ldr_d)
	movi	v17.2d, #0xffffffffffffffff
PROBED(kpa_ldr_d)
	ldr	d17, kpa_lit64
	mov	x0, v17.d[1]		/* 0: a d load clears the rest */
	mov	x1, v17.d[0]
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_ldr_d)

	.p2align 4
SYM_DATA_START_LOCAL(kpa_literals)
kpa_lit128:
	.quad	0x0123456789abcdef, 0xfedcba9876543210
kpa_lit64:
	.quad	0x1122334455667788
kpa_lit32:
	.word	0x80000001
	.word	0
SYM_DATA_END(kpa_literals)

/*
 * Never called: instructions a kprobe must refuse, each behind a label.
 */
SYM_FUNC_START(kpa_refused)
PROBED(kpa_ldxr)
	ldxr	x1, [x0]
PROBED(kpa_in_exclusive)
	add	x1, x1, #1
PROBED(kpa_stxr)
	stxr	w2, x1, [x0]
PROBED(kpa_after_exclusive)
	cbnz	w2, kpa_refused
PROBED(kpa_svc)
	svc	#0
PROBED(kpa_hvc)
	hvc	#0
PROBED(kpa_eret)
	eret
PROBED(kpa_msr_spsel)
	msr	spsel, #1
PROBED(kpa_mrs_elr)
	mrs	x0, elr_el1
PROBED(kpa_mops)
	.inst	0x19010440		/* cpyfp [x0]!, [x1]!, x2! */
PROBED(kpa_braa)
	.inst	0xd71f0820		/* braa x1, x0 */
	ret
SYM_FUNC_END(kpa_refused)
