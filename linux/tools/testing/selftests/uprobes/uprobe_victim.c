// SPDX-License-Identifier: GPL-2.0
/*
 * The program the uprobes selftests put their probes on.
 *
 * "uprobe_victim points" prints "name 0xOFFSET" for every probe point,
 * the offset being where the point lies in this file, which is what
 * uprobe_events wants.  Every other subcommand exercises one situation
 * (threads, fork, exec, a second mapping of the file, a write to the
 * probed page, signals, seccomp, an SDT semaphore, longjmp, deep
 * recursion) and checks each result it computes against the value
 * computed without the probed code; it exits 1 on a wrong result, 4 when
 * the kernel lacks something the subcommand needs, 0 otherwise.
 *
 * Subcommands that the script has to pace report on descriptor 3 and wait
 * for a line on stdin (uprobe_util.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "uprobe_util.h"
#include "uprobe_victim.h"

typedef uint64_t (*fn_t)(uint64_t);

static int bad;

/* Keeps the compiler from knowing @x. */
static inline uint64_t opaque(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

static void check(const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return;
	fprintf(stderr, "%s: got %llu, expected %llu\n", what,
		(unsigned long long)got, (unsigned long long)want);
	bad++;
}

/* ---- the probe points ---- */

PROBED uint64_t uv_work(uint64_t x)
{
	return x * x * 3 + 7;
}

static uint64_t work_want(uint64_t x)
{
	return 3 * x * x + 7;
}

PROBED uint64_t uv_other(uint64_t x)
{
	return (x ^ 0x5a5a) + 11;
}

/* Called while the SDT semaphore says somebody is listening. */
PROBED uint64_t uv_sdt(uint64_t x)
{
	return opaque(x) + 1;
}

/*
 * The semaphore, which the kernel counts up and down in memory.  It must
 * be backed by the file, in .data: the non-zero neighbour keeps the pair
 * out of .bss.
 */
struct {
	unsigned short sema;
	unsigned short in_data;
} uv_sdt_state = { 0, 1 };

/* fork() inside a function with a return probe: both copies return. */
PROBED pid_t uv_forker(void)
{
	pid_t pid = fork();

	__asm__ volatile("" : "+r"(pid));
	return pid;
}

/* exec inside a function with a return probe: it never returns. */
PROBED int uv_doexec(int level, int n)
{
	char lv[16], cnt[16];

	snprintf(lv, sizeof(lv), "%d", level);
	snprintf(cnt, sizeof(cnt), "%d", n);
	execl("/proc/self/exe", "uprobe_victim", "exec", lv, cnt, (char *)NULL);
	return -errno;
}

/* Ends the process from inside a function with a return probe. */
PROBED void uv_bye(uint64_t sum)
{
	printf("exec chain done sum=%llu\n", (unsigned long long)opaque(sum));
	fflush(stdout);
	exit(bad ? 1 : 0);
}

static jmp_buf jump_back;

PROBED uint64_t uv_f2(uint64_t x)
{
	if (opaque(x) == 0)
		longjmp(jump_back, 1);
	return x + 100;
}

PROBED uint64_t uv_f1(uint64_t x)
{
	uint64_t r = uv_f2(x);

	__asm__ volatile("" : "+r"(r));
	return r * 2 + 1;
}

PROBED uint64_t uv_rec(uint64_t depth)
{
	uint64_t r;

	if (opaque(depth) <= 1)
		return 1;
	r = uv_rec(depth - 1);
	/* Not a tail call, and no accumulator loop either. */
	__asm__ volatile("" : "+r"(r));
	return r + depth;
}

/*
 * Hand-written so that the instructions are known: uv_leaf is position
 * independent (it is called through a second mapping of the file too),
 * uv_cowfn shares its page with uv_cowpad, which is written to, and the
 * loop of uv_loop runs two instructions a uprobe steps out of line (on
 * x86 a RIP-relative imul and an add, on arm64 a mul and an add).  All
 * compute n * 5 + 1, n * 3 + 3 and 7 * (0 + 1 + ... + n - 1).
 */
#if defined(__x86_64__)
__asm__(".text\n"
	".balign 64\n"
	".globl uv_leaf\n .type uv_leaf, %function\n"
	"uv_leaf:\n"
	"	lea 1(%rdi,%rdi,4), %rax\n"
	"	ret\n"
	".size uv_leaf, . - uv_leaf\n"
	".balign 64\n"
	".globl uv_cowfn\n .type uv_cowfn, %function\n"
	"uv_cowfn:\n"
	"	lea 3(%rdi,%rdi,2), %rax\n"
	"	ret\n"
	".size uv_cowfn, . - uv_cowfn\n"
	".globl uv_cowpad\n"
	"uv_cowpad:\n"
	"	.fill 16, 1, 0xcc\n"
	".balign 64\n"
	".globl uv_loop\n .type uv_loop, %function\n"
	".globl uv_loop_insn\n .globl uv_loop_insn2\n"
	"uv_loop:\n"
	"	xor %eax, %eax\n"
	"	xor %ecx, %ecx\n"
	"	test %rdi, %rdi\n"
	"	je 2f\n"
	"1:	mov %rcx, %rdx\n"
	"uv_loop_insn:\n"
	"	imul uv_seven(%rip), %rdx\n"
	"uv_loop_insn2:\n"
	"	add %rdx, %rax\n"
	"	inc %rcx\n"
	"	cmp %rdi, %rcx\n"
	"	jne 1b\n"
	"2:	ret\n"
	".size uv_loop, . - uv_loop\n"
	".section .rodata\n"
	".balign 8\n"
	"uv_seven:\n"
	"	.quad 7\n"
	".text\n"
	/*
	 * uv_nop5 and uv_redzone compute what uv_work does, 3 * x * x + 7.
	 * uv_nop5 begins with the 5-byte nop of USDT probes and
	 * -fpatchable-function-entry; uv_redzone is a leaf that keeps
	 * sixteen words in its red zone, below its stack pointer, across
	 * such a nop (uv_redzone_nop), and returns 0 when one changed.  A
	 * probe entered by a call would write the return address there.
	 * Neither nop is 16-byte aligned: a stub page mapped at an address
	 * that is not a page's would run a stub from its middle.
	 */
	".balign 64\n"
	"	nop; nop; nop\n"
	".globl uv_nop5\n .type uv_nop5, %function\n"
	"uv_nop5:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	mov %rdi, %rax\n"
	"	imul %rdi, %rax\n"
	"	lea 7(%rax,%rax,2), %rax\n"
	"	ret\n"
	".size uv_nop5, . - uv_nop5\n"
	".balign 64\n"
	".globl uv_redzone\n .type uv_redzone, %function\n"
	".globl uv_redzone_nop\n"
	"uv_redzone:\n"
	"	lea 1(%rdi), %rax\n	mov %rax, -8(%rsp)\n"
	"	lea 2(%rdi), %rax\n	mov %rax, -16(%rsp)\n"
	"	lea 3(%rdi), %rax\n	mov %rax, -24(%rsp)\n"
	"	lea 4(%rdi), %rax\n	mov %rax, -32(%rsp)\n"
	"	lea 5(%rdi), %rax\n	mov %rax, -40(%rsp)\n"
	"	lea 6(%rdi), %rax\n	mov %rax, -48(%rsp)\n"
	"	lea 7(%rdi), %rax\n	mov %rax, -56(%rsp)\n"
	"	lea 8(%rdi), %rax\n	mov %rax, -64(%rsp)\n"
	"	lea 9(%rdi), %rax\n	mov %rax, -72(%rsp)\n"
	"	lea 10(%rdi), %rax\n	mov %rax, -80(%rsp)\n"
	"	lea 11(%rdi), %rax\n	mov %rax, -88(%rsp)\n"
	"	lea 12(%rdi), %rax\n	mov %rax, -96(%rsp)\n"
	"	lea 13(%rdi), %rax\n	mov %rax, -104(%rsp)\n"
	"	lea 14(%rdi), %rax\n	mov %rax, -112(%rsp)\n"
	"	lea 15(%rdi), %rax\n	mov %rax, -120(%rsp)\n"
	"	lea 16(%rdi), %rax\n	mov %rax, -128(%rsp)\n"
	"	nop\n"
	"uv_redzone_nop:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	lea 1(%rdi), %rax\n	cmp %rax, -8(%rsp)\n	jne 1f\n"
	"	lea 2(%rdi), %rax\n	cmp %rax, -16(%rsp)\n	jne 1f\n"
	"	lea 3(%rdi), %rax\n	cmp %rax, -24(%rsp)\n	jne 1f\n"
	"	lea 4(%rdi), %rax\n	cmp %rax, -32(%rsp)\n	jne 1f\n"
	"	lea 5(%rdi), %rax\n	cmp %rax, -40(%rsp)\n	jne 1f\n"
	"	lea 6(%rdi), %rax\n	cmp %rax, -48(%rsp)\n	jne 1f\n"
	"	lea 7(%rdi), %rax\n	cmp %rax, -56(%rsp)\n	jne 1f\n"
	"	lea 8(%rdi), %rax\n	cmp %rax, -64(%rsp)\n	jne 1f\n"
	"	lea 9(%rdi), %rax\n	cmp %rax, -72(%rsp)\n	jne 1f\n"
	"	lea 10(%rdi), %rax\n	cmp %rax, -80(%rsp)\n	jne 1f\n"
	"	lea 11(%rdi), %rax\n	cmp %rax, -88(%rsp)\n	jne 1f\n"
	"	lea 12(%rdi), %rax\n	cmp %rax, -96(%rsp)\n	jne 1f\n"
	"	lea 13(%rdi), %rax\n	cmp %rax, -104(%rsp)\n	jne 1f\n"
	"	lea 14(%rdi), %rax\n	cmp %rax, -112(%rsp)\n	jne 1f\n"
	"	lea 15(%rdi), %rax\n	cmp %rax, -120(%rsp)\n	jne 1f\n"
	"	lea 16(%rdi), %rax\n	cmp %rax, -128(%rsp)\n	jne 1f\n"
	"	mov %rdi, %rax\n"
	"	imul %rdi, %rax\n"
	"	lea 7(%rax,%rax,2), %rax\n"
	"	ret\n"
	"1:	xor %eax, %eax\n"
	"	ret\n"
	".size uv_redzone, . - uv_redzone\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".balign 64\n"
	".globl uv_leaf\n .type uv_leaf, %function\n"
	"uv_leaf:\n"
	"	add x0, x0, x0, lsl #2\n"
	"	add x0, x0, #1\n"
	"	ret\n"
	".size uv_leaf, . - uv_leaf\n"
	".balign 64\n"
	".globl uv_cowfn\n .type uv_cowfn, %function\n"
	"uv_cowfn:\n"
	"	add x0, x0, x0, lsl #1\n"
	"	add x0, x0, #3\n"
	"	ret\n"
	".size uv_cowfn, . - uv_cowfn\n"
	".globl uv_cowpad\n"
	"uv_cowpad:\n"
	"	.fill 16, 1, 0\n"
	".balign 64\n"
	".globl uv_loop\n .type uv_loop, %function\n"
	".globl uv_loop_insn\n .globl uv_loop_insn2\n"
	"uv_loop:\n"
	"	mov x1, xzr\n"
	"	mov x2, xzr\n"
	"	cbz x0, 2f\n"
	"1:	mov x3, #7\n"
	"uv_loop_insn:\n"
	"	mul x3, x3, x1\n"
	"uv_loop_insn2:\n"
	"	add x2, x2, x3\n"
	"	add x1, x1, #1\n"
	"	cmp x1, x0\n"
	"	b.ne 1b\n"
	"2:	mov x0, x2\n"
	"	ret\n"
	".size uv_loop, . - uv_loop\n"
	/* No red zone on arm64: both are plain nop-first functions here. */
	".balign 64\n"
	".globl uv_nop5\n .type uv_nop5, %function\n"
	"uv_nop5:\n"
	"	nop\n"
	"	mul x1, x0, x0\n"
	"	add x1, x1, x1, lsl #1\n"
	"	add x0, x1, #7\n"
	"	ret\n"
	".size uv_nop5, . - uv_nop5\n"
	".balign 64\n"
	".globl uv_redzone\n .type uv_redzone, %function\n"
	".globl uv_redzone_nop\n"
	"uv_redzone:\n"
	"uv_redzone_nop:\n"
	"	nop\n"
	"	mul x1, x0, x0\n"
	"	add x1, x1, x1, lsl #1\n"
	"	add x0, x1, #7\n"
	"	ret\n"
	".size uv_redzone, . - uv_redzone\n");
#else
#error "write uv_leaf, uv_cowfn and uv_loop for this architecture"
#endif

static uint64_t loop_want(uint64_t n)
{
	return n ? 7 * (n * (n - 1) / 2) : 0;
}

static const struct {
	const char *name;
	const void *at;
} points[] = {
	{ "uv_work", uv_work },
	{ "uv_other", uv_other },
	{ "uv_sdt", uv_sdt },
	{ "uv_sema", &uv_sdt_state.sema },
	{ "uv_forker", uv_forker },
	{ "uv_doexec", uv_doexec },
	{ "uv_bye", uv_bye },
	{ "uv_f1", uv_f1 },
	{ "uv_f2", uv_f2 },
	{ "uv_rec", uv_rec },
	{ "uv_leaf", uv_leaf },
	{ "uv_cowfn", uv_cowfn },
	{ "uv_loop_insn", uv_loop_insn },
	{ "uv_loop_insn2", uv_loop_insn2 },
	{ "uv_nop5", uv_nop5 },
	{ "uv_redzone_nop", uv_redzone_nop },
};

/*
 * The function the work, values, threads, fork, exec and seccomp
 * subcommands call: uv_work, or with UV_WORK=nop5 or UV_WORK=redzone in
 * the environment (exec keeps it) one of the two computing the same on
 * a 5-byte nop.
 */
static fn_t work_fn = uv_work;

static void pick_work_fn(void)
{
	const char *w = getenv("UV_WORK");

	if (w && !strcmp(w, "nop5"))
		work_fn = uv_nop5;
	else if (w && !strcmp(w, "redzone"))
		work_fn = uv_redzone;
}

/* The probed nop of work_fn. */
static const unsigned char *work_site(void)
{
	if (work_fn == uv_redzone)
		return uv_redzone_nop;
	return (const unsigned char *)work_fn;
}

static int cmd_points(int unused1, int unused2)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(points); i++) {
		long off = file_offset(points[i].at);

		if (off < 0) {
			fprintf(stderr, "%s is not in the file\n", points[i].name);
			return 1;
		}
		printf("%s 0x%lx\n", points[i].name, off);
	}
	return 0;
}

