// SPDX-License-Identifier: GPL-2.0
/*
 * What probes cost, measured through the public kprobes API only, so the
 * same source builds against any kernel (ours and upstream 6.12 alike).
 *
 * Driven from userspace through /sys/kernel/debug/kprobes_bench/:
 *   targets  write function names (whitespace separated) the registration
 *            benchmark may probe; they accumulate
 *   run      write a command:
 *              hits       per-hit cost of each probe kind
 *              body       the probe in the function body alone, reported
 *                         as kprobe_body_opt_off (for a run with
 *                         debug.kprobes-optimization set to 0)
 *              reg N      register and unregister N probes on the targets,
 *                         one by one and as one batch, then the hit cost
 *                         of a body and an entry probe while N probes are
 *                         registered
 *              mem N      slab bytes per kprobe (N of them, median of
 *                         three rounds) and, the first time, per
 *                         kretprobe instance (4096 of them)
 *              prof KIND N  N untimed calls under one probe kind, for
 *                         scripts/profile.sh (see cmd_prof())
 * Results are printed as "kprobes_bench: RESULT <metric> <value> <unit>".
 * A metric whose probes did not fire as often as expected is not printed;
 * the write fails with -EIO instead.
 *
 * Hit costs are the added nanoseconds per call of a probed noinline
 * function, the unprobed call subtracted.  Under QEMU's -icount shift=0 a
 * guest nanosecond is one instruction.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/mm.h>
#ifdef CONFIG_ARM64
#include <asm/debug-monitors.h>
#endif
#include <linux/uaccess.h>
#include <linux/uaccess.h>
#include <linux/vmstat.h>
#include <linux/uaccess.h>
#include <linux/rcupdate.h>
#include <linux/sort.h>
#include <linux/kallsyms.h>

#define ROUNDS		8	/* timed rounds; the fastest one counts */
#define CALLS		20000	/* calls per timed round */

static int bench_sink;

/* The probed function: short, with a plain body a jump can replace. */
static noinline int bench_target(int x)
{
	int y = READ_ONCE(bench_sink);

	y += x * 3;
	y ^= x >> 2;
	WRITE_ONCE(bench_sink, y);
	return y + 1;
}

static int (*volatile bench_call)(int) = bench_target;

#ifdef CONFIG_X86_64
#include <asm/ibt.h>
/*
 * A function that opens with the usual prologue push, for the
 * post_handler row on such an instruction: written in assembly so both
 * kernels probe the same bytes.  (x + 7) * 3 + x, through a saved rbx.
 */
asm(".pushsection .text\n"
	".type bench_push_target, @function\n"
	"bench_push_target:\n"
	ASM_ENDBR
	"	pushq %rbx\n"
	"	movl %edi, %ebx\n"
	"	addl $7, %ebx\n"
	"	movl %ebx, %eax\n"
	"	popq %rbx\n"
	"	imull $3, %eax, %eax\n"
	"	addl %edi, %eax\n"
	ASM_RET
	".size bench_push_target, .-bench_push_target\n"
	".popsection\n");
int bench_push_target(int x);
#endif

#ifdef CONFIG_ARM64
/*
 * A function with the usual frame prologue, for the rows on the
 * instructions one kernel simulates and the other steps out of line: an
 * stp at sp, an add reading sp, a register move.  In assembly so both
 * kernels probe the same words; its landing pad (a nop without BTI)
 * takes the indirect call.  x + 7, through a saved x19.
 */
asm(".pushsection .text\n"
	".type bench_frame_target, %function\n"
	"bench_frame_target:\n"
	"	hint	#34\n"
	"	sub	sp, sp, #32\n"
	"	stp	x29, x30, [sp, #16]\n"
	"	add	x29, sp, #16\n"
	"	stp	x19, x20, [sp]\n"
	"	mov	x19, x0\n"
	"	add	w0, w19, #7\n"
	"	ldp	x19, x20, [sp]\n"
	"	ldp	x29, x30, [sp, #16]\n"
	"	add	sp, sp, #32\n"
	"	ret\n"
	".size bench_frame_target, .-bench_frame_target\n"
	".popsection\n");
int bench_frame_target(int x);

/* The rows on bench_frame_target: where each probe goes in it. */
static const struct {
	const char *metric;
	unsigned int offset;
} frame_rows[] = {
	{ "kprobe_body_at_stp", 8 },
	{ "kprobe_body_at_add_sp", 12 },
	{ "kprobe_body_at_mov", 20 },
};
#endif

