// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases for the arm64 port: every instruction class the port
 * simulates or steps, probed on a function built around it and checked
 * against the unprobed run (branches taken and not taken), the classes it
 * refuses and their errno, SIMD literal loads and pointer authentication,
 * all of these probed at once, a kretprobe over a signed frame, entry
 * probes on ftrace call sites (where they go, what they see, redirects),
 * the BRKs of a batch in and out, the ESR a fault_handler sees, and
 * landing pads (BTI) reached by real and by simulated branches.  The
 * arch-neutral cases are kernel/kprobes/kprobes_kunit.c.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/kprobes_hit.h>
#include <linux/ftrace.h>
#include <linux/irqflags.h>
#include <linux/kdebug.h>
#include <linux/kallsyms.h>
#include <linux/pgtable.h>
#include <linux/rethook.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uprobes.h>
#include <linux/vmalloc.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/esr.h>
#include <asm/insn.h>
#include <asm/neon.h>
#include <asm/patching.h>
#include <asm/simd.h>
#include <asm/sysreg.h>

#include "kprobes_kunit.h"
#include "decode.h"

#include "kprobes_arm64_kunit.h"

typedef u64 (*kpa_fn)(u64 x);

/* Also run with interrupts masked: the entry's result depends on DAIF. */
#define KPA_BOTH_IRQ_STATES	BIT(0)

struct kpa_case {
	const char *name;
	kpa_fn fn;
	const unsigned long *insn;
	enum arm64_probe_class class;
	u64 inputs[4];
	unsigned int ninputs;
	unsigned int flags;
};

#define KPA(n, f, c, fl, ...) {						\
	.name = n, .fn = f, .insn = &f##_insn, .class = c, .flags = fl,	\
	.inputs = { __VA_ARGS__ },					\
	.ninputs = ARRAY_SIZE(((u64[]){ __VA_ARGS__ })),		\
}

static const struct kpa_case kpa_cases[] = {
	KPA("b.lt", kpa_bcond, ARM64_PROBE_BCOND, 0, 0, 4, 5, 9),
	KPA("b.hi", kpa_bcond_hi, ARM64_PROBE_BCOND, 0, 0, 5, 6, -1ULL),
	KPA("cbz", kpa_cbz, ARM64_PROBE_CBZ, 0, 0, 1),
	KPA("cbnz w", kpa_cbnz, ARM64_PROBE_CBZ, 0, 0, 1, 1ULL << 32),
	KPA("tbz #33", kpa_tbz, ARM64_PROBE_TBZ, 0, 0, 1ULL << 33, 1ULL << 1),
	KPA("tbnz #2", kpa_tbnz, ARM64_PROBE_TBZ, 0, 0, 4, 3),
	KPA("b", kpa_b, ARM64_PROBE_B, 0, 5),
	KPA("bl", kpa_bl, ARM64_PROBE_B, 0, 5),
	KPA("adr", kpa_adr, ARM64_PROBE_ADR, 0, 0),
	KPA("adrp", kpa_adrp, ARM64_PROBE_ADR, 0, 0),
	KPA("ldr x literal", kpa_ldr_x, ARM64_PROBE_LDR_LIT, 0, 0),
	KPA("ldr w literal", kpa_ldr_w, ARM64_PROBE_LDR_LIT, 0, 0),
	KPA("ldrsw literal", kpa_ldrsw, ARM64_PROBE_LDR_LIT, 0, 0),
	KPA("prfm literal", kpa_prfm, ARM64_PROBE_NOP, 0, 1),
	KPA("br", kpa_br, ARM64_PROBE_BR_REG, 0, 0),
	KPA("br x16", kpa_br16, ARM64_PROBE_BR_REG, 0, 0),
	KPA("blr to a landing pad", kpa_blr_pad, ARM64_PROBE_BR_REG, 0, 3),
	KPA("blr", kpa_blr, ARM64_PROBE_BR_REG, 0, 3),
	KPA("ret", kpa_ret, ARM64_PROBE_RET, 0, 3),
	KPA("nop", kpa_nop, ARM64_PROBE_NOP, 0, 3),
	KPA("mrs daif", kpa_mrs_daif, ARM64_PROBE_MRS_DAIF, KPA_BOTH_IRQ_STATES, 0),
	KPA("msr daifset", kpa_daifset, ARM64_PROBE_MSR_DAIF_IMM,
	    KPA_BOTH_IRQ_STATES, 0),
	KPA("msr daif", kpa_msr_daif, ARM64_PROBE_MSR_DAIF, 0, 0, PSR_I_BIT),
	KPA("stepped, DAIF after", kpa_daif_step, ARM64_PROBE_STEP,
	    KPA_BOTH_IRQ_STATES, 0),
	KPA("autiasp", kpa_autiasp, ARM64_PROBE_STEP, 0, 3),
	KPA("stp with writeback", kpa_stack, ARM64_PROBE_STEP, 0, 21),
	KPA("add #imm, lsl #12", kpa_add_imm, ARM64_PROBE_ALU, 0, 0, -1ULL),
	KPA("sub w, #imm", kpa_sub_imm_w, ARM64_PROBE_ALU, 0, 0, 7,
	    1ULL << 32 | 5),
	KPA("mov from sp", kpa_mov_sp, ARM64_PROBE_ALU, 0, 3),
	KPA("mov", kpa_mov_reg, ARM64_PROBE_ALU, 0, 3, -1ULL),
	KPA("eor #imm", kpa_eor_imm, ARM64_PROBE_ALU, 0, 0, 0xf0f0ULL),
	KPA("and w, #imm", kpa_and_imm_w, ARM64_PROBE_ALU, 0, -1ULL,
	    0x12345678ULL),
	KPA("orr #imm", kpa_orr_imm, ARM64_PROBE_ALU, 0, 0, 1ULL << 63),
	KPA("bic, lsr", kpa_bic_lsr, ARM64_PROBE_ALU, 0, 0xff, -1ULL),
	KPA("eon w, ror", kpa_eon_ror_w, ARM64_PROBE_ALU, 0, 0x80000001ULL,
	    0xdeadbeefcafeULL),
	KPA("add, lsl", kpa_add_lsl, ARM64_PROBE_ALU, 0, 1, 1ULL << 61),
	KPA("neg w, asr", kpa_neg_asr_w, ARM64_PROBE_ALU, 0, 0x80000000ULL,
	    12),
	KPA("movk", kpa_movk, ARM64_PROBE_ALU, 0, 0, -1ULL),
	KPA("movn w", kpa_movn_w, ARM64_PROBE_ALU, 0, 0),
	KPA("movz", kpa_movz, ARM64_PROBE_ALU, 0, 0),
	KPA("stp at sp + 16", kpa_frame_stp, ARM64_PROBE_FRAME_PAIR, 0, 5),
	KPA("ldp at sp + 16", kpa_frame_ldp, ARM64_PROBE_FRAME_PAIR, 0, 5),
	KPA("str at sp + 24", kpa_frame_str, ARM64_PROBE_FRAME_SLOT, 0, 5, -1ULL),
	KPA("ldr w at sp + 20", kpa_frame_ldr_w, ARM64_PROBE_FRAME_SLOT, 0, 5,
	    0x1234567800000009ULL, -1ULL),
};

static int hits, posts;
static unsigned long pc_at_pre;

static int count_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	pc_at_pre = instruction_pointer(regs);
	return 0;
}

static void count_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	posts++;
}

/* Call @c->fn on @in, with interrupts masked when @masked. */
static u64 run(const struct kpa_case *c, u64 in, bool masked)
{
	unsigned long flags;
	u64 out;

	if (!masked)
		return c->fn(in);
	local_irq_save(flags);
	out = c->fn(in);
	local_irq_restore(flags);
	return out;
}

