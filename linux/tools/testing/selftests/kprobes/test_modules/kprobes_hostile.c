// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile arguments for the probe registration calls (hostile_args.sh
 * loads it).
 *
 * Loading starts a sweep over register_kprobe(), register_kprobes(),
 * register_kretprobe(), their enable/disable/unregister partners and
 * uprobe_register(), each fed something a careless or malicious caller
 * could pass: missing or contradictory targets, addresses that are not
 * kernel text or not an instruction start, text that is refused or has
 * been freed, bogus flags and sizes, batches with a bad member, files
 * that are not programs.  Every attempt prints one line,
 *
 *	kprobes_hostile: <class> <case> -> <ok|ERRNO>[ (details)]
 *
 * so that the output of two kernels can be diffed.  What registers is
 * checked to work where that can be known (the handler runs once, the
 * probed function still returns the right value) and removed at once;
 * a broken expectation prints "kprobes_hostile: FAIL <what>".  The last
 * line is "kprobes_hostile: done ...".
 *
 * Only the 6.12 interfaces declared in <linux/kprobes.h> and
 * <linux/uprobes.h> are used, so the module builds and runs on any 6.12
 * kernel.  Calls that would oops or corrupt state on some 6.12 kernel are
 * not made; those that only make 6.12 print a warning, or that corrupt
 * state, can be asked for with warn_cases=1 or unsafe_cases=1.
 *
 * The sweep runs in a thread that waits until the module's init text is
 * gone, so that a probe on it can be tried after the fact.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/printk.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/umh.h>
#include <linux/uprobes.h>
#include <linux/vmalloc.h>

static char *uprobe_path = "";
module_param(uprobe_path, charp, 0444);
MODULE_PARM_DESC(uprobe_path, "static executable for the uprobe cases (none: skip them)");

static bool warn_cases;
module_param(warn_cases, bool, 0444);
MODULE_PARM_DESC(warn_cases, "also try the registrations upstream 6.12 answers with a WARN");

static bool unsafe_cases;
module_param(unsafe_cases, bool, 0444);
MODULE_PARM_DESC(unsafe_cases, "also try calls known to corrupt probe state (reboot after)");

/* ---- bookkeeping and output ---- */

static unsigned int n_attempts, n_ok, n_refused, n_skipped, n_failed;

/* Names of the errnos registration gives; any other prints as a number. */
static const struct {
	int err;
	const char *name;
} errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
	{ EINTR, "EINTR" }, { EIO, "EIO" }, { ENXIO, "ENXIO" },
	{ E2BIG, "E2BIG" }, { ENOEXEC, "ENOEXEC" }, { EBADF, "EBADF" },
	{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
	{ ENODEV, "ENODEV" }, { ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" },
	{ EINVAL, "EINVAL" }, { ETXTBSY, "ETXTBSY" }, { EFBIG, "EFBIG" },
	{ ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" },
	{ EILSEQ, "EILSEQ" },
	{ EOVERFLOW, "EOVERFLOW" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { ETIMEDOUT, "ETIMEDOUT" },
};

/* "ok", the errno's name, or its number when it is not in the table. */
static const char *result_name(int ret, char *buf, size_t len)
{
	int i;

	if (!ret)
		return "ok";
	for (i = 0; i < ARRAY_SIZE(errnames); i++)
		if (-ret == errnames[i].err)
			return errnames[i].name;
	snprintf(buf, len, "%d", ret);
	return buf;
}

static void emit(const char *cls, const char *what, int ret, const char *extra)
{
	char num[16];

	n_attempts++;
	if (ret)
		n_refused++;
	else
		n_ok++;
	pr_info("%s %s -> %s%s%s\n", cls, what,
		result_name(ret, num, sizeof(num)), *extra ? " " : "", extra);
}

static void report(const char *cls, const char *what, int ret)
{
	emit(cls, what, ret, "");
}

static __printf(4, 5) void reportf(const char *cls, const char *what,
				   int ret, const char *fmt, ...)
{
	char extra[160];
	va_list args;

	va_start(args, fmt);
	vsnprintf(extra, sizeof(extra), fmt, args);
	va_end(args);
	emit(cls, what, ret, extra);
}

static void skip(const char *cls, const char *what, const char *why)
{
	n_skipped++;
	pr_info("%s %s -> skipped (%s)\n", cls, what, why);
}

static __printf(1, 2) void fail(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("FAIL %pV\n", &vaf);
	va_end(args);
	n_failed++;
}

/* ---- probe targets: this module's own functions ---- */

/*
 * Straight-line bodies: every instruction up to the return runs exactly
 * once per call, which the byte sweep relies on.  They are only ever
 * called through a pointer the compiler cannot see through, so they are
 * neither inlined nor specialised into clones with other names.
 */
static noinline int kph_add3(int x)
{
	return x * 3 + 7;
}

static noinline long kph_mix(long a, long b, long c)
{
	return ((a ^ 0x5a5a) + (b << 3)) - c * 5;
}

/* Not straight: the never-taken WARN leaves a bug-table entry to refuse. */
static noinline int kph_warn_site(int x)
{
	WARN_ON(x == 0x7eadbeef);
	return x + 1;
}

/* Refused by 6.12 as a module's own blacklist entries. */
static noinline int kph_nokprobe(int x)
{
	return x - 1;
}
NOKPROBE_SYMBOL(kph_nokprobe);

static noinline int __kprobes kph_kprobes_text(int x)
{
	return x + 2;
}

static noinstr int kph_noinstr(int x)
{
	return x + 3;
}

static int kph_data_var = 42;
static const char kph_rodata[32] = "not code, read-only data";

static long call_add3(void)
{
	int (*fn)(int) = kph_add3;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(11);
}

static long call_mix(void)
{
	long (*fn)(long, long, long) = kph_mix;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(1000, 7, 3);
}

static long call_warn_site(void)
{
	int (*fn)(int) = kph_warn_site;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(41);
}

struct target {
	const char *name;
	void *fn;
	long (*call)(void);
	long expect;
	bool straight;
};

static const struct target t_add3 = {
	"kph_add3", (void *)kph_add3, call_add3, 11 * 3 + 7, true
};

static const struct target t_mix = {
	"kph_mix", (void *)kph_mix, call_mix,
	((1000L ^ 0x5a5a) + (7L << 3)) - 3L * 5, true
};

static const struct target t_warn = {
	"kph_warn_site", (void *)kph_warn_site, call_warn_site, 42, false
};

/* Captured while init runs; the text behind it is freed afterwards. */
static void *init_helper_addr;

static noinline int __init kph_init_helper(int x)
{
	return x * 2 + 1;
}

/* ---- handlers (refused as probe targets themselves) ---- */

static atomic_t pre_hits, post_hits, entry_hits, ret_hits;
static atomic_t u_hits, u_hits2;
static unsigned long ret_value;

static int count_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&pre_hits);
	return 0;
}
NOKPROBE_SYMBOL(count_pre);

static void count_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	atomic_inc(&post_hits);
}
NOKPROBE_SYMBOL(count_post);

