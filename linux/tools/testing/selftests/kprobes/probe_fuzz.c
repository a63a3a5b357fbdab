// SPDX-License-Identifier: GPL-2.0
/*
 * probe_fuzz: a bounded, seeded fuzzer for what userspace can hand to the
 * probing subsystem.  Each iteration picks one target at random:
 *
 *   kprobe_events, uprobe_events  one write of a probe definition, taken
 *                                 from a corpus of valid forms and often
 *                                 mutated afterwards;
 *   event_enable                  a short enable/disable of an event that
 *                                 exists and is known to be harmless;
 *   kprobes_enabled,              values for the two global knobs;
 *   kprobes_optimization
 *   perf_kprobe, perf_uprobe      perf_event_open() on the dynamic PMUs
 *                                 with mutated attributes.
 *
 * The input of iteration i is a function of (seed, i) and of what the
 * kernel accepted before it, so a seed that upsets a kernel replays the same
 * way on that kernel.  -d prints the inputs without touching the kernel.
 *
 * Beyond crashes and warnings, which probe_fuzz.sh looks for in dmesg, the
 * program checks one rule itself: a write to an events file that succeeds
 * adds exactly the one line it defined, and a write that fails adds
 * nothing.  At the end it removes whatever it created, sets both knobs back
 * to 1 and checks that the events files hold nothing of its own.
 *
 * Only a few quiet kernel functions are ever armed: events on anything else
 * are created (which leaves them disarmed) but never enabled, and because
 * the perf PMUs arm a probe as soon as the event is opened, perf only gets
 * those functions (by name or by an address inside them), unknown names,
 * and addresses that are not text.  Uprobes
 * are armed only at the entry of fz_uprobe_hot(), which this program calls,
 * or inside fz_pad, code it never runs, so a breakpoint in the middle of one
 * of its instructions cannot hurt.
 *
 * Exit status: 0 pass, 1 fail, 4 skip (kselftest convention).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define PICK(r, arr)		((arr)[below((r), sizeof(arr) / sizeof((arr)[0]))])

#define DEFAULT_SEED		20241117ULL
#define DEFAULT_COUNT		4000UL
#define DEFAULT_SECONDS		25UL
#define MAX_ALIVE		32	/* our events allowed to exist at once */
#define PRUNE_TO		16	/* what a prune leaves */
#define PRUNE_EVERY		200	/* iterations between regular prunes */
#define BUF_LEN			12288	/* room for lines past the 4 KiB limit */
#define LISTING_MAX		(256 * 1024)
#define MAX_ENTRIES		128
#define MAX_ERRNO		4095
#define SAMPLE_SYMS		48
#define SAMPLE_DATA		8
#define MAX_VIOLATION_LOG	20
#define SHOW_MAX		240	/* longer inputs are shown cut, with a hash */
#define SAMPLE_STREAM		0x6b70726f6265ULL	/* the symbol sample's stream */

/* The kernel's names for the attributes; userspace has no compiler.h. */
#define __attr(x)		__attribute__((x))
#define noinline		__attr(noinline)
#define __used			__attr(used)
#define __printf(a, b)		__attr(format(printf, a, b))

/* With noinline __used: a function the optimiser leaves whole. */
#ifdef __clang__
#define FZ_KEEP_WHOLE		__attr(optnone)
#else
#define FZ_KEEP_WHOLE		__attr(noipa)
#endif

enum target {
	T_KPROBE_EVENTS,
	T_UPROBE_EVENTS,
	T_ENABLE,
	T_KNOB_ENABLED,
	T_KNOB_OPT,
	T_PERF_KPROBE,
	T_PERF_UPROBE,
	NR_TARGETS
};

static const char *const target_name[NR_TARGETS] = {
	"kprobe_events", "uprobe_events", "event_enable", "kprobes_enabled",
	"kprobes_optimization", "perf_kprobe", "perf_uprobe",
};

/* Out of 100: mostly definitions, which is where the parsers are. */
static unsigned int target_weight[NR_TARGETS] = { 36, 24, 9, 4, 3, 14, 10 };

struct tstat {
	unsigned long attempts, ok, shortw;
	unsigned long err[MAX_ERRNO + 1];
};

static struct tstat stats[NR_TARGETS];

/* ---- options and global state ---- */

static uint64_t seed = DEFAULT_SEED;
static unsigned long max_iters = DEFAULT_COUNT;
static unsigned long max_seconds = DEFAULT_SECONDS;
static int dry, verbose;
static int have[NR_TARGETS];
static unsigned long violations, prunes, prune_deletes, prune_failures;
/* Signal handlers and the sink: always accessed with __atomic builtins. */
static sig_atomic_t stop;
static unsigned long sigtraps;
static int sink;

static char trace_dir[64];
static char kprobe_events[128], uprobe_events[128];
static const char knob_enabled[] = "/sys/kernel/debug/kprobes/enabled";
static const char knob_opt[] = "/proc/sys/debug/kprobes-optimization";

/* The dynamic PMUs, from /sys/bus/event_source/devices/{kprobe,uprobe}. */
static int kprobe_type = -1, uprobe_type = -1;
static int kret_bit, uret_bit, uref_shift = -1;

/* This program as a uprobe target. */
static char exe_path[PATH_MAX];
static uint64_t exe_size, hot_off, pad_off, pad_len, ref_off, ref_len;

/* A page-end string with no terminator before an unmapped page. */
static char *unterminated;

/* ---- a small PRNG of our own: splitmix64 seeds an xorshift64* ---- */

struct rng {
	uint64_t s;
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Every iteration gets a stream of its own, so how many numbers one step
 * happens to draw (which can depend on what the kernel accepted) never
 * shifts the inputs of the steps after it.
 */
static void rng_seed(struct rng *r, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);

	r->s = splitmix64(&x) | 1;	/* xorshift must not start at 0 */
}

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

static uint32_t below(struct rng *r, uint64_t n)
{
	return n ? (uint32_t)((rnd(r) >> 16) % n) : 0;
}

static int chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* ---- byte buffers: inputs may hold NULs, so they carry a length ---- */

struct buf {
	size_t len;
	char d[BUF_LEN];
};

static void bclear(struct buf *b)
{
	b->len = 0;
	b->d[0] = 0;
}

static void binsert(struct buf *b, size_t pos, const char *s, size_t n)
{
	if (pos > b->len)
		pos = b->len;
	if (n > BUF_LEN - 1 - b->len)
		n = BUF_LEN - 1 - b->len;
	memmove(b->d + pos + n, b->d + pos, b->len - pos);
	memcpy(b->d + pos, s, n);
	b->len += n;
	b->d[b->len] = 0;
}

static void bcut(struct buf *b, size_t pos, size_t n)
{
	if (pos >= b->len)
		return;
	if (n > b->len - pos)
		n = b->len - pos;
	memmove(b->d + pos, b->d + pos + n, b->len - pos - n);
	b->len -= n;
	b->d[b->len] = 0;
}

static void bput(struct buf *b, const char *s, size_t n)
{
	binsert(b, b->len, s, n);
}

static void bputs(struct buf *b, const char *s)
{
	bput(b, s, strlen(s));
}

static void bputc(struct buf *b, char c)
{
	bput(b, &c, 1);
}

static __printf(2, 3) void bprintf(struct buf *b, const char *fmt, ...)
{
	size_t room = BUF_LEN - 1 - b->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->d + b->len, room + 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	b->len += (size_t)n > room ? room : (size_t)n;
	b->d[b->len] = 0;
}

static void print_escaped(const char *s, size_t n)
{
	size_t i, shown = n > SHOW_MAX ? SHOW_MAX : n;

	for (i = 0; i < shown; i++) {
		unsigned char c = s[i];

		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c >= 0x20 && c < 0x7f)
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	if (shown < n)
		printf("...(%zu bytes, hash %016llx)", n,
		       (unsigned long long)fnv1a(s, n));
}

/* ---- errno names for the histograms ---- */