static void kpa_case_desc(const struct kpa_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpa_class, kpa_cases, kpa_case_desc);

/*
 * Probe the instruction, with a post_handler so that every way through
 * (simulated or stepped) must come back to it, and compare each call
 * with the unprobed one.
 */
static void kpa_each_class(struct kunit *test)
{
	const struct kpa_case *c = test->param_value;
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)*c->insn, .pre_handler = count_pre,
		.post_handler = count_post });
	u64 want[ARRAY_SIZE(c->inputs)][2];
	unsigned int i, m, calls = 0;

	for (i = 0; i < c->ninputs; i++)
		for (m = 0; m < 2; m++)
			want[i][m] = run(c, c->inputs[i], m);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, kp->ainsn.class, c->class);
	KUNIT_EXPECT_EQ(test, !kp->ainsn.insn, c->class != ARM64_PROBE_STEP);
	hits = 0;
	posts = 0;
	for (i = 0; i < c->ninputs; i++) {
		for (m = 0; m < 2; m++) {
			if (m && !(c->flags & KPA_BOTH_IRQ_STATES))
				continue;
			KUNIT_EXPECT_EQ_MSG(test, run(c, c->inputs[i], m), want[i][m],
					    "input %llx, irqs %s", c->inputs[i],
					    m ? "masked" : "on");
			calls++;
		}
	}
	KUNIT_EXPECT_EQ(test, hits, calls);
	KUNIT_EXPECT_EQ(test, posts, calls);
	KUNIT_EXPECT_EQ(test, pc_at_pre, *c->insn);
	unregister_kprobe(kp);
}

/* Every instruction of every function above, all probed at once. */
static void kpa_every_instruction(struct kunit *test)
{
	unsigned long size, offset, addr;
	struct kprobe **kps;
	unsigned int i, j, n = 0, max = 0;
	u64 want[ARRAY_SIZE(kpa_cases)][4];

	for (i = 0; i < ARRAY_SIZE(kpa_cases); i++) {
		addr = (unsigned long)kpa_cases[i].fn;
		KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(addr, &size,
								    &offset));
		max += size / AARCH64_INSN_SIZE;
		for (j = 0; j < kpa_cases[i].ninputs; j++)
			want[i][j] = kpa_cases[i].fn(kpa_cases[i].inputs[j]);
	}
	kps = kunit_kcalloc(test, max, sizeof(*kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	for (i = 0; i < ARRAY_SIZE(kpa_cases); i++) {
		kallsyms_lookup_size_offset((unsigned long)kpa_cases[i].fn,
					    &size, &offset);
		for (offset = 0; offset < size; offset += AARCH64_INSN_SIZE) {
			addr = (unsigned long)kpa_cases[i].fn + offset;
			kps[n] = test_probe(test, &(struct kprobe) {
				.addr = (kprobe_opcode_t *)addr,
				.pre_handler = count_pre,
				.post_handler = (n & 1) ? count_post : NULL });
			KUNIT_ASSERT_EQ(test, register_kprobe(kps[n]), 0);
			n++;
		}
	}
	hits = 0;
	for (i = 0; i < ARRAY_SIZE(kpa_cases); i++)
		for (j = 0; j < kpa_cases[i].ninputs; j++)
			KUNIT_EXPECT_EQ_MSG(test, kpa_cases[i].fn(kpa_cases[i].inputs[j]),
					    want[i][j], "%s input %llx",
					    kpa_cases[i].name, kpa_cases[i].inputs[j]);
	KUNIT_EXPECT_GT(test, hits, (int)ARRAY_SIZE(kpa_cases));
	unregister_kprobes(kps, n);
}

/* Each refused class, and the errno it gets. */
static void kpa_refused_classes(struct kunit *test)
{
	static const struct {
		const char *what;
		const unsigned long *at;
		int add;
		int err;
	} r[] = {
		{ "ldxr", &kpa_ldxr_insn, 0, -EINVAL },
		{ "between ldxr and stxr", &kpa_in_exclusive_insn, 0, -EINVAL },
		{ "stxr", &kpa_stxr_insn, 0, -EINVAL },
		{ "after the stxr", &kpa_after_exclusive_insn, 0, 0 },
		{ "svc", &kpa_svc_insn, 0, -EINVAL },
		{ "hvc", &kpa_hvc_insn, 0, -EINVAL },
		{ "eret", &kpa_eret_insn, 0, -EINVAL },
		{ "msr spsel", &kpa_msr_spsel_insn, 0, -EINVAL },
		{ "mrs elr_el1", &kpa_mrs_elr_insn, 0, -EINVAL },
		{ "cpyfp (MOPS)", &kpa_mops_insn, 0, -EINVAL },
		{ "braa", &kpa_braa_insn, 0, -EINVAL },
		{ "misaligned", &kpa_after_exclusive_insn, 2, -EILSEQ },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		struct kprobe *kp = test_probe(test, &(struct kprobe) {
			.addr = (kprobe_opcode_t *)(*r[i].at + r[i].add) });

		KUNIT_EXPECT_EQ_MSG(test, register_kprobe(kp), r[i].err,
				    "%s", r[i].what);
		if (!r[i].err)
			unregister_kprobe(kp);
		KUNIT_EXPECT_FALSE(test, looks_registered(kp));
	}
}

/*
 * Literal loads of every width, against values written out rather than
 * against the unprobed run: the simulator reads a literal through a
 * buffer, and a buffer of the wrong width still gives the right value on
 * a little-endian kernel.  The expectations hold for either byte order
 * (.word and .quad are the kernel's own), so a big-endian build catches
 * a read into the wrong half.  ldr s/d/q (literal) are simulated: stepped
 * from a slot they would load from the slot's neighbourhood.
 */
static void kpa_literal_loads(struct kunit *test)
{
	const bool be = IS_ENABLED(CONFIG_CPU_BIG_ENDIAN);
	const u64 q0 = 0x0123456789abcdefULL, q1 = 0xfedcba9876543210ULL;
	const struct {
		const char *what;
		kpa_fn fn;
		const unsigned long *insn;
		u64 in;
		bool simd;
		u64 want;
	} l[] = {
		{ "ldr w", kpa_ldr_w, &kpa_ldr_w_insn, 0, false, 0x80000001ULL },
		{ "ldrsw", kpa_ldrsw, &kpa_ldrsw_insn, 0, false,
		  0xffffffff80000001ULL },
		{ "ldr x", kpa_ldr_x, &kpa_ldr_x_insn, 0, false,
		  0x1122334455667788ULL },
		{ "ldr s", kpa_ldr_s, &kpa_ldr_s_insn, 0, true, 0x80000001ULL },
		{ "ldr d", kpa_ldr_d, &kpa_ldr_d_insn, 0, true,
		  0x1122334455667788ULL },
		/* One 128-bit value: its first quad is the top on big-endian. */
		{ "ldr q, low half", kpa_ldr_q, &kpa_ldr_q_insn, 1, true,
		  be ? q1 : q0 },
		{ "ldr q, high half", kpa_ldr_q, &kpa_ldr_q_insn, 0, true,
		  be ? q0 : q1 },
	};
	bool simd = may_use_simd();
	unsigned int i, probed;
	u64 got[2];

	for (i = 0; i < ARRAY_SIZE(l); i++) {
		struct kprobe *kp = test_probe(test, &(struct kprobe) {
			.addr = (kprobe_opcode_t *)*l[i].insn,
			.pre_handler = count_pre, .post_handler = count_post });

		if (l[i].simd && !simd) {
			kunit_info(test, "%s: no kernel-mode SIMD here", l[i].what);
			continue;
		}
		KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
		KUNIT_EXPECT_EQ(test, kp->ainsn.class, l[i].simd ?
				ARM64_PROBE_LDR_LIT_FP : ARM64_PROBE_LDR_LIT);
		for (probed = 0; probed < 2; probed++) {
			if (probed)
				enable_kprobe(kp);
			else
				disable_kprobe(kp);
			hits = 0;
			posts = 0;
			if (l[i].simd)
				kernel_neon_begin();
			got[probed] = l[i].fn(l[i].in);
			if (l[i].simd)
				kernel_neon_end();
			KUNIT_EXPECT_EQ_MSG(test, got[probed], l[i].want, "%s%s",
					    l[i].what, probed ? ", probed" : "");
			KUNIT_EXPECT_EQ(test, hits, probed);
			KUNIT_EXPECT_EQ(test, posts, probed);
		}
		unregister_kprobe(kp);
	}
}

static bool cpu_has_pauth(void)
{
	u64 isar1 = read_sysreg_s(SYS_ID_AA64ISAR1_EL1);
	u64 isar2 = read_sysreg_s(SYS_ID_AA64ISAR2_EL1);

	return (isar1 & (ID_AA64ISAR1_EL1_APA_MASK | ID_AA64ISAR1_EL1_API_MASK)) ||
	       (isar2 & ID_AA64ISAR2_EL1_APA3_MASK);
}

/* retaa authenticates x30 against sp at the hit, then returns. */
static void kpa_retaa_simulated(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpa_retaa_insn,
		.pre_handler = count_pre, .post_handler = count_post });

	if (!cpu_has_pauth())
		kunit_skip(test, "no pointer authentication on this CPU");
	KUNIT_ASSERT_EQ(test, kpa_retaa(4), 5);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, kp->ainsn.class, ARM64_PROBE_RET_AUTH);
	hits = 0;
	posts = 0;
	KUNIT_EXPECT_EQ(test, kpa_retaa(4), 5);
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);
	unregister_kprobe(kp);
}