/* --- timing --- */

static u64 time_calls(unsigned long n)
{
	unsigned long flags, i;
	u64 start, end;

	local_irq_save(flags);
	start = ktime_get_ns();
	for (i = 0; i < n; i++)
		bench_call(i);
	end = ktime_get_ns();
	local_irq_restore(flags);
	return end - start;
}

/* Nanoseconds per call, best of ROUNDS, in hundredths. */
static u64 cost_per_call(void)
{
	u64 best = U64_MAX;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		best = min(best, time_calls(CALLS));
		cond_resched();
	}
	return div_u64(best * 100, CALLS);
}

/* Both CPUs call the function at once, round by round. */
struct side {
	atomic_t *arrived;
	struct completion done;
	u64 cost;
};

/* Wait until both sides have arrived @generation times. */
static void meet(atomic_t *arrived, int generation)
{
	atomic_inc(arrived);
	while (atomic_read(arrived) < 2 * generation)
		cpu_relax();
}

static void run_side(struct side *s)
{
	u64 best = U64_MAX;
	int r;

	for (r = 1; r <= ROUNDS; r++) {
		meet(s->arrived, r);
		best = min(best, time_calls(CALLS));
	}
	s->cost = div_u64(best * 100, CALLS);
}

static int side_thread(void *arg)
{
	struct side *s = arg;

	run_side(s);
	complete(&s->done);
	return 0;
}

/* Average cost per call of two CPUs calling together, in hundredths of ns. */
static u64 cost_per_call_two_cpus(void)
{
	atomic_t arrived = ATOMIC_INIT(0);
	struct side self = { .arrived = &arrived };
	struct side other = { .arrived = &arrived };
	struct task_struct *t;
	int cpu;

	init_completion(&other.done);
	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		return 0;
	}
	t = kthread_create(side_thread, &other, "kprobes_bench");
	if (IS_ERR(t)) {
		migrate_enable();
		return 0;
	}
	kthread_bind(t, cpu);
	wake_up_process(t);
	run_side(&self);
	migrate_enable();
	wait_for_completion(&other.done);
	return (self.cost + other.cost) / 2;
}

/* --- the probes --- */

static atomic_long_t pre_hits, post_hits, ret_hits;

static int count_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_long_inc(&pre_hits);
	return 0;
}

static void count_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	atomic_long_inc(&post_hits);
}

static int count_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&ret_hits);
	return 0;
}

static void reset_hits(void)
{
	atomic_long_set(&pre_hits, 0);
	atomic_long_set(&post_hits, 0);
	atomic_long_set(&ret_hits, 0);
}

/* Calls the last measurement made: ROUNDS rounds of CALLS, per CPU. */
static long calls_made(int cpus)
{
	return (long)ROUNDS * CALLS * cpus;
}

static unsigned long body_offset;

/*
 * Where the body probe goes: the first instruction boundary past the
 * function's entry, found by asking the kprobes core (it refuses offsets
 * inside an instruction), and past a landing pad at the entry and the
 * instruction after it, where one kernel or the other puts its entry
 * probe: the body probe must be alone at its address, and on the same
 * instruction in both variants.
 */
static unsigned long first_body_candidate(void)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)bench_target };
	unsigned long from = 1;
	u32 first;

	if (!register_kprobe(&kp)) {
		from = (unsigned long)kp.addr - (unsigned long)bench_target + 1;
		unregister_kprobe(&kp);
	}
	/* An arm64 BTI (hint #32..#38): skip it and the next instruction. */
	if (IS_ENABLED(CONFIG_ARM64) &&
	    !copy_from_kernel_nofault(&first, bench_target, sizeof(first)) &&
	    (first & 0xffffff3f) == 0xd503241f)
		from = max(from, 8UL);
	return from;
}

static int find_body_offset(void)
{
	struct kprobe kp = {};
	unsigned long off;

	for (off = first_body_candidate(); off < 64; off++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = (kprobe_opcode_t *)((unsigned long)bench_target + off);
		kp.pre_handler = count_pre;
		if (register_kprobe(&kp))
			continue;
		if (kprobe_ftrace(&kp)) {
			unregister_kprobe(&kp);
			continue;
		}
		unregister_kprobe(&kp);
		body_offset = off;
		return 0;
	}
	return -ENOENT;
}