static int count_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&entry_hits);
	return 0;
}
NOKPROBE_SYMBOL(count_entry);

static int count_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(ret_value, regs_return_value(regs));
	atomic_inc(&ret_hits);
	return 0;
}
NOKPROBE_SYMBOL(count_ret);

static int u_count(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	atomic_inc(&u_hits);
	return 0;
}

static int u_count2(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	atomic_inc(&u_hits2);
	return 0;
}

static int u_ret(struct uprobe_consumer *uc, unsigned long func,
		 struct pt_regs *regs)
{
	return 0;
}

static bool u_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	return true;
}

/* ---- kprobe helpers ---- */

static struct kprobe kp_a, kp_b, kp_c;

/* A fresh probe with a counting pre_handler, aimed at @addr (or nothing). */
static struct kprobe *kp_fresh(struct kprobe *kp, void *addr)
{
	memset(kp, 0, sizeof(*kp));
	kp->addr = addr;
	kp->pre_handler = count_pre;
	return kp;
}

/*
 * Call @t once; FAIL unless it returned the right value and the
 * pre_handlers ran @want times in all.  Returns the count.
 */
static int fire(const char *what, const struct target *t, int want)
{
	long got;
	int hits;

	atomic_set(&pre_hits, 0);
	got = t->call();
	hits = atomic_read(&pre_hits);
	if (got != t->expect)
		fail("%s: %s returned %ld, not %ld", what, t->name, got,
		     t->expect);
	if (want >= 0 && hits != want)
		fail("%s: pre_handler ran %d times, not %d", what, hits, want);
	return hits;
}

/*
 * disable_kprobe() refuses a probe that is not registered, so it tells
 * whether a probe was left behind; one that was is removed here.
 */
static void expect_gone(struct kprobe *kp, const char *what)
{
	if (!disable_kprobe(kp)) {
		fail("%s: probe still registered", what);
		unregister_kprobe(kp);
	}
}

/* Register @kp; if it took, check it fires once on @t and remove it. */
static void kp_try(const char *what, struct kprobe *kp, const struct target *t)
{
	int ret = register_kprobe(kp);

	if (!ret) {
		if (t)
			fire(what, t, 1);
		unregister_kprobe(kp);
		expect_gone(kp, what);
	}
	report("kprobe", what, ret);
}

/* Register @kp, which may land anywhere; say where, remove it. */
static void kp_try_anywhere(const char *what, struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret) {
		report("kprobe", what, ret);
		return;
	}
	reportf("kprobe", what, ret, "(at %ps)", kp->addr);
	unregister_kprobe(kp);
	expect_gone(kp, what);
}

/* The size kallsyms gives the function at @fn, from "name+off/size". */
static unsigned long symbol_size(void *fn)
{
	char buf[KSYM_SYMBOL_LEN], *size, *end;
	unsigned long val;

	sprint_symbol(buf, (unsigned long)fn);
	size = strchr(buf, '/');
	if (!size)
		return 0;
	size++;
	end = strchr(size, ' ');
	if (end)
		*end = '\0';
	return kstrtoul(size, 16, &val) ? 0 : val;
}

#define SWEEP_MAX	256
#define SWEEP_ERRS	8

/* Append ",<hex>" (or "<hex>" first) to @buf, "..." once it is full. */
static void add_offset(char *buf, size_t len, unsigned long off)
{
	size_t used = strlen(buf);

	if (used + 24 >= len) {
		if (used + 4 < len && !strstr(buf, "..."))
			strcat(buf, "...");
		return;
	}
	scnprintf(buf + used, len - used, "%s%lx", used ? "," : "", off);
}

/*
 * A probe on every byte of @t.  Instruction starts may take one, the
 * rest must be refused; a probe that took must not change what the
 * function returns and must fire at most once per call.  On straight-line
 * code every instruction before the return runs, so the probes that
 * fire are exactly the first ones that took, up to the return.
 */
static void sweep_bytes(const struct target *t)
{
	int errs[SWEEP_ERRS], counts[SWEEP_ERRS], nerr = 0, other = 0;
	char oks[320] = "", fired[320] = "", line[200], num[16];
	unsigned long size = symbol_size(t->fn), off;
	unsigned int nok = 0, nfired = 0;
	long first_unfired = -1;
	size_t used;
	int i, j, ret, hits;

	if (!size || size > SWEEP_MAX) {
		skip("sweep", t->name, "no usable symbol size");
		return;
	}
	/*
	 * kallsyms counts up to the next function.  With arm64's CALL_OPS
	 * the last 8 bytes of that are the next function's ftrace ops
	 * pointer: data, whose value (and so its verdict as an instruction)
	 * changes from boot to boot.  Leave it out.
	 */
	if (IS_ENABLED(CONFIG_ARM64) &&
	    IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS) && size > 8)
		size -= 8;
	for (off = 0; off < size; off++) {
		kp_fresh(&kp_a, (char *)t->fn + off);
		ret = register_kprobe(&kp_a);
		n_attempts++;
		if (ret) {
			n_refused++;
			for (i = 0; i < nerr && errs[i] != ret; i++)
				;
			if (i == nerr && nerr < SWEEP_ERRS) {
				errs[nerr] = ret;
				counts[nerr++] = 0;
			}
			if (i < nerr)
				counts[i]++;
			else
				other++;
			continue;
		}
		n_ok++;
		nok++;
		add_offset(oks, sizeof(oks), off);
		snprintf(line, sizeof(line), "sweep %s+0x%lx", t->name, off);
		hits = fire(line, t, -1);
		unregister_kprobe(&kp_a);
		expect_gone(&kp_a, line);
		if (hits > 1)
			fail("%s: fired %d times in one call", line, hits);
		if (hits) {
			nfired++;
			add_offset(fired, sizeof(fired), off);
		}
		if (!t->straight)
			continue;
		if (nok == 1 && !hits)
			fail("%s: the first probe that took did not fire", line);
		if (!hits && first_unfired < 0)
			first_unfired = off;
		if (hits && first_unfired >= 0)
			fail("%s: fired after +0x%lx did not, on straight code",
			     line, first_unfired);
	}

	/* Errnos in numeric order, so that the line does not depend on luck. */
	for (i = 0; i < nerr; i++)
		for (j = i + 1; j < nerr; j++)
			if (errs[j] > errs[i]) {
				swap(errs[i], errs[j]);
				swap(counts[i], counts[j]);
			}
	used = scnprintf(line, sizeof(line), "bytes=0x%lx ok=%u", size, nok);
	for (i = 0; i < nerr; i++)
		used += scnprintf(line + used, sizeof(line) - used, " %s=%d",
				  result_name(errs[i], num, sizeof(num)),
				  counts[i]);
	if (other)
		used += scnprintf(line + used, sizeof(line) - used,
				  " other=%d", other);
	scnprintf(line + used, sizeof(line) - used, " fired=%u", nfired);
	pr_info("sweep %s -> %s\n", t->name, line);
	pr_info("sweep %s ok_at -> %s\n", t->name, *oks ? oks : "-");
	pr_info("sweep %s fired_at -> %s\n", t->name, *fired ? fired : "-");
}

