/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The functions of kprobes_arm64_kunit_fns.S.  Each takes x0 and returns
 * x0; for each, the variable named after it with _insn holds the address
 * of the instruction the kprobes_arm64 suite probes.
 */
#ifndef _ARM64_KPROBES_ARM64_KUNIT_H
#define _ARM64_KPROBES_ARM64_KUNIT_H

#include <linux/types.h>

u64 kpa_bcond(u64 x);
u64 kpa_bcond_hi(u64 x);
u64 kpa_cbz(u64 x);
u64 kpa_cbnz(u64 x);
u64 kpa_tbz(u64 x);
u64 kpa_tbnz(u64 x);
u64 kpa_b(u64 x);
u64 kpa_bl(u64 x);
u64 kpa_adr(u64 x);
u64 kpa_adrp(u64 x);
u64 kpa_ldr_x(u64 x);
u64 kpa_ldr_w(u64 x);
u64 kpa_ldrsw(u64 x);
u64 kpa_prfm(u64 x);
u64 kpa_br(u64 x);
u64 kpa_br16(u64 x);
u64 kpa_blr_pad(u64 x);
u64 kpa_blr(u64 x);
u64 kpa_ret(u64 x);
u64 kpa_nop(u64 x);
u64 kpa_mrs_daif(u64 x);
u64 kpa_daifset(u64 x);
u64 kpa_msr_daif(u64 x);
u64 kpa_daif_step(u64 x);
u64 kpa_autiasp(u64 x);
u64 kpa_retaa(u64 x);
u64 kpa_stack(u64 x);
u64 kpa_flags_ret(u64 x);
char *kpa_call_traced(const char *s, gfp_t gfp, u64 x);
u64 kpa_add_imm(u64 x);
u64 kpa_sub_imm_w(u64 x);
u64 kpa_mov_sp(u64 x);
u64 kpa_mov_reg(u64 x);
u64 kpa_eor_imm(u64 x);
u64 kpa_and_imm_w(u64 x);
u64 kpa_orr_imm(u64 x);
u64 kpa_bic_lsr(u64 x);
u64 kpa_eon_ror_w(u64 x);
u64 kpa_add_lsl(u64 x);
u64 kpa_neg_asr_w(u64 x);
u64 kpa_movk(u64 x);
u64 kpa_movn_w(u64 x);
u64 kpa_movz(u64 x);
u64 kpa_frame_stp(u64 x);
u64 kpa_frame_ldp(u64 x);
u64 kpa_frame_str(u64 x);
u64 kpa_frame_ldr_w(u64 x);
u64 kpa_ldr_q(u64 x);
u64 kpa_ldr_d(u64 x);
u64 kpa_ldr_s(u64 x);
u64 kpa_load(u64 x, const u64 *p);

extern const unsigned long kpa_bcond_insn, kpa_bcond_hi_insn, kpa_cbz_insn,
	kpa_cbnz_insn, kpa_tbz_insn, kpa_tbnz_insn, kpa_b_insn, kpa_bl_insn,
	kpa_adr_insn, kpa_adrp_insn, kpa_ldr_x_insn, kpa_ldr_w_insn,
	kpa_ldrsw_insn, kpa_prfm_insn, kpa_br_insn, kpa_blr_insn, kpa_ret_insn,
	kpa_nop_insn, kpa_mrs_daif_insn, kpa_daifset_insn, kpa_msr_daif_insn,
	kpa_daif_step_insn, kpa_autiasp_insn, kpa_retaa_insn, kpa_stack_insn,
	kpa_ldr_q_insn, kpa_ldr_d_insn, kpa_br16_insn, kpa_blr_pad_insn,
	kpa_ldr_s_insn, kpa_load_insn, kpa_flags_ret_insn;
extern const unsigned long kpa_add_imm_insn, kpa_sub_imm_w_insn,
	kpa_mov_sp_insn, kpa_mov_reg_insn, kpa_eor_imm_insn,
	kpa_and_imm_w_insn, kpa_orr_imm_insn, kpa_bic_lsr_insn,
	kpa_eon_ror_w_insn, kpa_add_lsl_insn, kpa_neg_asr_w_insn,
	kpa_movk_insn, kpa_movn_w_insn, kpa_movz_insn, kpa_frame_stp_insn,
	kpa_frame_ldp_insn, kpa_frame_str_insn, kpa_frame_ldr_w_insn;

/* Landing pads: kpa_br's, kpa_br16's and kpa_blr_pad's. */
extern const unsigned long kpa_pad_j_insn, kpa_pad_c16_insn, kpa_pad_c_insn;

/* In kpa_refused, which is never called. */
extern const unsigned long kpa_ldxr_insn, kpa_in_exclusive_insn,
	kpa_stxr_insn, kpa_after_exclusive_insn, kpa_svc_insn, kpa_hvc_insn,
	kpa_eret_insn, kpa_msr_spsel_insn, kpa_mrs_elr_insn, kpa_mops_insn,
	kpa_braa_insn;

#endif /* _ARM64_KPROBES_ARM64_KUNIT_H */