/*
 * The function's return (x86: ret, or the jmp to the return thunk; arm64:
 * ret), its last instruction: both kernels carry it out at the hit, with
 * no slot, so a probe there measures emulation.  Found from the end of
 * the symbol backwards, past any padding.
 */
static unsigned long return_offset;

static bool is_return(unsigned long addr)
{
	u32 insn = 0;

	if (copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)))
		return false;
	if (IS_ENABLED(CONFIG_ARM64))
		return insn == 0xd65f03c0;
	return (insn & 0xff) == 0xc3 || (insn & 0xff) == 0xe9;
}

static void find_return_offset(void)
{
	char sym[KSYM_SYMBOL_LEN], *size_str, *end;
	unsigned long size, off;
	struct kprobe kp;

	sprint_symbol(sym, (unsigned long)bench_target);
	/* "bench_target+0x0/0x50 [kprobes_bench]" */
	size_str = strchr(sym, '/');
	if (!size_str)
		return;
	end = strchr(size_str, ' ');
	if (end)
		*end = 0;
	if (kstrtoul(size_str + 1, 16, &size))
		return;
	for (off = size - 1; off > body_offset; off--) {
		if (!is_return((unsigned long)bench_target + off))
			continue;
		memset(&kp, 0, sizeof(kp));
		kp.addr = (kprobe_opcode_t *)((unsigned long)bench_target + off);
		kp.pre_handler = count_pre;
		if (register_kprobe(&kp))
			continue;
		unregister_kprobe(&kp);
		return_offset = off;
		return;
	}
}

static void report(const char *metric, u64 hundredths, const char *unit)
{
	pr_info("RESULT %s %llu.%02llu %s\n", metric, hundredths / 100,
		hundredths % 100, unit);
}

/* Report @cost minus @base, or nothing (and -EIO) when hits were lost. */
static int report_hit_cost(const char *metric, u64 cost, u64 base,
			   long got, long want)
{
	if (got != want) {
		pr_err("%s: %ld hits, expected %ld: not reported\n", metric,
		       got, want);
		return -EIO;
	}
	report(metric, cost > base ? cost - base : 0, "ns");
	return 0;
}

/*
 * Is @kp reached by a jump?  Read from the text, the same way on both
 * kernels: 6.12 marks only its internal aggregate probe optimized, never
 * the caller's.  Only x86 has jump-optimized probes.
 */
static bool reached_by_jump(struct kprobe *kp)
{
#ifdef CONFIG_X86
	u8 op;

	/* A jmp rel32 where the breakpoint was. */
	return !kprobe_ftrace(kp) &&
	       !copy_from_kernel_nofault(&op, kp->addr, 1) && op == 0xe9;
#else
	return false;
#endif
}

/*
 * Name how a row's probe is reached, for the report's mechanism column:
 * through the ftrace site, by a jump (optimized), or by a breakpoint
 * (stepped, emulated or boosted: that is the port's business and not
 * visible here).  @via is what the row adds, such as its return path.
 */
static void mechanism(const char *metric, struct kprobe *kp, const char *via)
{
	const char *how = "breakpoint";

	if (kprobe_ftrace(kp))
		how = "ftrace";
	else if (reached_by_jump(kp))
		how = "optimized";
	pr_info("INFO mech %s %s%s\n", metric, how, via);
}

/*
 * Our arm64 kernel puts a probe registered alone on an ftrace site on a
 * BRK just before the site first and hands it to ftrace in the
 * background (kernel/kprobes/bridge.c): the hit measured is ftrace's.
 */
static bool on_bridge(struct kprobe *kp)
{
#ifdef CONFIG_ARM64
	u32 word;

	return kprobe_ftrace(kp) &&
	       !copy_from_kernel_nofault(&word, kp->addr - 1, sizeof(word)) &&
	       word == BRK64_OPCODE_KPROBES;
#else
	return false;
#endif
}

static void wait_handed_over(struct kprobe *kp)
{
	int tries;

	for (tries = 0; tries < 250 && on_bridge(kp); tries++)
		msleep(20);
}

/* The optimizer works in the background: give it time to get to us. */
static void wait_optimized(struct kprobe *kp, int nr)
{
	int i, tries;

	for (tries = 0; tries < 100; tries++) {
		for (i = 0; i < nr; i++)
			if (!reached_by_jump(&kp[i]))
				break;
		if (i == nr)
			break;
		msleep(20);
	}
}

