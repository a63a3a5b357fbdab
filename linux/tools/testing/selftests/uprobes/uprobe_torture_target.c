// SPDX-License-Identifier: GPL-2.0
/*
 * Target for uprobe_torture.sh: a busy program whose functions the
 * uprobetorture module probes and unprobes while it runs.
 *
 *   uprobe_torture_target [--threads T] [--stop-file F] [--seconds S]
 *
 * T threads (3 by default) call NFUNC probed functions of different
 * shapes in a loop, each with a pseudo-random argument, and check every
 * result against a computation of their own.  Around each call of
 * function f a thread bumps counters.begun[f] before and
 * counters.finished[f] after, atomically: that is what the module reads
 * (from outside, at any moment) to know how many calls a probe must
 * have seen and how many it can have seen.
 *
 * About every 200 ms one of the threads forks.  The child makes a few
 * thousand checked calls itself and then either exits or execs this
 * program as "uprobe_torture_target --child N", which makes N checked
 * calls and exits.  Both inherit or map the probed text, so they trap
 * too; the module must not count them, and they must not be hurt: a
 * child that ends with a non-zero status or by a signal (SIGTRAP,
 * SIGSEGV, SIGILL: a uprobe gone wrong) is a failure.
 *
 * The first line on stdout is
 *   ready pid=P counters=0xADDR offsets=0xO0,0xO1,... addrs=0xA0,0xA1,...
 * with the file offsets and the addresses of the probed functions, in
 * counter order.  After the counters comes the pid of the latest child
 * forked, for probes on the children themselves.  The
 * program runs until F exists or S seconds passed, then prints
 *   calls=N wrong=N children=N child_failures=N
 * and exits 0 only when nothing went wrong.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NFUNC		4
#define MAX_THREADS	64
#define FORK_EVERY_MS	200
#define CHILD_CALLS	3000

/* The kernel's names for the attributes; userspace has no compiler.h. */
#define __attr(x)	__attribute__((x))
#define noinline	__attr(noinline)
#define __used		__attr(used)
#define __noreturn	__attr(noreturn)
#define __aligned(a)	__attr(aligned(a))

/*
 * The probed functions must stay real, out-of-line functions that are
 * entered through their symbol: no inlining, no specialised clones a
 * caller would jump to instead.  Each is "noinline __noipa __used".
 */
#if defined(__clang__)
#define __noipa
#else
#define __noipa		__attr(noipa)
#endif

/*
 * What the module reads.  Aligned so that it never straddles a page:
 * each read of it then needs one page only.
 */
struct ut_counters {
	uint64_t begun[NFUNC];
	uint64_t finished[NFUNC];
	uint64_t last_child;	/* the pid of the latest forked child */
} __aligned(64);

static struct ut_counters counters;

static int stop;
static int fork_due;
static uint64_t total_calls, total_wrong, total_children, child_failures;
static char exe_path[PATH_MAX];

static inline void count_begin(int f)
{
	__atomic_fetch_add(&counters.begun[f], 1, __ATOMIC_SEQ_CST);
}

static inline void count_end(int f)
{
	__atomic_fetch_add(&counters.finished[f], 1, __ATOMIC_SEQ_CST);
}

