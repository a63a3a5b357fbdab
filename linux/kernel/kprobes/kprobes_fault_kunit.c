// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Allocation failures on the kprobes API.  Each operation runs again and
 * again with the task's fault-injection count (failslab and
 * fail_page_alloc, as /proc/<pid>/fail-nth arms it) set to fail its 1st,
 * 2nd, 3rd ... allocation, until a run completes with none failed.  After
 * every attempt: the call returned 0 or -ENOMEM (disabling and
 * unregistering cannot fail and must cope), a failed probe neither fires
 * nor stays registered and registers cleanly once memory is back, and the
 * probe that was already at the address fires exactly once per call
 * throughout.  Leaks are kmemleak's to find (make torture).
 *
 * Built as a module for tools/testing/selftests/kprobes/fault_kunit.sh,
 * which sets the failslab and fail_page_alloc knobs in debugfs around
 * loading it: by default both leave alone the sleeping allocations that
 * registration makes, and then no attempt fails at all (a case says so).
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/timekeeping.h>

/* Longer than any operation's list of allocations. */
#define SWEEP_MAX	400

static noinline int kpf_target(int x)
{
	return x * 5 + 2;
}

static noinline int kpf_body(int x)
{
	int i, sum = 1;

	for (i = 0; i < x; i++)
		sum = sum * 3 + (i ^ x);
	return sum;
}

static int (*call_target)(int);
static int (*call_body)(int);

static atomic_t keeper_hits, probe_hits, ret_hits;

static int keeper_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&keeper_hits);
	return 0;
}

static int probe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&probe_hits);
	return 0;
}

static void probe_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
}

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&ret_hits);
	return 0;
}

static int kpf_suite_init(struct kunit_suite *suite)
{
	call_target = kpf_target;
	call_body = kpf_body;
	return 0;
}

/* --- the sweep --- */

/*
 * One operation under test.  @run is called with the fault armed and
 * does the one call; @check looks at the state after it and undoes what
 * succeeded, with nothing armed.  Both get @ret of @run.
 */
struct sweep {
	const char *name;
	int (*setup)(struct kunit *test);
	int (*run)(void);
	void (*check)(struct kunit *test, int ret, bool injected);
	void (*teardown)(void);
	/* It allocates for sure: a sweep that never failed one is broken. */
	bool allocates;
	/* Set by the sweep: attempts, and how many failed with -ENOMEM. */
	int attempts, enomem;
};

/* Allocations made to fail over the whole suite. */
static int injected_total;

static void run_sweep(struct kunit *test, struct sweep *s)
{
	unsigned int n, left;
	int ret;

	for (n = 1; n <= SWEEP_MAX; n++) {
		if (s->setup)
			KUNIT_ASSERT_EQ(test, s->setup(test), 0);
		WRITE_ONCE(current->fail_nth, n);
		ret = s->run();
		left = READ_ONCE(current->fail_nth);
		WRITE_ONCE(current->fail_nth, 0);
		s->attempts++;
		if (ret == -ENOMEM)
			s->enomem++;
		else
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s, allocation %u failed",
					    s->name, n);
		s->check(test, ret, !left);
		if (s->teardown)
			s->teardown();
		if (!left)
			injected_total++;
		/* A run with nothing failed: every allocation was swept. */
		if (left) {
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s ran clean", s->name);
			break;
		}
	}
	KUNIT_EXPECT_LE_MSG(test, n, SWEEP_MAX, "%s never ran clean", s->name);
	if (s->allocates)
		KUNIT_EXPECT_GT_MSG(test, s->attempts, 1,
				    "%s: no allocation of it was made to fail",
				    s->name);
	kunit_info(test, "%s: %d attempts, %d -ENOMEM, %d went on without the memory\n",
		   s->name, s->attempts, s->enomem, s->attempts - 1 - s->enomem);
}

static struct kprobe keeper, probe, extra;
static struct kretprobe rprobe;

/* Calls of @fn(@x), and the keeper and the probe must each see all of them. */
static void expect_hits(struct kunit *test, int (*fn)(int), int (*exp)(int),
			int keeper_per_call, int probe_per_call)
{
	int i;

	atomic_set(&keeper_hits, 0);
	atomic_set(&probe_hits, 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, fn(i + 2), exp(i + 2));
	KUNIT_EXPECT_EQ(test, atomic_read(&keeper_hits), 3 * keeper_per_call);
	KUNIT_EXPECT_EQ(test, atomic_read(&probe_hits), 3 * probe_per_call);
}

