// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite probe_insn_x86: the x86-64 probe instruction layer on its
 * own, without a probe: what it decides for each kind of instruction in
 * kernel and user text, how it rewrites a RIP-relative operand for a
 * slot anywhere in the address space, what emulation does to the
 * registers and the stack, and where a user breakpoint's trap leaves ip.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

#include "decode.h"

struct classify_case {
	const char *what;
	u8 bytes[16];
	u8 n;
	int kernel_ret, user_ret;
	u8 op, len, cond;
	s32 rel;
};

static const struct classify_case classify_cases[] = {
	{ "push %rbp", { 0x55 }, 1, 0, 0, X86_PROBE_PUSH, 1, 5 },
	{ "push %r15", { 0x41, 0x57 }, 2, 0, 0, X86_PROBE_PUSH, 2, 15 },
	{ "pop %rbp", { 0x5d }, 1, 0, 0, X86_PROBE_POP, 1, 5 },
	{ "mov %rsp,%rbp", { 0x48, 0x89, 0xe5 }, 3, 0, 0, X86_PROBE_MOV, 3, 0x45 },
	{ "mov %edi,%eax", { 0x89, 0xf8 }, 2, 0, 0, X86_PROBE_MOV, 2, 0x70 },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, 0, 0, X86_PROBE_NOP, 4 },
	{ "nop", { 0x90 }, 1, 0, 0, X86_PROBE_NOP, 1 },
	{ "nopl 0(%rax,%rax)", { 0x0f, 0x1f, 0x44, 0, 0 }, 5, 0, 0, X86_PROBE_NOP, 5 },
	{ "call rel32", { 0xe8, 0x10, 0, 0, 0 }, 5, 0, 0, X86_PROBE_CALL, 5, 0, 0x10 },
	{ "jmp rel8", { 0xeb, 0xfe }, 2, 0, 0, X86_PROBE_JMP, 2, 0, -2 },
	{ "je rel8", { 0x74, 0x02 }, 2, 0, 0, X86_PROBE_JCC, 2, 4, 2 },
	{ "jne rel32", { 0x0f, 0x85, 0, 1, 0, 0 }, 6, 0, 0, X86_PROBE_JCC, 6, 5, 0x100 },
	{ "ret", { 0xc3 }, 1, 0, 0, X86_PROBE_RET, 1, 0, 0 },
	{ "ret $8", { 0xc2, 8, 0 }, 3, 0, 0, X86_PROBE_RET, 3, 0, 8 },
	{ "call *%rax", { 0xff, 0xd0 }, 2, 0, 0, X86_PROBE_CALL_IND, 2 },
	{ "jmp *%r11", { 0x41, 0xff, 0xe3 }, 3, 0, 0, X86_PROBE_JMP_IND, 3 },
	{ "jmp *x(%rip)", { 0xff, 0x25, 0, 0, 0, 0 }, 6, 0, 0, X86_PROBE_JMP_IND, 6 },
	{ "loop", { 0xe2, 0xfe }, 2, 0, 0, X86_PROBE_LOOP, 2, 0xe2, -2 },
	{ "sub $16,%rsp", { 0x48, 0x83, 0xec, 0x10 }, 4, 0, 0, X86_PROBE_STEP, 4 },
	{ "int3", { 0xcc }, 1, -EINVAL, -EOPNOTSUPP },
	{ "syscall", { 0x0f, 0x05 }, 2, -EINVAL, -EOPNOTSUPP },
	{ "ud2", { 0x0f, 0x0b }, 2, -EINVAL, -EOPNOTSUPP },
	{ "iretq", { 0x48, 0xcf }, 2, -EINVAL, -EOPNOTSUPP },
	{ "xbegin", { 0xc7, 0xf8, 0, 0, 0, 0 }, 6, -EINVAL, -EOPNOTSUPP },
	{ "call with 66 prefix", { 0x66, 0xe8, 0, 0, 0, 0 }, 6, -EINVAL, -EOPNOTSUPP },
	{ "jmp with 66 prefix", { 0x66, 0xeb, 0x10 }, 3, -EINVAL, -EOPNOTSUPP },
	{ "truncated", { 0x48, 0x8b }, 2, -EILSEQ, -EILSEQ },
};

