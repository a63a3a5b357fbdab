// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Carry out, on pt_regs, the A64 instructions a probe cannot run out of
 * line: those whose result depends on the pc, and those that read or
 * write state the trap around an out-of-line step would clobber.  Runs
 * inside the breakpoint handler (kprobes) or the uprobe hit path, so it
 * takes no locks and calls nothing that could itself be probed but the
 * policy's memory read.
 */
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/cpufeature.h>
#include <linux/kprobes.h>
#include <asm/daifflags.h>
#include <asm/ptrace.h>

#include "decode.h"

/* Register @nr as a source or destination, where 31 means xzr. */
static u64 get_x(struct pt_regs *regs, unsigned int nr)
{
	return nr == 31 ? 0 : regs->regs[nr];
}
NOKPROBE_SYMBOL(get_x);

static void set_x(struct pt_regs *regs, unsigned int nr, u64 val)
{
	if (nr != 31)
		regs->regs[nr] = val;
}
NOKPROBE_SYMBOL(set_x);

/* The same where register 31 is sp (add/sub immediate's rd and rn). */
static u64 get_x_or_sp(struct pt_regs *regs, unsigned int nr)
{
	return nr == 31 ? regs->sp : regs->regs[nr];
}
NOKPROBE_SYMBOL(get_x_or_sp);

static void set_x_or_sp(struct pt_regs *regs, unsigned int nr, u64 val)
{
	if (nr == 31)
		regs->sp = val;
	else
		regs->regs[nr] = val;
}
NOKPROBE_SYMBOL(set_x_or_sp);

/* A signed field of @insn, from bit @lo, @width bits wide. */
static s64 sfield(u32 insn, unsigned int lo, unsigned int width)
{
	return sign_extend64(insn >> lo, width - 1);
}
NOKPROBE_SYMBOL(sfield);

/*
 * The BTYPE an indirect branch leaves for the landing-pad check at its
 * target: c for blr; for br, jc through x16/x17 or from unguarded text,
 * else j.  Kernel text is guarded exactly when the kernel
 * enforces BTI; a user page may be guarded or not, so a user br gets jc,
 * which every pad a guarded br could land on also accepts.  Without
 * FEAT_BTI the field is RES0.
 */
static u64 branch_btype(unsigned int opc, unsigned int rn,
			const struct arm64_probe_policy *pol)
{
	if (!system_supports_bti())
		return PSR_BTYPE_NONE;
	if (opc == 1)
		return PSR_BTYPE_C;
	if (rn == 16 || rn == 17 || !pol->kernel || !system_supports_bti_kernel())
		return PSR_BTYPE_JC;
	return PSR_BTYPE_J;
}
NOKPROBE_SYMBOL(branch_btype);

/* Does condition @cond (b.cond, encoding order) hold for @pstate? */
static bool cond_holds(unsigned int cond, u64 pstate)
{
	bool n = pstate & PSR_N_BIT, z = pstate & PSR_Z_BIT;
	bool c = pstate & PSR_C_BIT, v = pstate & PSR_V_BIT;
	bool r;

	switch (cond >> 1) {
	case 0:				/* eq */
		r = z;
		break;
	case 1:				/* cs */
		r = c;
		break;
	case 2:				/* mi */
		r = n;
		break;
	case 3:				/* vs */
		r = v;
		break;
	case 4:				/* hi */
		r = c && !z;
		break;
	case 5:				/* ge */
		r = n == v;
		break;
	case 6:				/* gt */
		r = n == v && !z;
		break;
	default:			/* al, nv */
		return true;
	}
	return (cond & 1) ? !r : r;
}
NOKPROBE_SYMBOL(cond_holds);

/*
 * Authenticate @ptr against @modifier with the kernel's instruction key A
 * or B, as retaa/retab do.  A pointer that fails comes back poisoned (or
 * the CPU traps, with FEAT_FPAC), as it would in place.  The 1716 forms
 * are hints, so this assembles for any CPU.
 */