static int target_expected(int x)
{
	return x * 5 + 2;
}

static int body_expected(int x)
{
	int i, sum = 1;

	for (i = 0; i < x; i++)
		sum = sum * 3 + (i ^ x);
	return sum;
}

/*
 * An offset in kpf_body where a breakpoint goes: not the ftrace call
 * site, which follows the entry on some configs (IBT's landing pad).
 */
static unsigned long body_offset;

static void find_body_offset(struct kunit *test)
{
	struct kprobe kp;
	unsigned long off;
	bool on_ftrace;

	for (off = 1; off < 64; off++) {
		kp = (struct kprobe) { .addr = (void *)kpf_body + off };
		if (register_kprobe(&kp))
			continue;
		on_ftrace = kprobe_ftrace(&kp);
		unregister_kprobe(&kp);
		if (!on_ftrace)
			break;
	}
	KUNIT_ASSERT_LT(test, off, 64UL);
	body_offset = off;
}

static void *probed_addr(bool body)
{
	return body ? (void *)kpf_body + body_offset : (void *)kpf_target;
}

/*
 * After a failed registration of @kp: it fires nowhere, and it is not
 * half there: with memory back it registers and fires.
 */
static void expect_clean_failure(struct kunit *test, struct kprobe *kp,
				 void *addr, bool body, bool keeper_there)
{
	int (*fn)(int) = body ? call_body : call_target;
	int (*exp)(int) = body ? body_expected : target_expected;

	expect_hits(test, fn, exp, keeper_there, 0);
	*kp = (struct kprobe) { .addr = addr, .pre_handler = probe_pre,
				.post_handler = kp->post_handler };
	KUNIT_EXPECT_EQ(test, register_kprobe(kp), 0);
	expect_hits(test, fn, exp, keeper_there, 1);
	unregister_kprobe(kp);
}

/* A lone probe, at the entry and in the body (where a slot is made). */
static bool lone_body;

static int lone_run(void)
{
	probe = (struct kprobe) { .addr = probed_addr(lone_body),
				  .pre_handler = probe_pre };
	return register_kprobe(&probe);
}

static void lone_check(struct kunit *test, int ret, bool injected)
{
	int (*fn)(int) = lone_body ? call_body : call_target;
	int (*exp)(int) = lone_body ? body_expected : target_expected;

	if (ret) {
		expect_clean_failure(test, &probe, probed_addr(lone_body),
				     lone_body, false);
		return;
	}
	expect_hits(test, fn, exp, 0, 1);
	unregister_kprobe(&probe);
	expect_hits(test, fn, exp, 0, 0);
}

static void kpf_register_lone(struct kunit *test)
{
	struct sweep entry = { .name = "lone probe at the entry",
			       .run = lone_run, .check = lone_check };
	struct sweep body = { .name = "lone probe in the body",
			      .run = lone_run, .check = lone_check };

	find_body_offset(test);
	lone_body = false;
	run_sweep(test, &entry);
	lone_body = true;
	run_sweep(test, &body);
}

/*
 * A probe joining one that is already there: the lone probe becomes a
 * site, or the site's chain grows.  A post_handler makes the site drop
 * its jump or boost as well.
 */
static bool join_body, join_post, join_third;

static int join_setup(struct kunit *test)
{
	keeper = (struct kprobe) { .addr = probed_addr(join_body),
				   .pre_handler = keeper_pre };
	extra = (struct kprobe) { .addr = probed_addr(join_body) };
	if (register_kprobe(&keeper))
		return -EINVAL;
	return join_third ? register_kprobe(&extra) : 0;
}

static int join_run(void)
{
	probe = (struct kprobe) { .addr = probed_addr(join_body),
				  .pre_handler = probe_pre,
				  .post_handler = join_post ? probe_post : NULL };
	return register_kprobe(&probe);
}

static void join_check(struct kunit *test, int ret, bool injected)
{
	int (*fn)(int) = join_body ? call_body : call_target;
	int (*exp)(int) = join_body ? body_expected : target_expected;

	if (ret) {
		expect_clean_failure(test, &probe, probed_addr(join_body),
				     join_body, true);
		return;
	}
	expect_hits(test, fn, exp, 1, 1);
	unregister_kprobe(&probe);
	expect_hits(test, fn, exp, 1, 0);
}

static void join_teardown(void)
{
	if (join_third)
		unregister_kprobe(&extra);
	unregister_kprobe(&keeper);
}