static uint64_t run_work(uint64_t n, uint64_t base)
{
	uint64_t i, sum = 0;

	for (i = 0; i < n; i++) {
		uint64_t r = work_fn(opaque(base + i));

		check("uv_work", r, work_want(base + i));
		sum += r;
	}
	return sum;
}

/* work N: N calls of uv_work, their sum. */
static int cmd_work(int n, int unused)
{
	printf("sum=%llu\n", (unsigned long long)run_work(n, 0));
	return 0;
}

/* values N BASE: uv_work(BASE) ... uv_work(BASE + N - 1), one a line. */
static int cmd_values(int n, int base)
{
	int i;

	for (i = 0; i < n; i++) {
		uint64_t r = work_fn(opaque(base + i));

		check("uv_work", r, work_want(base + i));
		printf("%llu\n", (unsigned long long)r);
	}
	return 0;
}

/* ---- threads ---- */

struct worker {
	pthread_t thread;
	int cpu;
	int calls;		/* threads: how many to make */
	uint64_t done;		/* calls made */
	int bad;
};

static pthread_barrier_t start_line;
static int stop_now;

static int stopping(void)
{
	return __atomic_load_n(&stop_now, __ATOMIC_RELAXED);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Only one CPU online is no failure, just less of a test. */
	sched_setaffinity(0, sizeof(set), &set);
}