/* ---- register_kprobe() ---- */

static char long_name[KSYM_NAME_LEN + 88];

static const char * const refused_syms[] = {
	/* NOKPROBE_SYMBOL in generic code. */
	"notify_die",
	"atomic_notifier_call_chain",
#ifdef CONFIG_X86
	"kprobe_int3_handler",		/* kprobes' own trap handler */
	"do_int3",			/* NOKPROBE_SYMBOL */
	"exc_int3",			/* noinstr */
#endif
#ifdef CONFIG_ARM64
	"kprobe_brk_handler",		/* kprobes' own trap handler */
	"do_mem_abort",			/* NOKPROBE_SYMBOL */
	"el1h_64_sync_handler",		/* noinstr */
#endif
};

static void kprobe_targets(void)
{
	int local = 7;
	void *heap;
	char name[64];
	int i;

	skip("kprobe", "null_struct",
	     "register_kprobe(NULL) dereferences it on 6.12");

	kp_try("addr_null_no_symbol", kp_fresh(&kp_a, NULL), NULL);

	kp_fresh(&kp_a, NULL);
	kp_a.offset = 0x10;
	kp_try("symbol_null_offset_only", &kp_a, NULL);

	kp_fresh(&kp_a, kph_add3);
	kp_a.symbol_name = "kph_add3";
	kp_try("addr_and_symbol", &kp_a, &t_add3);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "kph_no_such_symbol";
	kp_try("unknown_symbol", &kp_a, NULL);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "";
	kp_try("empty_symbol", &kp_a, NULL);

	memset(long_name, 'k', sizeof(long_name) - 1);
	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = long_name;
	kp_try("overlong_symbol", &kp_a, NULL);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "kph_add3";
	kp_try("own_symbol", &kp_a, &t_add3);

	kp_fresh(&kp_a, kph_add3);
	kp_try("own_addr", &kp_a, &t_add3);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = KBUILD_MODNAME ":kph_add3";
	kp_try("mod_sym_own_module", &kp_a, &t_add3);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "kph_no_such_module:kph_add3";
	kp_try("mod_sym_bogus_module", &kp_a, NULL);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = KBUILD_MODNAME ":kph_no_such_symbol";
	kp_try("mod_sym_bogus_symbol", &kp_a, NULL);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = ":kph_add3";
	kp_try("mod_sym_empty_module", &kp_a, NULL);

	/* Past the end of the function: wherever that lands, if anywhere. */
	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "kph_add3";
	kp_a.offset = 0x1000;
	kp_try_anywhere("own_symbol_offset_0x1000", &kp_a);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "kph_add3";
	kp_a.offset = 0x100000;
	kp_try_anywhere("own_symbol_offset_0x100000", &kp_a);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "kph_add3";
	kp_a.offset = -1;	/* the offset is unsigned: 0xffffffff */
	kp_try_anywhere("own_symbol_offset_minus1", &kp_a);

	kp_fresh(&kp_a, kph_add3);
	kp_a.offset = 0x100000;
	kp_try_anywhere("own_addr_offset_0x100000", &kp_a);

	/* Addresses that are not text at all. */
	kp_try("own_data", kp_fresh(&kp_a, &kph_data_var), NULL);
	kp_try("own_rodata", kp_fresh(&kp_a, (void *)kph_rodata), NULL);
	kp_try("kernel_data_jiffies", kp_fresh(&kp_a, (void *)&jiffies), NULL);
	kp_try("stack", kp_fresh(&kp_a, &local), NULL);
	heap = kmalloc(64, GFP_KERNEL);
	if (heap) {
		kp_try("heap", kp_fresh(&kp_a, heap), NULL);
		kfree(heap);
	}
	heap = vmalloc(PAGE_SIZE);
	if (heap) {
		kp_try("vmalloc", kp_fresh(&kp_a, heap), NULL);
		vfree(heap);
		/* Unmapped now, or somebody else's. */
		kp_try("vmalloc_freed", kp_fresh(&kp_a, heap), NULL);
	}
	kp_try("linear_alias_of_kernel_text",
	       kp_fresh(&kp_a, lm_alias(_printk)), NULL);
	kp_try("user_0x400000", kp_fresh(&kp_a, (void *)0x400000UL), NULL);
	kp_try("user_0x1000", kp_fresh(&kp_a, (void *)0x1000UL), NULL);
	kp_try("bogus_0xdead000000000000",
	       kp_fresh(&kp_a, (void *)0xdead000000000000UL), NULL);
	kp_try("err_ptr_minus1", kp_fresh(&kp_a, ERR_PTR(-1)), NULL);
	kp_try("err_ptr_einval", kp_fresh(&kp_a, ERR_PTR(-EINVAL)), NULL);

	/* Kernel text: a plain function, inside an instruction, init text. */
	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "do_sys_openat2";
	kp_try("kernel_function", &kp_a, NULL);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "do_sys_openat2";
	kp_a.offset = 1;
	kp_try("kernel_function_plus1", &kp_a, NULL);

	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "start_kernel";
	kp_try("kernel_init_text_start_kernel", &kp_a, NULL);

	/* Refused text. */
	for (i = 0; i < ARRAY_SIZE(refused_syms); i++) {
		kp_fresh(&kp_a, NULL);
		kp_a.symbol_name = refused_syms[i];
		snprintf(name, sizeof(name), "refused_%s", refused_syms[i]);
		kp_try(name, &kp_a, NULL);
	}
	kp_try("own_nokprobe_symbol", kp_fresh(&kp_a, kph_nokprobe), NULL);
	kp_try("own_kprobes_text", kp_fresh(&kp_a, kph_kprobes_text), NULL);
	kp_try("own_noinstr", kp_fresh(&kp_a, kph_noinstr), NULL);
	kp_try("own_pre_handler", kp_fresh(&kp_a, count_pre), NULL);

	/* Init text of this module, freed since. */
	if (!init_helper_addr || within_module_init((unsigned long)init_helper_addr,
						    THIS_MODULE)) {
		skip("kprobe", "own_init_text_after_init", "init text not gone");
	} else {
		kp_try("own_init_text_after_init",
		       kp_fresh(&kp_a, init_helper_addr), NULL);
		kp_fresh(&kp_a, NULL);
		kp_a.symbol_name = "kph_init_helper";
		kp_try("own_init_symbol_after_init", &kp_a, NULL);
	}
}