static void classify_one(struct kunit *test, const struct classify_case *c,
			 enum x86_probe_ctx ctx, int want)
{
	struct x86_probe_insn pi;
	int ret = x86_probe_classify(c->bytes, c->n, ctx, &pi);

	KUNIT_EXPECT_EQ_MSG(test, ret, want, "%s (%s)", c->what,
			    ctx == X86_PROBE_KERNEL ? "kernel" : "user");
	if (ret || want)
		return;
	KUNIT_EXPECT_EQ_MSG(test, pi.op, c->op, "%s", c->what);
	KUNIT_EXPECT_EQ_MSG(test, pi.len, c->len, "%s", c->what);
	if (c->op == X86_PROBE_PUSH || c->op == X86_PROBE_POP ||
	    c->op == X86_PROBE_MOV || c->op == X86_PROBE_JCC ||
	    c->op == X86_PROBE_LOOP)
		KUNIT_EXPECT_EQ_MSG(test, pi.cond, c->cond, "%s", c->what);
	if (c->op == X86_PROBE_JMP || c->op == X86_PROBE_CALL ||
	    c->op == X86_PROBE_JCC || c->op == X86_PROBE_RET ||
	    c->op == X86_PROBE_LOOP)
		KUNIT_EXPECT_EQ_MSG(test, pi.rel, c->rel, "%s", c->what);
}

static void classify_table(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(classify_cases); i++) {
		const struct classify_case *c = &classify_cases[i];

		classify_one(test, c, X86_PROBE_KERNEL, c->kernel_ret);
		classify_one(test, c, X86_PROBE_USER, c->user_ret);
	}
}

/* What kernel text refuses, or does itself, user text runs out of line. */
static void classify_context(struct kunit *test)
{
	static const u8 hlt[] = { 0xf4 }, cli[] = { 0xfa };
	struct x86_probe_insn pi;

	KUNIT_EXPECT_EQ(test, x86_probe_classify(hlt, 1, X86_PROBE_KERNEL, &pi), -EINVAL);
	KUNIT_EXPECT_EQ(test, x86_probe_classify(hlt, 1, X86_PROBE_USER, &pi), 0);
	KUNIT_EXPECT_EQ(test, pi.op, X86_PROBE_STEP);
	KUNIT_EXPECT_EQ(test, x86_probe_classify(cli, 1, X86_PROBE_KERNEL, &pi), 0);
	KUNIT_EXPECT_EQ(test, pi.op, X86_PROBE_CLI);
	KUNIT_EXPECT_EQ(test, x86_probe_classify(cli, 1, X86_PROBE_USER, &pi), 0);
	KUNIT_EXPECT_EQ(test, pi.op, X86_PROBE_STEP);
}

struct riprel_case {
	const char *what;
	u8 bytes[16];
	u8 n;
	int scratch;
};

static const struct riprel_case riprel_cases[] = {
	{ "mov x(%rip),%rax", { 0x48, 0x8b, 0x05, 0x78, 0x56, 0x34, 0x12 }, 7, X86_PROBE_DI },
	{ "mov x(%rip),%rdi", { 0x48, 0x8b, 0x3d, 0x78, 0x56, 0x34, 0x12 }, 7, X86_PROBE_SI },
	{ "mov x(%rip),%r14", { 0x4c, 0x8b, 0x35, 0x78, 0x56, 0x34, 0x12 }, 7, X86_PROBE_DI },
	{ "cmpl $5,x(%rip)", { 0x83, 0x3d, 0x78, 0x56, 0x34, 0x12, 0x05 }, 7, X86_PROBE_SI },
	{ "vmovdqa x(%rip),%ymm0",
	  { 0xc5, 0xfd, 0x6f, 0x05, 0x78, 0x56, 0x34, 0x12 }, 8, X86_PROBE_DI },
	{ "vpaddd x(%rip),%ymm7,%ymm6 (vex3)",
	  { 0xc4, 0xe1, 0x45, 0xfe, 0x35, 0x78, 0x56, 0x34, 0x12 }, 9, X86_PROBE_BP },
};