static const char *const errno_names[] = {
	[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH",
	[EINTR] = "EINTR", [EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG",
	[ENOEXEC] = "ENOEXEC", [EBADF] = "EBADF", [ECHILD] = "ECHILD",
	[EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM", [EACCES] = "EACCES",
	[EFAULT] = "EFAULT", [EBUSY] = "EBUSY", [EEXIST] = "EEXIST",
	[EXDEV] = "EXDEV", [ENODEV] = "ENODEV", [ENOTDIR] = "ENOTDIR",
	[EISDIR] = "EISDIR", [EINVAL] = "EINVAL", [ENFILE] = "ENFILE",
	[EMFILE] = "EMFILE", [ENOTTY] = "ENOTTY", [ETXTBSY] = "ETXTBSY",
	[EFBIG] = "EFBIG", [ENOSPC] = "ENOSPC", [ESPIPE] = "ESPIPE",
	[EROFS] = "EROFS", [EMLINK] = "EMLINK", [EPIPE] = "EPIPE",
	[EDOM] = "EDOM", [ERANGE] = "ERANGE", [EDEADLK] = "EDEADLK",
	[ENAMETOOLONG] = "ENAMETOOLONG",
	[ENOTEMPTY] = "ENOTEMPTY", [ELOOP] = "ELOOP", [ENODATA] = "ENODATA",
	[ETIME] = "ETIME", [EOVERFLOW] = "EOVERFLOW", [EBADFD] = "EBADFD",
	[EILSEQ] = "EILSEQ", [EOPNOTSUPP] = "EOPNOTSUPP",
	[EADDRINUSE] = "EADDRINUSE", [EADDRNOTAVAIL] = "EADDRNOTAVAIL",
	[ETIMEDOUT] = "ETIMEDOUT", [EALREADY] = "EALREADY",
	[EINPROGRESS] = "EINPROGRESS", [ECANCELED] = "ECANCELED",
	[EOWNERDEAD] = "EOWNERDEAD", [EHWPOISON] = "EHWPOISON",
	/* Kernel-internal codes; seeing one in userspace is itself news. */
	[512] = "ERESTARTSYS", [513] = "ERESTARTNOINTR",
	[514] = "ERESTARTNOHAND", [515] = "ENOIOCTLCMD",
	[516] = "ERESTART_RESTARTBLOCK", [517] = "EPROBE_DEFER",
	[518] = "EOPENSTALE", [519] = "ENOPARAM", [521] = "EBADHANDLE",
	[522] = "ENOTSYNC", [523] = "EBADCOOKIE", [524] = "ENOTSUPP",
	[525] = "ETOOSMALL", [526] = "ESERVERFAULT", [527] = "EBADTYPE",
	[528] = "EJUKEBOX", [529] = "EIOCBQUEUED", [530] = "ERECALLCONFLICT",
};

static const char *errno_str(int e)
{
	static char b[16];

	if (e > 0 && (size_t)e < ARRAY_SIZE(errno_names) && errno_names[e])
		return errno_names[e];
	snprintf(b, sizeof(b), "E%d", e);
	return b;
}

static void print_errno_name(int e)
{
	fputs(errno_str(e), stdout);
}

static void record(enum target t, long n, int err, size_t len)
{
	struct tstat *s = &stats[t];

	s->attempts++;
	if (n < 0)
		s->err[err > 0 && err <= MAX_ERRNO ? err : 0]++;
	else if ((size_t)n == len)
		s->ok++;
	else
		s->shortw++;
}

static void show(unsigned long iter, enum target t, const char *s, size_t n)
{
	printf("%05lu %s '", iter, target_name[t]);
	print_escaped(s, n);
	printf("'\n");
}

static void show_result(long n, int err, size_t len)
{
	if (n < 0) {
		printf("  -> ");
		print_errno_name(err);
		printf("\n");
	} else {
		printf("  -> ok (%ld of %zu)\n", n, len);
	}
}

/* ---- what this program offers as a uprobe target ---- */

/* Called while its uprobes are enabled, so that they hit. */
noinline __used FZ_KEEP_WHOLE int fz_uprobe_hot(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

/*
 * Counter for the uprobe reference-counter ("semaphore") syntax.  The
 * kernel writes to the ref_ctr offset of every uprobe it registers, so the
 * ones that get armed point here or nowhere.  Initialised, so it lives in
 * the file-backed data the kernel looks the offset up in.
 */
unsigned short fz_refctr[32] = { 1 };

/*
 * fz_pad: instructions of many kinds that never run.  Uprobes at any byte
 * of it exercise the decoders with whole and partial instructions, and the
 * breakpoints they leave behind are never reached.
 */
#if defined(__x86_64__)
__asm__(".pushsection .text\n"
	".globl fz_pad_start\n"
	".type fz_pad_start, @function\n"
	"fz_pad_start:\n"
	"	endbr64\n"
	"	movabs $0x1122334455667788, %rax\n"
	"	addl $0x12345678, 0x40(%rsp)\n"
	"	lea 0x1000(%rip), %rcx\n"
	"	mov 0x80(%rip), %rdx\n"
	"	nopw 0x0(%rax,%rax,1)\n"
	"	push %rbx\n"
	"	pop %rbx\n"
	"	pushf\n"
	"	popf\n"
	"1:	jmp 2f\n"
	"2:	call 3f\n"
	"3:	lock cmpxchg %rcx, (%rdx)\n"
	"	rep movsb\n"
	"	int3\n"
	"	syscall\n"
	"	cpuid\n"
	"	rdtsc\n"
	"	ud2\n"
	"	vmovdqu (%rax), %ymm0\n"
	"	jne 1b\n"
	"	loop 1b\n"
	"	jrcxz 1b\n"
	"	jmp *0x10(%rip)\n"
	"	call *%rax\n"
	"	in $0x80, %al\n"
	"	hlt\n"
	"	ret $8\n"
	"	ret\n"
	".globl fz_pad_end\n"
	"fz_pad_end:\n"
	".size fz_pad_start, fz_pad_end - fz_pad_start\n"
	".popsection\n");
#define HAVE_PAD 1
#elif defined(__aarch64__)
__asm__(".pushsection .text\n"
	".globl fz_pad_start\n"
	".type fz_pad_start, %function\n"
	".p2align 3\n"
	"fz_pad_start:\n"
	"	nop\n"
	"1:	b 2f\n"
	"2:	bl 3f\n"
	"3:	adr x0, 1b\n"
	"	adrp x1, fz_pad_start\n"
	"	ldr x2, 4f\n"
	"	ldrsw x3, 4f\n"
	"	ldr q0, 4f\n"
	"	prfm pldl1keep, 4f\n"
	"	cbz x0, 1b\n"
	"	tbnz x1, #3, 2b\n"
	"	b.ne 1b\n"
	"	ldxr x4, [x0]\n"
	"	stxr w5, x4, [x0]\n"
	"	ldaxr w6, [x0]\n"
	"	svc #0\n"
	"	brk #0x5\n"
	"	hlt #0\n"
	"	mrs x6, tpidr_el0\n"
	"	msr daifset, #2\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	sub sp, sp, #32\n"
	"	ldp x29, x30, [sp], #16\n"
	"	blr x2\n"
	"	br x3\n"
	"	ret\n"
	"	.inst 0xffffffff\n"
	"	.inst 0x00000000\n"
	"	.p2align 3\n"
	"4:	.quad 0x1122334455667788\n"
	"	.quad 0x99aabbccddeeff00\n"
	".globl fz_pad_end\n"
	"fz_pad_end:\n"
	".size fz_pad_start, fz_pad_end - fz_pad_start\n"
	".popsection\n");
#define HAVE_PAD 1
#endif

#ifdef HAVE_PAD
extern const char fz_pad_start[], fz_pad_end[];
#endif

struct off_query {
	uintptr_t addr;
	uint64_t off;
	int found;
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct off_query *q = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		typeof(info->dlpi_phdr) ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (q->addr >= start && q->addr < start + ph->p_filesz) {
			q->off = q->addr - start + ph->p_offset;
			q->found = 1;
			return 1;
		}
	}
	return 0;
}

static int file_offset_of(const void *p, uint64_t *off)
{
	struct off_query q = { .addr = (uintptr_t)p };

	dl_iterate_phdr(phdr_cb, &q);
	*off = q.off;
	return q.found ? 0 : -1;
}

static int self_layout(void)
{
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);

	if (n <= 0 || stat(exe_path, &st))
		return -1;
	exe_path[n] = 0;
	exe_size = st.st_size;
	if (file_offset_of((const void *)(uintptr_t)&fz_uprobe_hot, &hot_off) ||
	    file_offset_of(fz_refctr, &ref_off))
		return -1;
	ref_len = sizeof(fz_refctr);
#ifdef HAVE_PAD
	if (file_offset_of(fz_pad_start, &pad_off))
		return -1;
	pad_len = fz_pad_end - fz_pad_start;
#endif
	return 0;
}

/* ---- kernel symbols ---- */

/*
 * The functions that may be armed: called by ordinary syscalls, not inside
 * the probe machinery, and quiet enough on an idle test guest.
 */
struct benign {
	const char *name;
	uint64_t addr;
	uint64_t size;		/* 0: unknown, so only the entry is used */
	int present;
};

static struct benign benign[] = {
	{ .name = "vfs_read" },
	{ .name = "do_sys_openat2" },
	{ .name = "kernel_clone" },
	{ .name = "__x64_sys_getpid" },
	{ .name = "__arm64_sys_getpid" },
};

/* Never armed whatever else says so: hot paths and the machinery itself. */
static const char *const hot_words[] = {
	"rcu", "sched", "irq", "lock", "printk", "console", "tick", "timer",
	"idle", "entry", "nmi", "trace", "kprobe", "uprobe", "ftrace", "perf",
	"bpf", "int3", "brk", "debug", "exception", "fault", "panic",
	"text_poke", "stop_machine", "smp", "preempt", "kasan", "kcsan",
	"kmsan", "ubsan", "lockdep", "kallsyms", "context", "switch",
};

static int is_hot(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hot_words); i++)
		if (strcasestr(name, hot_words[i]))
			return 1;
	return 0;
}

struct ksym {
	char name[128];
	uint64_t addr;
};

static char *arena;			/* every text symbol name, NUL-separated */
static size_t arena_len, arena_cap;
static uint32_t *name_offs;		/* sorted by name, for lookups */
static size_t nr_names, names_cap;
static uint64_t *text_addrs;
static size_t nr_addrs, addrs_cap;
static struct ksym sample[SAMPLE_SYMS];	/* random text symbols, cold ones */
static int nr_sample;
static struct ksym data_sample[SAMPLE_DATA * 4];
static int nr_data;
static char modules[4][64];
static int nr_modules;
static int kallsyms_loaded;

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 4096;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	p = realloc(p, n * elem);
	if (!p) {
		perror("realloc");
		exit(1);
	}
	*cap = n;
	return p;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(arena + *(const uint32_t *)a, arena + *(const uint32_t *)b);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* First sorted name that is >= s. */
static size_t lower_bound(const char *s)
{
	size_t lo = 0, hi = nr_names;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(arena + name_offs[mid], s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Would the kernel resolve this name to a text symbol?  Besides the exact
 * name, compiler-suffixed copies ("name.cold", "name.llvm.123") count, as
 * some kernels strip such suffixes when looking a name up.
 */
static int sym_known(const char *s)
{
	size_t i = lower_bound(s), n = strlen(s);

	for (; i < nr_names; i++) {
		const char *c = arena + name_offs[i];

		if (strncmp(c, s, n))
			break;
		if (c[n] == 0 || c[n] == '.')
			return 1;
	}
	return 0;
}

static void reservoir(struct rng *r, struct ksym *set, int *nr, int max,
		      unsigned long seen, const char *name, uint64_t addr)
{
	int slot = *nr < max ? (*nr)++ : (int)below(r, seen);
	size_t n = strlen(name);

	/* a cut name would be a different symbol; the caller skips long ones */
	if (slot >= max || n >= sizeof(set[slot].name))
		return;
	memcpy(set[slot].name, name, n + 1);
	set[slot].addr = addr;
}

static void load_kallsyms(void)
{
	unsigned long seen_text = 0, seen_data = 0;
	uint64_t lo = ~0ULL, hi = 0;
	char line[1024], name[512], mod[64];
	struct rng r;
	size_t i, j;
	FILE *f;
	int k;

	rng_seed(&r, SAMPLE_STREAM);
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type;
		int n;

		mod[0] = 0;
		n = sscanf(line, "%llx %c %511s [%63[^]]]", &addr, &type, name, mod);
		if (n < 3)
			continue;
		if (type == 't' || type == 'T') {
			size_t len = strlen(name) + 1;

			arena = grow(arena, &arena_cap, arena_len + len, 1);
			name_offs = grow(name_offs, &names_cap, nr_names + 1,
					 sizeof(*name_offs));
			text_addrs = grow(text_addrs, &addrs_cap, nr_addrs + 1,
					  sizeof(*text_addrs));
			name_offs[nr_names++] = arena_len;
			memcpy(arena + arena_len, name, len);
			arena_len += len;
			if (addr)
				text_addrs[nr_addrs++] = addr;
			if (!mod[0] && addr) {
				lo = addr < lo ? addr : lo;
				hi = addr > hi ? addr : hi;
			}
			for (i = 0; i < ARRAY_SIZE(benign); i++) {
				if (!benign[i].present && !strcmp(name, benign[i].name)) {
					benign[i].present = 1;
					benign[i].addr = addr;
				}
			}
			/* [bpf] and [__builtin__*] hold trampolines, not modules */
			if (mod[0] && (!strncmp(mod, "__builtin", 9) || !strcmp(mod, "bpf")))
				continue;
			if (mod[0] && nr_modules < (int)ARRAY_SIZE(modules)) {
				for (k = 0; k < nr_modules; k++)
					if (!strcmp(modules[k], mod))
						break;
				if (k == nr_modules)
					snprintf(modules[nr_modules++], sizeof(modules[0]),
						 "%s", mod);
			}
			/* padding symbols would crowd out real functions */
			if (!is_hot(name) && strncmp(name, "__pfx_", 6))
				reservoir(&r, sample, &nr_sample, SAMPLE_SYMS,
					  ++seen_text, name, addr);
		} else if (strchr("dDbBrR", type) && addr && !mod[0] &&
			   strlen(name) < sizeof(data_sample[0].name)) {
			reservoir(&r, data_sample, &nr_data,
				  (int)ARRAY_SIZE(data_sample), ++seen_data, name, addr);
		}
	}
	fclose(f);
	kallsyms_loaded = nr_names > 0;
	if (!kallsyms_loaded)
		return;
	qsort(name_offs, nr_names, sizeof(*name_offs), cmp_names);
	qsort(text_addrs, nr_addrs, sizeof(*text_addrs), cmp_u64);

	/* A benign function ends where the next text symbol starts. */
	for (i = 0; i < ARRAY_SIZE(benign); i++) {
		if (!benign[i].addr)
			continue;
		for (j = 0; j < nr_addrs; j++) {
			if (text_addrs[j] > benign[i].addr) {
				uint64_t sz = text_addrs[j] - benign[i].addr;

				benign[i].size = sz > 0x10000 ? 0 : sz;
				break;
			}
		}
	}

	/*
	 * Data addresses stand in for kernel-looking addresses that are not
	 * text; keep only those outside the span of the kernel's own text.
	 */
	for (k = 0, j = 0; k < nr_data && j < SAMPLE_DATA; k++) {
		if (data_sample[k].addr >= lo && data_sample[k].addr <= hi + 0x10000)
			continue;
		data_sample[j++] = data_sample[k];
	}
	nr_data = j;
}

static void settle_benign(void)
{
	size_t i;
	int any = 0;

	if (!kallsyms_loaded) {
		/* Cannot check: assume the generic ones and this arch's. */
		for (i = 0; i < ARRAY_SIZE(benign); i++) {
			const char *n = benign[i].name;

			benign[i].present = !strstr(n, "_sys_getpid");
#if defined(__x86_64__)
			benign[i].present |= !strcmp(n, "__x64_sys_getpid");
#elif defined(__aarch64__)
			benign[i].present |= !strcmp(n, "__arm64_sys_getpid");
#endif
		}
	}
	for (i = 0; i < ARRAY_SIZE(benign); i++)
		any |= benign[i].present;
	if (!any)
		benign[0].present = 1;
}

static const struct benign *pick_benign(struct rng *r)
{
	const struct benign *p[ARRAY_SIZE(benign)];
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(benign); i++)
		if (benign[i].present)
			p[n++] = &benign[i];
	return p[below(r, n)];
}