/* @nr probes at @addr, or an ERR_PTR with none left. */
static struct kprobe *register_at(unsigned long addr, int nr, bool post)
{
	struct kprobe *kp = kcalloc(nr, sizeof(*kp), GFP_KERNEL);
	int i, ret;

	if (!kp)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < nr; i++) {
		kp[i].addr = (kprobe_opcode_t *)addr;
		kp[i].pre_handler = count_pre;
		if (post)
			kp[i].post_handler = count_post;
		ret = register_kprobe(&kp[i]);
		if (ret) {
			while (--i >= 0)
				unregister_kprobe(&kp[i]);
			kfree(kp);
			return ERR_PTR(ret);
		}
	}
	wait_optimized(kp, nr);
	return kp;
}

static void unregister_at(struct kprobe *kp, int nr)
{
	while (--nr >= 0)
		unregister_kprobe(&kp[nr]);
	kfree(kp);
}

static int probes_at(const char *metric, unsigned long offset, int nr,
		     bool post, u64 base)
{
	struct kprobe *kp = register_at((unsigned long)bench_target + offset,
					nr, post);
	int ret;
	u64 cost;

	if (IS_ERR(kp))
		return PTR_ERR(kp);
	mechanism(metric, &kp[0], "");
	reset_hits();
	cost = cost_per_call();
	if (post && atomic_long_read(&post_hits) != calls_made(1) * nr) {
		pr_err("%s: post_handler ran %ld times for %ld hits: not reported\n",
		       metric, atomic_long_read(&post_hits), calls_made(1) * nr);
		ret = -EIO;
	} else {
		ret = report_hit_cost(metric, cost, base,
				      atomic_long_read(&pre_hits),
				      calls_made(1) * nr);
	}
	unregister_at(kp, nr);
	return ret;
}

static int body_probes(const char *metric, int nr, bool post, u64 base)
{
	return probes_at(metric, body_offset, nr, post, base);
}

/*
 * A probe with a post_handler on a prologue's push, the function's first
 * instruction (past its landing pad), against that function unprobed.
 */
static int push_post_probe(void)
{
#ifdef CONFIG_X86_64
	struct kprobe kp = { .symbol_name = "bench_push_target",
			     .pre_handler = count_pre,
			     .post_handler = count_post };
	const char *metric = "kprobe_post_handler_at_push";
	u64 base, cost;
	int ret;

	bench_call = bench_push_target;
	base = cost_per_call();
	ret = register_kprobe(&kp);
	if (ret)
		goto out;
	wait_optimized(&kp, 1);
	mechanism(metric, &kp, "");
	reset_hits();
	cost = cost_per_call();
	if (atomic_long_read(&post_hits) != calls_made(1)) {
		pr_err("%s: post_handler ran %ld times for %ld hits: not reported\n",
		       metric, atomic_long_read(&post_hits), calls_made(1));
		ret = -EIO;
	} else {
		ret = report_hit_cost(metric, cost, base,
				      atomic_long_read(&pre_hits), calls_made(1));
	}
	unregister_kprobe(&kp);
out:
	bench_call = bench_target;
	return ret;
#else
	return 0;
#endif
}

/*
 * arm64: one probe at a time on each prologue instruction of
 * bench_frame_target, against that function unprobed.
 */
static int frame_probes(void)
{
#ifdef CONFIG_ARM64
	struct kprobe *kp;
	int i, err = 0;
	u64 base, cost;

	bench_call = bench_frame_target;
	base = cost_per_call();
	for (i = 0; i < ARRAY_SIZE(frame_rows); i++) {
		kp = register_at((unsigned long)bench_frame_target +
				 frame_rows[i].offset, 1, false);
		if (IS_ERR(kp)) {
			pr_err("%s: registration failed: %ld\n",
			       frame_rows[i].metric, PTR_ERR(kp));
			err = PTR_ERR(kp);
			continue;
		}
		mechanism(frame_rows[i].metric, kp, "");
		reset_hits();
		cost = cost_per_call();
		err |= report_hit_cost(frame_rows[i].metric, cost, base,
				       atomic_long_read(&pre_hits),
				       calls_made(1));
		unregister_at(kp, 1);
	}
	bench_call = bench_target;
	return err;
#else
	return 0;
#endif
}