static int ret_seen;
static u64 ret_value;

static int count_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ret_seen++;
	ret_value = regs_return_value(regs);
	return 0;
}

/*
 * A kretprobe on a function that signs its return address: the entry
 * swaps x30 before paciasp signs it, so autiasp and ret still agree.
 */
static void kpa_kretprobe_signed_frame(struct kunit *test)
{
	struct kretprobe krp = {
		.kp.addr = (kprobe_opcode_t *)kpa_autiasp,
		.handler = count_ret,
	};

	ret_seen = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&krp), 0);
	KUNIT_EXPECT_EQ(test, kpa_autiasp(41), 42);
	KUNIT_EXPECT_EQ(test, kpa_stack(2), 4);
	unregister_kretprobe(&krp);
	KUNIT_EXPECT_EQ(test, ret_seen, 1);
	KUNIT_EXPECT_EQ(test, ret_value, 42);
}

static struct pt_regs trap_frame, return_frame;

/*
 * What a frame built without a trap must show in the frame cases below:
 * no syscall, interrupts masked when they were, and the flags of the
 * `cmp xN, #5` the probed code did on @in.
 */
static void expect_frame_state(struct kunit *test, const struct pt_regs *regs,
			       u64 in, bool masked)
{
	u64 nzcv = (s64)in < 5 ? PSR_N_BIT : 0;

	if (in == 5)
		nzcv |= PSR_Z_BIT;
	if (in >= 5)
		nzcv |= PSR_C_BIT;
	KUNIT_EXPECT_EQ(test, regs->syscallno, NO_SYSCALL);
	KUNIT_EXPECT_EQ(test, !!(regs->pstate & PSR_I_BIT), masked);
	KUNIT_EXPECT_EQ_MSG(test, regs->pstate & (PSR_N_BIT | PSR_Z_BIT |
						  PSR_C_BIT | PSR_V_BIT),
			    nzcv, "input %llx", in);
}

static int save_trap_frame(struct kprobe *kp, struct pt_regs *regs)
{
	trap_frame = *regs;
	return 0;
}

static int save_return_frame(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	return_frame = *regs;
	return 0;
}

/*
 * Returns reach a kretprobe's handler through the trampoline, with no
 * trap.  Its frame must be the one a BRK on the ret showed just before
 * (registers, sp, PSTATE with each flag, interrupts on and masked), but
 * for pc, which already holds the real return address.
 */
static void kpa_kretprobe_frame_is_trap_frame(struct kunit *test)
{
	static const u64 inputs[] = { 3, 5, 7, -1ULL };
	struct kprobe *at_ret = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpa_flags_ret_insn,
		.pre_handler = save_trap_frame });
	struct kretprobe krp = {
		.kp.addr = (kprobe_opcode_t *)kpa_flags_ret,
		.handler = save_return_frame,
	};
	const unsigned long tramp = (unsigned long)arch_rethook_trampoline;
	unsigned int i, r, masked;
	unsigned long flags;
	u64 ret;

	KUNIT_ASSERT_EQ(test, register_kprobe(at_ret), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&krp), 0);
	for (masked = 0; masked < 2; masked++) {
		for (i = 0; i < ARRAY_SIZE(inputs); i++) {
			memset(&trap_frame, 0, sizeof(trap_frame));
			memset(&return_frame, 0x5a, sizeof(return_frame));
			if (masked)
				local_irq_save(flags);
			ret = kpa_flags_ret(inputs[i]);
			if (masked)
				local_irq_restore(flags);
			KUNIT_EXPECT_EQ(test, ret, inputs[i] + 1);
			for (r = 0; r < 31; r++)
				KUNIT_EXPECT_EQ_MSG(test, return_frame.regs[r],
						    trap_frame.regs[r],
						    "x%u, input %llx", r,
						    inputs[i]);
			KUNIT_EXPECT_EQ(test, return_frame.sp, trap_frame.sp);
			KUNIT_EXPECT_EQ_MSG(test, return_frame.pstate,
					    trap_frame.pstate, "input %llx",
					    inputs[i]);
			KUNIT_EXPECT_EQ(test, trap_frame.regs[30], tramp);
			KUNIT_EXPECT_EQ(test, trap_frame.regs[17],
					inputs[i] + 17);
			KUNIT_EXPECT_NE(test, return_frame.pc, tramp);
			expect_frame_state(test, &return_frame, inputs[i], masked);
		}
	}
	unregister_kretprobe(&krp);
	KUNIT_EXPECT_EQ(test, krp.nmissed, 0);
}

/*
 * kstrdup() is traced and called from all over the kernel: the ftrace
 * cases count and record only the calls this test's task makes.
 */
static struct task_struct *ftrace_caller_task;
static int site_hits, site_posts;
static unsigned long site_post_pc;
static struct pt_regs site_frame, after_site_frame;
static const char canned[] = "from the handler";

static bool mine(void)
{
	return current == ftrace_caller_task;
}

static int count_site(struct kprobe *kp, struct pt_regs *regs)
{
	if (mine())
		site_hits++;
	return 0;
}

static void count_site_post(struct kprobe *kp, struct pt_regs *regs,
			    unsigned long flags)
{
	if (mine()) {
		site_posts++;
		site_post_pc = instruction_pointer(regs);
	}
}

static int save_site_frame(struct kprobe *kp, struct pt_regs *regs)
{
	if (mine())
		site_frame = *regs;
	return 0;
}

static int save_after_site_frame(struct kprobe *kp, struct pt_regs *regs)
{
	if (mine())
		after_site_frame = *regs;
	return 0;
}

/* Return @canned from kstrdup() without running it, as an override does. */
static int return_canned(struct kprobe *kp, struct pt_regs *regs)
{
	if (!mine())
		return 0;
	site_hits++;
	regs->regs[0] = (unsigned long)canned;
	instruction_pointer_set(regs, regs->regs[30]);
	return 1;
}