static void kprobe_handlers_and_flags(void)
{
	unsigned int hits[3];
	int ret, r2, r3;

	/* No handlers at all: legal, and the function must still work. */
	memset(&kp_a, 0, sizeof(kp_a));
	kp_a.addr = (void *)kph_add3;
	ret = register_kprobe(&kp_a);
	if (!ret) {
		fire("no_handlers", &t_add3, 0);
		unregister_kprobe(&kp_a);
		expect_gone(&kp_a, "no_handlers");
	}
	report("kprobe", "no_handlers", ret);

	memset(&kp_a, 0, sizeof(kp_a));
	kp_a.addr = (void *)kph_add3;
	kp_a.post_handler = count_post;
	atomic_set(&post_hits, 0);
	ret = register_kprobe(&kp_a);
	if (!ret) {
		fire("post_handler_only", &t_add3, 0);
		if (atomic_read(&post_hits) != 1)
			fail("post_handler_only: post_handler ran %d times, not 1",
			     atomic_read(&post_hits));
		unregister_kprobe(&kp_a);
		expect_gone(&kp_a, "post_handler_only");
	}
	report("kprobe", "post_handler_only", ret);

	/* Registered disabled, then switched on and off. */
	kp_fresh(&kp_a, kph_add3);
	kp_a.flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(&kp_a);
	if (!ret) {
		hits[0] = fire("flag_disabled (disabled)", &t_add3, 0);
		r2 = enable_kprobe(&kp_a);
		hits[1] = fire("flag_disabled (enabled)", &t_add3, r2 ? 0 : 1);
		r3 = disable_kprobe(&kp_a);
		hits[2] = fire("flag_disabled (disabled again)", &t_add3, 0);
		if (r2 || r3)
			fail("flag_disabled: enable %d, disable %d", r2, r3);
		unregister_kprobe(&kp_a);
		expect_gone(&kp_a, "flag_disabled");
		reportf("kprobe", "flag_disabled", ret,
			"(hits %u/%u/%u, enable %d, disable %d)",
			hits[0], hits[1], hits[2], r2, r3);
	} else {
		report("kprobe", "flag_disabled", ret);
	}

	/* Enabling an enabled probe and disabling a disabled one: no-ops. */
	kp_fresh(&kp_a, kph_add3);
	ret = register_kprobe(&kp_a);
	if (!ret) {
		r2 = enable_kprobe(&kp_a);
		fire("enable_enabled", &t_add3, 1);
		r3 = disable_kprobe(&kp_a);
		r3 = r3 ?: disable_kprobe(&kp_a);
		fire("disable_disabled", &t_add3, 0);
		unregister_kprobe(&kp_a);
		expect_gone(&kp_a, "enable_enabled");
		reportf("kprobe", "enable_enabled_disable_disabled", ret,
			"(enable %d, disable twice %d)", r2, r3);
	} else {
		report("kprobe", "enable_enabled_disable_disabled", ret);
	}

	/* Flag bits a caller has no business setting. */
	kp_fresh(&kp_a, kph_add3);
	kp_a.flags = 0x80000000;
	ret = register_kprobe(&kp_a);
	if (!ret) {
		fire("flags_bogus_bit", &t_add3, 1);
		r2 = !!(kp_a.flags & 0x80000000);
		unregister_kprobe(&kp_a);
		expect_gone(&kp_a, "flags_bogus_bit");
		reportf("kprobe", "flags_bogus_bit", ret, "(bit kept %d)", r2);
	} else {
		report("kprobe", "flags_bogus_bit", ret);
	}

	kp_fresh(&kp_a, kph_add3);
	kp_a.flags = KPROBE_FLAG_GONE;
	kp_try("flags_gone", &kp_a, &t_add3);

	kp_fresh(&kp_a, kph_add3);
	kp_a.flags = KPROBE_FLAG_FTRACE | KPROBE_FLAG_OPTIMIZED;
	kp_try("flags_ftrace_optimized", &kp_a, &t_add3);

	/* Every bit, KPROBE_FLAG_DISABLED among them. */
	kp_fresh(&kp_a, kph_add3);
	kp_a.flags = ~0U;
	ret = register_kprobe(&kp_a);
	if (!ret) {
		fire("flags_all_bits", &t_add3, 0);
		unregister_kprobe(&kp_a);
		expect_gone(&kp_a, "flags_all_bits");
	}
	report("kprobe", "flags_all_bits", ret);
}

/*
 * Register @kp again after it was unregistered.  Whether it comes back
 * enabled depends on what unregistering left in .flags, so the hits are
 * reported rather than required.
 */
static void kp_reuse(const char *what, struct kprobe *kp)
{
	int disabled = !!(kp->flags & KPROBE_FLAG_DISABLED);
	int ret, hits;

	ret = register_kprobe(kp);
	if (ret) {
		reportf("kprobe", what, ret, "(disabled after unregister %d)",
			disabled);
		return;
	}
	hits = fire(what, &t_add3, -1);
	unregister_kprobe(kp);
	expect_gone(kp, what);
	reportf("kprobe", what, ret, "(hits=%d, disabled after unregister %d)",
		hits, disabled);
}