static int cmd_body(void)
{
	u64 base = cost_per_call();

	return body_probes("kprobe_body_opt_off", 1, false, base);
}

static int cmd_hits(void)
{
	struct kprobe entry = { .addr = (kprobe_opcode_t *)bench_target,
				.pre_handler = count_pre };
	struct kretprobe rp = { .kp.addr = (kprobe_opcode_t *)bench_target,
				.handler = count_ret };
	u64 base, base2, cost;
	int ret, err = 0;
	long got;

	base = cost_per_call();
	report("baseline_call", base, "ns");

	/* At the function entry: the ftrace site where the kernel has one. */
	ret = register_kprobe(&entry);
	if (ret)
		return ret;
	wait_handed_over(&entry);
	mechanism("kprobe_entry", &entry, "");
	reset_hits();
	cost = cost_per_call();
	err |= report_hit_cost("kprobe_entry", cost, base,
			       atomic_long_read(&pre_hits), calls_made(1));

	/* kprobe and kretprobe on one function. */
	ret = register_kretprobe(&rp);
	if (ret) {
		unregister_kprobe(&entry);
		return ret;
	}
	wait_handed_over(&entry);
	mechanism("kprobe_plus_kretprobe", &entry, "+trampoline");
	reset_hits();
	cost = cost_per_call();
	/* Both counts exact: one lost or one invented, and no figure. */
	got = atomic_long_read(&pre_hits);
	if (got == calls_made(1))
		got = atomic_long_read(&ret_hits);
	err |= report_hit_cost("kprobe_plus_kretprobe", cost, base, got,
			       calls_made(1));
	unregister_kprobe(&entry);

	mechanism("kretprobe", &rp.kp, "+trampoline");
	reset_hits();
	cost = cost_per_call();
	err |= report_hit_cost("kretprobe", cost, base,
			       atomic_long_read(&ret_hits), calls_made(1));
	unregister_kretprobe(&rp);

	err |= body_probes("kprobe_body", 1, false, base);
	err |= body_probes("kprobe_body_post_handler", 1, true, base);
	err |= push_post_probe();
	err |= frame_probes();
	err |= body_probes("kprobes_2_at_one_address", 2, false, base);
	err |= body_probes("kprobes_8_at_one_address", 8, false, base);
	if (return_offset)
		err |= probes_at("kprobe_at_return", return_offset, 1, false,
				 base);
	else
		pr_info("INFO kprobe_at_return skipped: no return found\n");

	/* Two CPUs hitting the same probe. */
	base2 = cost_per_call_two_cpus();
	if (!base2) {
		pr_info("INFO two_cpus skipped: one CPU\n");
		return err ? -EIO : 0;
	}
	entry.addr = (kprobe_opcode_t *)((unsigned long)bench_target + body_offset);
	entry.flags = 0;
	ret = register_kprobe(&entry);
	if (ret)
		return ret;
	wait_optimized(&entry, 1);
	mechanism("kprobe_body_two_cpus", &entry, "");
	reset_hits();
	cost = cost_per_call_two_cpus();
	err |= report_hit_cost("kprobe_body_two_cpus", cost, base2,
			       atomic_long_read(&pre_hits), calls_made(2));
	unregister_kprobe(&entry);
	return err ? -EIO : 0;
}

/*
 * "prof KIND N": N calls under one probe of KIND and nothing else timed,
 * for an instruction profile of the guest (scripts/profile.sh, QEMU's
 * -plugin): the host subtracts a run of KIND "none".  KIND is entry,
 * kretprobe, body, body_post, two, eight, ret or none; a body probe
 * waits for the optimizer first, as the hit figures do.
 */