static void *thread_calls(void *arg)
{
	struct worker *w = arg;
	int i;

	pin(w->cpu);
	pthread_barrier_wait(&start_line);
	for (i = 0; i < w->calls; i++) {
		if (work_fn(opaque(i)) != work_want(i))
			w->bad++;
		w->done++;
	}
	return NULL;
}

static void *thread_churn(void *arg)
{
	struct worker *w = arg;
	uint64_t i = 0;

	pin(w->cpu);
	while (!stopping()) {
		if (uv_work(opaque(i)) != work_want(i))
			w->bad++;
		if (uv_other(opaque(i)) != ((i ^ 0x5a5a) + 11))
			w->bad++;
		__atomic_store_n(&w->done, w->done + 1, __ATOMIC_RELAXED);
		i++;
	}
	return NULL;
}

/*
 * threads T M: T threads spread over the CPUs call uv_work M times each.
 * churn T: T threads call uv_work and uv_other until stdin is closed;
 * "ready" once every thread made a call.  Both print the calls made.
 */
static int run_threads(int nthreads, int calls, int churn)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct worker *w = calloc(nthreads, sizeof(*w));
	uint64_t total = 0;
	int i;

	if (!w || ncpu < 1)
		return 1;
	pthread_barrier_init(&start_line, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		w[i].cpu = i % ncpu;
		w[i].calls = calls;
		if (pthread_create(&w[i].thread, NULL,
				   churn ? thread_churn : thread_calls, &w[i])) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	if (churn) {
		for (i = 0; i < nthreads; i++)
			while (!__atomic_load_n(&w[i].done, __ATOMIC_RELAXED))
				sched_yield();
		tell("ready\n");
		while (await_line())
			;
		__atomic_store_n(&stop_now, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].done;
		bad += w[i].bad;
	}
	if (bad)
		fprintf(stderr, "%d wrong results in the threads\n", bad);
	printf("calls=%llu\n", (unsigned long long)total);
	return 0;
}