static void kprobe_lifecycle(void)
{
	int ret, r2;

	/* Unregistering what was never registered must be harmless. */
	kp_fresh(&kp_a, kph_add3);
	unregister_kprobe(&kp_a);
	fire("unregister_never_registered", &t_add3, 0);
	reportf("kprobe", "unregister_never_registered", 0, "(addr after: %s)",
		kp_a.addr ? "kept" : "NULL");

	/* ...even with a real probe at the same address, which stays. */
	kp_fresh(&kp_b, kph_add3);
	ret = register_kprobe(&kp_b);
	if (!ret) {
		kp_fresh(&kp_a, kph_add3);
		unregister_kprobe(&kp_a);
		fire("unregister_stranger_at_live_address", &t_add3, 1);
		unregister_kprobe(&kp_b);
		expect_gone(&kp_b, "unregister_stranger_at_live_address");
	}
	report("kprobe", "unregister_stranger_at_live_address", ret);

	kp_fresh(&kp_a, kph_add3);
	ret = register_kprobe(&kp_a);
	if (!ret) {
		unregister_kprobe(&kp_a);
		unregister_kprobe(&kp_a);
		fire("unregister_twice", &t_add3, 0);
		expect_gone(&kp_a, "unregister_twice");
	}
	report("kprobe", "unregister_twice", ret);

	kp_fresh(&kp_a, kph_add3);
	report("kprobe", "enable_unregistered", enable_kprobe(&kp_a));
	kp_fresh(&kp_a, kph_add3);
	report("kprobe", "disable_unregistered", disable_kprobe(&kp_a));
	kp_fresh(&kp_a, NULL);
	report("kprobe", "enable_zeroed", enable_kprobe(&kp_a));

	kp_fresh(&kp_a, kph_add3);
	ret = register_kprobe(&kp_a);
	if (!ret) {
		unregister_kprobe(&kp_a);
		r2 = enable_kprobe(&kp_a);
		reportf("kprobe", "enable_after_unregister", r2, "(register %d)",
			ret);
		fire("enable_after_unregister", &t_add3, 0);
		expect_gone(&kp_a, "enable_after_unregister");
	} else {
		report("kprobe", "enable_after_unregister", ret);
	}

	/* A struct used again once unregistered, as callers do. */
	kp_fresh(&kp_a, kph_add3);
	ret = register_kprobe(&kp_a);
	if (!ret) {
		unregister_kprobe(&kp_a);
		kp_reuse("reuse_by_addr", &kp_a);
	} else {
		report("kprobe", "reuse_by_addr", ret);
	}

	/* Registered by name, it comes back with .addr filled in as well. */
	kp_fresh(&kp_a, NULL);
	kp_a.symbol_name = "kph_add3";
	ret = register_kprobe(&kp_a);
	if (!ret) {
		unregister_kprobe(&kp_a);
		kp_reuse("reuse_by_symbol", &kp_a);
	} else {
		report("kprobe", "reuse_by_symbol", ret);
	}

	/* Two probes at one address: both fire; either leaves alone. */
	kp_fresh(&kp_a, kph_add3);
	kp_fresh(&kp_b, NULL);
	kp_b.symbol_name = "kph_add3";
	ret = register_kprobe(&kp_a);
	if (!ret) {
		r2 = register_kprobe(&kp_b);
		if (!r2) {
			fire("two_at_one_address", &t_add3, 2);
			unregister_kprobe(&kp_a);
			fire("two_at_one_address (first gone)", &t_add3, 1);
			unregister_kprobe(&kp_b);
			expect_gone(&kp_b, "two_at_one_address");
		} else {
			unregister_kprobe(&kp_a);
		}
		fire("two_at_one_address (both gone)", &t_add3, 0);
		expect_gone(&kp_a, "two_at_one_address");
		ret = r2;
	}
	report("kprobe", "two_at_one_address", ret);

	if (!warn_cases) {
		skip("kprobe", "register_twice", "6.12 WARNs; warn_cases=1");
	} else {
		kp_fresh(&kp_a, kph_add3);
		ret = register_kprobe(&kp_a);
		if (!ret) {
			r2 = register_kprobe(&kp_a);
			fire("register_twice", &t_add3, 1);
			unregister_kprobe(&kp_a);
			expect_gone(&kp_a, "register_twice");
			report("kprobe", "register_twice", r2);
		} else {
			report("kprobe", "register_twice", ret);
		}
	}
}

/* ---- register_kprobes() ---- */

/* None of the batch may be registered, or fire. */
static void expect_batch_gone(struct kprobe **kps, int num, const char *what)
{
	int i;

	fire(what, &t_add3, 0);
	atomic_set(&pre_hits, 0);
	call_mix();
	if (atomic_read(&pre_hits))
		fail("%s: a rolled-back probe fired on kph_mix", what);
	for (i = 0; i < num; i++)
		expect_gone(kps[i], what);
}

static void batch_try(const char *what, struct kprobe **kps, int num,
		      int add3_hits, int mix_hits)
{
	int ret = register_kprobes(kps, num);

	if (!ret) {
		fire(what, &t_add3, add3_hits);
		atomic_set(&pre_hits, 0);
		call_mix();
		if (atomic_read(&pre_hits) != mix_hits)
			fail("%s: kph_mix probes ran %d times, not %d", what,
			     atomic_read(&pre_hits), mix_hits);
		unregister_kprobes(kps, num);
	}
	expect_batch_gone(kps, num, what);
	report("kprobes", what, ret);
}

static void kprobe_batches(void)
{
	struct kprobe *kps[3] = { &kp_a, &kp_b, &kp_c };

	kp_fresh(&kp_a, kph_add3);
	report("kprobes", "num_zero", register_kprobes(kps, 0));
	expect_gone(&kp_a, "num_zero");
	report("kprobes", "num_negative", register_kprobes(kps, -1));
	expect_gone(&kp_a, "num_negative");
	skip("kprobes", "null_entry",
	     "register_kprobes() dereferences every entry on 6.12");

	kp_fresh(&kp_a, kph_add3);
	kp_fresh(&kp_b, kph_mix);
	kp_fresh(&kp_c, NULL);
	kp_c.symbol_name = "kph_add3";
	batch_try("all_good", kps, 3, 2, 1);

	kp_fresh(&kp_a, kph_add3);
	kp_fresh(&kp_b, NULL);
	kp_b.symbol_name = "kph_no_such_symbol";
	kp_fresh(&kp_c, kph_mix);
	batch_try("bad_in_middle_unknown_symbol", kps, 3, 1, 1);

	kp_fresh(&kp_a, kph_add3);
	kp_fresh(&kp_b, kph_mix);
	kp_fresh(&kp_c, &kph_data_var);
	batch_try("bad_last_data_address", kps, 3, 1, 1);

	kp_fresh(&kp_a, kph_nokprobe);
	kp_fresh(&kp_b, kph_add3);
	kp_fresh(&kp_c, kph_mix);
	batch_try("bad_first_refused_text", kps, 3, 1, 1);

	/*
	 * The bad one gives both .addr and .symbol_name, for the address a
	 * good one before it has just taken.
	 */
	kp_fresh(&kp_a, kph_add3);
	kp_fresh(&kp_b, kph_add3);
	kp_b.symbol_name = "kph_add3";
	kp_fresh(&kp_c, kph_mix);
	batch_try("bad_addr_and_symbol_at_shared_address", kps, 3, 2, 1);

	unregister_kprobes(kps, 0);
	unregister_kprobes(kps, -1);
	report("kprobes", "unregister_num_zero_and_negative", 0);

	if (!warn_cases) {
		skip("kprobes", "same_struct_twice", "6.12 WARNs; warn_cases=1");
	} else {
		struct kprobe *twice[2] = { &kp_a, &kp_a };

		kp_fresh(&kp_a, kph_add3);
		batch_try("same_struct_twice", twice, 2, 1, 0);
	}
}