static int cmd_prof(const char *kind, unsigned long n)
{
	struct kretprobe rp = { .kp.addr = (kprobe_opcode_t *)bench_target,
				.handler = count_ret };
	bool retprobe = !strcmp(kind, "kretprobe"), post = false;
	unsigned long offset = body_offset;
	struct kprobe *kp = NULL;
	int nr = 1, ret;

	if (!strcmp(kind, "none") || retprobe) {
		nr = 0;
	} else if (!strcmp(kind, "entry")) {
		offset = 0;
	} else if (!strcmp(kind, "body_post")) {
		post = true;
	} else if (!strcmp(kind, "two")) {
		nr = 2;
	} else if (!strcmp(kind, "eight")) {
		nr = 8;
	} else if (!strcmp(kind, "ret")) {
		if (!return_offset)
			return -ENOENT;
		offset = return_offset;
	} else if (strcmp(kind, "body")) {
		return -EINVAL;
	}
	if (retprobe) {
		ret = register_kretprobe(&rp);
		if (ret)
			return ret;
		wait_handed_over(&rp.kp);
	}
	if (nr) {
		kp = register_at((unsigned long)bench_target + offset, nr,
				 post);
		if (IS_ERR(kp))
			return PTR_ERR(kp);
		mechanism(kind, &kp[0], "");
	}
	reset_hits();
	time_calls(n);
	pr_info("INFO prof %s: %ld pre, %ld post, %ld return hits for %lu calls\n",
		kind, atomic_long_read(&pre_hits), atomic_long_read(&post_hits),
		atomic_long_read(&ret_hits), n);
	if (nr)
		unregister_at(kp, nr);
	if (retprobe)
		unregister_kretprobe(&rp);
	return 0;
}

/* --- registration at scale --- */

static char **targets;
static unsigned int nr_targets, max_targets;

static int add_target(const char *name, size_t len)
{
	char **grown;

	if (nr_targets == max_targets) {
		unsigned int want = max(64U, max_targets * 2);

		grown = kvrealloc(targets, want * sizeof(*targets), GFP_KERNEL);
		if (!grown)
			return -ENOMEM;
		targets = grown;
		max_targets = want;
	}
	targets[nr_targets] = kstrndup(name, len, GFP_KERNEL);
	if (!targets[nr_targets])
		return -ENOMEM;
	nr_targets++;
	return 0;
}

static void free_targets(void)
{
	while (nr_targets)
		kfree(targets[--nr_targets]);
	kvfree(targets);
	targets = NULL;
	max_targets = 0;
}

static void report_ms(const char *metric, unsigned int n, u64 ns)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_%u", metric, n);
	report(name, div_u64(ns, 10000), "ms");
}

/*
 * Bytes in slab pages, once everything freed earlier really is free.
 * Slab pages are counted whether or not they came from a per-CPU page
 * list, which a free-page count would miss; executable instruction slots
 * (whole pages shared by many probes) are not included.
 */
static s64 slab_bytes(void)
{
	rcu_barrier();
	msleep(100);
	return (global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B)) * PAGE_SIZE;
}

/*
 * Bytes of memory in use, slab or not (kretprobe instances live in
 * objpool's vmalloc'd rings).  Noisier than slab_bytes(): pages parked on
 * per-CPU lists are not counted as free, so measure something large.
 */
static s64 used_bytes(void)
{
	rcu_barrier();
	msleep(100);
	return (s64)(totalram_pages() -
		     global_zone_page_state(NR_FREE_PAGES)) * PAGE_SIZE;
}

/*
 * Register @n probes on distinct functions one by one (skipping names the
 * kernel refuses), unregister them one by one, then the same set as one
 * batch each way.  While the batch is registered, time one more probe's
 * hit, to see whether the others slow the lookup down.
 */