static int cmd_threads(int nthreads, int calls)
{
	return run_threads(nthreads, calls, 0);
}

static int cmd_churn(int nthreads, int unused)
{
	return run_threads(nthreads, 0, 1);
}

/* ---- fork ---- */

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	if (WIFSIGNALED(status)) {
		printf("child killed by signal %d\n", WTERMSIG(status));
		return 1;
	}
	if (WEXITSTATUS(status)) {
		printf("child exited with %d\n", WEXITSTATUS(status));
		return 1;
	}
	return 0;
}

/*
 * fork N: N calls, then uv_forker() forks; the child makes N calls and
 * exits, the parent N more once the child is gone.
 */
static int cmd_fork(int n, int unused)
{
	pid_t pid;
	int fail;

	run_work(n, 0);
	fflush(stdout);
	pid = uv_forker();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		run_work(n, 0);
		_exit(bad ? 1 : 0);
	}
	fail = reap(pid);
	run_work(n, 0);
	printf("fork done\n");
	return fail;
}

/*
 * forkhold N: N calls, fork; the child makes N calls, says "ready",
 * waits for stdin to close (the script removes the probe meanwhile) and
 * makes N more.
 */
static int cmd_forkhold(int n, int unused)
{
	pid_t pid;
	int fail;

	run_work(n, 0);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		run_work(n, 0);
		tell("ready\n");
		while (await_line())
			;
		run_work(n, 0);
		_exit(bad ? 1 : 0);
	}
	close(0);
	close(3);
	fail = reap(pid);
	run_work(n, 0);
	printf("forkhold done\n");
	return fail;
}

/* exec L N: N calls, then exec itself with L - 1 ... down to 0. */
static int cmd_exec(int level, int n)
{
	uint64_t sum = run_work(n, 0);

	if (bad)
		return 1;
	if (level <= 0)
		uv_bye(sum);
	fflush(stdout);
	fprintf(stderr, "exec failed: %d\n", uv_doexec(level - 1, n));
	return 1;
}

/* ---- the same code at other addresses ---- */

static fn_t map_again(int fd, long off)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
		       off & ~(pg - 1));

	if (p == MAP_FAILED) {
		perror("mmap of the program");
		exit(1);
	}
	return (fn_t)(uintptr_t)(p + (off & (pg - 1)));
}

/*
 * alias N: uv_leaf mapped a second time before "ready", a third time
 * after; N calls through each of the three.
 */
static int cmd_alias(int n, int unused)
{
	long off = file_offset((const void *)uv_leaf);
	int fd = open("/proc/self/exe", O_RDONLY);
	fn_t first, second;
	int i;

	if (fd < 0 || off < 0) {
		fprintf(stderr, "cannot find uv_leaf in the file\n");
		return 1;
	}
	first = map_again(fd, off);
	tell("ready\n");
	await_line();
	second = map_again(fd, off);
	if (first == uv_leaf || second == uv_leaf || first == second)
		return 1;
	for (i = 0; i < n; i++) {
		check("uv_leaf", uv_leaf(opaque(i)), 5 * i + 1);
		check("uv_leaf (2nd mapping)", first(opaque(i)), 5 * i + 1);
		check("uv_leaf (3rd mapping)", second(opaque(i)), 5 * i + 1);
	}
	printf("calls=%d\n", 3 * n);
	return bad != 0;
}