static void kpf_register_joins(struct kunit *test)
{
	static const struct { bool body, post, third; const char *name; } v[] = {
		{ false, false, false, "second probe at the entry" },
		{ true, false, false, "second probe in the body" },
		{ true, true, false, "second probe with a post_handler" },
		{ true, true, true, "third probe with a post_handler" },
	};
	int i;

	find_body_offset(test);
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		/* A second probe at an address makes or grows a site. */
		struct sweep s = { .name = v[i].name, .setup = join_setup,
				   .run = join_run, .check = join_check,
				   .teardown = join_teardown, .allocates = true };

		join_body = v[i].body;
		join_post = v[i].post;
		join_third = v[i].third;
		run_sweep(test, &s);
	}
}

/* A batch: two probes joining the keeper's site and one alone elsewhere. */
static struct kprobe batch_probes[3];
static struct kprobe *batch[3];

static int batch_setup(struct kunit *test)
{
	keeper = (struct kprobe) { .addr = probed_addr(true),
				   .pre_handler = keeper_pre };
	return register_kprobe(&keeper) ? -EINVAL : 0;
}

static int batch_run(void)
{
	int i;

	batch_probes[0] = (struct kprobe) { .addr = probed_addr(true),
					    .pre_handler = probe_pre };
	batch_probes[1] = (struct kprobe) { .addr = probed_addr(true),
					    .pre_handler = probe_pre,
					    .post_handler = probe_post };
	batch_probes[2] = (struct kprobe) { .addr = probed_addr(false),
					    .pre_handler = probe_pre };
	for (i = 0; i < 3; i++)
		batch[i] = &batch_probes[i];
	return register_kprobes(batch, 3);
}

static void batch_check(struct kunit *test, int ret, bool injected)
{
	if (ret) {
		expect_hits(test, call_body, body_expected, 1, 0);
		expect_hits(test, call_target, target_expected, 0, 0);
		KUNIT_EXPECT_EQ(test, batch_run(), 0);
	}
	expect_hits(test, call_body, body_expected, 1, 2);
	expect_hits(test, call_target, target_expected, 0, 1);
	unregister_kprobes(batch, 3);
	expect_hits(test, call_body, body_expected, 1, 0);
}

static void batch_teardown(void)
{
	unregister_kprobe(&keeper);
}

static void kpf_register_batch(struct kunit *test)
{
	struct sweep s = { .name = "batch of three", .setup = batch_setup,
			   .run = batch_run, .check = batch_check,
			   .teardown = batch_teardown, .allocates = true };

	find_body_offset(test);
	run_sweep(test, &s);
}

/*
 * Enabling, disabling and unregistering at a site: each replaces the
 * site's chain.  Enabling may fail with -ENOMEM and changes nothing then;
 * disabling and unregistering cannot fail, and wait for the memory of the
 * new chain (a hit in flight holds the old one: see kpf_held_hit_keeps_post).
 * Either way the site has a post phase exactly while an enabled probe
 * there has a post_handler.
 */
enum site_op { SITE_ENABLE, SITE_DISABLE, SITE_UNREGISTER };
static enum site_op site_op;

static int site_setup(struct kunit *test)
{
	keeper = (struct kprobe) { .addr = probed_addr(true),
				   .pre_handler = keeper_pre };
	probe = (struct kprobe) { .addr = probed_addr(true),
				  .pre_handler = probe_pre,
				  .post_handler = probe_post,
				  .flags = site_op == SITE_ENABLE ?
					   KPROBE_FLAG_DISABLED : 0 };
	if (register_kprobe(&keeper))
		return -EINVAL;
	if (register_kprobe(&probe)) {
		unregister_kprobe(&keeper);
		return -EINVAL;
	}
	return 0;
}

static int site_run(void)
{
	switch (site_op) {
	case SITE_ENABLE:
		return enable_kprobe(&probe);
	case SITE_DISABLE:
		return disable_kprobe(&probe);
	case SITE_UNREGISTER:
		unregister_kprobe(&probe);
		return 0;
	}
	return -EINVAL;
}