/*
 * A probe registered alone on an ftrace site starts on its bridge BRK
 * (kernel/kprobes/bridge.c) and moves to ftrace later: each ftrace case
 * runs both ways.
 */
static const bool kpa_through_ftrace[] = { false, true };

static void kpa_way_desc(const bool *through_ftrace, char *desc)
{
	strscpy(desc, *through_ftrace ? "through ftrace" : "as registered",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpa_way, kpa_through_ftrace, kpa_way_desc);

static void kpa_settle(struct kunit *test)
{
	if (*(const bool *)test->param_value)
		kprobe_bridges_flush();
}

/* kstrdup()'s ftrace call site, or skip the case. */
static unsigned long kstrdup_site(struct kunit *test)
{
	unsigned long site = ftrace_location((unsigned long)kstrdup);

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) || !site)
		kunit_skip(test, "no kprobes on ftrace call sites here");
	ftrace_caller_task = current;
	return site;
}

/*
 * arm64 functions reach ftrace through a call site after a landing pad
 * and ftrace's `mov x9, x30`.  A probe on the site is reached through
 * ftrace, and so is an entry probe: asked for by name, at the function's
 * address or at any word before the site, it goes on the site.  Its
 * post_handler runs with pc past the site.
 */
static void kpa_ftrace_call_site(struct kunit *test)
{
	unsigned long site = kstrdup_site(test);
	unsigned long entry = (unsigned long)kstrdup, at;
	struct kprobe *kps[4];
	unsigned int i, n = 0;
	char *copy;

	KUNIT_ASSERT_GT(test, site, entry);
	KUNIT_ASSERT_LE(test, site - entry, 2 * AARCH64_INSN_SIZE);
	kps[n++] = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)site, .pre_handler = count_site,
		.post_handler = count_site_post });
	kps[n++] = test_probe(test, &(struct kprobe) {
		.symbol_name = "kstrdup", .pre_handler = count_site });
	for (at = entry; at < site; at += AARCH64_INSN_SIZE)
		kps[n++] = test_probe(test, &(struct kprobe) {
			.addr = (kprobe_opcode_t *)at,
			.pre_handler = count_site });
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ_MSG(test, register_kprobe(kps[i]), 0, "probe %u", i);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned long)kps[i]->addr, site,
				    "probe %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, kprobe_ftrace(kps[i]), "probe %u", i);
	}
	kpa_settle(test);
	site_hits = 0;
	site_posts = 0;
	copy = kstrdup("kprobes", GFP_KERNEL);
	KUNIT_EXPECT_STREQ(test, copy, "kprobes");
	kfree(copy);
	KUNIT_EXPECT_EQ(test, site_hits, n);
	KUNIT_EXPECT_EQ(test, site_posts, 1);
	KUNIT_EXPECT_EQ(test, site_post_pc, site + AARCH64_INSN_SIZE);
	for (i = 0; i < n; i++)
		unregister_kprobe(kps[i]);
	copy = kstrdup("again", GFP_KERNEL);
	kfree(copy);
	KUNIT_EXPECT_EQ(test, site_hits, n);
}

/*
 * A pre_handler on the site that sets pc and x0 makes the function
 * return at once with x0, as BPF's override and fail_function do.
 */
static void kpa_ftrace_site_redirects(struct kunit *test)
{
	unsigned long site = kstrdup_site(test);
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)site, .pre_handler = return_canned });
	char *copy;

	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	kpa_settle(test);
	site_hits = 0;
	copy = kstrdup("kprobes", GFP_KERNEL);
	/* kstrdup() is __malloc: the compiler takes it for a new object. */
	OPTIMIZER_HIDE_VAR(copy);
	KUNIT_EXPECT_PTR_EQ(test, copy, (char *)canned);
	KUNIT_EXPECT_EQ(test, site_hits, 1);
	unregister_kprobe(kp);
	copy = kstrdup("kprobes", GFP_KERNEL);
	KUNIT_EXPECT_STREQ(test, copy, "kprobes");
	kfree(copy);
}

/*
 * The regs a handler on the site sees are those a BRK on the next
 * instruction sees, but for pc, which is the site, and for x9-x17, the
 * scratch registers ftrace and the hit's C code use on the way: general
 * registers, sp and PSTATE with each flag, interrupts on and masked.  x9
 * holds the return address, as the patched entry left it, and x12-x16
 * what the caller put there.
 */
static void kpa_ftrace_frame_is_trap_frame(struct kunit *test)
{
	static const u64 inputs[] = { 3, 5, 7, -1ULL };
	unsigned long site = kstrdup_site(test);
	struct kprobe *on_site = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)site,
		.pre_handler = save_site_frame });
	struct kprobe *after = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)(site + AARCH64_INSN_SIZE),
		.pre_handler = save_after_site_frame });
	unsigned int i, r, masked;
	unsigned long flags;

	KUNIT_ASSERT_EQ(test, register_kprobe(on_site), 0);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(on_site));
	KUNIT_ASSERT_EQ(test, register_kprobe(after), 0);
	KUNIT_ASSERT_FALSE(test, kprobe_ftrace(after));
	kpa_settle(test);
	for (masked = 0; masked < 2; masked++) {
		for (i = 0; i < ARRAY_SIZE(inputs); i++) {
			memset(&site_frame, 0x5a, sizeof(site_frame));
			memset(&after_site_frame, 0, sizeof(after_site_frame));
			if (masked)
				local_irq_save(flags);
			/* kstrdup(NULL) returns NULL at once. */
			KUNIT_EXPECT_NULL(test, kpa_call_traced(NULL, GFP_ATOMIC,
								inputs[i]));
			if (masked)
				local_irq_restore(flags);
			for (r = 0; r < 31; r++) {
				if (r >= 9 && r <= 17)
					continue;
				KUNIT_EXPECT_EQ_MSG(test, site_frame.regs[r],
						    after_site_frame.regs[r],
						    "x%u, input %llx", r,
						    inputs[i]);
			}
			KUNIT_EXPECT_EQ(test, site_frame.regs[9],
					site_frame.regs[30]);
			KUNIT_EXPECT_EQ(test, site_frame.regs[12], inputs[i] + 12);
			KUNIT_EXPECT_EQ(test, site_frame.regs[16], inputs[i] + 16);
			KUNIT_EXPECT_EQ(test, site_frame.sp, after_site_frame.sp);
			KUNIT_EXPECT_EQ_MSG(test, site_frame.pstate,
					    after_site_frame.pstate, "input %llx",
					    inputs[i]);
			KUNIT_EXPECT_EQ(test, site_frame.pc, site);
			KUNIT_EXPECT_EQ(test, after_site_frame.pc,
					site + AARCH64_INSN_SIZE);
			expect_frame_state(test, &site_frame, inputs[i], masked);
		}
	}
	unregister_kprobe(after);
	unregister_kprobe(on_site);
}

/*
 * A batch plants its BRKs with one round of patching and takes them out
 * with another: every word is the BRK while registered and the original
 * afterwards.
 */
static void kpa_batch_plants_and_removes_brks(struct kunit *test)
{
	unsigned long size, offset, at = (unsigned long)kpa_stack;
	struct kprobe **kps;
	u32 *orig, word;
	int i, n;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(at, &size, &offset));
	n = size / AARCH64_INSN_SIZE;
	kps = kunit_kcalloc(test, n, sizeof(*kps), GFP_KERNEL);
	orig = kunit_kcalloc(test, n, sizeof(*orig), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	KUNIT_ASSERT_NOT_NULL(test, orig);
	for (i = 0; i < n; i++) {
		kps[i] = test_probe(test, &(struct kprobe) {
			.addr = (kprobe_opcode_t *)at + i, .pre_handler = count_pre });
		KUNIT_ASSERT_EQ(test, aarch64_insn_read(kps[i]->addr, &orig[i]), 0);
	}
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, n), 0);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, aarch64_insn_read(kps[i]->addr, &word), 0);
		KUNIT_EXPECT_EQ(test, word, (u32)BRK64_OPCODE_KPROBES);
	}
	hits = 0;
	KUNIT_EXPECT_EQ(test, kpa_stack(2), 4);
	/* Straight-line code up to its ret; kallsyms counts padding after. */
	for (i = 0; i < n && !aarch64_insn_is_ret(orig[i]); i++)
		;
	KUNIT_EXPECT_EQ(test, hits, i + 1);
	unregister_kprobes(kps, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, aarch64_insn_read((void *)at + i * 4, &word), 0);
		KUNIT_EXPECT_EQ(test, word, orig[i]);
	}
}