/*
 * remap N: uv_leaf's page of this program mapped at one address, N calls
 * through it; then the same page of the copy named by $UV_COPY (another
 * inode) mapped over it with MAP_FIXED, N calls; then this program's page
 * once more, N calls.
 */
static int cmd_remap(int n, int unused)
{
	long pg = sysconf(_SC_PAGESIZE);
	long off = file_offset((const void *)uv_leaf);
	const char *copy = getenv("UV_COPY");
	int fd[2] = { open("/proc/self/exe", O_RDONLY),
		      copy ? open(copy, O_RDONLY) : -1 };
	char *at = MAP_FAILED;
	fn_t fn;
	int i, round;

	if (fd[0] < 0 || fd[1] < 0 || off < 0) {
		fprintf(stderr, "remap: cannot open the program and $UV_COPY\n");
		return 1;
	}
	for (round = 0; round < 3; round++) {
		char *p = mmap(round ? at : NULL, 2 * pg, PROT_READ | PROT_EXEC,
			       MAP_PRIVATE | (round ? MAP_FIXED : 0),
			       fd[round & 1], off & ~(pg - 1));

		if (p == MAP_FAILED || (round && p != at)) {
			perror("remap: mmap");
			return 1;
		}
		at = p;
		fn = (fn_t)(uintptr_t)(at + (off & (pg - 1)));
		for (i = 0; i < n; i++)
			check("uv_leaf (remapped)", fn(opaque(i)), 5 * i + 1);
	}
	printf("calls=%d\n", 3 * n);
	return bad != 0;
}

/* ---- a write to the probed page ---- */

static void cow_calls(int n)
{
	int i;

	for (i = 0; i < n; i++)
		check("uv_cowfn", uv_cowfn(opaque(i)), 3 * i + 3);
}

/*
 * cow N: N calls of the probed uv_cowfn, then its page made writable and
 * written to (the probe is already in, so this copies the probed page),
 * N calls, "ready"; once the script removed the probe, N more calls, and
 * the function's bytes must be the file's again while the byte written
 * stays.
 */
static int cmd_cow(int n, int unused)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = (uintptr_t)uv_cowfn & ~(pg - 1);
	long off = file_offset((const void *)uv_cowfn);
	/* The code of uv_cowfn, which uv_cowpad follows. */
	size_t len = (uintptr_t)uv_cowpad - (uintptr_t)uv_cowfn;
	unsigned char orig[16];
	int fd = open("/proc/self/exe", O_RDONLY);

	if (len > sizeof(orig) || fd < 0 || off < 0 ||
	    pread(fd, orig, len, off) != (ssize_t)len) {
		fprintf(stderr, "cannot read uv_cowfn from the file\n");
		return 1;
	}
	close(fd);
	if (((uintptr_t)uv_cowpad & ~(pg - 1)) != page) {
		fprintf(stderr, "uv_cowpad is not in the page of uv_cowfn\n");
		return 1;
	}
	cow_calls(n);
	if (mprotect((void *)page, pg, PROT_READ | PROT_WRITE | PROT_EXEC)) {
		perror("mprotect");
		return 1;
	}
	uv_cowpad[0] = 0x11;
	cow_calls(n);
	tell("ready\n");
	await_line();
	cow_calls(n);
	check("byte written", uv_cowpad[0], 0x11);
	if (memcmp((const void *)uv_cowfn, orig, len)) {
		fprintf(stderr, "uv_cowfn differs from the file after the probe went\n");
		bad++;
	}
	printf("cow done\n");
	return bad != 0;
}

/* ---- signals while stepping ---- */

#define LOOP_CHUNK	100
#define LOOP_IN_HANDLER	7
#define SIGNALS_WANTED	10

/* Counted by the handler; read with atomics, as the handler interrupts. */
static int alarms, kicks, handler_calls, handler_bad;
static pid_t main_tid;

