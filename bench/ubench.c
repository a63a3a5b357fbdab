// SPDX-License-Identifier: GPL-2.0
/*
 * The uprobe benchmark's user side (scripts/guest/bench.sh runs it):
 *
 *   ubench offsets           file offsets of the probe points
 *   ubench loop FN N         call FN (entry|step|nop5) N times; print the time
 *                            per call in ns (instructions under -icount)
 *   ubench threads FN N T    T threads call FN N times each, started
 *                            together; print the wall time of the whole
 *                            run per call of one thread, in ns (T threads
 *                            that never wait for each other print what
 *                            one thread does)
 *   ubench wait [N]          block until stdin closes (a process that
 *                            maps this file while probes come and go),
 *                            then call bench_entry N times (default 0)
 *   ubench timed-write F S   write S to file F; print how long it took (ns)
 *
 * The probed functions are written in assembly so both kernels see the
 * same instructions: bench_entry begins with the usual frame setup (the
 * entry probe and the return probe go there), bench_step with an add,
 * which upstream runs out of line on both arches (ours too on x86_64;
 * on arm64 ours carries it out at the trap), bench_nop5 with the 5-byte
 * nop of USDT probes (on arm64 just a nop), which ours on x86_64 enters
 * by a jump instead of the trap.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int bench_entry(int x);
int bench_step(int x);
int bench_nop5(int x);

#if defined(__x86_64__)
asm(".text\n"
    ".globl bench_entry\n.type bench_entry,@function\nbench_entry:\n"
    "	push %rbp\n	mov %rsp,%rbp\n	lea 1(%rdi),%eax\n	pop %rbp\n	ret\n"
    ".globl bench_step\n.type bench_step,@function\nbench_step:\n"
    "	lea 1(%rdi),%eax\n	ret\n"
    ".globl bench_nop5\n.type bench_nop5,@function\nbench_nop5:\n"
    "	.byte 0x0f,0x1f,0x44,0x00,0x00\n	lea 1(%rdi),%eax\n	ret\n");
#elif defined(__aarch64__)
asm(".text\n"
    ".globl bench_entry\n.type bench_entry,%function\nbench_entry:\n"
    "	stp x29, x30, [sp, #-16]!\n	mov x29, sp\n	add w0, w0, #1\n"
    "	ldp x29, x30, [sp], #16\n	ret\n"
    ".globl bench_step\n.type bench_step,%function\nbench_step:\n"
    "	add w0, w0, #1\n	ret\n"
    ".globl bench_nop5\n.type bench_nop5,%function\nbench_nop5:\n"
    "	nop\n	add w0, w0, #1\n	ret\n");
#else
#error "x86_64 and arm64 only"
#endif

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The file offset of @addr, from the mapping /proc/self/maps shows. */
static unsigned long file_offset(void *addr)
{
	unsigned long a = (unsigned long)addr, start, end, off;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms, &off) == 4 &&
		    a >= start && a < end) {
			fclose(f);
			return a - start + off;
		}
	}
	fprintf(stderr, "ubench: %p not mapped\n", addr);
	exit(1);
}

struct caller {
	int (*fn)(int);
	long n;
	int result;
};

static pthread_barrier_t start_line;

static void *call_n(void *arg)
{
	struct caller *c = arg;
	volatile int sink = 0;
	long i;

	pthread_barrier_wait(&start_line);
	for (i = 0; i < c->n; i++)
		sink = c->fn(sink);
	c->result = sink;
	return NULL;
}

/* "threads FN N T": see the comment at the top. */
static int run_threads(int (*fn)(int), long n, int nr)
{
	struct caller c[64];
	pthread_t tid[64];
	long long t0, t1;
	int i, bad = 0;

	if (nr < 1 || nr > 64)
		return 1;
	pthread_barrier_init(&start_line, NULL, nr + 1);
	for (i = 0; i < nr; i++) {
		c[i] = (struct caller){ .fn = fn, .n = n };
		if (pthread_create(&tid[i], NULL, call_n, &c[i]))
			return 1;
	}
	pthread_barrier_wait(&start_line);
	t0 = now_ns();
	for (i = 0; i < nr; i++) {
		pthread_join(tid[i], NULL);
		bad |= c[i].result != n;
	}
	t1 = now_ns();
	if (bad)
		return 2;	/* a probe changed a result */
	printf("%lld\n", (t1 - t0) / n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "threads"))
		return run_threads(strcmp(argv[2], "step") ? bench_entry : bench_step,
				   atol(argv[3]), atoi(argv[4]));
	if (argc == 2 && !strcmp(argv[1], "offsets")) {
		printf("entry %#lx\nstep %#lx\nnop5 %#lx\n",
		       file_offset((void *)bench_entry),
		       file_offset((void *)bench_step),
		       file_offset((void *)bench_nop5));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "loop")) {
		int (*fn)(int) = !strcmp(argv[2], "step") ? bench_step :
				 !strcmp(argv[2], "nop5") ? bench_nop5 : bench_entry;
		long i, n = atol(argv[3]);
		volatile int sink = 0;
		long long t0, t1;

		t0 = now_ns();
		for (i = 0; i < n; i++)
			sink = fn(sink);
		t1 = now_ns();
		if (sink != n)
			return 2;	/* a probe changed the result */
		printf("%lld\n", (t1 - t0) / n);
		return 0;
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "wait")) {
		long i, n = argc == 3 ? atol(argv[2]) : 0;
		volatile int sink = 0;
		char c;

		while (read(0, &c, 1) > 0)
			;
		for (i = 0; i < n; i++)
			sink = bench_entry(sink);
		return sink == n ? 0 : 2;
	}
	if (argc == 4 && !strcmp(argv[1], "timed-write")) {
		int fd = open(argv[2], O_WRONLY);
		long long t0, t1;
		ssize_t r;

		if (fd < 0)
			return 1;
		t0 = now_ns();
		r = write(fd, argv[3], strlen(argv[3]));
		t1 = now_ns();
		close(fd);
		if (r < 0)
			return 1;
		printf("%lld\n", t1 - t0);
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top of ubench.c\n");
	return 1;
}