/* The rewritten instruction: same length and displacement, no RIP. */
static void riprel_rewrite(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(riprel_cases); i++) {
		const struct riprel_case *c = &riprel_cases[i];
		struct x86_probe_insn pi;
		struct insn orig, out;
		u8 buf[16];
		int reg, ret;

		ret = x86_probe_classify(c->bytes, c->n, X86_PROBE_USER, &pi);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s", c->what);
		reg = x86_probe_riprel_to_reg(c->bytes, &pi, buf);
		KUNIT_EXPECT_EQ_MSG(test, reg, c->scratch, "%s", c->what);
		if (reg < 0)
			continue;
		KUNIT_ASSERT_GE(test, insn_decode(&orig, c->bytes, c->n, INSN_MODE_64), 0);
		KUNIT_ASSERT_GE_MSG(test, insn_decode(&out, buf, pi.len, INSN_MODE_64),
				    0, "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, out.length, orig.length, "%s", c->what);
		KUNIT_EXPECT_FALSE_MSG(test, insn_rip_relative(&out), "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, X86_MODRM_MOD(out.modrm.value), 2, "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, X86_MODRM_RM(out.modrm.value), reg, "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, X86_MODRM_REG(out.modrm.value),
				    X86_MODRM_REG(orig.modrm.value), "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, out.displacement.value,
				    orig.displacement.value, "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, out.immediate.value,
				    orig.immediate.value, "%s", c->what);
		KUNIT_EXPECT_EQ_MSG(test, insn_is_avx(&out), insn_is_avx(&orig),
				    "%s", c->what);
	}
}

static void riprel_not_needed(struct kunit *test)
{
	static const u8 sub[] = { 0x48, 0x83, 0xec, 0x10 };
	struct x86_probe_insn pi;
	u8 buf[16];

	KUNIT_ASSERT_EQ(test, x86_probe_classify(sub, sizeof(sub), X86_PROBE_USER, &pi), 0);
	KUNIT_EXPECT_EQ(test, x86_probe_riprel_to_reg(sub, &pi, buf), -ENOENT);
	KUNIT_EXPECT_EQ(test, memcmp(buf, sub, sizeof(sub)), 0);
}

/* A stack in kernel memory stands in for the probed context's. */
static unsigned long fake_stack[8];

static bool in_fake_stack(unsigned long addr)
{
	return addr >= (unsigned long)fake_stack &&
	       addr + sizeof(long) <= (unsigned long)(fake_stack + ARRAY_SIZE(fake_stack));
}

static bool fake_read(unsigned long *val, unsigned long addr)
{
	if (!in_fake_stack(addr))
		return false;
	*val = *(unsigned long *)addr;
	return true;
}

static bool fake_write(unsigned long addr, unsigned long val)
{
	if (!in_fake_stack(addr))
		return false;
	*(unsigned long *)addr = val;
	return true;
}

static const struct x86_probe_mem fake_mem = {
	.read = fake_read,
	.read_stack = fake_read,
	.write = fake_write,
};

static void emulate_one(struct kunit *test, const u8 *bytes, size_t n,
			unsigned long at, struct pt_regs *regs)
{
	struct x86_probe_insn pi;

	KUNIT_ASSERT_EQ(test, x86_probe_classify(bytes, n, X86_PROBE_USER, &pi), 0);
	regs->ip = at;
	KUNIT_ASSERT_TRUE(test, x86_probe_emulate(&pi, bytes, at, regs, &fake_mem));
}