static int cmd_reg(unsigned int n)
{
	struct kprobe *kps, **batch;
	struct kprobe hot = { .pre_handler = count_pre }, entry = {};
	char metric[64];
	unsigned int i, got = 0;
	u64 start, base, cost;
	int ret;

	kps = kvcalloc(n, sizeof(*kps), GFP_KERNEL);
	batch = kvcalloc(n, sizeof(*batch), GFP_KERNEL);
	if (!kps || !batch) {
		ret = -ENOMEM;
		goto out;
	}

	start = ktime_get_ns();
	for (i = 0; i < nr_targets && got < n; i++) {
		struct kprobe *kp = &kps[got];

		memset(kp, 0, sizeof(*kp));
		kp->symbol_name = targets[i];
		if (!register_kprobe(kp))
			got++;
		cond_resched();
	}
	report_ms("register_one_by_one", n, ktime_get_ns() - start);
	if (got < n) {
		pr_err("only %u of %u targets could be probed\n", got, n);
		ret = -ENOSPC;
		for (i = 0; i < got; i++)
			unregister_kprobe(&kps[i]);
		goto out;
	}

	start = ktime_get_ns();
	for (i = 0; i < n; i++) {
		unregister_kprobe(&kps[i]);
		cond_resched();
	}
	report_ms("unregister_one_by_one", n, ktime_get_ns() - start);

	for (i = 0; i < n; i++) {
		const char *name = kps[i].symbol_name;

		memset(&kps[i], 0, sizeof(kps[i]));
		kps[i].symbol_name = name;
		batch[i] = &kps[i];
	}
	/*
	 * The entry probe whose hit is timed among the others goes in first:
	 * a table that puts new entries at the front of a chain would
	 * otherwise find it first whatever the chain's length.
	 */
	entry.addr = (kprobe_opcode_t *)bench_target;
	entry.pre_handler = count_pre;
	ret = register_kprobe(&entry);
	if (ret)
		goto out;
	start = ktime_get_ns();
	ret = register_kprobes(batch, n);
	if (ret) {
		pr_err("batch registration: %d\n", ret);
		unregister_kprobe(&entry);
		goto out;
	}
	report_ms("register_batch", n, ktime_get_ns() - start);
	wait_handed_over(&entry);

	/* The entry probe stays out of the way while the body one is timed. */
	disable_kprobe(&entry);
	base = cost_per_call();
	hot.addr = (kprobe_opcode_t *)((unsigned long)bench_target + body_offset);
	ret = register_kprobe(&hot);
	if (!ret) {
		wait_optimized(&hot, 1);
		reset_hits();
		cost = cost_per_call();
		snprintf(metric, sizeof(metric), "kprobe_body_with_%u_others", n);
		mechanism(metric, &hot, "");
		ret = report_hit_cost(metric, cost, base,
				      atomic_long_read(&pre_hits), calls_made(1));
		unregister_kprobe(&hot);
	}
	/*
	 * A jump goes straight to its probe; an ftrace hit looks the
	 * address up among all the others.
	 */
	if (!ret)
		ret = enable_kprobe(&entry);
	if (!ret) {
		/* Enabled alone, it is bridged again for a moment. */
		wait_handed_over(&entry);
		reset_hits();
		cost = cost_per_call();
		snprintf(metric, sizeof(metric), "kprobe_entry_with_%u_others", n);
		mechanism(metric, &entry, "");
		ret = report_hit_cost(metric, cost, base,
				      atomic_long_read(&pre_hits), calls_made(1));
	}
	unregister_kprobe(&entry);

	start = ktime_get_ns();
	unregister_kprobes(batch, n);
	report_ms("unregister_batch", n, ktime_get_ns() - start);
out:
	kvfree(batch);
	kvfree(kps);
	return ret;
}

/*
 * kretprobes measured for their instances: enough of them that per-CPU
 * page lists do not hide the memory.
 */
#define KRETPROBE_INSTANCES	4096
#define KRETPROBES_MEASURED	16

/*
 * Approximate, from the slab page count: other allocations add noise, and
 * memory a probe needs only once armed (ftrace's filter hash, say) counts
 * too, as it should.
 */
