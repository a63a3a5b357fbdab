// SPDX-License-Identifier: GPL-2.0
/*
 * Target for uprobe_pid.sh.  "uprobe_pid_target serve" prints the
 * addresses of work() and dead(), then runs one command per line of
 * stdin, answering each with one line on stdout:
 *   call N         call work() N times; print the sum of what it returned
 *   threads T N    T new threads call work() N times each; print the sum
 *   fork N         a child calls work() N times; print its exit status
 *   poke           put a breakpoint of our own at dead(); print "poked"
 *   anon           print the kB of private copies in our text mapping
 *   exec N         exec "uprobe_pid_target call N" (which prints the sum)
 *   reexec         exec "uprobe_pid_target serve" (which prints addresses)
 *   forkloop N     fork N children one after the other; each calls work()
 *                  and then looks at its first bytes; print how many
 *                  children still had a breakpoint there, or got a
 *                  wrong result (each one is described on stderr)
 *   nop5           print the address of work5()
 *   call5 N        call work5() N times; print the sum
 *   site5          print work5()'s first byte in hex
 * "uprobe_pid_target call N" calls work() N times, prints the sum and
 * the kB of private copies in its text, and exits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

long work(long x)
{
	asm volatile("" : "+r"(x));
	return x * 3 + 1;
}

/*
 * work5() computes what work() does behind the 5-byte nop that USDT
 * probes sit on (x86_64; elsewhere it is work() again).
 */
#if defined(__x86_64__)
long work5(long x);
asm(".text\n"
	".balign 16\n"
	"	nop\n"
	".globl work5\n"
	".type work5, @function\n"
	"work5:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	lea 1(%rdi,%rdi,2), %rax\n"
	"	ret\n"
	".size work5, . - work5\n");
#else
#define work5 work
#endif

long dead(long x)
{
	asm volatile("" : "+r"(x));
	return x - 1;
}

static long calls_of(long (*fn)(long), long n)
{
	long i, sum = 0;

	/* Through a pointer the compiler cannot see through: never inlined. */
	asm("" : "+r"(fn));
	for (i = 0; i < n; i++)
		sum += fn(i);
	return sum;
}

static long calls(long n)
{
	return calls_of(work, n);
}

static void *thread_fn(void *arg)
{
	return (void *)calls((long)arg);
}

/* kB of the text mapping that are private copies (a breakpoint's). */
static long text_anon_kb(void)
{
	unsigned long a = (unsigned long)work, start, end;
	char line[256];
	long kb = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, ' ') &&
		    line[strspn(line, "0123456789abcdef")] == '-')
			in = a >= start && a < end;
		else if (in && sscanf(line, "Anonymous: %ld kB", &kb) == 1)
			break;
	}
	if (f)
		fclose(f);
	return kb;
}

/* work()'s first bytes before anything probed it. */
static unsigned int work_orig;

static int work_changed(void)
{
	unsigned int now;

	memcpy(&now, (void *)work, sizeof(now));
	return now != work_orig;
}

/*
 * A forked child of forkloop: what it found, as bits of its exit status,
 * so that a failure says how the child went wrong.
 */
enum {
	CHILD_BP_BEFORE	= 1,	/* a breakpoint at work() before calling it */
	CHILD_WRONG	= 2,	/* work() returned a wrong value */
	CHILD_BP_AFTER	= 4,	/* a breakpoint at work() after the calls */
};

static int fork_child(void)
{
	int ret = work_changed() ? CHILD_BP_BEFORE : 0;

	if (calls(2) != 5)
		ret |= CHILD_WRONG;
	if (work_changed())
		ret |= CHILD_BP_AFTER;
	return ret;
}