static void site_check(struct kunit *test, int ret, bool injected)
{
	switch (site_op) {
	case SITE_ENABLE:
		expect_hits(test, call_body, body_expected, 1, !ret);
		if (ret)
			KUNIT_EXPECT_EQ(test, enable_kprobe(&probe), 0);
		expect_hits(test, call_body, body_expected, 1, 1);
		break;
	case SITE_DISABLE:
		expect_hits(test, call_body, body_expected, 1, 0);
		KUNIT_EXPECT_NULL(test, get_kprobe(probed_addr(true))->post_handler);
		KUNIT_EXPECT_EQ(test, enable_kprobe(&probe), 0);
		expect_hits(test, call_body, body_expected, 1, 1);
		break;
	case SITE_UNREGISTER:
		expect_hits(test, call_body, body_expected, 1, 0);
		KUNIT_EXPECT_NULL(test, get_kprobe(probed_addr(true))->post_handler);
		/* Registering it again finds no trace of it. */
		probe = (struct kprobe) { .addr = probed_addr(true),
					  .pre_handler = probe_pre };
		KUNIT_EXPECT_EQ(test, register_kprobe(&probe), 0);
		expect_hits(test, call_body, body_expected, 1, 1);
		break;
	}
}

static void site_teardown(void)
{
	unregister_kprobe(&probe);
	unregister_kprobe(&keeper);
}

static void kpf_site_changes(struct kunit *test)
{
	static const char * const names[] = {
		[SITE_ENABLE] = "enable at a site",
		[SITE_DISABLE] = "disable at a site",
		[SITE_UNREGISTER] = "unregister from a site",
	};
	int op;

	find_body_offset(test);
	for (op = SITE_ENABLE; op <= SITE_UNREGISTER; op++) {
		struct sweep s = { .name = names[op], .setup = site_setup,
				   .run = site_run, .check = site_check,
				   .teardown = site_teardown };

		site_op = op;
		run_sweep(test, &s);
	}
}

/*
 * A probe with a post_handler is disabled at a site, its first allocation
 * failed, while another CPU's hit on the site is held between its pre and
 * post phase: in a later probe's pre_handler, after the disabled probe's
 * pre_handler ran.  The hit must still run that probe's post_handler:
 * the chain it holds may not be edited under it.
 */
#define HOLD_MAX_NS	(2 * NSEC_PER_SEC)
#define REACH_MAX_NS	(20 * NSEC_PER_SEC)

static struct task_struct *held_task;
static bool held, release_held, held_done;
static atomic_t held_pre, held_post;
static int held_result;

static int held_probe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(held_task))
		atomic_inc(&held_pre);
	return 0;
}

static void held_probe_post(struct kprobe *kp, struct pt_regs *regs,
			    unsigned long flags)
{
	if (current == READ_ONCE(held_task))
		atomic_inc(&held_post);
}

static int hold_pre(struct kprobe *kp, struct pt_regs *regs)
{
	u64 deadline = ktime_get_mono_fast_ns() + HOLD_MAX_NS;

	if (current != READ_ONCE(held_task))
		return 0;
	WRITE_ONCE(held, true);
	while (!READ_ONCE(release_held) && ktime_get_mono_fast_ns() < deadline)
		cpu_relax();
	return 0;
}

static int call_held(void *unused)
{
	WRITE_ONCE(held_task, current);
	held_result = call_body(4);
	WRITE_ONCE(held_done, true);
	while (!kthread_should_stop())
		usleep_range(100, 200);
	return 0;
}

static bool wait_until(bool *flag)
{
	u64 deadline = ktime_get_mono_fast_ns() + REACH_MAX_NS;

	while (!READ_ONCE(*flag)) {
		if (ktime_get_mono_fast_ns() > deadline)
			return false;
		usleep_range(50, 100);
	}
	return true;
}