static const struct benign *benign_named(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(benign); i++)
		if (benign[i].present && strlen(benign[i].name) == n &&
		    !memcmp(benign[i].name, s, n) && !is_hot(benign[i].name))
			return &benign[i];
	return NULL;
}

static const char *sample_sym(struct rng *r)
{
	return nr_sample ? sample[below(r, nr_sample)].name : pick_benign(r)->name;
}

/* ---- generators for probe definitions ---- */

#if defined(__aarch64__)
static const char *const native_regs[] = {
	"%x0", "%x1", "%x2", "%x7", "%x8", "%x29", "%x30", "%lr", "%sp",
	"%pc", "%pstate",
};

static const char *const foreign_regs[] = { "%ax", "%di", "%rip", "%eax" };
#else
static const char *const native_regs[] = {
	"%ax", "%bx", "%cx", "%dx", "%si", "%di", "%bp", "%sp", "%ip", "%r8",
	"%r15", "%flags",
};

static const char *const foreign_regs[] = { "%x0", "%pc", "%rax", "%xmm0" };
#endif

static const char *const arg_types[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16",
	"x32", "x64", "string", "ustring", "symbol", "symstr", "char",
	"b4@2/8", "b1@0/64", "b8@56/64", "b65@0/64", "b4@70/64", "b0@0/8",
	"u32[4]", "x8[16]", "string[2]", "u64[1025]", "u8[0]", "", "float",
	"u128", "s", "x", "%u", "u32:u32",
};

static const char *const odd_fetches[] = {
	"$", "%", "@", "+", "+(%sp)", "$argX", "$stack-1", "$stack99999999",
	"%xyz", "\\", "$current", "$arg1->next", "$$", "+0()",
	"+0(+0(+0(+0(+0(+0(+0(%sp)))))))", "$retval2", "+0(@)",
	"\\\"unterminated", "$comm:string", "$argument1", "+-8(%sp)",
	"++8(%sp)", "+0x(%sp)", "@-1", "$stack0x10",
};

static const char *const numbers[] = {
	"0", "1", "-1", "2", "3", "7", "16", "0x10", "4095", "4096", "65535",
	"0x7fffffff", "0x80000000", "0xffffffff", "4294967296",
	"0x7fffffffffffffff", "0x8000000000000000", "0xffffffffffffffff",
	"18446744073709551616", "-9223372036854775808",
	"99999999999999999999999999", "0x", "00", "-0", "+1", "1e3",
	"0b101", "0xg", "08",
};

static void put_number(struct rng *r, struct buf *b)
{
	switch (below(r, 4)) {
	case 0:
		bputs(b, PICK(r, numbers));
		break;
	case 1:
		bprintf(b, "%u", below(r, 256));
		break;
	case 2:
		bprintf(b, "0x%x", below(r, 0x10000));
		break;
	default:
		bprintf(b, "0x%llx", (unsigned long long)rnd(r));
		break;
	}
}

static void gen_fetch(struct rng *r, struct buf *b, int up, int depth)
{
	switch (below(r, 12)) {
	case 0:
	case 1:
		bputs(b, chance(r, 90) ? PICK(r, native_regs) : PICK(r, foreign_regs));
		break;
	case 2:
		if (chance(r, 30))
			bputs(b, "$stack");
		else
			bprintf(b, "$stack%u", below(r, 12));
		break;
	case 3:
		bputs(b, "$retval");
		break;
	case 4:
		bputs(b, "$comm");
		break;
	case 5:
	case 6:
		/* +OFFS(BASE), -OFFS(BASE), +uOFFS(BASE), possibly nested */
		bprintf(b, "%c%s%u(", chance(r, 85) ? '+' : '-',
			chance(r, 15) ? "u" : "", below(r, 9) * 8);
		if (depth < 3 && chance(r, 25))
			gen_fetch(r, b, up, depth + 1);
		else if (chance(r, 70))
			bputs(b, PICK(r, native_regs));
		else
			bputs(b, chance(r, 50) ? "$stack" : "$arg1");
		bputc(b, ')');
		break;
	case 7:
		if (chance(r, 60))
			bprintf(b, "\\%u", below(r, 100000));
		else
			bputs(b, "\\\"fz\"");
		break;
	case 8:
		if (up)
			bprintf(b, "@+0x%x", below(r, exe_size + 64));
		else if (nr_data && chance(r, 50))
			bprintf(b, "@%s", data_sample[below(r, nr_data)].name);
		else
			bprintf(b, "@%s%s", sample_sym(r), chance(r, 30) ? "+8" : "");
		break;
	case 9:
		bprintf(b, "$arg%u", below(r, 10));
		break;
	case 10:
		if (up)
			bputs(b, chance(r, 50) ? "+0(%ip)" : "@0x400000");
		else
			bprintf(b, "@0x%llx", (unsigned long long)(nr_data ?
				data_sample[below(r, nr_data)].addr : rnd(r)));
		break;
	default:
		bputs(b, PICK(r, odd_fetches));
		break;
	}
}

static void gen_arg(struct rng *r, struct buf *b, int up)
{
	static const char *const names[] = {
		"a", "fz", "arg", "x1", "1bad", "comm", "common_pid", "a-b", "_",
	};

	if (chance(r, 20))
		bprintf(b, "%s%u=", PICK(r, names), below(r, 4));
	gen_fetch(r, b, up, 0);
	if (chance(r, 45)) {
		bputc(b, ':');
		bputs(b, PICK(r, arg_types));
	}
}

/* Up to four fetch args; $retval now and then where the line returns. */
static void gen_args(struct rng *r, struct buf *b, int ret, int up)
{
	unsigned int i, nargs = below(r, 5);

	for (i = 0; i < nargs; i++) {
		bputc(b, ' ');
		if (ret && chance(r, 30))
			bputs(b, "$retval");
		else
			gen_arg(r, b, up);
	}
}

static void gen_group(struct rng *r, struct buf *b, const char *defgrp)
{
	unsigned int k = below(r, 10);

	if (k < 6)
		bputs(b, "fz");
	else if (k < 9)
		bprintf(b, "fz_g%u", below(r, 3));
	else
		bputs(b, defgrp);
}

/* Nothing (auto name), ":EV", ":GRP/EV" or ":GRP/" (auto event name). */
static void gen_name_part(struct rng *r, struct buf *b, const char *defgrp)
{
	switch (below(r, 8)) {
	case 0:
		return;
	case 1:
		bprintf(b, ":fz_e%u", below(r, 40));
		return;
	case 2:
		bputc(b, ':');
		gen_group(r, b, defgrp);
		bputc(b, '/');
		return;
	default:
		bputc(b, ':');
		gen_group(r, b, defgrp);
		bprintf(b, "/fz_e%u", below(r, 40));
		return;
	}
}

static void put_koffset(struct rng *r, struct buf *b, const struct benign *bn)
{
	uint64_t size = bn ? bn->size : 0;

	switch (below(r, 6)) {
	case 0:
		bputs(b, "+0");
		break;
	case 1:
		bprintf(b, "+%u", size ? below(r, size) : below(r, 64));
		break;
	case 2:
		bprintf(b, "+0x%x", (size ? below(r, size) : below(r, 256)) & ~3u);
		break;
	case 3:
		bprintf(b, "+%llu", (unsigned long long)size);
		break;
	case 4:
		bprintf(b, "-%u", below(r, 64));
		break;
	default:
		bputc(b, '+');
		put_number(r, b);
		break;
	}
}

/*
 * A kernel address for the "p ADDR" form.  Events are created disarmed,
 * so any address will do here, text included.
 */
static uint64_t any_kaddr(struct rng *r)
{
	const struct benign *bn = pick_benign(r);

	switch (below(r, 6)) {
	case 0:
	case 1:
		return bn->addr + (bn->size ? below(r, bn->size) : 0);
	case 2:
		return nr_sample ? sample[below(r, nr_sample)].addr + below(r, 16) : 0;
	case 3:
		return nr_data ? data_sample[below(r, nr_data)].addr : 0;
	case 4:
		return rnd(r);
	default:
		return 0xffffffffffffffffULL - below(r, 0x10000);
	}
}