static void emulate_stack_ops(struct kunit *test)
{
	static const u8 push_rbp[] = { 0x55 }, pop_rbx[] = { 0x5b },
		call[] = { 0xe8, 0x00, 0x01, 0, 0 }, ret8[] = { 0xc2, 8, 0 };
	unsigned long top = (unsigned long)&fake_stack[6];
	struct pt_regs regs = {};

	regs.sp = top;
	regs.bp = 0x1234;
	emulate_one(test, push_rbp, 1, 0x1000, &regs);
	KUNIT_EXPECT_EQ(test, regs.sp, top - 8);
	KUNIT_EXPECT_EQ(test, fake_stack[5], 0x1234UL);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x1001UL);

	emulate_one(test, pop_rbx, 1, 0x1001, &regs);
	KUNIT_EXPECT_EQ(test, regs.bx, 0x1234UL);
	KUNIT_EXPECT_EQ(test, regs.sp, top);

	emulate_one(test, call, sizeof(call), 0x2000, &regs);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x2000UL + 5 + 0x100);
	KUNIT_EXPECT_EQ(test, fake_stack[5], 0x2005UL);

	emulate_one(test, ret8, sizeof(ret8), 0x2105, &regs);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x2005UL);
	KUNIT_EXPECT_EQ(test, regs.sp, top + 8);
}

/* A push that would fault leaves the registers alone. */
static void emulate_fault(struct kunit *test)
{
	static const u8 push_rbp[] = { 0x55 };
	struct x86_probe_insn pi;
	struct pt_regs regs = {};

	regs.sp = (unsigned long)&fake_stack[0];	/* the push goes below */
	regs.ip = 0x1000;
	KUNIT_ASSERT_EQ(test, x86_probe_classify(push_rbp, 1, X86_PROBE_USER, &pi), 0);
	KUNIT_EXPECT_FALSE(test, x86_probe_emulate(&pi, push_rbp, 0x1000, &regs, &fake_mem));
	KUNIT_EXPECT_EQ(test, regs.sp, (unsigned long)&fake_stack[0]);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x1000UL);
}

static void emulate_branches(struct kunit *test)
{
	static const u8 je[] = { 0x74, 0x10 }, loop[] = { 0xe2, 0xf0 },
		call_rax[] = { 0xff, 0xd0 }, mov32[] = { 0x89, 0xf8 };
	unsigned long top = (unsigned long)&fake_stack[6];
	struct pt_regs regs = {};

	regs.sp = top;
	regs.flags = X86_EFLAGS_ZF;
	emulate_one(test, je, 2, 0x3000, &regs);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x3012UL);
	regs.flags = 0;
	emulate_one(test, je, 2, 0x3000, &regs);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x3002UL);

	regs.cx = 2;
	emulate_one(test, loop, 2, 0x4000, &regs);
	KUNIT_EXPECT_EQ(test, regs.cx, 1UL);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x4002UL - 0x10);
	emulate_one(test, loop, 2, 0x4000, &regs);
	KUNIT_EXPECT_EQ(test, regs.cx, 0UL);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x4002UL);

	regs.ax = 0x5555;
	emulate_one(test, call_rax, 2, 0x5000, &regs);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x5555UL);
	KUNIT_EXPECT_EQ(test, fake_stack[5], 0x5002UL);

	regs.di = 0xffffffff00000007UL;
	regs.ax = ~0UL;
	emulate_one(test, mov32, 2, 0x6000, &regs);
	KUNIT_EXPECT_EQ(test, regs.ax, 7UL);	/* 32-bit mov zero-extends */
}