static bool kretprobes_measured;

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static int cmd_mem(unsigned int n)
{
	struct kprobe *kps, **batch;
	struct kretprobe *rps, *rpp[KRETPROBES_MEASURED];
	unsigned int i, round, got;
	s64 used, before, per_probe[3];
	char metric[64];
	int ret;

	if (nr_targets < KRETPROBES_MEASURED)
		return -ENOSPC;
	kps = kvcalloc(n, sizeof(*kps), GFP_KERNEL);
	batch = kvcalloc(n, sizeof(*batch), GFP_KERNEL);
	rps = kcalloc(KRETPROBES_MEASURED, sizeof(*rps), GFP_KERNEL);
	if (!kps || !batch || !rps) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * The first @n targets that take a probe: found with disabled
	 * probes, which neither variant arms, so finding them is cheap.
	 */
	for (i = 0, got = 0; i < nr_targets && got < n; i++) {
		memset(&kps[got], 0, sizeof(kps[got]));
		kps[got].symbol_name = targets[i];
		kps[got].flags = KPROBE_FLAG_DISABLED;
		batch[got] = &kps[got];
		if (!register_kprobe(&kps[got]))
			got++;
		cond_resched();
	}
	unregister_kprobes(batch, got);
	if (got < n) {
		ret = -ENOSPC;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const char *name = kps[i].symbol_name;

		memset(&kps[i], 0, sizeof(kps[i]));
		kps[i].symbol_name = name;
	}
	for (i = 0; i < KRETPROBES_MEASURED; i++) {
		rps[i].kp.symbol_name = kps[i % n].symbol_name;
		rps[i].handler = count_ret;
		rps[i].maxactive = KRETPROBE_INSTANCES;
		rpp[i] = &rps[i];
	}
	if (!kretprobes_measured) {
		before = used_bytes();
		ret = register_kretprobes(rpp, KRETPROBES_MEASURED);
		if (ret)
			goto out;
		used = used_bytes() - before;
		unregister_kretprobes(rpp, KRETPROBES_MEASURED);
		kretprobes_measured = true;
		if (used > 0)
			report("bytes_per_kretprobe_instance",
			       div_s64(used * 100, KRETPROBES_MEASURED *
					       KRETPROBE_INSTANCES), "B");
		else
			pr_err("bytes_per_kretprobe_instance: no growth: not reported\n");
	}

	/* The median of three rounds: slab pages come and go in steps. */
	for (round = 0; round < 3; round++) {
		before = slab_bytes();
		ret = register_kprobes(batch, n);
		if (ret)
			goto out;
		per_probe[round] = div_s64((slab_bytes() - before) * 100, n);
		unregister_kprobes(batch, n);
		for (i = 0; i < n; i++) {
			const char *name = kps[i].symbol_name;

			memset(&kps[i], 0, sizeof(kps[i]));
			kps[i].symbol_name = name;
		}
	}
	snprintf(metric, sizeof(metric), "bytes_per_kprobe_%u", n);
	pr_info("INFO %s rounds %lld %lld %lld (hundredths)\n", metric,
		per_probe[0], per_probe[1], per_probe[2]);
	sort(per_probe, 3, sizeof(per_probe[0]), cmp_s64, NULL);
	if (per_probe[1] > 0)
		report(metric, per_probe[1], "B");
	else
		pr_err("%s: no slab growth: not reported\n", metric);
out:
	kfree(rps);
	kvfree(batch);
	kvfree(kps);
	return ret;
}

/* --- debugfs --- */

static DEFINE_MUTEX(bench_lock);
static struct dentry *bench_dir;

static char *copy_in(const char __user *ubuf, size_t count)
{
	if (count > SZ_1M)
		return ERR_PTR(-E2BIG);
	return memdup_user_nul(ubuf, count);
}

static ssize_t targets_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char *buf = copy_in(ubuf, count), *p, *name;
	int ret = 0;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&bench_lock);
	p = buf;
	while (!ret && (name = strsep(&p, " \t\n")))
		if (*name)
			ret = add_target(name, strlen(name));
	mutex_unlock(&bench_lock);
	kfree(buf);
	return ret ?: count;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char *buf = copy_in(ubuf, count);
	unsigned int n = 0;
	char kind[16];
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&bench_lock);
	if (sysfs_streq(buf, "hits"))
		ret = cmd_hits();
	else if (sysfs_streq(buf, "body"))
		ret = cmd_body();
	else if (sscanf(buf, "reg %u", &n) == 1 && n)
		ret = cmd_reg(n);
	else if (sscanf(buf, "mem %u", &n) == 1 && n)
		ret = cmd_mem(n);
	else if (sscanf(buf, "prof %15s %u", kind, &n) == 2 && n)
		ret = cmd_prof(kind, n);
	else
		ret = -EINVAL;
	mutex_unlock(&bench_lock);
	kfree(buf);
	return ret ?: count;
}

static const struct file_operations targets_fops = {
	.write = targets_write,
};

static const struct file_operations run_fops = {
	.write = run_write,
};

static int __init kprobes_bench_init(void)
{
	int ret = find_body_offset();

	if (ret) {
		pr_err("no probe-able instruction in the target's body\n");
		return ret;
	}
	pr_info("INFO body_offset %lu\n", body_offset);
	find_return_offset();
	pr_info("INFO return_offset %lu\n", return_offset);
	bench_dir = debugfs_create_dir("kprobes_bench", NULL);
	debugfs_create_file("targets", 0200, bench_dir, NULL, &targets_fops);
	debugfs_create_file("run", 0200, bench_dir, NULL, &run_fops);
	return 0;
}

static void __exit kprobes_bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	free_targets();
}

module_init(kprobes_bench_init);
module_exit(kprobes_bench_exit);
MODULE_DESCRIPTION("Probe cost benchmark, public kprobes API only");
MODULE_LICENSE("GPL");