static void gen_kprobe_point(struct rng *r, struct buf *b)
{
	const struct benign *bn = pick_benign(r);
	unsigned int k = below(r, 20);

	if (k < 8) {
		bputs(b, bn->name);
		if (chance(r, 50))
			put_koffset(r, b, bn);
	} else if (k < 13) {
		bputs(b, sample_sym(r));
		if (chance(r, 40))
			put_koffset(r, b, NULL);
	} else if (k < 15) {
		bprintf(b, "%s:%s", nr_modules && chance(r, 60) ?
			modules[below(r, nr_modules)] : "fzmod",
			chance(r, 50) ? bn->name : sample_sym(r));
	} else if (k < 17) {
		bprintf(b, "0x%llx", (unsigned long long)any_kaddr(r));
	} else {
		switch (below(r, 10)) {
		case 0:
			break;
		case 1:
			bputs(b, "+0");
			break;
		case 2:
			bprintf(b, "%s+", bn->name);
			break;
		case 3:
			bputs(b, "0x");
			break;
		case 4:
			bputs(b, "%return");
			break;
		case 5:
			bprintf(b, "%s+4%%return", bn->name);
			break;
		case 6:
			bprintf(b, ":%s", bn->name);
			break;
		case 7:
			bprintf(b, "%s:", bn->name);
			break;
		case 8:
			bprintf(b, "__pfx_%s", bn->name);
			break;
		default:
			bprintf(b, "%s%%return", bn->name);
			break;
		}
	}
	if (chance(r, 6))
		bputs(b, "%return");
}

static void gen_delete(struct rng *r, struct buf *b, const char *defgrp, int up)
{
	static const char *const odd[] = {
		"-", "-:", "-:/", "-::", "--:fz/fz_e1", "-:fz/fz_e1/x", "-fz_e1",
		"- :fz/fz_e1", "-:fz/fz_e1 extra args", "-:*", "-:fz/*",
	};

	switch (below(r, 9)) {
	case 0:
		bprintf(b, "-:fz_e%u", below(r, 40));
		break;
	case 1:
		/* a whole group, only ever one of ours */
		bprintf(b, "-:fz%s/", chance(r, 50) ? "" : "_g0");
		break;
	case 2:
		if (up)
			bprintf(b, "-:%s/p_%s_0x%llx", defgrp, "probe_fuzz",
				(unsigned long long)hot_off);
		else
			bprintf(b, "-:%s/p_%s_0", defgrp, pick_benign(r)->name);
		break;
	case 3:
		/* deletion that also names the probe point to match */
		bputs(b, "-:");
		gen_group(r, b, defgrp);
		bprintf(b, "/fz_e%u ", below(r, 40));
		if (up)
			bprintf(b, "%s:0x%llx", exe_path, (unsigned long long)hot_off);
		else
			bputs(b, pick_benign(r)->name);
		break;
	case 4:
		bputs(b, PICK(r, odd));
		break;
	default:
		bputs(b, "-:");
		gen_group(r, b, defgrp);
		bprintf(b, "/fz_e%u", below(r, 40));
		break;
	}
}

static void gen_kprobe_line(struct rng *r, struct buf *b)
{
	static const char *const maxactive[] = {
		"0", "1", "10", "64", "4096", "4097", "-1", "99999999999",
		"0x10", "abc",
	};
	static const char *const odd_types[] = {
		"P", "e", "f", "t", "k", "", "pp", "r:", "x", "p1", "p-",
	};
	int ret = 0;

	if (chance(r, 12)) {
		gen_delete(r, b, "kprobes", 0);
		return;
	}
	switch (below(r, 10)) {
	case 6:
	case 7:
		bputc(b, 'r');
		ret = 1;
		break;
	case 8:
		bprintf(b, "r%s", PICK(r, maxactive));
		ret = 1;
		break;
	case 9:
		bputs(b, PICK(r, odd_types));
		break;
	default:
		bputc(b, 'p');
		break;
	}
	gen_name_part(r, b, "kprobes");
	bputc(b, ' ');
	gen_kprobe_point(r, b);
	gen_args(r, b, ret, 0);
}

static void put_uoffset(struct rng *r, struct buf *b)
{
	uint64_t off;

	switch (below(r, 16)) {
	case 0:
	case 1:
	case 2:
		off = hot_off;
		break;
	case 3:
	case 4:
	case 5:
	case 6:
		off = pad_len ? pad_off + below(r, pad_len) : hot_off;
		break;
	case 7:
	case 8:
		off = below(r, exe_size);
		break;
	case 9:
		off = 0;
		break;
	case 10:
		off = exe_size + below(r, 3) - 1;
		break;
	case 11:
		put_number(r, b);
		return;
	case 12:
		bprintf(b, "-0x%x", below(r, 64));
		return;
	case 13:
		bputs(b, chance(r, 50) ? "main" : "fz_uprobe_hot");
		return;
	case 14:
		bprintf(b, "%llu", (unsigned long long)hot_off);
		return;
	default:
		bputs(b, "0x");
		return;
	}
	bprintf(b, "0x%llx", (unsigned long long)off);
}

static void put_refctr(struct rng *r, struct buf *b)
{
	static const char *const odd[] = {
		"(", "()", "(0x10", "(-1)", "(0)", ")(", "((0x10))", "(0x)",
		"(0xffffffffffffffff)",
	};

	switch (below(r, 6)) {
	case 0:
	case 1:
		bprintf(b, "(0x%llx)", (unsigned long long)ref_off + below(r, 16) * 2);
		break;
	case 2:
		bprintf(b, "(0x%llx)", (unsigned long long)ref_off + 1);
		break;
	case 3:
		bprintf(b, "(0x%x)", below(r, exe_size));
		break;
	default:
		bputs(b, PICK(r, odd));
		break;
	}
}

static void gen_uprobe_point(struct rng *r, struct buf *b)
{
	unsigned int k = below(r, 100), i, n;

	if (k < 70) {
		bputs(b, exe_path);
	} else if (k < 76) {
		bputs(b, "/proc/self/exe");
	} else if (k < 80) {
		bputs(b, "/nonexistent/fz");
	} else if (k < 83) {
		bputc(b, '/');
	} else if (k < 86) {
		bputs(b, "/dev/null");
	} else if (k < 90) {
		bputs(b, "probe_fuzz");
	} else if (k < 93) {
		n = 100 + below(r, 5000);
		for (i = 0; i < n; i += 8)
			bputs(b, "/fzlong_");
	} else if (k < 96) {
		/* nothing: ":0x10" */
	} else {
		bputs(b, "/fz:dir");
	}
	if (chance(r, 95))
		bputc(b, ':');
	put_uoffset(r, b);
	if (chance(r, 8))
		bputs(b, "%return");
	if (chance(r, 15))
		put_refctr(r, b);
	if (chance(r, 3))
		bputs(b, "%return");
}

static void gen_uprobe_line(struct rng *r, struct buf *b)
{
	static const char *const odd_types[] = {
		"P", "u", "", "r1", "pr", "p0", "e", "x",
	};
	int ret = 0;

	if (chance(r, 12)) {
		gen_delete(r, b, "uprobes", 1);
		return;
	}
	switch (below(r, 20)) {
	case 0 ... 11:
		bputc(b, 'p');
		break;
	case 12 ... 16:
		bputc(b, 'r');
		ret = 1;
		break;
	default:
		bputs(b, PICK(r, odd_types));
		break;
	}
	gen_name_part(r, b, "uprobes");
	bputc(b, ' ');
	gen_uprobe_point(r, b);
	gen_args(r, b, ret, 1);
}

/* ---- mutations ---- */

struct span {
	size_t start, len;
};

/* Space-separated tokens of b, at most max of them. */
static size_t tokens(const struct buf *b, struct span *t, size_t max)
{
	size_t i = 0, n = 0;

	while (i < b->len && n < max) {
		while (i < b->len && b->d[i] == ' ')
			i++;
		if (i >= b->len)
			break;
		t[n].start = i;
		while (i < b->len && b->d[i] != ' ')
			i++;
		t[n].len = i - t[n].start;
		n++;
	}
	return n;
}

/* A run of characters of one class starting at or after a random spot. */
static int find_run(struct rng *r, const struct buf *b, int digits,
		    struct span *s)
{
	size_t i = below(r, b->len + 1), j;

	for (; i < b->len; i++) {
		unsigned char c = b->d[i];

		if (digits ? isdigit(c) : (isalpha(c) || c == '_'))
			break;
	}
	if (i >= b->len)
		return 0;
	for (j = i; j < b->len; j++) {
		unsigned char c = b->d[j];

		if (digits ? !isxdigit(c) && c != 'x' : !isalnum(c) && c != '_')
			break;
	}
	s->start = i;
	s->len = j - i;
	return 1;
}

static void mutate_once(struct rng *r, struct buf *b)
{
	static const char junk[] = {
		0x01, 0x7f, (char)0xff, (char)0xa0, '\t', '\r', '\v', '\f', '\0',
		(char)0x80, 0x1b,
	};
	static const char seps[] = ":/+-()%$@=,.\\\"'[]{}*~ ;!&|<>";
	static const unsigned int long_lens[] = { 4093, 4094, 4095, 4096, 4097, 5000, 9000 };
	static struct buf tmp;
	struct span t[64], s;
	const char *sym;
	size_t n, p, i;
	char c;

	switch (below(r, 16)) {
	case 0:		/* flip one bit */
		if (!b->len)
			break;
		p = below(r, b->len);
		c = b->d[p] ^ (char)(1 << below(r, 8));
		b->d[p] = c == '\n' ? ' ' : c;
		break;
	case 1:		/* overwrite one byte */
		if (!b->len)
			break;
		p = below(r, b->len);
		c = (char)rnd(r);
		b->d[p] = c == '\n' ? '?' : c;
		break;
	case 2:		/* truncate */
		b->len = below(r, b->len + 1);
		b->d[b->len] = 0;
		break;
	case 3:		/* duplicate a token */
		n = tokens(b, t, ARRAY_SIZE(t));
		if (!n)
			break;
		i = below(r, n);
		bclear(&tmp);
		bputc(&tmp, ' ');
		bput(&tmp, b->d + t[i].start, t[i].len);
		binsert(b, t[i].start + t[i].len, tmp.d, tmp.len);
		break;
	case 4:		/* drop a token */
		n = tokens(b, t, ARRAY_SIZE(t));
		if (!n)
			break;
		i = below(r, n);
		bcut(b, t[i].start, t[i].len);
		break;
	case 5:		/* a different number */
		if (!find_run(r, b, 1, &s))
			break;
		bclear(&tmp);
		put_number(r, &tmp);
		bcut(b, s.start, s.len);
		binsert(b, s.start, tmp.d, tmp.len);
		break;
	case 6:		/* a different symbol (or any identifier) */
		if (!find_run(r, b, 0, &s))
			break;
		sym = sample_sym(r);
		bcut(b, s.start, s.len);
		binsert(b, s.start, sym, strlen(sym));
		break;
	case 7:		/* a long name, around the 64-byte event name limit */
		p = b->len ? below(r, b->len + 1) : 0;
		if (chance(r, 60)) {
			char *colon = memchr(b->d, ':', b->len);

			if (colon)
				p = colon - b->d + 1;
		}
		n = chance(r, 50) ? 62 + below(r, 5) : 64 + below(r, 400);
		bclear(&tmp);
		for (i = 0; i < n; i++)
			bputc(&tmp, "abcdefghijklmnopqrstuvwxyz_"[below(r, 27)]);
		binsert(b, p, tmp.d, tmp.len);
		break;
	case 8:		/* a byte that is not printable */
		c = PICK(r, junk);
		binsert(b, below(r, b->len + 1), &c, 1);
		break;
	case 9:		/* many arguments, around the 128-argument limit */
		n = chance(r, 50) ? 126 + below(r, 5) : 129 + below(r, 200);
		for (i = 0; i < n && b->len < BUF_LEN - 64; i++) {
			bputc(b, ' ');
			gen_arg(r, b, chance(r, 50));
		}
		break;
	case 10:	/* a comment marker */
		binsert(b, below(r, b->len + 1), "#", 1);
		break;
	case 11:	/* a separator */
		c = seps[below(r, sizeof(seps) - 1)];
		binsert(b, below(r, b->len + 1), &c, 1);
		break;
	case 12:	/* swap neighbours */
		if (b->len < 2)
			break;
		p = below(r, b->len - 1);
		c = b->d[p];
		b->d[p] = b->d[p + 1];
		b->d[p + 1] = c;
		break;
	case 13:	/* a line around the 4 KiB line limit */
		n = PICK(r, long_lens);
		c = chance(r, 50) ? ' ' : 'x';
		while (b->len < n && b->len < BUF_LEN - 1)
			bputc(b, c);
		break;
	case 14:	/* nothing at all, or only blanks */
		bclear(b);
		if (chance(r, 50))
			bputs(b, chance(r, 50) ? " \t " : "\xa0");
		break;
	default:	/* the whole line twice */
		bclear(&tmp);
		bput(&tmp, b->d, b->len);
		bputc(b, ' ');
		bput(b, tmp.d, tmp.len);
		break;
	}
}