/* mov 0x10(%rip),%rax moved 0x1000 back: the displacement grows by it. */
static void relocate_riprel(struct kunit *test)
{
	static const u8 mov[] = { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 },
		add[] = { 0x48, 0x83, 0xc0, 0x01 };
	u8 out[8];

	KUNIT_ASSERT_EQ(test, x86_probe_relocate(mov, sizeof(mov), 0x5000, 0x4000, out), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned((s32 *)(out + 3)), 0x1010);
	KUNIT_EXPECT_MEMEQ(test, out, mov, 3);

	/* Out of a disp32's reach. */
	KUNIT_EXPECT_EQ(test, x86_probe_relocate(mov, sizeof(mov), 0x5000,
						 0x5000 + (1UL << 32), out), -ERANGE);
	/* Nothing RIP-relative: copied as it is. */
	KUNIT_ASSERT_EQ(test, x86_probe_relocate(add, sizeof(add), 0, 1UL << 40, out), 0);
	KUNIT_EXPECT_MEMEQ(test, out, add, sizeof(add));
	/* A length that is not the instruction's. */
	KUNIT_EXPECT_EQ(test, x86_probe_relocate(mov, 3, 0, 0, out), -EILSEQ);
}

/* What a scan of a function learns from each kind of instruction. */
static void flow_targets(struct kunit *test)
{
	static const struct {
		const char *what;
		u8 bytes[8];
		u8 len;
		bool indirect;
		long target;	/* from the instruction's address, 0: none */
	} cases[] = {
		{ "jmp rel8", { 0xeb, 0x10 }, 2, false, 0x12 },
		{ "jne rel32", { 0x0f, 0x85, 0x00, 0x01, 0, 0 }, 6, false, 0x106 },
		{ "call rel32", { 0xe8, 0xfb, 0xfe, 0xff, 0xff }, 5, false, -0x100 },
		{ "loop", { 0xe2, 0xfc }, 2, false, -2 },
		{ "xbegin", { 0xc7, 0xf8, 0x20, 0, 0, 0 }, 6, false, 0x26 },
		{ "jmp *%rax", { 0xff, 0xe0 }, 2, true, 0 },
		{ "call *%rax", { 0xff, 0xd0 }, 2, false, 0 },
		{ "ud2", { 0x0f, 0x0b }, 2, false, 0 },
		{ "mov %rsp,%rbp", { 0x48, 0x89, 0xe5 }, 3, false, 0 },
	};
	const unsigned long at = 0xffffffff81000000UL;
	struct x86_probe_flow flow;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long want = 0;

		if (cases[i].target)
			want = at + cases[i].target;
		KUNIT_ASSERT_EQ_MSG(test, x86_probe_flow(cases[i].bytes, 8, at, &flow),
				    0, "%s", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, flow.len, cases[i].len, "%s", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, flow.indirect_jump, cases[i].indirect,
				    "%s", cases[i].what);
		KUNIT_EXPECT_EQ_MSG(test, flow.target, want, "%s", cases[i].what);
	}
	KUNIT_EXPECT_EQ(test, x86_probe_flow((u8[]){ 0x48, 0x8b }, 2, at, &flow), -EILSEQ);
}

/*
 * Kernel memory, as a kprobe hit sees it: pops and returns read the
 * stack, an indirect call reads its target; an address the kernel cannot
 * read (user, non-canonical) fails the emulation instead of faulting.
 */
static unsigned long kernel_slot;

