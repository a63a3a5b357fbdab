// SPDX-License-Identifier: GPL-2.0
/*
 * The program the client cases probe.  Each mode makes a known number of
 * calls, with known arguments and return values, and prints a checksum of
 * the results, so a case can check both what the tool saw and that the
 * program ran unchanged under it.
 *
 *   target work N        target_work(i), lib_work(i) and lib_twice(i), i = 1..N
 *   target alloc N       N times malloc(TARGET_ALLOC_SIZE), then free
 *   target usdt N        N hits of target:tick and target:tick5 (no
 *                        semaphore; tick5 on a 5-byte nop) and of
 *                        target:guarded (behind a semaphore: how many
 *                        hits found it set is printed)
 *   target threads T N   T threads, each target_work(i), i = 1..N
 */
#define _SDT_HAS_SEMAPHORES 1
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

#include "target.h"

#define TARGET_ALLOC_SIZE 12345

unsigned short target_guarded_semaphore __attribute__((section(".probes")));

/* noinline and used: the probes need a real call to each. */
__attribute__((noinline, used)) int target_work(int n)
{
	__asm__ volatile("" ::: "memory");
	return n * n + 7;
}

static long run_work(int n)
{
	long sum = 0;
	int i;

	for (i = 1; i <= n; i++)
		sum += target_work(i) + lib_work(i) + lib_twice(i);
	return sum;
}

static long run_alloc(int n)
{
	long sum = 0;
	int i;

	for (i = 1; i <= n; i++) {
		char *p = malloc(TARGET_ALLOC_SIZE);

		if (!p)
			return -1;
		p[0] = (char)i;
		sum += p[0];
		free(p);
	}
	return sum;
}

static long run_usdt(int n)
{
	long enabled = 0;
	int i;

	for (i = 1; i <= n; i++) {
		target_tick(i);
		target_tick5(i);
		if (target_guarded_semaphore) {
			enabled++;
			STAP_PROBE2(target, guarded, i, i * 2);
		}
	}
	printf("guarded-enabled %ld\n", enabled);
	return n;
}

struct thread_arg {
	int n;
	long sum;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	int i;

	for (i = 1; i <= a->n; i++)
		a->sum += target_work(i);
	return NULL;
}

static long run_threads(int t, int n)
{
	struct thread_arg args[64];
	pthread_t tids[64];
	long sum = 0;
	int i;

	if (t < 1 || t > 64)
		return -1;
	for (i = 0; i < t; i++) {
		args[i] = (struct thread_arg){ .n = n };
		if (pthread_create(&tids[i], NULL, thread_main, &args[i]))
			return -1;
	}
	for (i = 0; i < t; i++) {
		pthread_join(tids[i], NULL);
		sum += args[i].sum;
	}
	return sum;
}

int main(int argc, char **argv)
{
	long sum;

	if (argc == 3 && !strcmp(argv[1], "work"))
		sum = run_work(atoi(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "alloc"))
		sum = run_alloc(atoi(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "usdt"))
		sum = run_usdt(atoi(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "threads"))
		sum = run_threads(atoi(argv[2]), atoi(argv[3]));
	else {
		fprintf(stderr, "usage: target work|alloc|usdt N | threads T N\n");
		return 2;
	}
	printf("sum %ld\n", sum);
	return sum < 0;
}
