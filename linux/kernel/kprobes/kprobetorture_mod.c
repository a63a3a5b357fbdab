// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobetorture's companion: two functions in a module that a script
 * loads and unloads while kprobetorture runs.  Its probes on them are
 * registered by symbol, find whichever load is there, and go [GONE] when
 * it goes; the next load may come back at the same address.  The module
 * calls its functions from its own thread only, so no call can be inside
 * them once that thread has stopped, before the text goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>

#include "kprobetorture.h"

static int kptm_sink;

static noinline int kptm_fn0(int x)
{
	WRITE_ONCE(kptm_sink, READ_ONCE(kptm_sink) + x);
	return x * 7 + 3;
}

static noinline int kptm_fn1(int x)
{
	WRITE_ONCE(kptm_sink, READ_ONCE(kptm_sink) ^ x);
	return (x << 2) - 9;
}

static int (*const kptm_fns[])(int x) = { kptm_fn0, kptm_fn1 };

static int expected(int nr, int x)
{
	return nr ? (x << 2) - 9 : x * 7 + 3;
}

static struct task_struct *caller;

static int call_loop(void *unused)
{
	unsigned long i = 0;
	int nr, x;

	while (!kthread_should_stop()) {
		nr = i & 1;
		x = get_random_u32() & 0xffff;
		if (kprobetorture_mod_call(nr, kptm_fns[nr], x) != expected(nr, x))
			kprobetorture_mod_wrong();
		if (!(++i % 64))
			cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/* The first offset past the entry where a breakpoint goes. */
static unsigned long body_offset(int (*fn)(int x))
{
	struct kprobe kp;
	unsigned long off;

	for (off = 1; off < 64; off++) {
		kp = (struct kprobe) { .addr = (kprobe_opcode_t *)fn + off };
		if (register_kprobe(&kp))
			continue;
		unregister_kprobe(&kp);
		/* In bytes, as kprobe.offset counts them. */
		return off * sizeof(kprobe_opcode_t);
	}
	return 0;
}

static int __init kprobetorture_mod_init(void)
{
	unsigned long offsets[ARRAY_SIZE(kptm_fns)];
	int i;

	for (i = 0; i < ARRAY_SIZE(kptm_fns); i++)
		offsets[i] = body_offset(kptm_fns[i]);
	caller = kthread_run(call_loop, NULL, "kptm_caller");
	if (IS_ERR(caller))
		return PTR_ERR(caller);
	kprobetorture_mod_arrive(offsets, ARRAY_SIZE(kptm_fns));
	return 0;
}

static void __exit kprobetorture_mod_exit(void)
{
	kthread_stop(caller);
	kprobetorture_mod_leave();
}

module_init(kprobetorture_mod_init);
module_exit(kprobetorture_mod_exit);
MODULE_DESCRIPTION("kprobetorture: a module of probed functions that comes and goes");
MODULE_LICENSE("GPL");