static int get(int *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static void bump(int *v)
{
	__atomic_store_n(v, *v + 1, __ATOMIC_RELAXED);
}

static void on_signal(int sig)
{
	bump(sig == SIGALRM ? &alarms : &kicks);
	if (uv_loop(opaque(LOOP_IN_HANDLER)) != loop_want(LOOP_IN_HANDLER))
		bump(&handler_bad);
	bump(&handler_calls);
}

static void *kicker(void *arg)
{
	(void)arg;
	while (!stopping()) {
		syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
		usleep(300);
	}
	return NULL;
}

/*
 * sigstep: loop through uv_loop while a timer and a second thread send
 * signals, whose handler runs uv_loop too, until both kinds of signal
 * arrived SIGNALS_WANTED times; prints how often each probed loop
 * instruction ran.
 */
static int cmd_sigstep(int unused1, int unused2)
{
	struct itimerval tv = { { 0, 2000 }, { 0, 2000 } };
	struct sigaction sa;
	uint64_t calls = 0, hits;
	pthread_t kick;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	main_tid = syscall(SYS_gettid);
	if (pthread_create(&kick, NULL, kicker, NULL))
		return 1;
	setitimer(ITIMER_REAL, &tv, NULL);
	while ((get(&alarms) < SIGNALS_WANTED || get(&kicks) < SIGNALS_WANTED) &&
	       calls < 1000000) {
		check("uv_loop", uv_loop(opaque(LOOP_CHUNK)), loop_want(LOOP_CHUNK));
		calls++;
	}
	__atomic_store_n(&stop_now, 1, __ATOMIC_RELAXED);
	pthread_join(kick, NULL);
	memset(&tv, 0, sizeof(tv));
	setitimer(ITIMER_REAL, &tv, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, NULL);
	if (alarms < SIGNALS_WANTED || kicks < SIGNALS_WANTED) {
		fprintf(stderr, "only %d timer and %d thread signals arrived\n",
			alarms, kicks);
		return 1;
	}
	if (handler_bad) {
		fprintf(stderr, "uv_loop went wrong %d times in the handler\n",
			handler_bad);
		return 1;
	}
	hits = calls * LOOP_CHUNK + (uint64_t)handler_calls * LOOP_IN_HANDLER;
	printf("hits=%llu\n", (unsigned long long)hits);
	return bad != 0;
}

/* ---- seccomp ---- */

static void say(const char *s)
{
	ssize_t len = strlen(s);

	if (write(1, s, len) != len)
		_exit(3);
}

#if defined(__x86_64__)
#define MY_AUDIT_ARCH	AUDIT_ARCH_X86_64
#else
#define MY_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#endif

/*
 * seccomp N: under a filter that kills the process on anything but
 * write, exit, exit_group and rt_sigreturn, N calls of uv_work (the
 * script puts a return probe on it).  seccomp-strict N: the same in
 * strict mode.  Nothing but write(2) may be used after that.
 */
static int run_seccomp(int n, int strict)
{
	static const unsigned int allowed[] = {
		__NR_write, __NR_exit, __NR_exit_group, __NR_rt_sigreturn,
	};
	struct sock_filter filter[4 + 2 * ARRAY_SIZE(allowed) + 1] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MY_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};
	unsigned int i, at = 4;
	char line[64];
	uint64_t sum;
	int rc;

	/* For each allowed call: if nr matches, allow; else on to the next. */
	for (i = 0; i < ARRAY_SIZE(allowed); i++) {
		struct sock_filter test = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						   allowed[i], 0, 1);
		struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K,
						    SECCOMP_RET_ALLOW);

		filter[at++] = test;
		filter[at++] = allow;
	}
	filter[at] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						  SECCOMP_RET_KILL_PROCESS);

	fflush(stdout);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("PR_SET_NO_NEW_PRIVS");
		return 1;
	}
	if (strict)
		rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
	else
		rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	if (rc) {
		printf("SKIP: no seccomp: %s\n", strerror(errno));
		return 4;
	}
	sum = run_work(n, 0);
	snprintf(line, sizeof(line), "sum=%llu\n", (unsigned long long)sum);
	say(line);
	if (bad)
		say("wrong results under seccomp\n");
	/* exit_group is not among the strict mode's syscalls. */
	syscall(__NR_exit, bad ? 1 : 0);
	return 1;
}

static int cmd_seccomp(int n, int unused)
{
	return run_seccomp(n, 0);
}

static int cmd_strict(int n, int unused)
{
	return run_seccomp(n, 1);
}

/*
 * sema: for every line on stdin, call uv_sdt when the semaphore is set
 * and answer with the semaphore's value.
 */
static int cmd_sema(int unused1, int unused2)
{
	uint64_t i = 0;

	while (await_line()) {
		unsigned short v = __atomic_load_n(&uv_sdt_state.sema, __ATOMIC_RELAXED);

		if (v) {
			check("uv_sdt", uv_sdt(opaque(i)), i + 1);
			i++;
		}
		tell("%u\n", v);
	}
	printf("sdt calls=%llu\n", (unsigned long long)i);
	return bad != 0;
}

/*
 * longjmp R: R rounds of uv_f1(0), which calls uv_f2(0), which longjmps
 * back here, then uv_f1(r + 1), which returns normally.  The round lives
 * outside this frame, which setjmp does not preserve.
 */
static int round_nr;

static int cmd_longjmp(int rounds, int unused)
{
	for (round_nr = 0; round_nr < rounds; round_nr++) {
		uint64_t r = round_nr;

		if (!setjmp(jump_back)) {
			uv_f1(opaque(0));
			fprintf(stderr, "uv_f2 returned instead of jumping\n");
			return 1;
		}
		r = round_nr;
		check("uv_f1", uv_f1(opaque(r + 1)), (r + 1 + 100) * 2 + 1);
	}
	printf("longjmp rounds=%d\n", rounds);
	return bad != 0;
}

/* recurse D1 D2: uv_rec(D1), D1 frames deep, then uv_rec(D2). */
static int cmd_recurse(int d1, int d2)
{
	uint64_t d[2] = { d1, d2 };
	int i;

	for (i = 0; i < 2; i++)
		check("uv_rec", uv_rec(opaque(d[i])), d[i] * (d[i] + 1) / 2);
	printf("recursion done\n");
	return bad != 0;
}