/* ---- register_kretprobe() ---- */

static struct kretprobe rp_a, rp_b;

static struct kretprobe *rp_fresh(struct kretprobe *rp, void *addr)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.addr = addr;
	rp->handler = count_ret;
	rp->entry_handler = count_entry;
	return rp;
}

/* Call kph_mix; FAIL unless entry and return handlers ran as expected. */
static void rp_fire(const char *what, int want_entry, int want_ret)
{
	long got;

	atomic_set(&entry_hits, 0);
	atomic_set(&ret_hits, 0);
	WRITE_ONCE(ret_value, 0);
	got = call_mix();
	if (got != t_mix.expect)
		fail("%s: kph_mix returned %ld, not %ld", what, got,
		     t_mix.expect);
	if (atomic_read(&entry_hits) != want_entry)
		fail("%s: entry_handler ran %d times, not %d", what,
		     atomic_read(&entry_hits), want_entry);
	if (atomic_read(&ret_hits) != want_ret)
		fail("%s: handler ran %d times, not %d", what,
		     atomic_read(&ret_hits), want_ret);
	if (want_ret && atomic_read(&ret_hits) == want_ret &&
	    (long)READ_ONCE(ret_value) != t_mix.expect)
		fail("%s: handler saw %ld returned, not %ld", what,
		     (long)READ_ONCE(ret_value), t_mix.expect);
}

static void rp_expect_gone(struct kretprobe *rp, const char *what)
{
	if (!disable_kretprobe(rp)) {
		fail("%s: kretprobe still registered", what);
		unregister_kretprobe(rp);
	}
}

/* Register @rp; if it took, check it on kph_mix (when @fires) and remove it. */
static void rp_try(const char *what, struct kretprobe *rp, bool fires)
{
	bool want_entry = fires && rp->entry_handler;
	bool want_ret = fires && rp->handler;
	int ret = register_kretprobe(rp);

	if (!ret) {
		if (fires)
			rp_fire(what, want_entry, want_ret);
		unregister_kretprobe(rp);
		rp_expect_gone(rp, what);
		reportf("kretprobe", what, ret, "(maxactive=%d)", rp->maxactive);
		return;
	}
	report("kretprobe", what, ret);
}