/*
 * A handler's fault on an unmapped kernel address (which arm64 handles in
 * do_bad_area(), not do_page_fault()) reaches the probe's fault_handler,
 * with the ESR of a data abort from the current exception level.
 */
static void kpa_fault_handler_sees_esr(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpa_nop_insn,
		.pre_handler = kunit_fault_pre, .fault_handler = kunit_fault_note });

	kunit_fault_setup(test);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, kpa_nop(3), 4);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kunit_fault.failed_reads, 1);
	KUNIT_EXPECT_EQ(test, kunit_fault.faults, 1);
	KUNIT_EXPECT_EQ(test, ESR_ELx_EC((u32)kunit_fault.trapnr), ESR_ELx_EC_DABT_CUR);
}

static u64 btype_at_pre;

static int note_btype(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	btype_at_pre = regs->pstate & PSR_BTYPE_MASK;
	return 0;
}

/* Is the kernel page holding @addr mapped with the BTI guarded bit? */
static bool page_is_guarded(const void *addr)
{
	unsigned long va = (unsigned long)addr;
	pgd_t *pgdp = pgd_offset_k(va);
	p4d_t *p4dp;
	pud_t *pudp;
	pmd_t *pmdp;

	if (pgd_none(READ_ONCE(*pgdp)))
		return false;
	p4dp = p4d_offset(pgdp, va);
	if (p4d_none(READ_ONCE(*p4dp)))
		return false;
	pudp = pud_offset(p4dp, va);
	if (pud_none(READ_ONCE(*pudp)) || pud_leaf(READ_ONCE(*pudp)))
		return false;
	pmdp = pmd_offset(pudp, va);
	if (pmd_none(READ_ONCE(*pmdp)) || pmd_leaf(READ_ONCE(*pmdp)))
		return false;
	return pte_val(__ptep_get(pte_offset_kernel(pmdp, va))) & PTE_GP;
}

/*
 * A probe on a landing pad sees the BTYPE of the branch that reached it,
 * the same whether the CPU ran that branch or the port simulated it.
 * Where the kernel enforces BTI the pad is stepped from a guarded slot
 * with that BTYPE, so the CPU checks it there as it would in place (a
 * pad that did not accept it would oops the run).
 */
static void kpa_landing_pads(struct kunit *test)
{
	bool enforced = system_supports_bti_kernel();
	const struct {
		const char *what;
		kpa_fn fn;
		const unsigned long *branch, *pad;
		u64 in, out, btype;
	} p[] = {
		{ "br x1 to bti j", kpa_br, &kpa_br_insn, &kpa_pad_j_insn, 0, 1,
		  enforced ? PSR_BTYPE_J : PSR_BTYPE_JC },
		{ "br x16 to bti c", kpa_br16, &kpa_br16_insn, &kpa_pad_c16_insn,
		  0, 3, PSR_BTYPE_JC },
		{ "blr to bti c", kpa_blr_pad, &kpa_blr_pad_insn, &kpa_pad_c_insn,
		  3, 5, PSR_BTYPE_C },
	};
	unsigned int i;
	u64 by_cpu;

	if (!system_supports_bti())
		kunit_skip(test, "no BTI on this CPU or kernel");
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		struct kprobe *on_pad = test_probe(test, &(struct kprobe) {
			.addr = (kprobe_opcode_t *)*p[i].pad,
			.pre_handler = note_btype });
		struct kprobe *on_branch = test_probe(test, &(struct kprobe) {
			.addr = (kprobe_opcode_t *)*p[i].branch,
			.pre_handler = count_pre });

		KUNIT_ASSERT_EQ(test, register_kprobe(on_pad), 0);
		KUNIT_EXPECT_EQ(test, on_pad->ainsn.class,
				enforced ? ARM64_PROBE_STEP : ARM64_PROBE_NOP);
		if (enforced)
			KUNIT_EXPECT_TRUE(test, page_is_guarded(on_pad->ainsn.insn));
		hits = 0;
		btype_at_pre = -1;
		KUNIT_EXPECT_EQ(test, p[i].fn(p[i].in), p[i].out);
		by_cpu = btype_at_pre;
		KUNIT_EXPECT_EQ_MSG(test, by_cpu, p[i].btype, "%s", p[i].what);

		KUNIT_ASSERT_EQ(test, register_kprobe(on_branch), 0);
		btype_at_pre = -1;
		KUNIT_EXPECT_EQ(test, p[i].fn(p[i].in), p[i].out);
		KUNIT_EXPECT_EQ_MSG(test, btype_at_pre, by_cpu,
				    "%s simulated", p[i].what);
		KUNIT_EXPECT_EQ(test, hits, 3);
		unregister_kprobe(on_branch);
		unregister_kprobe(on_pad);
	}
}

static int return_77(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	regs->regs[0] = 77;
	instruction_pointer_set(regs, regs->regs[30]);
	return 1;
}

/*
 * A pre_handler that returns from the probed code, as error injection
 * does, on a pad reached by blr: its return address is no landing pad,
 * so the BTYPE of the blr must not survive the redirect (where BTI is
 * enforced, it would oops the run).
 */
static void kpa_redirect_from_pad(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpa_pad_c_insn,
		.pre_handler = return_77 });

	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	hits = 0;
	KUNIT_EXPECT_EQ(test, kpa_blr_pad(3), 77);
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kpa_blr_pad(3), 5);
}

static struct task_struct *nest_task;
static int nest_outer;
static u64 nest_result;

/* Once, in the test's task: a probed literal load inside this hit. */
static int nest_literal_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current != READ_ONCE(nest_task))
		return 0;
	WRITE_ONCE(nest_task, NULL);
	nest_outer++;
	nest_result = kpa_ldr_x(0);
	return 0;
}

/*
 * A literal load probed and hit inside another probe's handler is a
 * nested hit, simulated.  The simulator reads the literal inside the BRK
 * handler: were that read to hit a probe (copy_from_kernel_nofault() is
 * probeable, and here probed), the nested hit would not be marked as
 * one, the third level would overwrite the outer hit's saved state, and
 * the outer hit would end in "Oops - BRK".
 */
static void kpa_literal_load_in_nested_hit(struct kunit *test)
{
	struct kprobe *outer = test_probe(test, &(struct kprobe) {
		.symbol_name = "copy_from_kernel_nofault",
		.pre_handler = nest_literal_pre });
	struct kprobe *lit = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpa_ldr_x_insn,
		.pre_handler = count_pre });
	u64 src = 0x5eed, dst = 0;

	KUNIT_ASSERT_EQ(test, register_kprobe(lit), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(outer), 0);
	hits = 0;
	nest_outer = 0;
	nest_result = 0;
	WRITE_ONCE(nest_task, current);
	KUNIT_EXPECT_EQ(test, copy_from_kernel_nofault(&dst, &src, sizeof(src)), 0);
	WRITE_ONCE(nest_task, NULL);
	unregister_kprobe(outer);
	KUNIT_EXPECT_EQ(test, dst, 0x5eedULL);
	KUNIT_EXPECT_EQ(test, nest_outer, 1);
	KUNIT_EXPECT_EQ(test, nest_result, 0x1122334455667788ULL);
	/* The nested hit ran no handler: it counts as missed. */
	KUNIT_EXPECT_EQ(test, hits, 0);
	KUNIT_EXPECT_EQ(test, lit->nmissed, 1UL);
	/* And this CPU's state is whole: the next hit runs its handler. */
	KUNIT_EXPECT_EQ(test, kpa_ldr_x(0), 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(lit);
}