/* maps: one call of uv_work, then whether a [uprobes] mapping exists. */
static int cmd_maps(int unused1, int unused2)
{
	FILE *f;
	char line[512];
	int found = 0;

	check("uv_work", uv_work(opaque(2)), work_want(2));
	f = fopen("/proc/self/maps", "r");
	if (!f) {
		perror("/proc/self/maps");
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[uprobes]"))
			found++;
	fclose(f);
	printf("uprobes_vma=%d\n", found);
	return bad != 0;
}

/* ---- a breakpoint of the program's own in execute-only memory ---- */

/* Bumped by the handler, which interrupts the caller: atomics. */
static int traps;

/* SIGTRAP to @fn, with its siginfo. */
static void catch_sigtrap(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
}

static void on_trap(int sig, siginfo_t *si, void *uc_void)
{
	ucontext_t *uc = uc_void;

	(void)sig;
	(void)si;
	bump(&traps);
#ifdef __aarch64__
	/* BRK leaves the PC on itself; x86's int3 on the next byte. */
	uc->uc_mcontext.pc += 4;
#else
	(void)uc;
#endif
}

/*
 * xom: n calls of a function that is the uprobes breakpoint instruction
 * and a return, in an anonymous page made execute-only, in a process
 * with a probe armed (the script's, on uv_work).  The breakpoint is no
 * probe's, so each call must end in a SIGTRAP, which the handler steps
 * over; prints how many arrived.  Exits 4 where PROT_EXEC alone still
 * leaves the page readable (no PKU on x86-64, no EPAN on arm64).
 */
static int cmd_xom(int n, int unused)
{
#if defined(__x86_64__)
	static const uint8_t code[] = { 0xcc, 0xc3 };		/* int3; ret */
#elif defined(__aarch64__)
	static const uint32_t code[] = { 0xd42000a0, 0xd65f03c0 }; /* brk #5; ret */
#endif
	long psz = sysconf(_SC_PAGESIZE);
	void (*fn)(void);
	int fds[2], i;
	char *page;

	(void)unused;
	check("uv_work", uv_work(opaque(3)), work_want(3));
	page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(page, code, sizeof(code));
	__builtin___clear_cache(page, page + sizeof(code));
	if (mprotect(page, psz, PROT_EXEC)) {
		perror("mprotect");
		return 1;
	}
	/* The kernel reading the page for us tells whether it can. */
	if (pipe(fds)) {
		perror("pipe");
		return 1;
	}
	if (write(fds[1], page, 1) != -1 || errno != EFAULT) {
		printf("PROT_EXEC leaves memory readable here\n");
		return 4;
	}
	catch_sigtrap(on_trap);
	fn = (void (*)(void))page;
	for (i = 0; i < n; i++)
		fn();
	printf("traps=%d\n", get(&traps));
	return bad != 0;
}

/* ---- probes on a 5-byte nop ---- */

/* The start and end of the [uprobes-stubs] mapping; 0 when there is none. */
static int stub_range(unsigned long *lo, unsigned long *hi)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	*lo = *hi = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (strstr(line, "[uprobes-stubs]") &&
		    sscanf(line, "%lx-%lx", &a, &b) == 2) {
			/* Several pages are one range enough for the test. */
			if (!found || a < *lo)
				*lo = a;
			if (b > *hi)
				*hi = b;
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void print_site(const char *when)
{
	unsigned long lo, hi;

	const unsigned char *site = work_site();
	unsigned char first;

	/* The text as it is now: another process may just have changed it. */
	__asm__ volatile("" : : : "memory");
	first = *site;
	printf("%sfirst=%02x stubs=%s\n", when, first,
	       stub_range(&lo, &hi) ? "yes" : "no");
}

/*
 * nop5 N [H]: N calls of the work function (UV_WORK), then its probed
 * nop's first byte as this process sees it (0f: the nop, cc: a
 * breakpoint, e9: a jump) and whether a stub page is mapped.  With H
 * not 0, then "ready" and, once stdin closes, N more calls and the same
 * line again, prefixed "after ".
 */
static int cmd_nop5(int n, int hold)
{
	run_work(n, 0);
	print_site("");
	if (!hold)
		return bad != 0;
	fflush(stdout);
	tell("ready\n");
	while (await_line())
		;
	run_work(n, 0);
	print_site("after ");
	return bad != 0;
}

static unsigned long stub_lo, stub_hi;
static int stub_steps, step_calls;

/*
 * Every instruction traps while the trap flag is set: count those that
 * stopped inside a stub, and from there run the probed function again,
 * a hit of its own from a signal handler that interrupted a stub.
 */
static void on_step(int sig, siginfo_t *si, void *uc_void)
{
#if defined(__x86_64__)
	ucontext_t *uc = uc_void;
	unsigned long ip = uc->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)si;
	if (ip < stub_lo || ip >= stub_hi)
		return;
	bump(&stub_steps);
	if (work_fn(opaque(stub_steps)) != work_want(stub_steps))
		bad++;
	bump(&step_calls);
#else
	(void)sig;
	(void)si;
	(void)uc_void;
#endif
}

static void trap_flag(int on)
{
#if defined(__x86_64__)
	unsigned long f;

	__asm__ volatile("pushf\n\tpop %0" : "=r"(f));
	f = on ? f | 0x100 : f & ~0x100UL;
	__asm__ volatile("push %0\n\tpopf" : : "r"(f) : "cc", "memory");
#else
	(void)on;
#endif
}

/*
 * The start of the stub commands (x86_64): one call of the work function,
 * after which its nop jumps; the stub page's range; @handler on SIGTRAP.
 * Return: 0, or the command's exit status (4: a skip elsewhere).
 */
static int start_stub_test(void (*handler)(int, siginfo_t *, void *))
{
#if !defined(__x86_64__)
	printf("SKIP: the stubs are x86_64's\n");
	return 4;
#endif
	check("work", work_fn(opaque(1)), work_want(1));
	if (!stub_range(&stub_lo, &stub_hi)) {
		printf("no stub page after the first hit\n");
		return 1;
	}
	catch_sigtrap(handler);
	return 0;
}

/*
 * tfstep N: one call of the work function (its nop jumps afterwards),
 * then N calls under the trap flag, a SIGTRAP after every instruction,
 * those inside the stub included; prints how many stopped there and how
 * many calls the handler made.  x86_64 only.
 */
static int cmd_tfstep(int n, int unused)
{
	uint64_t r;
	int i, ret = start_stub_test(on_step);

	(void)unused;
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		trap_flag(1);
		r = work_fn(opaque(i));
		trap_flag(0);
		check("work under the trap flag", r, work_want(i));
	}
	printf("stub_steps=%d step_calls=%d\n", get(&stub_steps), get(&step_calls));
	return bad != 0;
}