/* Function 0: a leaf with no stack frame. */
noinline __noipa __used uint64_t ut_leaf(uint64_t x)
{
	return (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + 7;
}

/* Function 1: a stack frame holding an array, and a loop over it. */
noinline __noipa __used uint64_t ut_frame(uint64_t x, unsigned int n)
{
	/* Atomic accesses: the array must really live in the frame. */
	uint64_t buf[16];
	uint64_t acc = x;
	unsigned int i;

	for (i = 0; i < 16; i++)
		__atomic_store_n(&buf[i], x + 3 * i, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		acc = acc * 31 + __atomic_load_n(&buf[(acc + i) & 15], __ATOMIC_RELAXED);
	return acc;
}

/*
 * Function 2: calls function 0 (counted like any other call of it) and
 * still has work to do after it returns, so the call is no tail call:
 * both return probes are pending at once.
 */
noinline __noipa __used uint64_t ut_caller(uint64_t x)
{
	uint64_t r;

	count_begin(0);
	r = ut_leaf(x + 1);
	count_end(0);
	return r ^ (x << 3);
}

/*
 * Function 3: ut_leaf's result behind the 5-byte nop USDT probes sit on
 * (x86_64), which our kernel enters by a jump to a stub once a probe
 * there has trapped; elsewhere a plain leaf again.  Not aligned to 16,
 * as a nop in the middle of a function would not be.
 */
uint64_t ut_nop5(uint64_t x);
#if defined(__x86_64__)
asm(".text\n"
	".balign 16\n"
	"	nop\n"
	".globl ut_nop5\n"
	".type ut_nop5, @function\n"
	"ut_nop5:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	mov %rdi, %rax\n"
	"	shr $29, %rax\n"
	"	xor %rdi, %rax\n"
	"	movabs $0xbf58476d1ce4e5b9, %rdx\n"
	"	imul %rdx, %rax\n"
	"	add $7, %rax\n"
	"	ret\n"
	".size ut_nop5, . - ut_nop5\n");
#else
noinline __noipa __used uint64_t ut_nop5(uint64_t x)
{
	return (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + 7;
}
#endif

/* The same results, computed without the probed code. */
static uint64_t want_leaf(uint64_t x)
{
	uint64_t m = x ^ (x >> 29);

	return m * 0xbf58476d1ce4e5b9ull + 7;
}

static uint64_t want_frame(uint64_t x, unsigned int n)
{
	uint64_t acc = x;
	unsigned int i;

	for (i = 0; i < n; i++)
		acc = acc * 31 + x + 3 * ((acc + i) & 15);
	return acc;
}

static uint64_t want_caller(uint64_t x)
{
	return want_leaf(x + 1) ^ (x << 3);
}

static uint64_t next_rand(uint64_t *s)
{
	/* xorshift64: cheap, and different in every thread and child. */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One counted call of a random function; 1 when its result is wrong. */
static int one_call(uint64_t *rnd)
{
	uint64_t r = next_rand(rnd), x = next_rand(rnd), got, want;
	int f = r % NFUNC;
	unsigned int n = (r >> 8) % 24;

	count_begin(f);
	switch (f) {
	case 0:
		got = ut_leaf(x);
		break;
	case 1:
		got = ut_frame(x, n);
		break;
	case 2:
		got = ut_caller(x);
		break;
	default:
		got = ut_nop5(x);
		break;
	}
	count_end(f);
	switch (f) {
	case 0:
		want = want_leaf(x);
		break;
	case 1:
		want = want_frame(x, n);
		break;
	case 2:
		want = want_caller(x);
		break;
	default:
		want = want_leaf(x);
		break;
	}
	return got != want;
}

static unsigned long run_calls(uint64_t *rnd, unsigned long n)
{
	unsigned long wrong = 0, i;

	for (i = 0; i < n; i++)
		wrong += one_call(rnd);
	return wrong;
}

/* "--child N": what an exec'ed child does. */
static int child_mode(const char *arg)
{
	uint64_t rnd = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull | 1;
	unsigned long n = strtoul(arg, NULL, 0);
	unsigned long wrong = run_calls(&rnd, n);

	if (wrong)
		fprintf(stderr, "exec'ed child %d: %lu wrong results\n",
			(int)getpid(), wrong);
	return wrong ? 1 : 0;
}

/*
 * In a forked child of a threaded program: no stdio, no allocation,
 * only calls and then _exit() or execv().
 */
static void __noreturn forked_child(uint64_t seed)
{
	uint64_t rnd = seed | 1;
	unsigned long wrong = run_calls(&rnd, CHILD_CALLS / 2 +
					next_rand(&rnd) % CHILD_CALLS);
	char num[24], *p = num + sizeof(num) - 1;
	unsigned long n = 500 + next_rand(&rnd) % 2000;
	char *argv[4];

	if (wrong)
		_exit(1);
	if (next_rand(&rnd) & 1)
		_exit(0);
	*p = '\0';
	do {
		*--p = '0' + n % 10;
		n /= 10;
	} while (n);
	argv[0] = exe_path;
	argv[1] = "--child";
	argv[2] = p;
	argv[3] = NULL;
	execv(exe_path, argv);
	_exit(3);
}

static void spawn_child(uint64_t *rnd)
{
	uint64_t seed = next_rand(rnd);
	pid_t p = fork();

	if (p == 0)
		forked_child(seed);
	if (p < 0) {
		fprintf(stderr, "fork: %s\n", strerror(errno));
		__atomic_fetch_add(&child_failures, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&total_children, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&counters.last_child, p, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	uint64_t rnd = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 0x1234567;
	unsigned long wrong;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		wrong = run_calls(&rnd, 256);
		__atomic_fetch_add(&total_calls, 256, __ATOMIC_RELAXED);
		if (wrong) {
			if (__atomic_fetch_add(&total_wrong, wrong,
					       __ATOMIC_RELAXED) < 10)
				fprintf(stderr, "thread %lu: %lu wrong results\n",
					(unsigned long)(uintptr_t)arg, wrong);
		}
		/* Whichever thread sees the request first forks. */
		if (__atomic_exchange_n(&fork_due, 0, __ATOMIC_ACQ_REL))
			spawn_child(&rnd);
	}
	return NULL;
}

/* Collect ended children; block for them when @wait_all. */
static void reap(int wait_all)
{
	int status;
	pid_t p;

	for (;;) {
		p = waitpid(-1, &status, wait_all ? 0 : WNOHANG);
		if (p <= 0) {
			if (p < 0 && errno == EINTR)
				continue;
			return;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		__atomic_fetch_add(&child_failures, 1, __ATOMIC_RELAXED);
		if (WIFSIGNALED(status))
			fprintf(stderr, "child %d killed by signal %d\n",
				(int)p, WTERMSIG(status));
		else
			fprintf(stderr, "child %d exited with status %d\n",
				(int)p, WEXITSTATUS(status));
	}
}

/* Where @addr is in the file mapped there (our own executable's text). */
static int file_offset(uintptr_t addr, unsigned long *off)
{
	unsigned long start, end, foff;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms,
			   &foff) != 4)
			continue;
		if (perms[2] != 'x' || !strchr(line, '/') ||
		    addr < start || addr >= end)
			continue;
		*off = addr - start + foff;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--threads T] [--stop-file F] [--seconds S]\n"
		"       %s --child N\n", prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const uintptr_t fns[NFUNC] = {
		(uintptr_t)ut_leaf, (uintptr_t)ut_frame, (uintptr_t)ut_caller,
		(uintptr_t)ut_nop5,
	};
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	pthread_t threads[MAX_THREADS];
	unsigned long offs[NFUNC];
	const char *stop_file = NULL;
	uint64_t next_fork, end = 0;
	long nthreads = 3, seconds = 0;
	ssize_t len;
	int i;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child_mode(argv[2]);
	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			print_usage(argv[0]);
		if (!strcmp(argv[i], "--threads"))
			nthreads = strtol(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--stop-file"))
			stop_file = argv[++i];
		else if (!strcmp(argv[i], "--seconds"))
			seconds = strtol(argv[++i], NULL, 0);
		else
			print_usage(argv[0]);
	}
	if (nthreads < 1 || nthreads > MAX_THREADS)
		print_usage(argv[0]);
	if (!stop_file && seconds <= 0)
		seconds = 30;

	/* Children exec this very file, whatever name we were run by. */
	len = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	if (len > 0)
		exe_path[len] = '\0';
	else
		snprintf(exe_path, sizeof(exe_path), "%s", argv[0]);

	for (i = 0; i < NFUNC; i++) {
		if (file_offset(fns[i], &offs[i])) {
			fprintf(stderr, "no file offset for function %d\n", i);
			return 2;
		}
	}
	printf("ready pid=%d counters=0x%lx offsets=", (int)getpid(),
	       (unsigned long)(uintptr_t)&counters);
	for (i = 0; i < NFUNC; i++)
		printf("%s0x%lx", i ? "," : "", offs[i]);
	printf(" addrs=");
	for (i = 0; i < NFUNC; i++)
		printf("%s0x%lx", i ? "," : "", (unsigned long)fns[i]);
	printf("\n");
	fflush(stdout);

	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&threads[i], NULL, worker,
				   (void *)(uintptr_t)(i + 1))) {
			fprintf(stderr, "cannot start thread %d\n", i);
			return 2;
		}
	}
	next_fork = now_ms() + FORK_EVERY_MS;
	if (seconds > 0)
		end = now_ms() + (uint64_t)seconds * 1000;
	for (;;) {
		nanosleep(&tick, NULL);
		reap(0);
		if (stop_file && !access(stop_file, F_OK))
			break;
		if (end && now_ms() >= end)
			break;
		if (now_ms() >= next_fork) {
			__atomic_store_n(&fork_due, 1, __ATOMIC_RELEASE);
			next_fork = now_ms() + FORK_EVERY_MS;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	reap(1);

	printf("calls=%llu wrong=%llu children=%llu child_failures=%llu\n",
	       (unsigned long long)total_calls,
	       (unsigned long long)total_wrong,
	       (unsigned long long)total_children,
	       (unsigned long long)child_failures);
	return total_wrong || child_failures ? 1 : 0;
}