/*
 * The 8 bytes before a traceable function hold the pointer to its
 * ftrace_ops (DYNAMIC_FTRACE_WITH_CALL_OPS), which every traced call
 * loads: no probe may go there, and the pointer stays as it was.
 */
static void kpa_ftrace_ops_pointer(struct kunit *test)
{
	unsigned long entry = (unsigned long)kstrdup;
	u64 before, during;
	unsigned int i;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS) ||
	    !ftrace_location(entry))
		kunit_skip(test, "no ftrace ops pointers before functions");
	KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(&before, (void *)entry - 8,
						       sizeof(before)), 0);
	for (i = 4; i <= 8; i += 4) {
		struct kprobe *kp = test_probe(test, &(struct kprobe) {
			.addr = (kprobe_opcode_t *)(entry - i),
			.pre_handler = count_pre });

		KUNIT_EXPECT_EQ_MSG(test, register_kprobe(kp), -EINVAL,
				    "kstrdup - %u", i);
		KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(&during,
							       (void *)entry - 8,
							       sizeof(during)), 0);
		KUNIT_EXPECT_EQ_MSG(test, during, before, "kstrdup - %u", i);
		unregister_kprobe(kp);
	}
}

static unsigned long pc_at_fault;
static const u64 good_word = 0x600d;

/* Points the faulting load somewhere good and has it run again. */
static int repair_load(struct kprobe *kp, struct pt_regs *regs, int trapnr)
{
	kunit_fault.faults++;
	kunit_fault.trapnr = trapnr;
	pc_at_fault = instruction_pointer(regs);
	regs->regs[1] = (unsigned long)&good_word;
	return 1;
}

/*
 * A stepped load faults in its slot and the fault is resolved (here by
 * the fault_handler; KFENCE or a spurious translation fault do the same
 * after it): the load runs again and the hit ends once, its pre_handler
 * not run a second time.
 */
static void kpa_slot_fault_retried_once(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpa_load_insn,
		.pre_handler = count_pre, .post_handler = count_post,
		.fault_handler = repair_load });

	kunit_fault_setup(test);
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, kp->ainsn.class, ARM64_PROBE_STEP);
	hits = 0;
	posts = 0;
	pc_at_fault = 0;
	KUNIT_EXPECT_EQ(test, kpa_load(0, kunit_fault.area + PAGE_SIZE),
			good_word);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kunit_fault.faults, 1);
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_EQ(test, posts, 1);
	/* The fault_handler saw it where the instruction lives. */
	KUNIT_EXPECT_EQ(test, pc_at_fault, kpa_load_insn);
	KUNIT_EXPECT_EQ(test, ESR_ELx_EC((u32)kunit_fault.trapnr),
			ESR_ELx_EC_DABT_CUR);
}

static struct kprobe *running_after_oops;

/* What die() tells the die chain when this handler oopses. */
static int oops_in_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hits++;
	notify_die(DIE_OOPS, "kprobes_arm64 test", regs, 0, 0, SIGSEGV);
	running_after_oops = kprobe_running();
	return 0;
}

/*
 * An oops inside a hit kills the task, not the CPU: the hit's state must
 * go with it, or every later hit on that CPU looks nested and is missed.
 * An oops in a slot is reported at the probed address.  The oops is what
 * die() sends the die chain (a real one would end the run).
 */
static void kpa_oops_in_hit_ends_it(struct kunit *test)
{
	struct kprobe *kp = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpa_nop_insn,
		.pre_handler = oops_in_pre });
	struct kprobe *stepped = test_probe(test, &(struct kprobe) {
		.addr = (kprobe_opcode_t *)kpa_stack_insn,
		.pre_handler = count_pre });
	struct pt_regs regs = { .pstate = PSR_MODE_EL1h | DAIF_MASK };
	struct kprobe_ctlblk *kcb;
	struct kprobe *running;
	unsigned long flags, status;

	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	hits = 0;
	running_after_oops = kp;
	KUNIT_EXPECT_EQ(test, kpa_nop(3), 4);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, hits, 1);
	KUNIT_EXPECT_NULL(test, running_after_oops);

	/* A CPU in the slot of @stepped, as the oops finds it. */
	KUNIT_ASSERT_EQ(test, register_kprobe(stepped), 0);
	KUNIT_ASSERT_NOT_NULL(test, stepped->ainsn.insn);
	regs.pc = (unsigned long)stepped->ainsn.insn;
	local_irq_save(flags);
	kcb = get_kprobe_ctlblk();
	__this_cpu_write(current_kprobe, stepped);
	kcb->kprobe_status = KPROBE_HIT_SS;
	kcb->saved_irq = 0;
	notify_die(DIE_OOPS, "kprobes_arm64 test", &regs, 0, 0, SIGSEGV);
	running = kprobe_running();
	status = kcb->kprobe_status;
	/* Whatever the chain did, this CPU takes hits again. */
	reset_current_kprobe();
	kcb->kprobe_status = 0;
	local_irq_restore(flags);
	KUNIT_EXPECT_NULL(test, running);
	KUNIT_EXPECT_EQ(test, status, 0UL);
	KUNIT_EXPECT_EQ(test, regs.pc, (u64)(unsigned long)stepped->addr);
	KUNIT_EXPECT_EQ(test, regs.pstate & DAIF_MASK, 0ULL);
	hits = 0;
	KUNIT_EXPECT_EQ(test, kpa_stack(2), 4);
	KUNIT_EXPECT_EQ(test, hits, 1);
	unregister_kprobe(stepped);
}

/*
 * Branches and system instructions are probed by allow-list: an encoding
 * the decoder does not know may branch relative to the pc, and stepped
 * from a slot it would branch relative to the slot.
 */