static void emulate_kernel_mem(struct kunit *test)
{
	static const u8 jmp_rax_mem[] = { 0xff, 0x20 }, ret[] = { 0xc3 },
		pop_rbx[] = { 0x5b };
	unsigned long stack[4] = { 0x11, 0x22, 0x33, 0x44 };
	const struct x86_probe_mem *mem = &x86_probe_kernel_mem;
	struct x86_probe_insn pi;
	struct pt_regs regs = {};

	regs.sp = (unsigned long)&stack[1];
	KUNIT_ASSERT_EQ(test, x86_probe_classify(pop_rbx, 1, X86_PROBE_KERNEL, &pi), 0);
	regs.ip = 0x1000;
	KUNIT_ASSERT_TRUE(test, x86_probe_emulate(&pi, pop_rbx, 0x1000, &regs, mem));
	KUNIT_EXPECT_EQ(test, regs.bx, 0x22UL);
	KUNIT_EXPECT_EQ(test, regs.sp, (unsigned long)&stack[2]);

	KUNIT_ASSERT_EQ(test, x86_probe_classify(ret, 1, X86_PROBE_KERNEL, &pi), 0);
	KUNIT_ASSERT_TRUE(test, x86_probe_emulate(&pi, ret, 0x1001, &regs, mem));
	KUNIT_EXPECT_EQ(test, regs.ip, 0x33UL);
	KUNIT_EXPECT_EQ(test, regs.sp, (unsigned long)&stack[3]);

	kernel_slot = 0xffffffff81234567UL;
	regs.ax = (unsigned long)&kernel_slot;
	KUNIT_ASSERT_EQ(test, x86_probe_classify(jmp_rax_mem, 2, X86_PROBE_KERNEL, &pi), 0);
	KUNIT_EXPECT_EQ(test, pi.op, X86_PROBE_JMP_IND);
	regs.ip = 0x2000;
	KUNIT_ASSERT_TRUE(test, x86_probe_emulate(&pi, jmp_rax_mem, 0x2000, &regs, mem));
	KUNIT_EXPECT_EQ(test, regs.ip, kernel_slot);

	/* A user address and a non-canonical one: refused, nothing changes. */
	regs.ax = 0x1000;
	regs.ip = 0x2000;
	KUNIT_EXPECT_FALSE(test, x86_probe_emulate(&pi, jmp_rax_mem, 0x2000, &regs, mem));
	KUNIT_EXPECT_EQ(test, regs.ip, 0x2000UL);
	regs.ax = 0x8000000000000000UL;
	KUNIT_EXPECT_FALSE(test, x86_probe_emulate(&pi, jmp_rax_mem, 0x2000, &regs, mem));
	KUNIT_EXPECT_EQ(test, regs.ip, 0x2000UL);
}

/*
 * uprobe_get_swbp_addr() hands tools outside the tree (SystemTap's
 * runtime) the probed address from the registers of the int3 trap, which
 * leaves ip one byte past the breakpoint.
 */
static void swbp_addr_from_trap(struct kunit *test)
{
#ifdef CONFIG_UPROBES
	struct pt_regs regs = { .ip = 0x401001 };

	KUNIT_EXPECT_EQ(test, uprobe_get_swbp_addr(&regs), 0x401000UL);
	regs.ip = 0x7ffff7dd1001UL;
	KUNIT_EXPECT_EQ(test, uprobe_get_swbp_addr(&regs), 0x7ffff7dd1000UL);
#else
	kunit_skip(test, "no uprobes in this kernel");
#endif
}

static struct kunit_case probe_insn_x86_cases[] = {
	KUNIT_CASE(classify_table),
	KUNIT_CASE(classify_context),
	KUNIT_CASE(riprel_rewrite),
	KUNIT_CASE(riprel_not_needed),
	KUNIT_CASE(emulate_stack_ops),
	KUNIT_CASE(emulate_fault),
	KUNIT_CASE(emulate_branches),
	KUNIT_CASE(relocate_riprel),
	KUNIT_CASE(flow_targets),
	KUNIT_CASE(emulate_kernel_mem),
	KUNIT_CASE(swbp_addr_from_trap),
	{}
};

static struct kunit_suite probe_insn_x86_suite = {
	.name = "probe_insn_x86",
	.test_cases = probe_insn_x86_cases,
};

kunit_test_suite(probe_insn_x86_suite);

MODULE_DESCRIPTION("KUnit tests of the x86-64 probe instruction layer");
MODULE_LICENSE("GPL");