static void kretprobe_cases(void)
{
	struct kretprobe *rps[2] = { &rp_a, &rp_b };
	int ret, r2, r3;

	rp_try("own_function", rp_fresh(&rp_a, kph_mix), true);

	rp_fresh(&rp_a, NULL);
	rp_a.kp.symbol_name = "kph_mix";
	rp_try("own_symbol", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.maxactive = -5;
	rp_try("maxactive_negative", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.maxactive = 4096;
	rp_try("maxactive_4096", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.maxactive = 4097;
	rp_try("maxactive_4097", &rp_a, true);

	/* Huge, but what a guest can afford if a kernel does allocate it. */
	rp_fresh(&rp_a, kph_mix);
	rp_a.maxactive = 100000;
	rp_try("maxactive_100000", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.data_size = KRETPROBE_MAX_DATA_SIZE;
	rp_try("data_size_max", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.data_size = KRETPROBE_MAX_DATA_SIZE + 1;
	rp_try("data_size_max_plus1", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.data_size = SIZE_MAX;
	rp_try("data_size_huge", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.handler = NULL;
	rp_a.entry_handler = NULL;
	rp_try("no_handlers", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.handler = NULL;
	rp_try("entry_handler_only", &rp_a, true);

	rp_fresh(&rp_a, kph_mix);
	rp_a.kp.offset = 4;
	rp_try("not_function_entry_addr_plus4", &rp_a, true);

	rp_fresh(&rp_a, NULL);
	rp_a.kp.symbol_name = "kph_mix";
	rp_a.kp.offset = 4;
	rp_try("not_function_entry_symbol_plus4", &rp_a, true);

	rp_fresh(&rp_a, NULL);
	rp_a.kp.symbol_name = "notify_die";
	rp_try("refused_notify_die", &rp_a, false);

	rp_try("own_nokprobe_symbol", rp_fresh(&rp_a, kph_nokprobe), false);

	rp_fresh(&rp_a, kph_mix);
	rp_a.kp.symbol_name = "kph_mix";
	rp_try("addr_and_symbol", &rp_a, true);

	rp_try("addr_null_no_symbol", rp_fresh(&rp_a, NULL), false);

	rp_fresh(&rp_a, NULL);
	rp_a.kp.symbol_name = "kph_no_such_symbol";
	rp_try("unknown_symbol", &rp_a, false);

	rp_try("own_data", rp_fresh(&rp_a, &kph_data_var), false);

	/* Switched off and on while registered. */
	rp_fresh(&rp_a, kph_mix);
	ret = register_kretprobe(&rp_a);
	if (!ret) {
		r2 = disable_kretprobe(&rp_a);
		rp_fire("disable_enable (disabled)", 0, 0);
		r3 = enable_kretprobe(&rp_a);
		rp_fire("disable_enable (enabled)", 1, 1);
		if (r2 || r3)
			fail("disable_enable: disable %d, enable %d", r2, r3);
		unregister_kretprobe(&rp_a);
		rp_expect_gone(&rp_a, "disable_enable");
	}
	report("kretprobe", "disable_enable", ret);

	/* Registered again once unregistered, from the same struct. */
	rp_fresh(&rp_a, kph_mix);
	ret = register_kretprobe(&rp_a);
	if (!ret) {
		unregister_kretprobe(&rp_a);
		r2 = !!(rp_a.kp.flags & KPROBE_FLAG_DISABLED);
		ret = register_kretprobe(&rp_a);
		if (!ret) {
			atomic_set(&entry_hits, 0);
			atomic_set(&ret_hits, 0);
			if (call_mix() != t_mix.expect)
				fail("reuse_by_addr: kph_mix returned a wrong value");
			unregister_kretprobe(&rp_a);
			rp_expect_gone(&rp_a, "reuse_by_addr");
			reportf("kretprobe", "reuse_by_addr", ret,
				"(entry=%d ret=%d, disabled after unregister %d)",
				atomic_read(&entry_hits),
				atomic_read(&ret_hits), r2);
		} else {
			reportf("kretprobe", "reuse_by_addr", ret,
				"(disabled after unregister %d)", r2);
		}
	} else {
		report("kretprobe", "reuse_by_addr", ret);
	}

	skip("kretprobe", "unregister_never_registered",
	     "6.12 frees the instance pool it never allocated");
	skip("kretprobe", "unregister_twice",
	     "6.12 frees the instance pool a second time");

	rp_fresh(&rp_a, kph_mix);
	report("kretprobe", "enable_unregistered", enable_kretprobe(&rp_a));

	report("kretprobes", "num_zero", register_kretprobes(rps, 0));
	report("kretprobes", "num_negative", register_kretprobes(rps, -1));

	rp_fresh(&rp_a, kph_mix);
	rp_fresh(&rp_b, NULL);
	rp_b.kp.symbol_name = "kph_no_such_symbol";
	ret = register_kretprobes(rps, 2);
	if (!ret)
		unregister_kretprobes(rps, 2);
	rp_fire("bad_second", 0, 0);
	rp_expect_gone(&rp_a, "bad_second");
	report("kretprobes", "bad_second", ret);

	if (!warn_cases) {
		skip("kretprobe", "register_twice", "6.12 WARNs; warn_cases=1");
	} else {
		rp_fresh(&rp_a, kph_mix);
		ret = register_kretprobe(&rp_a);
		if (!ret) {
			r2 = register_kretprobe(&rp_a);
			rp_fire("register_twice", 1, 1);
			unregister_kretprobe(&rp_a);
			rp_expect_gone(&rp_a, "register_twice");
			report("kretprobe", "register_twice", r2);
		} else {
			report("kretprobe", "register_twice", ret);
		}
	}
}

/* ---- uprobes ---- */

static struct uprobe_consumer uc_count = { .handler = u_count };
static struct uprobe_consumer uc_count2 = { .handler = u_count2 };
static struct uprobe_consumer uc_none;
static struct uprobe_consumer uc_ret_only = { .ret_handler = u_ret };
static struct uprobe_consumer uc_filter_only = { .filter = u_filter };

/* The file offset of the ELF entry point of @path. */
static loff_t elf_entry_offset(const char *path)
{
	struct elf64_phdr ph;
	struct elf64_hdr eh;
	struct file *file;
	loff_t pos = 0, ret = -ENOEXEC;
	int i;

	file = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	if (kernel_read(file, &eh, sizeof(eh), &pos) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (i = 0; i < eh.e_phnum && i < 64; i++) {
		pos = eh.e_phoff + i * sizeof(ph);
		if (kernel_read(file, &ph, sizeof(ph), &pos) != sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (eh.e_entry >= ph.p_vaddr &&
		    eh.e_entry < ph.p_vaddr + ph.p_filesz) {
			ret = eh.e_entry - ph.p_vaddr + ph.p_offset;
			break;
		}
	}
out:
	filp_close(file, NULL);
	return ret;
}

/* Run the target once; its entry is hit once.  The wait status, or -errno. */
static int run_target(void)
{
	/* Not const: call_usermodehelper() takes char **. */
	static char *envp[3] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin",
				 NULL };
	char *argv[3] = { uprobe_path, "points", NULL };

	return call_usermodehelper(uprobe_path, argv, envp, UMH_WAIT_PROC);
}

/*
 * Register @uc at @off (semaphore at @ref); if that took and @run, run
 * the target and check @uc's handler saw its entry once; then remove it.
 */
static void up_try(const char *what, struct inode *inode, loff_t off,
		   loff_t ref, struct uprobe_consumer *uc, bool run)
{
	struct uprobe *up;
	char num[16];
	int ret, status, hits;

	atomic_set(&u_hits, 0);
	up = uprobe_register(inode, off, ref, uc);
	ret = PTR_ERR_OR_ZERO(up);
	if (ret || !run) {
		if (!ret) {
			uprobe_unregister_nosync(up, uc);
			uprobe_unregister_sync();
		}
		report("uprobe", what, ret);
		return;
	}
	status = run_target();
	hits = atomic_read(&u_hits);
	uprobe_unregister_nosync(up, uc);
	uprobe_unregister_sync();
	if (status < 0) {
		reportf("uprobe", what, ret, "(target not run: %s)",
			result_name(status, num, sizeof(num)));
		return;
	}
	if (status & 0x7f)
		fail("uprobe %s: the target died of signal %d", what,
		     status & 0x7f);
	if (hits != 1)
		fail("uprobe %s: handler ran %d times, not 1", what, hits);
	reportf("uprobe", what, ret, "(hits=%d)", hits);
}

/* An inode that is not a regular file: what uprobe_register() says. */
static void up_try_path(const char *what, const char *path)
{
	struct path p;
	char num[16];
	int ret;

	ret = kern_path(path, LOOKUP_FOLLOW, &p);
	if (ret) {
		char why[48];

		snprintf(why, sizeof(why), "kern_path: %s",
			 result_name(ret, num, sizeof(num)));
		skip("uprobe", what, why);
		return;
	}
	up_try(what, d_inode(p.dentry), 0, 0, &uc_count, false);
	path_put(&p);
}

static void uprobe_cases(void)
{
	struct uprobe *first, *second;
	struct inode *inode;
	struct path path;
	loff_t size, entry;
	char num[16];
	int ret, r2, hits;

	if (!uprobe_path || !*uprobe_path) {
		skip("uprobe", "all", "no uprobe_path=");
		return;
	}
	ret = kern_path(uprobe_path, LOOKUP_FOLLOW, &path);
	if (ret) {
		report("uprobe", "target_path", ret);
		return;
	}
	inode = d_inode(path.dentry);
	size = i_size_read(inode);
	entry = elf_entry_offset(uprobe_path);
	if (entry < 0) {
		skip("uprobe", "all", "no ELF entry point in uprobe_path");
		goto out;
	}

	up_try("entry", inode, entry, 0, &uc_count, true);
	up_try("consumer_no_handlers", inode, entry, 0, &uc_none, false);
	up_try("consumer_filter_only", inode, entry, 0, &uc_filter_only,
	       false);
	/* Not run: a return probe on _start would overwrite argc. */
	up_try("consumer_ret_handler_only", inode, entry, 0, &uc_ret_only,
	       false);
	up_try("offset_minus1", inode, -1, 0, &uc_count, false);
	up_try("offset_minus4", inode, -4, 0, &uc_count, false);
	up_try("offset_at_eof", inode, size, 0, &uc_count, false);
	up_try("offset_past_eof", inode, size + PAGE_SIZE, 0, &uc_count,
	       false);
	up_try("offset_huge", inode, LLONG_MAX & ~7LL, 0, &uc_count, false);
	up_try("offset_unaligned_1", inode, entry + 1, 0, &uc_count, false);
	up_try("offset_unaligned_2", inode, entry + 2, 0, &uc_count, false);
	up_try("ref_ctr_negative", inode, entry, -2, &uc_count, false);
	up_try("ref_ctr_past_eof", inode, entry, ALIGN(size, 8) + 8,
	       &uc_count, false);
	up_try("ref_ctr_unaligned", inode, entry, 1, &uc_count, false);
	up_try_path("inode_dev_null", "/dev/null");
	up_try_path("inode_root_dir", "/");

	/* Two consumers on one probe: both see the hit. */
	atomic_set(&u_hits, 0);
	atomic_set(&u_hits2, 0);
	first = uprobe_register(inode, entry, 0, &uc_count);
	ret = PTR_ERR_OR_ZERO(first);
	if (!ret) {
		second = uprobe_register(inode, entry, 0, &uc_count2);
		r2 = PTR_ERR_OR_ZERO(second);
		if (!r2) {
			int status = run_target();

			hits = atomic_read(&u_hits2);
			if (status >= 0 &&
			    (atomic_read(&u_hits) != 1 || hits != 1))
				fail("uprobe two_consumers: handlers ran %d and %d times, not once",
				     atomic_read(&u_hits), hits);
			uprobe_unregister_nosync(second, &uc_count2);
		}
		uprobe_unregister_nosync(first, &uc_count);
		uprobe_unregister_sync();
		ret = r2;
	}
	report("uprobe", "two_consumers", ret);

	/* A second consumer that names another semaphore for the probe. */
	first = uprobe_register(inode, entry, 0, &uc_count);
	ret = PTR_ERR_OR_ZERO(first);
	if (!ret) {
		second = uprobe_register(inode, entry, 2, &uc_count2);
		r2 = PTR_ERR_OR_ZERO(second);
		if (!r2)
			uprobe_unregister_nosync(second, &uc_count2);
		uprobe_unregister_nosync(first, &uc_count);
		uprobe_unregister_sync();
		reportf("uprobe", "ref_ctr_mismatch", r2, "(first %s)",
			result_name(ret, num, sizeof(num)));
	} else {
		report("uprobe", "ref_ctr_mismatch", ret);
	}

	skip("uprobe", "apply_foreign_consumer", "uprobe_apply() is not exported in 6.12");
	if (!unsafe_cases) {
		skip("uprobe", "same_consumer_twice",
		     "6.12 links the consumer into its list twice; unsafe_cases=1");
	} else {
		first = uprobe_register(inode, entry, 0, &uc_count);
		ret = PTR_ERR_OR_ZERO(first);
		if (!ret) {
			second = uprobe_register(inode, entry, 0, &uc_count);
			r2 = PTR_ERR_OR_ZERO(second);
			if (!r2)
				uprobe_unregister_nosync(second, &uc_count);
			uprobe_unregister_nosync(first, &uc_count);
			uprobe_unregister_sync();
			ret = r2;
			/* Asked for only where it is safe: it must be refused. */
			if (!r2)
				fail("uprobe same_consumer_twice: registered twice");
		}
		report("uprobe", "same_consumer_twice", ret);
	}
out:
	path_put(&path);
}

/* ---- calls that corrupt probe state on some 6.12 kernel ---- */

static void unsafe_kprobe_cases(void)
{
	kprobe_opcode_t *where;
	int ret, r2;

	if (!unsafe_cases) {
		skip("kprobe", "reregister_moved",
		     "a live probe re-registered elsewhere corrupts 6.12's tables; unsafe_cases=1");
		return;
	}
	kp_fresh(&kp_a, kph_add3);
	ret = register_kprobe(&kp_a);
	if (!ret) {
		/* Where it went: past a landing pad, say (arm64 BTI). */
		where = kp_a.addr;
		kp_a.addr = (void *)kph_mix;
		r2 = register_kprobe(&kp_a);
		/* Best effort: take it off wherever it now claims to be. */
		unregister_kprobe(&kp_a);
		kp_a.addr = where;
		unregister_kprobe(&kp_a);
		ret = r2;
		if (!r2)
			fail("kprobe reregister_moved: a live probe registered again");
	}
	report("kprobe", "reregister_moved", ret);
}

/* ---- driver ---- */

static DECLARE_COMPLETION(sweep_done);

/* Wait until the module is live and its init text is no longer its own. */
static bool wait_init_gone(void)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (READ_ONCE(THIS_MODULE->state) == MODULE_STATE_LIVE &&
		    !within_module_init((unsigned long)init_helper_addr,
					THIS_MODULE))
			return true;
		msleep(20);
	}
	return false;
}

static int sweep_thread(void *unused)
{
	if (!wait_init_gone())
		pr_info("init text still there after 20s\n");
	kprobe_targets();
	kprobe_handlers_and_flags();
	kprobe_lifecycle();
	kprobe_batches();
	sweep_bytes(&t_add3);
	sweep_bytes(&t_mix);
	sweep_bytes(&t_warn);
	kretprobe_cases();
	uprobe_cases();
	unsafe_kprobe_cases();
	pr_info("done attempts=%u ok=%u refused=%u skipped=%u failed=%u\n",
		n_attempts, n_ok, n_refused, n_skipped, n_failed);
	kthread_complete_and_exit(&sweep_done, 0);
}

/* A probe on init text while init runs: allowed, and it fires. */
static void __init init_text_case(void)
{
	int (*fn)(int) = kph_init_helper;
	int ret, got;

	OPTIMIZER_HIDE_VAR(fn);
	init_helper_addr = fn;
	kp_fresh(&kp_a, fn);
	atomic_set(&pre_hits, 0);
	ret = register_kprobe(&kp_a);
	if (!ret) {
		got = fn(20);
		if (got != 41)
			fail("own_init_text_during_init: returned %d, not 41",
			     got);
		if (atomic_read(&pre_hits) != 1)
			fail("own_init_text_during_init: pre_handler ran %d times, not 1",
			     atomic_read(&pre_hits));
		unregister_kprobe(&kp_a);
		expect_gone(&kp_a, "own_init_text_during_init");
	}
	report("kprobe", "own_init_text_during_init", ret);
}

static int __init kprobes_hostile_init(void)
{
	struct task_struct *task;

	pr_info("begin warn_cases=%d unsafe_cases=%d uprobe_path=%s\n",
		warn_cases, unsafe_cases, *uprobe_path ? "set" : "none");
	init_text_case();
	task = kthread_run(sweep_thread, NULL, "kprobes_hostile");
	if (IS_ERR(task)) {
		pr_err("cannot start the sweep: %ld\n", PTR_ERR(task));
		return PTR_ERR(task);
	}
	return 0;
}

static void __exit kprobes_hostile_exit(void)
{
	/* Unloading before the sweep is over would pull text from under it. */
	wait_for_completion(&sweep_done);
}

module_init(kprobes_hostile_init);
module_exit(kprobes_hostile_exit);
MODULE_DESCRIPTION("Hostile arguments to the kprobes and uprobes registration calls");
MODULE_LICENSE("GPL");