static void mutate(struct rng *r, struct buf *b)
{
	unsigned int n = 1 + below(r, 3);

	while (n--)
		mutate_once(r, b);
}

/*
 * One write for an events file: usually one line, sometimes a blank one or
 * several lines in one go, usually with its newline.  Newlines only ever
 * come from here, so the checker knows how many lines a write holds.
 */
static void gen_events_write(struct rng *r, struct buf *b, int up)
{
	static struct buf one;
	unsigned int lines = chance(r, 5) ? 2 + below(r, 2) : 1, i;

	bclear(b);
	for (i = 0; i < lines; i++) {
		bclear(&one);
		if (chance(r, 2))
			bputs(&one, chance(r, 50) ? "" : "# fz comment");
		else if (up)
			gen_uprobe_line(r, &one);
		else
			gen_kprobe_line(r, &one);
		if (chance(r, 40))
			mutate(r, &one);
		bput(b, one.d, one.len);
		if (i + 1 < lines || chance(r, 93))
			bputc(b, '\n');
	}
}

/* ---- reading the events files back ---- */

struct entry {
	char kind;
	int truncated;
	char grp[96];
	char ev[96];
	char point[512];
};

struct listing {
	int ok;
	int lines;
	int nr;
	int all_parsed;
	struct entry e[MAX_ENTRIES];
};

static char listing_text[LISTING_MAX];

/* "p:GRP/EV POINT ARGS...", "r10:GRP/EV ...", "p:GRP/EV PATH:0xOFF(0xREF)" */
static int parse_entry(const char *line, struct entry *e)
{
	const char *colon = strchr(line, ':'), *sp = strchr(line, ' ');
	const char *slash, *pt, *pe;
	size_t gl, el, pl;

	if (!colon || !sp || colon > sp)
		return 0;
	slash = memchr(colon, '/', sp - colon);
	if (!slash)
		return 0;
	gl = slash - colon - 1;
	el = sp - slash - 1;
	if (!gl || gl >= sizeof(e->grp) || !el || el >= sizeof(e->ev))
		return 0;
	memcpy(e->grp, colon + 1, gl);
	e->grp[gl] = 0;
	memcpy(e->ev, slash + 1, el);
	e->ev[el] = 0;
	pt = sp + 1;
	pe = strchr(pt, ' ');
	pl = pe ? (size_t)(pe - pt) : strlen(pt);
	e->truncated = pl >= sizeof(e->point);
	if (e->truncated)
		pl = sizeof(e->point) - 1;
	memcpy(e->point, pt, pl);
	e->point[pl] = 0;
	e->kind = line[0];
	return 1;
}