static u64 auth_kernel_ptr(u64 ptr, u64 modifier, bool key_b)
{
	register u64 x17 asm("x17") = ptr;
	register u64 x16 asm("x16") = modifier;

	if (key_b)
		asm volatile("hint #14" : "+r"(x17) : "r"(x16));	/* autib1716 */
	else
		asm volatile("hint #12" : "+r"(x17) : "r"(x16));	/* autia1716 */
	return x17;
}
NOKPROBE_SYMBOL(auth_kernel_ptr);

/* Load vector register @nr with the 16 bytes at @src, as one value. */
#define LOAD_Q(n)							\
	case n:								\
		asm volatile("ldr q" #n ", [%0]" : : "r"(src) : "memory");\
		break

/*
 * Set vector register @nr to the 128-bit value @hi:@lo.  ldr q loads 16
 * bytes as one value in the kernel's byte order, so the halves are laid
 * out for it: the low one first on little-endian, last on big-endian.
 *
 * The FP/SIMD registers of kernel code are live in the CPU while the
 * breakpoint handler runs (nothing on the exception path touches them),
 * so the probed context's vN is the CPU's vN.
 */
static void set_vreg(unsigned int nr, u64 lo, u64 hi)
{
	const bool be = IS_ENABLED(CONFIG_CPU_BIG_ENDIAN);
	u64 src[2] = { be ? hi : lo, be ? lo : hi };

	switch (nr) {
	LOAD_Q(0); LOAD_Q(1); LOAD_Q(2); LOAD_Q(3);
	LOAD_Q(4); LOAD_Q(5); LOAD_Q(6); LOAD_Q(7);
	LOAD_Q(8); LOAD_Q(9); LOAD_Q(10); LOAD_Q(11);
	LOAD_Q(12); LOAD_Q(13); LOAD_Q(14); LOAD_Q(15);
	LOAD_Q(16); LOAD_Q(17); LOAD_Q(18); LOAD_Q(19);
	LOAD_Q(20); LOAD_Q(21); LOAD_Q(22); LOAD_Q(23);
	LOAD_Q(24); LOAD_Q(25); LOAD_Q(26); LOAD_Q(27);
	LOAD_Q(28); LOAD_Q(29); LOAD_Q(30); LOAD_Q(31);
	}
}
NOKPROBE_SYMBOL(set_vreg);

/*
 * Every simulator ends in one of these.  A simulator starts with BTYPE
 * clear (arm64_probe_simulate() and the kprobes BRK handler see to it, as
 * any instruction but a branch to a register leaves it), so only br and
 * blr have a BTYPE to set.
 */
static __always_inline bool resume(struct pt_regs *regs, u64 pc)
{
	regs->pc = pc;
	return true;
}

static __always_inline bool resume_with_btype(struct pt_regs *regs, u64 pc,
					      u64 btype)
{
	regs->pstate |= btype;
	return resume(regs, pc);
}

/*
 * One function per class, picked once when the probe is prepared, so a
 * hit makes one indirect call instead of a dispatch.  Each returns true
 * when done, false (regs unchanged) when it cannot be.
 */
static bool sim_nop(u32 insn, unsigned long addr, struct pt_regs *regs,
		    const struct arm64_probe_policy *pol)
{
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_nop);

static bool sim_b(u32 insn, unsigned long addr, struct pt_regs *regs,
		  const struct arm64_probe_policy *pol)
{
	if (insn & BIT(31))		/* bl */
		regs->regs[30] = addr + AARCH64_INSN_SIZE;
	return resume(regs, addr + (sfield(insn, 0, 26) << 2));
}
NOKPROBE_SYMBOL(sim_b);

/* b.cond, cbz/cbnz, tbz/tbnz: to @offset (in words, from @lo) if @taken. */
static __always_inline bool branch_if(bool taken, u32 insn, unsigned long addr,
				      struct pt_regs *regs, unsigned int lo,
				      unsigned int width)
{
	u64 target = addr + AARCH64_INSN_SIZE;

	if (taken)
		target = addr + (sfield(insn, lo, width) << 2);
	return resume(regs, target);
}

static bool sim_bcond(u32 insn, unsigned long addr, struct pt_regs *regs,
		      const struct arm64_probe_policy *pol)
{
	return branch_if(cond_holds(insn & 0xf, regs->pstate), insn, addr,
			 regs, 5, 19);
}
NOKPROBE_SYMBOL(sim_bcond);

static bool sim_cbz(u32 insn, unsigned long addr, struct pt_regs *regs,
		    const struct arm64_probe_policy *pol)
{
	u64 val = get_x(regs, insn & 0x1f);

	if (!(insn & BIT(31)))
		val = (u32)val;
	return branch_if((insn & BIT(24)) ? val != 0 : val == 0, insn, addr,
			 regs, 5, 19);
}
NOKPROBE_SYMBOL(sim_cbz);

static bool sim_tbz(u32 insn, unsigned long addr, struct pt_regs *regs,
		    const struct arm64_probe_policy *pol)
{
	unsigned int bit = ((insn >> 31) << 5) | ((insn >> 19) & 0x1f);
	bool set = get_x(regs, insn & 0x1f) & BIT_ULL(bit);

	return branch_if(set == !!(insn & BIT(24)), insn, addr, regs, 5, 14);
}
NOKPROBE_SYMBOL(sim_tbz);

static bool sim_adr(u32 insn, unsigned long addr, struct pt_regs *regs,
		    const struct arm64_probe_policy *pol)
{
	u64 val = (sfield(insn, 5, 19) << 2) | ((insn >> 29) & 3);

	if (insn & BIT(31))		/* adrp */
		val = (addr & ~0xfffUL) + (val << 12);
	else
		val += addr;
	set_x(regs, insn & 0x1f, val);
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_adr);

static bool sim_br_reg(u32 insn, unsigned long addr, struct pt_regs *regs,
		       const struct arm64_probe_policy *pol)
{
	unsigned int rn = (insn >> 5) & 0x1f, opc = (insn >> 21) & 0xf;
	/* Read before blr x30 overwrites it. */
	u64 target = get_x(regs, rn);

	if (opc == 1)			/* blr */
		regs->regs[30] = addr + AARCH64_INSN_SIZE;
	return resume_with_btype(regs, target, branch_btype(opc, rn, pol));
}
NOKPROBE_SYMBOL(sim_br_reg);

/* ret links nothing and leaves no BTYPE: only its register to read. */
static bool sim_ret(u32 insn, unsigned long addr, struct pt_regs *regs,
		    const struct arm64_probe_policy *pol)
{
	return resume(regs, get_x(regs, (insn >> 5) & 0x1f));
}
NOKPROBE_SYMBOL(sim_ret);

static bool sim_ret_auth(u32 insn, unsigned long addr, struct pt_regs *regs,
			 const struct arm64_probe_policy *pol)
{
	return resume(regs, auth_kernel_ptr(regs->regs[30], regs->sp,
					       insn & BIT(10)));
}
NOKPROBE_SYMBOL(sim_ret_auth);

/*
 * ldr w/x, ldrsw (literal); with @fp, ldr s/d/q (literal).  The literal
 * is read into a variable of its own width: a 4-byte one read into a u64
 * lands in the u64's high half on a big-endian kernel.
 */
static bool load_literal(u32 insn, unsigned long addr, struct pt_regs *regs,
			 const struct arm64_probe_policy *pol, bool fp)
{
	unsigned long src = addr + (sfield(insn, 5, 19) << 2);
	unsigned int opc = insn >> 30, rt = insn & 0x1f;
	union {
		u32 w;
		u64 x;
		u64 q[2];
	} lit;
	size_t len;

	if (fp)
		len = 4 << opc;			/* s, d, q */
	else
		len = opc == 1 ? 8 : 4;		/* x; w and ldrsw */
	if (pol->read(&lit, src, len))
		return false;
	if (!fp)
		set_x(regs, rt, opc == 0 ? lit.w :
				opc == 1 ? lit.x : (u64)(s64)(s32)lit.w);
	else if (opc == 0)
		set_vreg(rt, lit.w, 0);
	else if (opc == 1)
		set_vreg(rt, lit.x, 0);
	else if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
		set_vreg(rt, lit.q[1], lit.q[0]);	/* most significant first */
	else
		set_vreg(rt, lit.q[0], lit.q[1]);
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(load_literal);

static bool sim_ldr_lit(u32 insn, unsigned long addr, struct pt_regs *regs,
			const struct arm64_probe_policy *pol)
{
	return load_literal(insn, addr, regs, pol, false);
}
NOKPROBE_SYMBOL(sim_ldr_lit);

static bool sim_ldr_lit_fp(u32 insn, unsigned long addr, struct pt_regs *regs,
			   const struct arm64_probe_policy *pol)
{
	return load_literal(insn, addr, regs, pol, true);
}
NOKPROBE_SYMBOL(sim_ldr_lit_fp);

static bool sim_mrs_daif(u32 insn, unsigned long addr, struct pt_regs *regs,
			 const struct arm64_probe_policy *pol)
{
	set_x(regs, insn & 0x1f, regs->pstate & DAIF_MASK);
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_mrs_daif);

static bool sim_msr_daif(u32 insn, unsigned long addr, struct pt_regs *regs,
			 const struct arm64_probe_policy *pol)
{
	regs->pstate = (regs->pstate & ~DAIF_MASK) |
		       (get_x(regs, insn & 0x1f) & DAIF_MASK);
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_msr_daif);

static bool sim_msr_daif_imm(u32 insn, unsigned long addr, struct pt_regs *regs,
			     const struct arm64_probe_policy *pol)
{
	/* CRm holds D, A, I, F in the order of PSTATE bits 9..6. */
	u64 val = (u64)((insn >> 8) & 0xf) << 6;

	if (insn & BIT(5))		/* daifclr */
		regs->pstate &= ~val;
	else
		regs->pstate |= val;
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_msr_daif_imm);

/*
 * stp/ldp of two X registers at sp.  A misaligned sp would raise an SP
 * alignment fault in place and a stack access may fault: both decline,
 * and the copy out of line does what the instruction would.
 */
static bool sim_frame_pair(u32 insn, unsigned long addr, struct pt_regs *regs,
			   const struct arm64_probe_policy *pol)
{
	unsigned int rt = insn & 31, rt2 = (insn >> 10) & 31;
	s64 imm = sfield(insn, 15, 7) * 8;
	bool post_index = (insn & 0x01800000) == 0x00800000;
	u64 base, val[2];

	if (regs->sp & 15)
		return false;
	base = regs->sp + (post_index ? 0 : imm);
	if (insn & BIT(22)) {
		if (pol->read(val, base, sizeof(val)))
			return false;
		set_x(regs, rt, val[0]);
		set_x(regs, rt2, val[1]);
	} else {
		val[0] = get_x(regs, rt);
		val[1] = get_x(regs, rt2);
		if (pol->write(base, val, sizeof(val)))
			return false;
	}
	/* Pre- and post-indexed forms write the new sp back. */
	if (insn & BIT(23))
		regs->sp += imm;
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_frame_pair);

/*
 * ldr/str of one W or X register at sp or x29 (decode.c's frame_slot()).
 * As for the pairs, a misaligned sp or an access that faults declines.
 */
static bool sim_frame_slot(u32 insn, unsigned long addr, struct pt_regs *regs,
			   const struct arm64_probe_policy *pol)
{
	unsigned int rt = insn & 31, rn = (insn >> 5) & 31;
	bool is_x = insn & BIT(30), scaled = insn & BIT(24);
	bool wback = !scaled && (insn & BIT(10));
	bool post_index = wback && !(insn & BIT(11));
	unsigned int size = is_x ? 8 : 4;
	s64 off = scaled ? (s64)((insn >> 10) & 0xfff) * size :
			   sfield(insn, 12, 9);
	u64 base = get_x_or_sp(regs, rn), at = base + (post_index ? 0 : off);
	u64 x;
	u32 w;

	if (rn == 31 && (regs->sp & 15))
		return false;
	if (insn & BIT(22)) {
		if (is_x ? pol->read(&x, at, 8) : pol->read(&w, at, 4))
			return false;
		set_x(regs, rt, is_x ? x : w);
	} else {
		x = get_x(regs, rt);
		w = x;
		if (is_x ? pol->write(at, &x, 8) : pol->write(at, &w, 4))
			return false;
	}
	if (wback)
		set_x_or_sp(regs, rn, base + off);
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_frame_slot);

/* add/sub of a (possibly shifted) immediate to sp. */
static bool sim_frame_sp(u32 insn, unsigned long addr, struct pt_regs *regs,
			 const struct arm64_probe_policy *pol)
{
	u64 imm = (u64)((insn >> 10) & 0xfff) << (insn & BIT(22) ? 12 : 0);
	u64 src = get_x_or_sp(regs, (insn >> 5) & 31);

	set_x_or_sp(regs, insn & 31, insn & BIT(30) ? src - imm : src + imm);
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_frame_sp);

/* The bitmask a valid logical immediate encodes (decode.c checked it). */
static u64 logical_imm(u32 insn)
{
	unsigned int n = (insn >> 22) & 1, immr = (insn >> 16) & 63;
	unsigned int imms = (insn >> 10) & 63;
	unsigned int size = 1U << (fls(n << 6 | (~imms & 63)) - 1);
	unsigned int rot = immr & (size - 1);
	u64 mask = size == 64 ? ~0ULL : BIT_ULL(size) - 1;
	u64 elem = BIT_ULL((imms & (size - 1)) + 1) - 1;

	/* Rotate right within the element, then repeat it to 64 bits. */
	if (rot)
		elem = (elem >> rot | elem << (size - rot)) & mask;
	for (; size < 64; size *= 2)
		elem |= elem << size;
	return elem;
}
NOKPROBE_SYMBOL(logical_imm);

/* A shifted-register operand: lsl, lsr, asr or ror by @amount. */
static u64 shifted(u64 val, unsigned int type, unsigned int amount, bool sf)
{
	unsigned int width = sf ? 64 : 32;

	if (!sf)
		val = (u32)val;
	if (!amount)
		return val;
	switch (type) {
	case 0:
		return val << amount;
	case 1:
		return val >> amount;
	case 2:
		return sf ? (u64)((s64)val >> amount) :
			    (u64)(u32)((s32)val >> amount);
	default:
		return val >> amount | val << (width - amount);
	}
}
NOKPROBE_SYMBOL(shifted);

/*
 * Register data processing without flags (decode.c's alu_class() says
 * which); 32-bit forms zero the upper half of the result.
 */
static bool sim_alu(u32 insn, unsigned long addr, struct pt_regs *regs,
		    const struct arm64_probe_policy *pol)
{
	unsigned int rd = insn & 31, rn = (insn >> 5) & 31;
	unsigned int rm = (insn >> 16) & 31, opc = (insn >> 29) & 3;
	bool sf = insn & BIT(31), sp_forms = false;
	u64 a, b, res;

	if ((insn & 0x1f800000) == 0x12800000) {		/* mov wide */
		unsigned int shift = ((insn >> 21) & 3) * 16;
		u64 imm = (u64)((insn >> 5) & 0xffff) << shift;

		if (opc == 3)					/* movk */
			res = (get_x(regs, rd) & ~(0xffffULL << shift)) | imm;
		else
			res = opc ? imm : ~imm;			/* movz, movn */
		goto out;
	}
	if ((insn & 0x1f800000) == 0x11000000) {		/* add/sub #imm */
		sp_forms = true;
		a = get_x_or_sp(regs, rn);
		b = (u64)((insn >> 10) & 0xfff) << (insn & BIT(22) ? 12 : 0);
		res = insn & BIT(30) ? a - b : a + b;
		goto out;
	}
	a = get_x(regs, rn);
	if ((insn & 0x1f800000) == 0x12000000) {		/* logical #imm */
		sp_forms = true;
		b = logical_imm(insn);
	} else {
		b = shifted(get_x(regs, rm), (insn >> 22) & 3,
			    (insn >> 10) & 63, sf);
		if ((insn & 0x1f000000) == 0x0b000000) {	/* add/sub */
			res = insn & BIT(30) ? a - b : a + b;
			goto out;
		}
		if (insn & BIT(21))				/* bic, orn, eon */
			b = ~b;
	}
	res = opc == 0 ? a & b : opc == 1 ? a | b : a ^ b;
out:
	if (!sf)
		res = (u32)res;
	if (sp_forms)
		set_x_or_sp(regs, rd, res);
	else
		set_x(regs, rd, res);
	return resume(regs, addr + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(sim_alu);

static const arm64_probe_sim_fn simulators[] = {
	[ARM64_PROBE_NOP]		= sim_nop,
	[ARM64_PROBE_B]			= sim_b,
	[ARM64_PROBE_BCOND]		= sim_bcond,
	[ARM64_PROBE_CBZ]		= sim_cbz,
	[ARM64_PROBE_TBZ]		= sim_tbz,
	[ARM64_PROBE_ADR]		= sim_adr,
	[ARM64_PROBE_BR_REG]		= sim_br_reg,
	[ARM64_PROBE_RET]		= sim_ret,
	[ARM64_PROBE_RET_AUTH]		= sim_ret_auth,
	[ARM64_PROBE_LDR_LIT]		= sim_ldr_lit,
	[ARM64_PROBE_LDR_LIT_FP]	= sim_ldr_lit_fp,
	[ARM64_PROBE_MRS_DAIF]		= sim_mrs_daif,
	[ARM64_PROBE_MSR_DAIF]		= sim_msr_daif,
	[ARM64_PROBE_MSR_DAIF_IMM]	= sim_msr_daif_imm,
	[ARM64_PROBE_FRAME_PAIR]	= sim_frame_pair,
	[ARM64_PROBE_FRAME_SP]		= sim_frame_sp,
	[ARM64_PROBE_ALU]		= sim_alu,
	[ARM64_PROBE_FRAME_SLOT]	= sim_frame_slot,
};

/**
 * arm64_probe_simulator() - the function that carries out @class
 * @class: a class from arm64_probe_classify()
 *
 * Return: the simulator, or NULL for classes that are stepped or refused.
 */
arm64_probe_sim_fn arm64_probe_simulator(enum arm64_probe_class class)
{
	return class < ARRAY_SIZE(simulators) ? simulators[class] : NULL;
}

/**
 * arm64_probe_simulate() - execute @insn on @regs as if it ran at @addr
 * @insn: the instruction
 * @class: its class, from arm64_probe_classify() with @pol
 * @addr: where it lives
 * @regs: the probed context; pc must be @addr
 * @pol: the probe user's policy (how to read a literal)
 *
 * Return: true when done; false, with @regs unchanged, when a literal
 * could not be read or @class is not simulated.
 */
bool arm64_probe_simulate(u32 insn, enum arm64_probe_class class,
			  unsigned long addr, struct pt_regs *regs,
			  const struct arm64_probe_policy *pol)
{
	arm64_probe_sim_fn sim = arm64_probe_simulator(class);
	u64 btype = regs->pstate & PSR_BTYPE_MASK;

	if (!sim)
		return false;
	regs->pstate &= ~PSR_BTYPE_MASK;
	if (sim(insn, addr, regs, pol))
		return true;
	regs->pstate |= btype;
	return false;
}
NOKPROBE_SYMBOL(arm64_probe_simulate);