static long fork_loop(long n)
{
	long i, bad = 0;
	int status;

	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (!p)
			_exit(fork_child());
		if (p < 0 || waitpid(p, &status, 0) != p) {
			fprintf(stderr, "forkloop: child %ld: fork or wait failed\n", i);
			bad++;
		} else if (WIFSIGNALED(status)) {
			fprintf(stderr, "forkloop: child %ld (pid %d): killed by signal %d\n",
				i, p, WTERMSIG(status));
			bad++;
		} else if (WEXITSTATUS(status)) {
			status = WEXITSTATUS(status);
			fprintf(stderr, "forkloop: child %ld (pid %d):%s%s%s\n", i, p,
				status & CHILD_BP_BEFORE ? " breakpoint before the calls" : "",
				status & CHILD_WRONG ? " wrong result" : "",
				status & CHILD_BP_AFTER ? " breakpoint after the calls" : "");
			bad++;
		}
	}
	return bad;
}

static void poke(void)
{
	unsigned long page = (unsigned long)dead & ~(getpagesize() - 1UL);
#ifdef __aarch64__
	unsigned int bp = 0xd4200000;	/* brk #0 */
#else
	unsigned char bp = 0xcc;	/* int3 */
#endif
	long (*fn)(long) = dead;

	/* dead() never runs: writing over it is safe. */
	asm("" : "+r"(fn));
	mprotect((void *)page, getpagesize(), PROT_READ | PROT_WRITE | PROT_EXEC);
	memcpy((void *)fn, &bp, sizeof(bp));
	mprotect((void *)page, getpagesize(), PROT_READ | PROT_EXEC);
	__builtin___clear_cache((char *)fn, (char *)fn + sizeof(bp));
}

int main(int argc, char **argv)
{
	char line[128], self[64];
	long a, b;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "call")) {
		printf("%ld %ld\n", calls(atol(argv[2])), text_anon_kb());
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "serve"))
		return 1;
	memcpy(&work_orig, (void *)work, sizeof(work_orig));
	printf("%#lx %#lx\n", (unsigned long)work, (unsigned long)dead);
	while (fgets(line, sizeof(line), stdin)) {
		/* Before "call N", which "call5 N" would match too. */
		if (sscanf(line, "call5 %ld", &a) == 1) {
			printf("%ld\n", calls_of(work5, a));
		} else if (sscanf(line, "call %ld", &a) == 1) {
			printf("%ld\n", calls(a));
		} else if (sscanf(line, "threads %ld %ld", &a, &b) == 2) {
			pthread_t t[16];
			long i, sum = 0;
			void *r;

			for (i = 0; i < a && i < 16; i++)
				pthread_create(&t[i], NULL, thread_fn, (void *)b);
			for (i = 0; i < a && i < 16; i++) {
				pthread_join(t[i], &r);
				sum += (long)r;
			}
			printf("%ld\n", sum);
		} else if (sscanf(line, "fork %ld", &a) == 1) {
			int status;
			pid_t p = fork();

			if (!p)
				_exit(calls(a) == a * (3 * a - 1) / 2 ? 0 : 3);
			waitpid(p, &status, 0);
			printf("%d\n", status);
		} else if (!strncmp(line, "poke", 4)) {
			poke();
			printf("poked\n");
		} else if (!strncmp(line, "nop5", 4)) {
			printf("%#lx\n", (unsigned long)work5);
		} else if (!strncmp(line, "site5", 5)) {
			unsigned char first;

			memcpy(&first, (void *)work5, sizeof(first));
			printf("%02x\n", first);
		} else if (!strncmp(line, "anon", 4)) {
			printf("%ld\n", text_anon_kb());
		} else if (sscanf(line, "forkloop %ld", &a) == 1) {
			printf("%ld\n", fork_loop(a));
		} else if (!strncmp(line, "reexec", 6)) {
			execl("/proc/self/exe", argv[0], "serve", NULL);
			return 2;
		} else if (sscanf(line, "exec %ld", &a) == 1) {
			snprintf(self, sizeof(self), "%ld", a);
			execl("/proc/self/exe", argv[0], "call", self, NULL);
			return 2;
		}
	}
	return 0;
}