static void kpa_branch_system_allow_list(struct kunit *test)
{
	static const struct {
		const char *what;
		u32 insn;
		enum arm64_probe_class class;
	} d[] = {
		/* Newer branches, unknown to the decoder: refused. */
		{ "cbgt x0, x1 (CB<cc>)", 0xf4010040, ARM64_PROBE_REFUSED },
		{ "cbgt x0, #1 (CB<cc>)", 0xf5008040, ARM64_PROBE_REFUSED },
		{ "retaasppc", 0x5500003f, ARM64_PROBE_REFUSED },
		{ "drps", 0xd6bf03e0, ARM64_PROBE_REFUSED },
		{ "tstart x0", 0xd5233060, ARM64_PROBE_REFUSED },
		{ "tcommit", 0xd503307f, ARM64_PROBE_REFUSED },
		{ "wfet x0", 0xd5031000, ARM64_PROBE_REFUSED },
		{ "msrr (128-bit)", 0xd5500000, ARM64_PROBE_REFUSED },
		{ "svc #0", 0xd4000001, ARM64_PROBE_REFUSED },
		/* Known: simulated or stepped as before. */
		{ "bc.eq (FEAT_HBC)", 0x54000050, ARM64_PROBE_BCOND },
		{ "b.ne", 0x54000041, ARM64_PROBE_BCOND },
		{ "ret", 0xd65f03c0, ARM64_PROBE_RET },
		{ "nop", 0xd503201f, ARM64_PROBE_NOP },
		{ "dmb ish", 0xd5033bbf, ARM64_PROBE_STEP },
		{ "dsb sy", 0xd5033f9f, ARM64_PROBE_STEP },
		{ "isb", 0xd5033fdf, ARM64_PROBE_STEP },
		{ "sb", 0xd50330ff, ARM64_PROBE_STEP },
		{ "clrex", 0xd503305f, ARM64_PROBE_STEP },
		{ "dc civac, x0", 0xd50b7e20, ARM64_PROBE_STEP },
		{ "tlbi vmalle1is", 0xd508831f, ARM64_PROBE_STEP },
		{ "mrs x0, midr_el1", 0xd5380000, ARM64_PROBE_STEP },
		{ "mrs x0, daif", 0xd53b4220, ARM64_PROBE_MRS_DAIF },
		{ "msr daifset, #2", 0xd50342df, ARM64_PROBE_MSR_DAIF_IMM },
	};
	struct pt_regs regs = {};
	unsigned long at = 0x1000;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		struct arm64_probe_verdict v =
			arm64_probe_classify(d[i].insn, &arm64_kprobe_policy);

		KUNIT_EXPECT_EQ_MSG(test, v.class, d[i].class, "%s (%08x)",
				    d[i].what, d[i].insn);
	}

	/* bc.eq branches as b.eq does: +8 when Z is set, else on. */
	regs.pc = at;
	regs.pstate = PSR_Z_BIT;
	KUNIT_EXPECT_TRUE(test, arm64_probe_simulate(0x54000050, ARM64_PROBE_BCOND,
						     at, &regs, &arm64_kprobe_policy));
	KUNIT_EXPECT_EQ(test, regs.pc, (u64)at + 8);
	regs.pc = at;
	regs.pstate = 0;
	KUNIT_EXPECT_TRUE(test, arm64_probe_simulate(0x54000050, ARM64_PROBE_BCOND,
						     at, &regs, &arm64_kprobe_policy));
	KUNIT_EXPECT_EQ(test, regs.pc, (u64)at + 4);
}

/*
 * uprobe_get_swbp_addr() hands tools outside the tree (SystemTap's
 * runtime) the probed address from the registers of a user BRK trap,
 * which leaves the pc on the breakpoint itself.
 */
static void kpa_uprobe_swbp_addr(struct kunit *test)
{
#ifdef CONFIG_UPROBES
	struct pt_regs regs = { .pc = 0x401000 };

	KUNIT_EXPECT_EQ(test, uprobe_get_swbp_addr(&regs), 0x401000UL);
	regs.pc = 0xffffa7dd1004UL;
	KUNIT_EXPECT_EQ(test, uprobe_get_swbp_addr(&regs), 0xffffa7dd1004UL);
#else
	kunit_skip(test, "no uprobes in this kernel");
#endif
}

/* A fake stack for the frame simulators: 64 bytes at FRAME_BASE. */
#define FRAME_BASE	0x7ff0000ULL
static u64 frame_mem[8];
static bool frame_fault;

static int frame_read(void *dst, unsigned long src, size_t len)
{
	if (frame_fault || src < FRAME_BASE ||
	    src + len > FRAME_BASE + sizeof(frame_mem))
		return -EFAULT;
	memcpy(dst, (u8 *)frame_mem + (src - FRAME_BASE), len);
	return 0;
}

static int frame_write(unsigned long dst, const void *src, size_t len)
{
	if (frame_fault || dst < FRAME_BASE ||
	    dst + len > FRAME_BASE + sizeof(frame_mem))
		return -EFAULT;
	memcpy((u8 *)frame_mem + (dst - FRAME_BASE), src, len);
	return 0;
}

/*
 * The frame and data-processing classes: which encodings fall in them for
 * a policy that may move sp (uprobes') and for kernel probes, which leave
 * sp and everything below it alone; and what the frame simulators do to
 * sp, the registers and the stack, declining where the instruction in
 * place would fault.
 */