static void kpf_held_hit_keeps_post(struct kunit *test)
{
	struct task_struct *task;
	bool was_held;
	unsigned int left;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	find_body_offset(test);
	probe = (struct kprobe) { .addr = probed_addr(true),
				  .pre_handler = held_probe_pre,
				  .post_handler = held_probe_post };
	keeper = (struct kprobe) { .addr = probed_addr(true),
				   .pre_handler = hold_pre };
	KUNIT_ASSERT_EQ(test, register_kprobe(&probe), 0);
	ret = register_kprobe(&keeper);
	if (ret) {
		unregister_kprobe(&probe);
		KUNIT_FAIL_AND_ABORT(test, "keeper: %d", ret);
	}
	/*
	 * Where the site takes a jump (x86 runs post phases from the
	 * detour), writing it waits for every CPU with kprobes_mutex held;
	 * a hit held with interrupts off would make the disable below wait
	 * for the hold to time out.  Let the optimizer finish first.
	 */
	wait_for_kprobe_optimizer();
	WRITE_ONCE(held_task, NULL);
	held = false;
	release_held = false;
	held_done = false;
	atomic_set(&held_pre, 0);
	atomic_set(&held_post, 0);
	task = kthread_create(call_held, NULL, "kpf_held");
	if (IS_ERR(task)) {
		unregister_kprobes((struct kprobe *[]){ &keeper, &probe }, 2);
		KUNIT_FAIL_AND_ABORT(test, "no thread");
	}
	kthread_bind(task, cpumask_any_but(cpu_online_mask,
					   raw_smp_processor_id()));
	wake_up_process(task);

	was_held = wait_until(&held);
	WRITE_ONCE(current->fail_nth, 1);
	ret = disable_kprobe(&probe);
	left = READ_ONCE(current->fail_nth);
	WRITE_ONCE(current->fail_nth, 0);
	was_held = was_held && !READ_ONCE(held_done);
	WRITE_ONCE(release_held, true);
	KUNIT_EXPECT_TRUE(test, wait_until(&held_done));
	kthread_stop(task);
	WRITE_ONCE(held_task, NULL);

	kunit_info(test, "the first allocation of the disable %s\n",
		   left ? "was not made to fail" : "failed");
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE_MSG(test, was_held, "the hit was not held throughout");
	KUNIT_EXPECT_EQ(test, held_result, body_expected(4));
	KUNIT_EXPECT_EQ(test, atomic_read(&held_pre), 1);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&held_post), 1,
			    "the hit lost the post_handler of a probe whose pre_handler it ran");
	/* And from the next hit on, no post phase at all. */
	KUNIT_EXPECT_NULL(test, get_kprobe(probed_addr(true))->post_handler);
	unregister_kprobes((struct kprobe *[]){ &keeper, &probe }, 2);
}

/* A kretprobe: its instance pool, and its entry probe at a site. */
static bool kret_shared;

static int kret_setup(struct kunit *test)
{
	keeper = (struct kprobe) { .addr = probed_addr(false),
				   .pre_handler = keeper_pre };
	if (kret_shared && register_kprobe(&keeper))
		return -EINVAL;
	return 0;
}

static int kret_run(void)
{
	rprobe = (struct kretprobe) { .kp.addr = probed_addr(false),
				      .handler = ret_handler,
				      .maxactive = 4 };
	return register_kretprobe(&rprobe);
}

static void kret_check(struct kunit *test, int ret, bool injected)
{
	atomic_set(&ret_hits, 0);
	expect_hits(test, call_target, target_expected, kret_shared, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ret_hits), ret ? 0 : 3);
	if (ret) {
		KUNIT_EXPECT_EQ(test, kret_run(), 0);
		atomic_set(&ret_hits, 0);
		expect_hits(test, call_target, target_expected, kret_shared, 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&ret_hits), 3);
	}
	unregister_kretprobe(&rprobe);
}

static void kret_teardown(void)
{
	if (kret_shared)
		unregister_kprobe(&keeper);
}

static void kpf_register_kretprobe(struct kunit *test)
{
	/* Its instances come from an allocated pool. */
	struct sweep alone = { .name = "kretprobe", .setup = kret_setup,
			       .run = kret_run, .check = kret_check,
			       .teardown = kret_teardown, .allocates = true };
	struct sweep shared = { .name = "kretprobe at a probed address",
				.setup = kret_setup, .run = kret_run,
				.check = kret_check, .teardown = kret_teardown,
				.allocates = true };

	kret_shared = false;
	run_sweep(test, &alone);
	kret_shared = true;
	run_sweep(test, &shared);
}

/*
 * Some operations allocate nothing (a lone breakpoint probe on an
 * instruction the port simulates), but not all: without failslab's and
 * fail_page_alloc's knobs set, nothing ever fails and the sweeps above
 * test nothing.
 */
static void kpf_failures_were_injected(struct kunit *test)
{
	KUNIT_EXPECT_GT_MSG(test, injected_total, 0,
			    "no allocation failed: failslab/ignore-gfp-wait must be N");
}

static struct kunit_case kprobes_fault_cases[] = {
	KUNIT_CASE(kpf_register_lone),
	KUNIT_CASE(kpf_register_joins),
	KUNIT_CASE(kpf_register_batch),
	KUNIT_CASE(kpf_site_changes),
	KUNIT_CASE(kpf_held_hit_keeps_post),
	KUNIT_CASE(kpf_register_kretprobe),
	KUNIT_CASE(kpf_failures_were_injected),
	{}
};

static struct kunit_suite kprobes_fault_suite = {
	.name = "kprobes_fault",
	.suite_init = kpf_suite_init,
	.test_cases = kprobes_fault_cases,
};

kunit_test_suite(kprobes_fault_suite);

MODULE_DESCRIPTION("KUnit sweep of allocation failures on the kprobes API");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