static int held_in_stub;

/*
 * Under the trap flag, at the stub's syscall (0f 05): stop stepping,
 * say "instub" on descriptor 3 and wait there, not yet in the kernel,
 * until the script has changed the probe and sends a line.
 */
static void on_stub_syscall(int sig, siginfo_t *si, void *uc_void)
{
#if defined(__x86_64__)
	ucontext_t *uc = uc_void;
	unsigned long ip = uc->uc_mcontext.gregs[REG_RIP];
	const unsigned char *insn = (const unsigned char *)ip;

	(void)sig;
	(void)si;
	if (ip < stub_lo || ip + 2 > stub_hi || insn[0] != 0x0f || insn[1] != 0x05)
		return;
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100L;
	bump(&held_in_stub);
	if (write(3, "instub\n", 7) != 7)
		bad++;
	await_line();
#else
	(void)sig;
	(void)si;
	(void)uc_void;
#endif
}

/*
 * stubhold: one call of the work function (its nop jumps afterwards),
 * then one under the trap flag, held at the stub's syscall while the
 * script takes the probe away or replaces it; then the site's first
 * byte as print_site() gives it.  x86_64 only.
 */
static int cmd_stubhold(int unused_a, int unused_b)
{
	int ret = start_stub_test(on_stub_syscall);
	uint64_t r;

	(void)unused_a;
	(void)unused_b;
	if (ret)
		return ret;
	trap_flag(1);
	r = work_fn(opaque(2));
	trap_flag(0);
	check("work held in the stub", r, work_want(2));
	printf("held=%d ", get(&held_in_stub));
	print_site("");
	return bad != 0;
}

/* The subcommands, with the defaults of their (up to two) numbers. */
static const struct {
	const char *name;
	int (*run)(int a, int b);
	int a, b;
} cmds[] = {
	{ "points", cmd_points, 0, 0 },
	{ "work", cmd_work, 10, 0 },
	{ "values", cmd_values, 5, 1 },
	{ "threads", cmd_threads, 4, 100 },
	{ "churn", cmd_churn, 2, 0 },
	{ "fork", cmd_fork, 10, 0 },
	{ "forkhold", cmd_forkhold, 10, 0 },
	{ "exec", cmd_exec, 2, 10 },
	{ "alias", cmd_alias, 10, 0 },
	{ "remap", cmd_remap, 10, 0 },
	{ "cow", cmd_cow, 10, 0 },
	{ "sigstep", cmd_sigstep, 0, 0 },
	{ "seccomp", cmd_seccomp, 10, 0 },
	{ "seccomp-strict", cmd_strict, 10, 0 },
	{ "sema", cmd_sema, 0, 0 },
	{ "longjmp", cmd_longjmp, 10, 0 },
	{ "recurse", cmd_recurse, 100, 10 },
	{ "maps", cmd_maps, 0, 0 },
	{ "xom", cmd_xom, 5, 0 },
	{ "nop5", cmd_nop5, 10, 0 },
	{ "tfstep", cmd_tfstep, 20, 0 },
	{ "stubhold", cmd_stubhold, 0, 0 },
};

int main(int argc, char **argv)
{
	unsigned int i;
	int rc;

	pick_work_fn();
	for (i = 0; argc > 1 && i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		rc = cmds[i].run(argc > 2 ? atoi(argv[2]) : cmds[i].a,
				 argc > 3 ? atoi(argv[3]) : cmds[i].b);
		return rc ? rc : bad != 0;
	}
	fprintf(stderr, "usage: %s SUBCOMMAND [N [M]], SUBCOMMAND one of:",
		argv[0]);
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(stderr, " %s", cmds[i].name);
	fprintf(stderr, "\n");
	return 2;
}