static void kpa_frame_classes(struct kunit *test)
{
	static const struct arm64_probe_policy frame_pol = {
		.frame = true, .read = frame_read, .write = frame_write,
	};
	static const struct {
		const char *what;
		u32 insn;
		enum arm64_probe_class user, kernel;
	} d[] = {
		{ "stp x29, x30, [sp, #-32]!", 0xa9be7bfd,
		  ARM64_PROBE_FRAME_PAIR, ARM64_PROBE_STEP },
		{ "ldp x29, x30, [sp], #32", 0xa8c27bfd,
		  ARM64_PROBE_FRAME_PAIR, ARM64_PROBE_STEP },
		{ "stp x19, x20, [sp, #16]", 0xa90153f3,
		  ARM64_PROBE_FRAME_PAIR, ARM64_PROBE_FRAME_PAIR },
		{ "stp x0, x1, [sp, #-16]", 0xa93f07e0,
		  ARM64_PROBE_FRAME_PAIR, ARM64_PROBE_STEP },
		{ "mov x29, sp", 0x910003fd, ARM64_PROBE_ALU, ARM64_PROBE_ALU },
		{ "sub sp, sp, #0x10, lsl #12", 0xd14043ff,
		  ARM64_PROBE_FRAME_SP, ARM64_PROBE_STEP },
		{ "and sp, x0, #0xff", 0x92401c1f, ARM64_PROBE_ALU,
		  ARM64_PROBE_STEP },
		/* Not at sp, one register twice, 32-bit: stepped. */
		{ "stp x1, x2, [x0]", 0xa9000801,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "ldp x0, x0, [sp]", 0xa94003e0,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "stp w29, w30, [sp, #-16]!", 0x29be7bfd,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "add x0, x1, #1", 0x91000420, ARM64_PROBE_ALU, ARM64_PROBE_ALU },
		/* Flags, tags, reserved encodings: stepped. */
		{ "adds x0, x1, #1", 0xb1000420,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "addg x0, x1, #0, #0", 0x91800020,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "ands x0, x0, #0xff", 0xf2401c00,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "and x0, x0, #reserved", 0x9200fc00,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "add w0, w1, w2, lsl #32", 0x0b028020,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "add x0, x1, x2, ror #1", 0x8bc20420,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "movz w0, #1, lsl #32", 0x52c00020,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		/* One register at sp or x29; kernel: sp, scaled offset only. */
		{ "str x19, [sp, #16]", 0xf9000bf3,
		  ARM64_PROBE_FRAME_SLOT, ARM64_PROBE_FRAME_SLOT },
		{ "ldr w0, [x29, #28]", 0xb9401fa0,
		  ARM64_PROBE_FRAME_SLOT, ARM64_PROBE_STEP },
		{ "stur w0, [x29, #-4]", 0xb81fc3a0,
		  ARM64_PROBE_FRAME_SLOT, ARM64_PROBE_STEP },
		{ "str x30, [sp, #-16]!", 0xf81f0ffe,
		  ARM64_PROBE_FRAME_SLOT, ARM64_PROBE_STEP },
		{ "ldr x30, [sp], #16", 0xf84107fe,
		  ARM64_PROBE_FRAME_SLOT, ARM64_PROBE_STEP },
		{ "ldur x2, [sp, #-8]", 0xf85f83e2,
		  ARM64_PROBE_FRAME_SLOT, ARM64_PROBE_STEP },
		/* Another base, sign-extending, write-back into the base. */
		{ "ldr x1, [x0, #8]", 0xf9400401,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "ldrsw x0, [sp, #4]", 0xb98007e0,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "ldr x29, [x29, #-8]!", 0xf85f8fbd,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "ldr x0, [sp, x1]", 0xf8616be0,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
		{ "sttr w0, [sp]", 0xb8000be0,
		  ARM64_PROBE_STEP, ARM64_PROBE_STEP },
	};
	struct pt_regs regs = {};
	unsigned long at = 0x400000;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(d); i++) {
		KUNIT_EXPECT_EQ_MSG(test, arm64_probe_classify(d[i].insn, &frame_pol).class,
				    d[i].user, "%s", d[i].what);
		KUNIT_EXPECT_EQ_MSG(test, arm64_probe_classify(d[i].insn,
							       &arm64_kprobe_policy).class,
				    d[i].kernel, "%s", d[i].what);
	}

	/* stp x29, x30, [sp, #-32]!: stored below the old sp, sp moves. */
	memset(frame_mem, 0, sizeof(frame_mem));
	frame_fault = false;
	regs.sp = FRAME_BASE + 32;
	regs.regs[29] = 0x1111;
	regs.regs[30] = 0x2222;
	regs.pc = at;
	regs.pstate = PSR_BTYPE_C;
	KUNIT_ASSERT_TRUE(test, arm64_probe_simulate(0xa9be7bfd, ARM64_PROBE_FRAME_PAIR,
						     at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.sp, FRAME_BASE);
	KUNIT_EXPECT_EQ(test, frame_mem[0], 0x1111ULL);
	KUNIT_EXPECT_EQ(test, frame_mem[1], 0x2222ULL);
	KUNIT_EXPECT_EQ(test, regs.pc, (u64)at + 4);
	KUNIT_EXPECT_EQ(test, regs.pstate & PSR_BTYPE_MASK, 0ULL);

	/* mov x29, sp. */
	KUNIT_ASSERT_TRUE(test, arm64_probe_simulate(0x910003fd, ARM64_PROBE_ALU,
						     at + 4, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.regs[29], FRAME_BASE);

	/* ldp x29, x30, [sp], #32: loaded from the old sp, sp moves back. */
	regs.regs[29] = 0;
	regs.regs[30] = 0;
	KUNIT_ASSERT_TRUE(test, arm64_probe_simulate(0xa8c27bfd, ARM64_PROBE_FRAME_PAIR,
						     at + 8, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.regs[29], 0x1111ULL);
	KUNIT_EXPECT_EQ(test, regs.regs[30], 0x2222ULL);
	KUNIT_EXPECT_EQ(test, regs.sp, FRAME_BASE + 32);

	/* Declined, registers untouched: a fault, then a misaligned sp. */
	frame_fault = true;
	regs.pc = at;
	regs.pstate = PSR_BTYPE_J;
	KUNIT_EXPECT_FALSE(test, arm64_probe_simulate(0xa9be7bfd, ARM64_PROBE_FRAME_PAIR,
						      at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.sp, FRAME_BASE + 32);
	KUNIT_EXPECT_EQ(test, regs.pc, (u64)at);
	frame_fault = false;
	regs.sp = FRAME_BASE + 40;
	KUNIT_EXPECT_FALSE(test, arm64_probe_simulate(0xa9be7bfd, ARM64_PROBE_FRAME_PAIR,
						      at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.sp, FRAME_BASE + 40);
	KUNIT_EXPECT_EQ(test, regs.pstate, PSR_BTYPE_J);
	KUNIT_EXPECT_TRUE(test, arm64_probe_may_step(ARM64_PROBE_FRAME_PAIR));
	KUNIT_EXPECT_FALSE(test, arm64_probe_may_step(ARM64_PROBE_LDR_LIT));

	/* str x30, [sp, #-16]!: stored at the new sp. */
	memset(frame_mem, 0, sizeof(frame_mem));
	regs.sp = FRAME_BASE + 32;
	regs.regs[30] = 0x1234567890abcdefULL;
	KUNIT_ASSERT_TRUE(test, arm64_probe_simulate(0xf81f0ffe, ARM64_PROBE_FRAME_SLOT,
						     at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.sp, FRAME_BASE + 16);
	KUNIT_EXPECT_EQ(test, frame_mem[2], 0x1234567890abcdefULL);
	KUNIT_EXPECT_EQ(test, regs.pc, (u64)at + 4);

	/* ldr w0, [sp]: the low half, zero-extended. */
	regs.regs[0] = -1ULL;
	KUNIT_ASSERT_TRUE(test, arm64_probe_simulate(0xb94003e0, ARM64_PROBE_FRAME_SLOT,
						     at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.regs[0], 0x90abcdefULL);

	/* stur w0, [x29, #-4]: four bytes below the frame pointer. */
	regs.regs[29] = FRAME_BASE + 16;
	KUNIT_ASSERT_TRUE(test, arm64_probe_simulate(0xb81fc3a0, ARM64_PROBE_FRAME_SLOT,
						     at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, frame_mem[1], 0x90abcdef00000000ULL);
	KUNIT_EXPECT_EQ(test, frame_mem[0], 0ULL);

	/* ldr x30, [sp], #16: loaded from the old sp, sp moves back. */
	regs.regs[30] = 0;
	KUNIT_ASSERT_TRUE(test, arm64_probe_simulate(0xf84107fe, ARM64_PROBE_FRAME_SLOT,
						     at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.regs[30], 0x1234567890abcdefULL);
	KUNIT_EXPECT_EQ(test, regs.sp, FRAME_BASE + 32);

	/* Declined, registers untouched: a misaligned sp, then a fault. */
	regs.sp = FRAME_BASE + 40;
	regs.pc = at;
	KUNIT_EXPECT_FALSE(test, arm64_probe_simulate(0xf81f0ffe, ARM64_PROBE_FRAME_SLOT,
						      at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.sp, FRAME_BASE + 40);
	frame_fault = true;
	regs.regs[0] = 7;
	KUNIT_EXPECT_FALSE(test, arm64_probe_simulate(0xb9401fa0, ARM64_PROBE_FRAME_SLOT,
						      at, &regs, &frame_pol));
	KUNIT_EXPECT_EQ(test, regs.regs[0], 7ULL);
	KUNIT_EXPECT_EQ(test, regs.pc, (u64)at);
	frame_fault = false;
	KUNIT_EXPECT_TRUE(test, arm64_probe_may_step(ARM64_PROBE_FRAME_SLOT));
}

static struct kunit_case kprobes_arm64_cases[] = {
	KUNIT_CASE_PARAM(kpa_each_class, kpa_class_gen_params),
	KUNIT_CASE(kpa_every_instruction),
	KUNIT_CASE(kpa_refused_classes),
	KUNIT_CASE(kpa_literal_loads),
	KUNIT_CASE(kpa_retaa_simulated),
	KUNIT_CASE(kpa_kretprobe_signed_frame),
	KUNIT_CASE(kpa_kretprobe_frame_is_trap_frame),
	KUNIT_CASE_PARAM(kpa_ftrace_call_site, kpa_way_gen_params),
	KUNIT_CASE_PARAM(kpa_ftrace_site_redirects, kpa_way_gen_params),
	KUNIT_CASE_PARAM(kpa_ftrace_frame_is_trap_frame, kpa_way_gen_params),
	KUNIT_CASE(kpa_batch_plants_and_removes_brks),
	KUNIT_CASE(kpa_fault_handler_sees_esr),
	KUNIT_CASE(kpa_landing_pads),
	KUNIT_CASE(kpa_redirect_from_pad),
	KUNIT_CASE(kpa_ftrace_ops_pointer),
	KUNIT_CASE(kpa_slot_fault_retried_once),
	KUNIT_CASE(kpa_oops_in_hit_ends_it),
	KUNIT_CASE(kpa_branch_system_allow_list),
	KUNIT_CASE(kpa_uprobe_swbp_addr),
	KUNIT_CASE(kpa_frame_classes),
	/* Last: without its fix it takes the machine down. */
	KUNIT_CASE(kpa_literal_load_in_nested_hit),
	{}
};

static struct kunit_suite kprobes_arm64_suite = {
	.name = "kprobes_arm64",
	.test_cases = kprobes_arm64_cases,
};

kunit_test_suites(&kprobes_arm64_suite);