static int read_listing(const char *path, struct listing *l)
{
	size_t len = 0;
	char *line, *nl;
	ssize_t n;
	int fd;

	l->ok = 0;
	l->lines = 0;
	l->nr = 0;
	l->all_parsed = 1;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while (len < sizeof(listing_text) - 1) {
		n = read(fd, listing_text + len, sizeof(listing_text) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	listing_text[len] = 0;
	line = listing_text;
	while (line < listing_text + len) {
		nl = memchr(line, '\n', listing_text + len - line);
		if (nl)
			*nl = 0;
		l->lines++;
		if (l->nr < MAX_ENTRIES && parse_entry(line, &l->e[l->nr]))
			l->nr++;
		else
			l->all_parsed = 0;
		if (!nl)
			break;
		line = nl + 1;
	}
	l->ok = 1;
	return 0;
}

/* Events present before we started belong to somebody else. */
static char init_keys[2][MAX_ENTRIES][200];
static int nr_init[2];

static int is_initial(int which, const struct entry *e)
{
	char key[200];
	int i;

	snprintf(key, sizeof(key), "%s/%s", e->grp, e->ev);
	for (i = 0; i < nr_init[which]; i++)
		if (!strcmp(init_keys[which][i], key))
			return 1;
	return 0;
}

static void snapshot(int which, const char *path)
{
	static struct listing l;
	int i;

	if (read_listing(path, &l) < 0)
		return;
	for (i = 0; i < l.nr; i++)
		snprintf(init_keys[which][nr_init[which]++], sizeof(init_keys[0][0]),
			 "%s/%s", l.e[i].grp, l.e[i].ev);
	if (l.lines)
		printf("# note: %d line(s) already in %s are left alone\n",
		       l.lines, path);
}

/* Names from the file become paths, so they must be plain. */
static int name_ok(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return 0;
	return 1;
}

static void enable_path(char *p, size_t n, const struct entry *e)
{
	snprintf(p, n, "%s/events/%s/%s/enable", trace_dir, e->grp, e->ev);
}

static long write_path(const char *path, const void *data, size_t len,
		       int flags, int *err)
{
	ssize_t n;
	int fd;

	*err = 0;
	fd = open(path, O_WRONLY | flags);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	n = write(fd, data, len);
	if (n < 0)
		*err = errno;
	close(fd);
	return n;
}

/* ---- which existing events may be armed ---- */

static int kprobe_entry_armable(const struct entry *e)
{
	const char *plus = strchr(e->point, '+');
	size_t n = plus ? (size_t)(plus - e->point) : strlen(e->point);
	const struct benign *bn;
	unsigned long long off = 0;
	char *end;

	if (e->truncated || !name_ok(e->grp) || !name_ok(e->ev))
		return 0;
	bn = benign_named(e->point, n);
	if (!bn)
		return 0;
	if (plus) {
		errno = 0;
		off = strtoull(plus + 1, &end, 0);
		if (errno || end == plus + 1 || *end)
			return 0;
	}
	/* Past the function's end is some other function. */
	return off == 0 || off < bn->size;
}

static int uprobe_entry_armable(const struct entry *e)
{
	const char *colon = strrchr(e->point, ':');
	unsigned long long off, ref = 0;
	char *end, *end2;
	int off_ok, ref_ok;

	if (e->truncated || !colon || !name_ok(e->grp) || !name_ok(e->ev))
		return 0;
	if ((size_t)(colon - e->point) != strlen(exe_path) ||
	    memcmp(e->point, exe_path, colon - e->point))
		return 0;
	errno = 0;
	off = strtoull(colon + 1, &end, 0);
	if (errno || end == colon + 1)
		return 0;
	if (*end == '(') {
		ref = strtoull(end + 1, &end2, 0);
		if (end2 == end + 1 || strcmp(end2, ")"))
			return 0;
	} else if (*end) {
		return 0;
	}
	off_ok = off == hot_off || (pad_len && off >= pad_off && off < pad_off + pad_len);
	/* A counter update must stay inside fz_refctr, or miss every mapping. */
	ref_ok = ref == 0 || (ref >= ref_off && ref + 2 <= ref_off + ref_len) ||
		 ref >= (1ULL << 32);
	return off_ok && ref_ok;
}

/* ---- the effects that make enabled probes hit ---- */

static void trigger_kernel(int fork_too)
{
	char c;
	int i, fd;

	for (i = 0; i < 3; i++) {
		__atomic_fetch_add(&sink, syscall(SYS_getpid), __ATOMIC_RELAXED);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			if (read(fd, &c, 1) < 0)
				__atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
			close(fd);
		}
	}
	if (fork_too) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

static void trigger_user(void)
{
	int i;

	for (i = 0; i < 4; i++)
		__atomic_fetch_add(&sink, fz_uprobe_hot(i), __ATOMIC_RELAXED);
}

/* ---- violations ---- */

static __printf(2, 3) void fz_violation(const struct buf *in, const char *fmt, ...)
{
	va_list ap;

	violations++;
	if (violations > MAX_VIOLATION_LOG)
		return;
	printf("# violation: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (in) {
		printf(": '");
		print_escaped(in->d, in->len);
		printf("'");
	}
	printf("\n");
}

/* ---- keeping the number of live events bounded ---- */

static int delete_entry(int up, const struct entry *e)
{
	char line[256], path[512];
	int err, n;

	if (name_ok(e->grp) && name_ok(e->ev)) {
		enable_path(path, sizeof(path), e);
		write_path(path, "0", 1, 0, &err);
	}
	n = snprintf(line, sizeof(line), "-:%s/%s\n", e->grp, e->ev);
	return write_path(up ? uprobe_events : kprobe_events, line, n,
			  O_APPEND, &err) == n ? 0 : -1;
}

static int count_ours(int which, const struct listing *l)
{
	int i, n = 0;

	for (i = 0; i < l->nr; i++)
		n += !is_initial(which, &l->e[i]);
	/* Lines that did not parse cannot be anybody's we know of. */
	return n + l->lines - l->nr;
}

/*
 * Delete our oldest events until at most keep are left, if more than max
 * are alive.  Several lines can share one event (probes appended to it), and
 * one deletion takes them all, so later duplicates are skipped.
 */
static void prune(int max, int keep)
{
	static struct listing l[2];
	int which, i, j, alive = 0;

	if (dry)
		return;
	for (which = 0; which < 2; which++) {
		if (read_listing(which ? uprobe_events : kprobe_events, &l[which])) {
			l[which].nr = 0;
			l[which].lines = 0;
		}
		alive += count_ours(which, &l[which]);
	}
	if (alive <= max)
		return;
	prunes++;
	for (which = 0; which < 2 && alive > keep; which++) {
		for (i = 0; i < l[which].nr && alive > keep; i++) {
			const struct entry *e = &l[which].e[i];

			if (is_initial(which, e))
				continue;
			for (j = 0; j < i; j++)
				if (!strcmp(l[which].e[j].grp, e->grp) &&
				    !strcmp(l[which].e[j].ev, e->ev))
					break;
			if (j < i)
				continue;
			prune_deletes++;
			if (delete_entry(which, e))
				prune_failures++;
			alive--;
		}
	}
}

/* ---- targets ---- */

enum line_class { LC_NOOP, LC_CREATE, LC_DELETE, LC_LOOSE, LC_MULTI };

/* The kernel's isspace() also takes 0xa0. */
static int kspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/*
 * What a write should do to the line count.  The kernel splits a write at
 * newlines, drops what follows '#', ignores blank lines and deletes on a
 * leading '-'.  A NUL makes the rest of the line invisible to a C-string
 * parser, so such lines only get the loose check.
 */
static enum line_class classify(const struct buf *b, int *lines)
{
	size_t i, end = b->len, nl = 0;

	if (end && b->d[end - 1] == '\n')
		end--;
	for (i = 0; i < end; i++)
		nl += b->d[i] == '\n';
	if (nl) {
		*lines = nl + 1;
		return LC_MULTI;
	}
	if (memchr(b->d, 0, end))
		return LC_LOOSE;
	for (i = 0; i < end && b->d[i] != '#'; i++)
		if (!kspace(b->d[i]))
			break;
	if (i == end || b->d[i] == '#')
		return LC_NOOP;
	return b->d[i] == '-' ? LC_DELETE : LC_CREATE;
}

static void do_events(unsigned long iter, struct rng *r, enum target t)
{
	static struct listing before, after;
	static struct buf w;
	int up = t == T_UPROBE_EVENTS, lines = 1, err, delta, ok, bad = 0;
	const char *path = up ? uprobe_events : kprobe_events;
	const char *what = "";
	enum line_class lc;
	long n;

	gen_events_write(r, &w, up);
	lc = classify(&w, &lines);
	if (dry || verbose)
		show(iter, t, w.d, w.len);
	if (dry) {
		stats[t].attempts++;
		return;
	}
	if (read_listing(path, &before))
		before.ok = 0;
	n = write_path(path, w.d, w.len, O_APPEND, &err);
	record(t, n, err, w.len);
	if (verbose)
		show_result(n, err, w.len);
	if (n < 0 && err == EINTR)
		return;
	if (!before.ok || read_listing(path, &after))
		return;
	ok = n >= 0 && (size_t)n == w.len;
	delta = after.lines - before.lines;
	switch (lc) {
	case LC_NOOP:
		bad = delta != 0;
		what = "a blank or comment-only write changed the events";
		break;
	case LC_CREATE:
		if (ok) {
			bad = delta != 1;
			what = "an accepted definition did not add exactly one line";
		} else {
			bad = delta != 0;
			what = "a rejected definition changed the events";
		}
		break;
	case LC_DELETE:
		bad = delta > 0;
		what = "a deletion added an event";
		break;
	case LC_LOOSE:
		bad = delta > (ok ? 1 : 0);
		what = "a write with a NUL added more than it could";
		break;
	case LC_MULTI:
		bad = delta > lines;
		what = "a multi-line write added more lines than it had";
		break;
	}
	if (n >= 0 && !ok && delta > 1) {
		bad = 1;
		what = "a short write added more than one line";
	}
	if (bad) {
		fz_violation(&w, "iteration %lu, %s: %s (result %s, lines %d -> %d)",
			     iter, target_name[t], what, n < 0 ? errno_str(err) : "ok",
			     before.lines, after.lines);
	} else if (lc == LC_CREATE && ok && after.all_parsed && after.nr) {
		/* The new event is the last line, and it has its directory. */
		const struct entry *e = &after.e[after.nr - 1];
		char dir[512];
		struct stat st;

		if (name_ok(e->grp) && name_ok(e->ev)) {
			snprintf(dir, sizeof(dir), "%s/events/%s/%s", trace_dir,
				 e->grp, e->ev);
			if (stat(dir, &st) || !S_ISDIR(st.st_mode))
				fz_violation(&w, "iteration %lu, %s: %s/%s is listed, %s is not",
					     iter, target_name[t], e->grp, e->ev, dir);
		}
	}
	prune(MAX_ALIVE, PRUNE_TO);
}

static void do_enable(unsigned long iter, struct rng *r)
{
	static const char *const junk[] = { "2", "-1", "x", "", "1x", " ", "0x1", "11" };
	static struct listing l[2];
	struct {
		const struct entry *e;
		int up;
	} cand[2 * MAX_ENTRIES];
	const struct entry *e;
	int which, i, nc = 0, err, up;
	char path[512];
	const char *val;
	long n;

	for (which = 0; which < 2 && !dry; which++) {
		if (!have[which ? T_UPROBE_EVENTS : T_KPROBE_EVENTS] ||
		    read_listing(which ? uprobe_events : kprobe_events, &l[which]))
			continue;
		for (i = 0; i < l[which].nr; i++) {
			e = &l[which].e[i];
			if (is_initial(which, e))
				continue;
			if (which ? uprobe_entry_armable(e) : kprobe_entry_armable(e)) {
				cand[nc].e = e;
				cand[nc++].up = which;
			}
		}
	}
	if (!nc) {
		if (dry || verbose)
			printf("%05lu %s (no armable event)\n", iter, target_name[T_ENABLE]);
		return;
	}
	i = below(r, nc);
	e = cand[i].e;
	up = cand[i].up;
	val = chance(r, 85) ? "1" : PICK(r, junk);
	enable_path(path, sizeof(path), e);
	if (verbose)
		printf("%05lu %s %s/%s <- '%s'\n", iter, target_name[T_ENABLE],
		       e->grp, e->ev, val);
	n = write_path(path, val, strlen(val), 0, &err);
	record(T_ENABLE, n, err, strlen(val));
	if (verbose)
		show_result(n, err, strlen(val));
	if (n >= 0) {
		if (up)
			trigger_user();
		else
			trigger_kernel(!strncmp(e->point, "kernel_clone", 12));
	}
	if (write_path(path, "0", 1, 0, &err) != 1)
		fz_violation(NULL, "iteration %lu: cannot disable %s/%s again (errno %d)",
			     iter, e->grp, e->ev, err);
}

#define V(s)	{ s, sizeof(s) - 1 }
struct val {
	const char *s;
	size_t n;
};

static void gen_knob_value(struct rng *r, struct buf *b, int opt)
{
	static const struct val en[] = {
		V("1"), V("0"), V("1\n"), V("0\n"), V("2"), V(""), V("yes"),
		V("no"), V("  1\n"), V("on"), V("off"), V("y\n"), V("N"),
		V("-1"), V("0x1"), V("1\0junk"), V("10"), V("\x01"), V("0 "),
		V("\n"), V("true"),
	};
	static const struct val op[] = {
		V("0"), V("1"), V("-1"), V("2"), V("4294967296"),
		V("99999999999999999999"), V(""), V("junk"), V(" 1"), V("1 0"),
		V("0x1"), V("1\n"), V("0\n"), V("00"), V("+1"), V("\t1"),
		V("-2147483648"), V("2147483648"), V("1\0"), V("0\t\n"),
	};
	const struct val *v = opt ? &PICK(r, op) : &PICK(r, en);
	unsigned int i, n;

	bclear(b);
	if (chance(r, 8)) {
		n = chance(r, 50) ? 300 : 5000;
		for (i = 0; i < n; i++)
			bputc(b, chance(r, 90) ? '1' : ' ');
		return;
	}
	bput(b, v->s, v->n);
}

static void do_knob(unsigned long iter, struct rng *r, enum target t)
{
	static struct buf v;
	long n;
	int err;

	gen_knob_value(r, &v, t == T_KNOB_OPT);
	if (dry || verbose)
		show(iter, t, v.d, v.len);
	if (dry) {
		stats[t].attempts++;
		return;
	}
	n = write_path(t == T_KNOB_OPT ? knob_opt : knob_enabled, v.d, v.len, 0, &err);
	record(t, n, err, v.len);
	if (verbose)
		show_result(n, err, v.len);
}

/* ---- perf_event_open() on the dynamic PMUs ---- */

enum ptr_kind { P_STR, P_NULL, P_ONE, P_KERNEL, P_UNTERM };

static const char *const ptr_names[] = { "str", "NULL", "0x1", "kernel", "unterminated" };

static uint64_t ptr_value(enum ptr_kind k, const struct buf *s)
{
	switch (k) {
	case P_STR:
		return (uintptr_t)s->d;
	case P_ONE:
		return 1;
	case P_KERNEL:
		/* Rejected by the user-copy check, whatever the arch. */
		return 0xffffffff81000000ULL;
	case P_UNTERM:
		return (uintptr_t)unterminated;
	default:
		return 0;
	}
}

/*
 * Would the kprobe PMU arm something we never want armed?  It resolves
 * "MOD:SYM" or "SYM"; anything that names a text symbol other than a benign
 * one is refused, and without a symbol table only the benign names pass.
 */
static int perf_name_risky(const char *s)
{
	const char *c = strrchr(s, ':');
	const char *sym = c ? c + 1 : s;

	if (benign_named(sym, strlen(sym)))
		return 0;
	if (!kallsyms_loaded)
		return 1;
	return sym_known(sym);
}

/* Offsets that keep "benign+off" inside it, or far away from any text. */
static uint64_t perf_koffset(struct rng *r, const struct benign *bn)
{
	switch (below(r, 8)) {
	case 4:
		return bn->size ? below(r, bn->size) : 0;
	case 5:
		return bn->size ? below(r, bn->size) & ~3u : 0;
	case 6:
		return 1ULL << 52;
	case 7:
		return 0xf000000000000000ULL;
	default:
		return 0;
	}
}

/* Addresses for a NULL name: inside a benign function, or not text. */
static uint64_t perf_kaddr(struct rng *r)
{
	const struct benign *bn = pick_benign(r);

	switch (below(r, 8)) {
	case 0:
	case 1:
	case 2:
		return bn->addr ? bn->addr + (bn->size ? below(r, bn->size) : 0) : 0;
	case 3:
		return nr_data ? data_sample[below(r, nr_data)].addr : 0xdead000000000000ULL;
	case 4:
		return 0;
	case 5:
		return 1 + below(r, 0x10000);
	case 6:
		return ~0ULL;
	default:
		return 0xdead000000000000ULL + below(r, 0x1000);
	}
}

static enum ptr_kind gen_perf_kfunc(struct rng *r, struct buf *s, uint64_t *cfg2,
				    int *clone)
{
	const struct benign *bn = pick_benign(r);
	unsigned int k = below(r, 100), i;

	*cfg2 = 0;
	if (k < 45) {
		bputs(s, bn->name);
	} else if (k < 50) {
		bprintf(s, "%s:%s", nr_modules && chance(r, 50) ?
			modules[below(r, nr_modules)] : "fzmod", bn->name);
	} else if (k < 65) {
		bputs(s, bn->name);
		mutate(r, s);
		if (perf_name_risky(s->d)) {
			bclear(s);
			bputs(s, "fz_no_such_symbol");
		}
		if (!s->d[0]) {
			/* what the kernel sees is empty: config2 is an address */
			*cfg2 = perf_kaddr(r);
			return P_STR;
		}
	} else if (k < 70) {
		/* An empty name means "use config2 as the address". */
		*cfg2 = perf_kaddr(r);
		return P_STR;
	} else if (k < 74) {
		for (i = 0; i < 600; i++)
			bputc(s, 'a' + i % 26);
	} else if (k < 86) {
		*cfg2 = perf_kaddr(r);
		return P_NULL;
	} else if (k < 90) {
		return P_ONE;
	} else if (k < 95) {
		return P_KERNEL;
	} else {
		return P_UNTERM;
	}
	if (k < 65)
		*cfg2 = perf_koffset(r, bn);
	*clone = !strcmp(s->d, "kernel_clone");
	return P_STR;
}

/* Offsets in this program that are safe to arm, or beyond any mapping. */
static uint64_t safe_uoffset(struct rng *r)
{
	static const uint64_t huge[] = {
		~0ULL, 1ULL << 63, 0x7fffffffffffffffULL, (uint64_t)-4096,
	};

	switch (below(r, 8)) {
	case 0:
	case 1:
	case 2:
		return hot_off;
	case 3:
	case 4:
	case 5:
		return pad_len ? pad_off + below(r, pad_len) : hot_off;
	case 6:
		return ((exe_size + 4095) & ~4095ULL) + 4096 + below(r, 1 << 20);
	default:
		return PICK(r, huge);
	}
}

static enum ptr_kind gen_perf_upath(struct rng *r, struct buf *s, uint64_t *cfg2,
				    uint64_t *ref)
{
	unsigned int k = below(r, 100), i;
	int self = 0;

	*cfg2 = 0;
	*ref = 0;
	if (k < 60) {
		bputs(s, exe_path);
		self = 1;
	} else if (k < 68) {
		bputs(s, "/proc/self/exe");
		self = 1;
	} else if (k < 72) {
		bputs(s, "/nonexistent/fz");
	} else if (k < 75) {
		bputc(s, '/');
	} else if (k < 78) {
		bputs(s, "/dev/null");
	} else if (k < 81) {
		/* empty */
	} else if (k < 84) {
		for (i = 0; i < 5000; i += 8)
			bputs(s, "/fzlong_");
	} else if (k < 88) {
		return P_NULL;
	} else if (k < 92) {
		return P_ONE;
	} else if (k < 96) {
		return P_KERNEL;
	} else {
		return P_UNTERM;
	}
	/* elsewhere any offset, kept below 2^63 in case a kprobe PMU gets it */
	*cfg2 = self ? safe_uoffset(r) : (rnd(r) >> 1) >> below(r, 63);
	if (uref_shift >= 0 && chance(r, 25)) {
		switch (below(r, 4)) {
		case 0:
		case 1:
			*ref = ref_off + below(r, 16) * 2;
			break;
		case 2:
			*ref = ref_off + 1;
			break;
		default:
			*ref = 0xffffffffULL - below(r, 2);
			break;
		}
	}
	return P_STR;
}

union attr_buf {
	struct perf_event_attr a;
	unsigned char raw[8192];
	uint64_t align;
};

static void gen_attr(struct rng *r, union attr_buf *u)
{
	static const uint32_t sizes[] = {
		0, 8, 63, PERF_ATTR_SIZE_VER0, 65, PERF_ATTR_SIZE_VER1,
		PERF_ATTR_SIZE_VER5, 4096, 4097, 0xffffffff,
	};
	struct perf_event_attr *a = &u->a;
	unsigned int k = below(r, 100);
	size_t i, size;

	if (k < 70) {
		size = sizeof(*a);
	} else if (k < 78) {
		size = sizeof(*a) + 8 * (1 + below(r, 16));
	} else if (k < 86) {
		/* a tail longer than any kernel's attr, and not zero */
		size = sizeof(*a) + 64 + 8 * below(r, 8);
		for (i = sizeof(*a); i < size; i++)
			u->raw[i] = 1 + below(r, 255);
	} else {
		size = PICK(r, sizes);
	}
	a->size = size;
	a->sample_period = chance(r, 80) ? 0 : chance(r, 50) ? 1 : rnd(r);
	a->sample_type = chance(r, 75) ? 0 : rnd(r) & (chance(r, 80) ? 0x3ffffULL : ~0ULL);
	a->read_format = chance(r, 80) ? 0 : rnd(r) & (chance(r, 80) ? 0x1fULL : ~0ULL);
	a->disabled = chance(r, 30);
	a->inherit = chance(r, 5);
	a->pinned = chance(r, 5);
	a->exclusive = chance(r, 3);
	a->exclude_user = chance(r, 8);
	a->exclude_kernel = chance(r, 8);
	a->exclude_hv = chance(r, 5);
	a->exclude_idle = chance(r, 5);
	a->mmap = chance(r, 3);
	a->comm = chance(r, 3);
	a->freq = chance(r, 5);
	a->inherit_stat = chance(r, 3);
	a->enable_on_exec = chance(r, 3);
	a->task = chance(r, 3);
	a->watermark = chance(r, 3);
	a->precise_ip = chance(r, 5) ? below(r, 4) : 0;
	a->mmap_data = chance(r, 3);
	a->sample_id_all = chance(r, 5);
	a->exclude_host = chance(r, 3);
	a->exclude_guest = chance(r, 3);
	a->mmap2 = chance(r, 3);
	a->context_switch = chance(r, 3);
	a->write_backward = chance(r, 3);
	a->inherit_thread = chance(r, 2);
	a->remove_on_exec = chance(r, 3);
	a->sigtrap = chance(r, 2);
	a->wakeup_events = chance(r, 90) ? 0 : (uint32_t)rnd(r);
	if (chance(r, 3))
		a->branch_sample_type = rnd(r);
	if (chance(r, 3))
		a->sample_regs_user = rnd(r);
	if (chance(r, 3))
		a->sample_stack_user = (uint32_t)rnd(r);
	if (chance(r, 2)) {
		a->use_clockid = 1;
		a->clockid = (int)below(r, 16) - 2;
	}
	if (chance(r, 2))
		a->aux_watermark = (uint32_t)rnd(r);
	if (chance(r, 2))
		a->sample_max_stack = (uint16_t)rnd(r);
	if (chance(r, 2))
		a->sig_data = rnd(r);
}

static void perf_exercise(struct rng *r, int fd, const struct perf_event_attr *a,
			  int up, int clone)
{
	static const char *const filters[] = {
		"common_pid != 0", "common_pid == 0", "", "((((", "common_pid ~ \"*\"",
		"x == 1", "common_pid > 0 && common_pid < 0 || !common_pid",
	};
	unsigned int n = below(r, 3), i;
	char data[4096];
	uint64_t v;

	for (i = 0; i < n; i++) {
		v = chance(r, 50) ? 1 : rnd(r);
		switch (below(r, 8)) {
		case 0:
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			break;
		case 1:
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			break;
		case 2:
			ioctl(fd, PERF_EVENT_IOC_RESET, 0);
			break;
		case 3:
			ioctl(fd, PERF_EVENT_IOC_PERIOD, chance(r, 10) ? (void *)1 : &v);
			break;
		case 4:
			ioctl(fd, PERF_EVENT_IOC_SET_FILTER, PICK(r, filters));
			break;
		case 5:
			ioctl(fd, PERF_EVENT_IOC_ID, &v);
			break;
		case 6:
			ioctl(fd, PERF_EVENT_IOC_SET_BPF, -1);
			break;
		default:
			ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
			break;
		}
	}
	if (a->disabled && chance(r, 50))
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (up)
		trigger_user();
	else
		trigger_kernel(clone);
	if (read(fd, data, sizeof(data)) < 0)
		__atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

static void do_perf(unsigned long iter, struct rng *r, enum target t)
{
	enum { PID_SELF = -100, PID_ODD = -101 };
	/* Cumulative odds (out of 100) of the pid/cpu pairs. */
	static const struct {
		unsigned int limit;
		int pid, cpu;
		const char *name;
	} where[] = {
		{ 40, 0, -1, "0" },		/* this task, any cpu */
		{ 55, PID_SELF, -1, "self" },
		{ 80, -1, 0, "-1" },		/* every task on cpu 0 */
		{ 88, 0, 0, "0" },
		{ 91, -1, -1, "-1" },		/* refused */
		{ 94, 0, 100000, "0" },		/* no such cpu */
		{ 100, PID_ODD, -1, "odd" },
	};
	static const int pids[] = { 0x7ffffff0, 1, -2 };
	static const int groups[] = { 0, 999, -2, INT_MAX };
	static union attr_buf u;
	static struct buf s, d;
	struct perf_event_attr *a = &u.a;
	int up = t == T_PERF_UPROBE, clone = 0, pid, cpu, group = -1, err;
	const char *pid_name;
	uint64_t cfg2, ref = 0, junk;
	unsigned long flags;
	enum ptr_kind pk;
	unsigned int k, i;
	long fd;

	memset(&u, 0, sizeof(u));
	bclear(&s);
	if (up)
		pk = gen_perf_upath(r, &s, &cfg2, &ref);
	else
		pk = gen_perf_kfunc(r, &s, &cfg2, &clone);
	gen_attr(r, &u);

	a->type = up ? uprobe_type : kprobe_type;
	if (chance(r, 4)) {
		/* the other dynamic PMU (both refuse the other's strings), or none */
		a->type = chance(r, 50) ? (uint32_t)(up ? kprobe_type : uprobe_type) :
			  0x7ffffff0 + below(r, 15);
	}
	if (up) {
		a->config = chance(r, 25) ? 1ULL << uret_bit : 0;
		if (uref_shift >= 0)
			a->config |= ref << uref_shift;
	} else {
		a->config = chance(r, 30) ? 1ULL << kret_bit : 0;
	}
	if (chance(r, 4)) {
		/* junk config bits, but never a random reference counter */
		junk = rnd(r);
		if (uref_shift >= 0)
			junk &= (1ULL << uref_shift) - 1;
		a->config |= junk;
	}
	a->config1 = ptr_value(pk, &s);
	a->config2 = cfg2;

	k = below(r, 100);
	for (i = 0; k >= where[i].limit; i++)
		;
	pid = where[i].pid == PID_SELF ? getpid() :
	      where[i].pid == PID_ODD ? PICK(r, pids) : where[i].pid;
	cpu = where[i].cpu;
	pid_name = where[i].name;
	if (!chance(r, 90))
		group = PICK(r, groups);
	k = below(r, 100);
	flags = k < 80 ? PERF_FLAG_FD_CLOEXEC : k < 88 ? 0 :
		k < 92 ? PERF_FLAG_FD_NO_GROUP : k < 95 ? PERF_FLAG_PID_CGROUP :
		1UL << below(r, 8 * sizeof(long));

	if (dry || verbose) {
		uint64_t c1 = a->config1;

		/* Hash the attr without the pointer, which moves from run to run. */
		a->config1 = pk;
		bclear(&d);
		bprintf(&d, "type=%s size=%u config=0x%llx %s=%s",
			a->type == (unsigned int)kprobe_type ? "kprobe" :
			a->type == (unsigned int)uprobe_type ? "uprobe" : "other",
			a->size, (unsigned long long)a->config,
			up ? "path" : "func", ptr_names[pk]);
		if (pk == P_STR) {
			bputs(&d, ":\"");
			bput(&d, s.d, strlen(s.d));
			bputc(&d, '"');
		}
		bprintf(&d, " config2=0x%llx pid=%s cpu=%d group=%d flags=0x%lx attr=%016llx",
			(unsigned long long)a->config2, pid_name, cpu, group, flags,
			(unsigned long long)fnv1a(u.raw, sizeof(u.raw)));
		a->config1 = c1;
		show(iter, t, d.d, d.len);
	}
	if (dry) {
		stats[t].attempts++;
		return;
	}
	fd = syscall(__NR_perf_event_open, a, pid, cpu, group, flags);
	err = errno;
	record(t, fd < 0 ? -1 : 0, err, 0);
	if (verbose)
		show_result(fd < 0 ? -1 : 0, err, 0);
	if (fd < 0)
		return;
	perf_exercise(r, fd, a, up, clone);
	close(fd);
}

/* ---- setup, cleanup, report ---- */

static int read_int(const char *path, long *v)
{
	char b[64] = "", *end;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	b[n] = 0;
	*v = strtol(b, &end, 10);
	return end == b ? -1 : 0;
}

/* A format file says "config:N" or "config:N-M"; N is the shift. */
static int read_shift(const char *path)
{
	char b[64] = "";
	int fd = open(path, O_RDONLY), n;
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (len <= 0 || sscanf(b, "config:%d", &n) != 1 || n < 0 || n > 63)
		return -1;
	return n;
}

static void find_interfaces(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *pmu = "/sys/bus/event_source/devices";
	char p[256];
	size_t i;
	long v;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(p, sizeof(p), "%s/kprobe_events", dirs[i]);
		if (!access(p, F_OK)) {
			snprintf(trace_dir, sizeof(trace_dir), "%s", dirs[i]);
			break;
		}
	}
	if (trace_dir[0]) {
		snprintf(kprobe_events, sizeof(kprobe_events), "%s/kprobe_events", trace_dir);
		snprintf(uprobe_events, sizeof(uprobe_events), "%s/uprobe_events", trace_dir);
		have[T_KPROBE_EVENTS] = 1;
		have[T_ENABLE] = 1;
		have[T_UPROBE_EVENTS] = !access(uprobe_events, F_OK);
	}
	have[T_KNOB_ENABLED] = !access(knob_enabled, F_OK);
	have[T_KNOB_OPT] = !access(knob_opt, F_OK);

	snprintf(p, sizeof(p), "%s/kprobe/type", pmu);
	if (!read_int(p, &v))
		kprobe_type = v;
	snprintf(p, sizeof(p), "%s/uprobe/type", pmu);
	if (!read_int(p, &v))
		uprobe_type = v;
	snprintf(p, sizeof(p), "%s/kprobe/format/retprobe", pmu);
	kret_bit = read_shift(p);
	snprintf(p, sizeof(p), "%s/uprobe/format/retprobe", pmu);
	uret_bit = read_shift(p);
	snprintf(p, sizeof(p), "%s/uprobe/format/ref_ctr_offset", pmu);
	uref_shift = read_shift(p);
	have[T_PERF_KPROBE] = kprobe_type >= 0;
	have[T_PERF_UPROBE] = uprobe_type >= 0;
	if (kret_bit < 0)
		kret_bit = 0;
	if (uret_bit < 0)
		uret_bit = 0;

	/* The dry run prints every kind of input whatever this host has. */
	if (dry) {
		for (i = 0; i < NR_TARGETS; i++)
			have[i] = 1;
		if (kprobe_type < 0)
			kprobe_type = 1000;
		if (uprobe_type < 0)
			uprobe_type = 1001;
	}
	for (i = 0; i < NR_TARGETS; i++)
		if (!have[i])
			target_weight[i] = 0;
}

static enum target pick_target(struct rng *r)
{
	unsigned int total = 0, i, k;

	for (i = 0; i < NR_TARGETS; i++)
		total += target_weight[i];
	k = below(r, total);
	for (i = 0; i < NR_TARGETS; i++) {
		if (k < target_weight[i])
			return i;
		k -= target_weight[i];
	}
	return T_KPROBE_EVENTS;
}

static void setup_unterminated(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		unterminated = (char *)"fz";
		return;
	}
	memset(p, 'A', pg);
	munmap(p + pg, pg);
	unterminated = p + pg - 16;
}

/* Remove every event of ours from one file; returns how many are left. */
static int remove_ours(int which)
{
	static struct listing l;
	const char *path = which ? uprobe_events : kprobe_events;
	int pass, i, err;

	for (pass = 0; pass < 3; pass++) {
		if (read_listing(path, &l))
			return -1;
		if (!count_ours(which, &l))
			return 0;
		for (i = 0; i < l.nr; i++)
			if (!is_initial(which, &l.e[i]))
				delete_entry(which, &l.e[i]);
	}
	/*
	 * Whatever would not go by name goes with a truncation, unless that
	 * would take somebody else's events too.
	 */
	if (!nr_init[which]) {
		if (read_listing(path, &l))
			return -1;
		for (i = 0; i < l.nr; i++) {
			char p[512];

			if (name_ok(l.e[i].grp) && name_ok(l.e[i].ev)) {
				enable_path(p, sizeof(p), &l.e[i]);
				write_path(p, "0", 1, 0, &err);
			}
		}
		write_path(path, "", 0, O_TRUNC, &err);
	}
	if (read_listing(path, &l))
		return -1;
	return count_ours(which, &l);
}

static int restore_knob(const char *path)
{
	char b[16] = "";
	int err, fd;
	ssize_t n;

	if (access(path, F_OK))
		return 0;
	write_path(path, "1\n", 2, 0, &err);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	return n > 0 && b[0] == '1' ? 0 : -1;
}

static int clean_up(void)
{
	int which, left, bad = 0;

	for (which = 0; which < 2; which++) {
		if (!have[which ? T_UPROBE_EVENTS : T_KPROBE_EVENTS])
			continue;
		left = remove_ours(which);
		if (left) {
			printf("# fuzz cleanup: %s still holds %d line(s) of ours\n",
			       which ? uprobe_events : kprobe_events, left);
			bad = 1;
		}
	}
	if (restore_knob(knob_enabled)) {
		printf("# fuzz cleanup: %s does not read back 1\n", knob_enabled);
		bad = 1;
	}
	if (restore_knob(knob_opt)) {
		printf("# fuzz cleanup: %s does not read back 1\n", knob_opt);
		bad = 1;
	}
	printf("# fuzz cleanup: %s\n", bad ? "FAILED" : "ok");
	return bad;
}

static void report(void)
{
	int t, e;

	for (t = 0; t < NR_TARGETS; t++) {
		const struct tstat *s = &stats[t];
		int any = 0;

		if (dry) {
			printf("# fuzz %s: attempts=%lu (dry run)\n", target_name[t],
			       s->attempts);
			continue;
		}
		printf("# fuzz %s: attempts=%lu ok=%lu errnos:", target_name[t],
		       s->attempts, s->ok);
		for (e = 1; e <= MAX_ERRNO; e++) {
			if (!s->err[e])
				continue;
			printf(" ");
			print_errno_name(e);
			printf("=%lu", s->err[e]);
			any = 1;
		}
		if (s->err[0]) {
			printf(" unknown=%lu", s->err[0]);
			any = 1;
		}
		if (!any)
			printf(" none");
		if (s->shortw)
			printf(" short=%lu", s->shortw);
		printf("\n");
	}
	if (!dry) {
		printf("# fuzz housekeeping: prunes=%lu deletes=%lu failed=%lu sigtraps=%lu\n",
		       prunes, prune_deletes, prune_failures,
		       __atomic_load_n(&sigtraps, __ATOMIC_RELAXED));
		printf("# fuzz violations: %lu\n", violations);
	}
}

static void on_stop(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static void on_trap(int sig)
{
	(void)sig;
	__atomic_fetch_add(&sigtraps, 1, __ATOMIC_RELAXED);
}

static void print_usage(const char *prog)
{
	printf("usage: %s [-s SEED] [-n COUNT] [-t SECONDS] [-d] [-v]\n"
	       "  -s SEED     seed of the input sequence (default %llu)\n"
	       "  -n COUNT    stop after COUNT iterations (default %lu)\n"
	       "  -t SECONDS  stop after SECONDS (default %lu)\n"
	       "  -d          dry run: print the inputs, touch nothing\n"
	       "  -v          print every input and its result\n",
	       prog, (unsigned long long)DEFAULT_SEED, DEFAULT_COUNT, DEFAULT_SECONDS);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { 0 };
	struct timespec t0, now;
	unsigned long iter;
	int opt, fail = 0;

	while ((opt = getopt(argc, argv, "s:n:t:dvh")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			max_iters = strtoul(optarg, NULL, 0);
			break;
		case 't':
			max_seconds = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dry = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			print_usage(argv[0]);
			return opt == 'h' ? 0 : 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!dry && geteuid()) {
		printf("SKIP: must run as root\n");
		return 4;
	}
	find_interfaces();
	if (!dry && !have[T_KPROBE_EVENTS]) {
		printf("SKIP: no kprobe_events in a tracefs mount\n");
		return 4;
	}
	if (self_layout()) {
		printf("FAIL: cannot find this program's own layout\n");
		return 1;
	}
	load_kallsyms();
	settle_benign();
	setup_unterminated();

	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* perf's sigtrap attribute signals us on every overflow */
	sa.sa_handler = on_trap;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTRAP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!dry) {
		snapshot(0, kprobe_events);
		if (have[T_UPROBE_EVENTS])
			snapshot(1, uprobe_events);
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (iter = 0; iter < max_iters && !__atomic_load_n(&stop, __ATOMIC_RELAXED); iter++) {
		struct rng r;
		enum target t;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((unsigned long)(now.tv_sec - t0.tv_sec) >= max_seconds)
			break;
		rng_seed(&r, iter + 1);
		t = pick_target(&r);
		switch (t) {
		case T_KPROBE_EVENTS:
		case T_UPROBE_EVENTS:
			do_events(iter, &r, t);
			break;
		case T_ENABLE:
			do_enable(iter, &r);
			break;
		case T_KNOB_ENABLED:
		case T_KNOB_OPT:
			do_knob(iter, &r, t);
			break;
		default:
			do_perf(iter, &r, t);
			break;
		}
		if (iter % PRUNE_EVERY == PRUNE_EVERY - 1)
			prune(PRUNE_TO / 2, 0);
	}

	if (!dry)
		fail = clean_up();
	report();
	if (violations)
		fail = 1;
	printf("fuzz: iterations=%lu seed=%llu%s\n", iter,
	       (unsigned long long)seed, dry ? " (dry run)" : "");
	return fail;
}
