// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit cases for probes in bulk: register_kprobes() and
 * unregister_kprobes() on a couple of thousand generated functions, the
 * all-or-nothing rule when a batch fails half way, duplicates inside a
 * batch, the site table growing, shrinking and churning, and batches
 * armed and removed (and lone probes turned into sites) while another
 * CPU keeps calling the probed functions.  And, since this is a module,
 * a second suite for probes on module text that is going away.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "internal.h"

/*
 * The probed functions: small, each with an ftrace entry site and a body,
 * each returning something no other one returns.  Generated at build time
 * (gen_scale_fns.sh), as many as the Makefile asks for.
 */
struct kps_fn {
	int (*fn)(int x);
	int add;
};

#include "kprobes_scale_fns.h"

#define NR_FNS	ARRAY_SIZE(kps_fns)

static atomic_t hits, other_hits;

static int count_pre(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&hits);
	return 0;
}

static int count_other(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&other_hits);
	return 0;
}

/* Call every function; true when each still computes what it should. */
static bool call_all(void)
{
	bool right = true;
	int i;

	for (i = 0; i < NR_FNS; i++)
		right &= kps_fns[i].fn(i) == i + kps_fns[i].add;
	return right;
}

/* Probes at offset @off of every function, and the array to pass them in. */
struct probe_set {
	struct kprobe *kp;
	struct kprobe **kps;
};

static void free_set(void *data)
{
	struct probe_set *set = data;

	vfree(set->kp);
	vfree(set->kps);
}

static struct probe_set *new_set(struct kunit *test, unsigned long off)
{
	struct probe_set *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->kp = vzalloc(NR_FNS * sizeof(*set->kp));
	set->kps = vzalloc(NR_FNS * sizeof(*set->kps));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_set, set), 0);
	KUNIT_ASSERT_NOT_NULL(test, set->kp);
	KUNIT_ASSERT_NOT_NULL(test, set->kps);
	for (i = 0; i < NR_FNS; i++) {
		set->kp[i].addr = (kprobe_opcode_t *)((unsigned long)kps_fns[i].fn + off);
		set->kp[i].pre_handler = count_pre;
		set->kps[i] = &set->kp[i];
	}
	return set;
}

static bool none_registered(struct probe_set *set, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (get_kprobe(set->kp[i].addr) || kprobe_registered(&set->kp[i]))
			return false;
	return true;
}

/*
 * The first offset past the entry that takes a breakpoint probe (the
 * core refuses offsets inside an instruction).  All the functions are
 * laid out alike, so the first one tells.
 */
static unsigned long body_offset(struct kunit *test)
{
	struct kprobe kp = { .pre_handler = count_pre };
	unsigned long off;

	for (off = 1; off < 32; off++) {
		kp.addr = (kprobe_opcode_t *)((unsigned long)kps_fns[0].fn + off);
		kp.flags = 0;
		if (register_kprobe(&kp))
			continue;
		unregister_kprobe(&kp);
		if (!kprobe_ftrace(&kp))
			return off;
	}
	/* Every function here has a body: a refusal of all is our bug. */
	KUNIT_FAIL_AND_ABORT(test, "no offset in %ps's body takes a probe",
			     kps_fns[0].fn);
	return 0;
}

static void batch_on(struct kunit *test, unsigned long off)
{
	struct probe_set *set = new_set(test, off);
	unsigned int buckets = kprobe_table_buckets();
	int i, found;

	KUNIT_ASSERT_EQ(test, register_kprobes(set->kps, NR_FNS), 0);
	for (i = 0, found = 0; i < NR_FNS; i++)
		found += !!get_kprobe(set->kp[i].addr);
	KUNIT_EXPECT_EQ(test, found, NR_FNS);
	/* The table grew: at most four heads per bucket. */
	KUNIT_EXPECT_GE(test, kprobe_table_buckets(), NR_FNS / 4);

	atomic_set(&hits, 0);
	KUNIT_EXPECT_TRUE(test, call_all());
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), NR_FNS);

	unregister_kprobes(set->kps, NR_FNS);
	atomic_set(&hits, 0);
	KUNIT_EXPECT_TRUE(test, call_all());
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 0);
	KUNIT_EXPECT_TRUE(test, none_registered(set, NR_FNS));
	/* And shrank back once they left. */
	KUNIT_EXPECT_LE(test, kprobe_table_buckets(), buckets);
}

/* Every function entry (ftrace sites where ftrace is built in). */
static void kps_batch_entries(struct kunit *test)
{
	batch_on(test, 0);
}

/* Every function body: breakpoints, planted and removed in one go. */
static void kps_batch_bodies(struct kunit *test)
{
	batch_on(test, body_offset(test));
}

/*
 * A bad probe in the middle of a batch: the error is its, and none of the
 * probes before it is left registered or changed.
 */
static void kps_rollback_bad_probe(struct kunit *test)
{
	struct probe_set *set = new_set(test, 0);
	int i, bad = NR_FNS / 2;

	/* Both an address and a symbol: refused before anything is armed. */
	set->kp[bad].symbol_name = "kps_fn_0";
	KUNIT_EXPECT_EQ(test, register_kprobes(set->kps, NR_FNS), -EINVAL);
	KUNIT_EXPECT_TRUE(test, none_registered(set, NR_FNS));
	for (i = 0; i < NR_FNS; i++)
		KUNIT_EXPECT_PTR_EQ(test, (void *)set->kp[i].addr,
				    (void *)kps_fns[i].fn);
	atomic_set(&hits, 0);
	KUNIT_EXPECT_TRUE(test, call_all());
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 0);

	/* The same set registers once the bad one is fixed. */
	set->kp[bad].symbol_name = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobes(set->kps, NR_FNS), 0);
	unregister_kprobes(set->kps, NR_FNS);
	KUNIT_EXPECT_TRUE(test, none_registered(set, NR_FNS));
}

/*
 * A failure found only once the sites exist (the last probe is the first
 * one again): every site made for the batch goes again.
 */
static void kps_rollback_after_attach(struct kunit *test)
{
	struct probe_set *set = new_set(test, 0);

	set->kps[NR_FNS - 1] = set->kps[0];
	KUNIT_EXPECT_EQ(test, register_kprobes(set->kps, NR_FNS), -EINVAL);
	KUNIT_EXPECT_TRUE(test, none_registered(set, NR_FNS));
	atomic_set(&hits, 0);
	KUNIT_EXPECT_TRUE(test, call_all());
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 0);
	/* Everything made for the batch went: the table shrank again. */
	KUNIT_EXPECT_LE(test, kprobe_table_buckets(), NR_FNS / 4);
}

/* Two different probes at one address in one batch both run. */
static void kps_duplicate_addresses(struct kunit *test)
{
	struct probe_set *a = new_set(test, 0), *b = new_set(test, 0);
	struct kprobe **both = kunit_kcalloc(test, 2 * NR_FNS, sizeof(*both),
					     GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, both);
	for (i = 0; i < NR_FNS; i++) {
		both[2 * i] = a->kps[i];
		both[2 * i + 1] = b->kps[i];
	}
	KUNIT_ASSERT_EQ(test, register_kprobes(both, 2 * NR_FNS), 0);
	atomic_set(&hits, 0);
	KUNIT_EXPECT_TRUE(test, call_all());
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 2 * NR_FNS);
	/* Half of them go: the other half still fires. */
	unregister_kprobes(a->kps, NR_FNS);
	atomic_set(&hits, 0);
	KUNIT_EXPECT_TRUE(test, call_all());
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), NR_FNS);
	unregister_kprobes(b->kps, NR_FNS);
	KUNIT_EXPECT_TRUE(test, none_registered(a, NR_FNS));
	KUNIT_EXPECT_TRUE(test, none_registered(b, NR_FNS));
}

/*
 * Half the probes leave and come back, three times: lookups step over
 * what removals leave in the table, and new entries reuse it.
 */
static void kps_table_churn(struct kunit *test)
{
	struct probe_set *set = new_set(test, 0);
	struct kprobe **odd = kunit_kcalloc(test, NR_FNS / 2, sizeof(*odd),
					    GFP_KERNEL);
	unsigned int buckets = kprobe_table_buckets();
	int i, n, round, found;

	KUNIT_ASSERT_NOT_NULL(test, odd);
	for (i = 1, n = 0; i < NR_FNS; i += 2)
		odd[n++] = &set->kp[i];
	KUNIT_ASSERT_EQ(test, register_kprobes(set->kps, NR_FNS), 0);
	for (round = 0; round < 3; round++) {
		unregister_kprobes(odd, n);
		for (i = 0, found = 0; i < NR_FNS; i++)
			found += get_kprobe(set->kp[i].addr) == &set->kp[i];
		KUNIT_EXPECT_EQ(test, found, NR_FNS - n);
		atomic_set(&hits, 0);
		KUNIT_EXPECT_TRUE(test, call_all());
		KUNIT_EXPECT_EQ(test, atomic_read(&hits), NR_FNS - n);

		KUNIT_ASSERT_EQ(test, register_kprobes(odd, n), 0);
		atomic_set(&hits, 0);
		KUNIT_EXPECT_TRUE(test, call_all());
		KUNIT_EXPECT_EQ(test, atomic_read(&hits), NR_FNS);
	}
	unregister_kprobes(set->kps, NR_FNS);
	KUNIT_EXPECT_TRUE(test, none_registered(set, NR_FNS));
	KUNIT_EXPECT_LE(test, kprobe_table_buckets(), buckets);
}

/*
 * One batch takes live, disabled and never-registered probes alike.  The
 * disabled ones are spread over the batch, not a third of it: each
 * disable_kprobe() of an ftrace-site probe is an ftrace update of its
 * own, and hundreds of them outlast KUnit's timeout on a debug kernel.
 */
#define KPS_DISABLE_STRIDE	37

static void kps_unregister_mixed(struct kunit *test)
{
	struct probe_set *set = new_set(test, 0);
	int i, disabled = 0;

	KUNIT_ASSERT_EQ(test, register_kprobes(set->kps, NR_FNS - 1), 0);
	for (i = 0; i < NR_FNS - 1; i += KPS_DISABLE_STRIDE, disabled++)
		KUNIT_EXPECT_EQ(test, disable_kprobe(&set->kp[i]), 0);
	atomic_set(&hits, 0);
	KUNIT_EXPECT_TRUE(test, call_all());
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), (NR_FNS - 1) - disabled);
	unregister_kprobes(set->kps, NR_FNS);
	KUNIT_EXPECT_TRUE(test, none_registered(set, NR_FNS));
	/* The one that never was registered only has its address cleared. */
	KUNIT_EXPECT_NULL(test, set->kp[NR_FNS - 1].addr);
	atomic_set(&hits, 0);
	KUNIT_EXPECT_TRUE(test, call_all());
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 0);
}

struct caller {
	struct task_struct *task;
	struct completion started;
	bool stop, wrong;
	unsigned long rounds;
};

static int keep_calling(void *data)
{
	struct caller *c = data;

	complete(&c->started);
	while (!READ_ONCE(c->stop)) {
		if (!call_all())
			WRITE_ONCE(c->wrong, true);
		c->rounds++;
		/*
		 * Sleep, not just cond_resched(): on a preemptible kernel
		 * removing a probe with a detour waits for every task to
		 * schedule voluntarily (RCU-tasks).
		 */
		usleep_range(10, 20);
	}
	return 0;
}

/* Run keep_calling() on another CPU than this one. */
static void start_caller(struct kunit *test, struct caller *c)
{
	init_completion(&c->started);
	c->task = kthread_create(keep_calling, c, "kps_caller");
	KUNIT_ASSERT_FALSE(test, IS_ERR(c->task));
	kthread_bind(c->task, cpumask_any_but(cpu_online_mask,
					      raw_smp_processor_id()));
	get_task_struct(c->task);
	wake_up_process(c->task);
	wait_for_completion(&c->started);
}

static void stop_caller(struct caller *c)
{
	WRITE_ONCE(c->stop, true);
	kthread_stop(c->task);
	put_task_struct(c->task);
}

/*
 * Breakpoint batches come and go while another CPU runs through the
 * probed functions: every call still computes the right thing, and once
 * unregister_kprobes() has returned no handler of the batch runs again.
 * (Entry probes are left out: arming them is ftrace's patching, and under
 * QEMU's multi-threaded TCG a vCPU was seen to keep executing a stale
 * int3 at an ftrace site after ftrace had restored it.)
 */
static void kps_hits_during_batches(struct kunit *test)
{
	struct probe_set *bodies = new_set(test, body_offset(test));
	struct caller c = {};
	int round, after;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	start_caller(test, &c);

	for (round = 0; round < 3; round++) {
		KUNIT_EXPECT_EQ(test, register_kprobes(bodies->kps, NR_FNS), 0);
		msleep(20);
		unregister_kprobes(bodies->kps, NR_FNS);
		after = atomic_read(&hits);
		msleep(20);
		KUNIT_EXPECT_EQ(test, atomic_read(&hits), after);
	}
	stop_caller(&c);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(c.wrong));
	KUNIT_EXPECT_GT(test, c.rounds, 0UL);
	KUNIT_EXPECT_GT(test, atomic_read(&hits), 0);
}

/* Every other probe of @set, starting with the @from'th. */
static struct kprobe **every_other(struct kunit *test, struct probe_set *set,
				   int from)
{
	struct kprobe **kps = kunit_kcalloc(test, NR_FNS / 2, sizeof(*kps),
					    GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, kps);
	for (i = 0; i < NR_FNS / 2; i++)
		kps[i] = &set->kp[2 * i + from];
	return kps;
}

/*
 * While another CPU keeps calling the functions, half of them with a lone
 * probe at their entry (reached through ftrace, which looks the address
 * up): a second entry probe on each of those turns every lone probe into
 * a site, and breakpoints on the other half double the table, which moves
 * every head to a new bucket under the hits; then the newcomers leave,
 * three times.  The probes there all along see every call.  (Nothing
 * here makes ftrace patch a function while it is being called; see
 * kps_hits_during_batches().)
 */
static void kps_sites_made_under_hits(struct kunit *test)
{
	struct probe_set *first = new_set(test, 0), *entries = new_set(test, 0);
	struct probe_set *bodies = new_set(test, body_offset(test));
	struct kprobe **watched = every_other(test, first, 0);
	struct kprobe **same = every_other(test, entries, 0);
	struct kprobe **others = every_other(test, bodies, 1);
	struct caller c = {};
	int i, round;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	for (i = 0; i < NR_FNS; i++) {
		entries->kp[i].pre_handler = count_other;
		bodies->kp[i].pre_handler = count_other;
	}
	KUNIT_ASSERT_EQ(test, register_kprobes(watched, NR_FNS / 2), 0);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(watched[0]->addr), watched[0]);
	atomic_set(&hits, 0);
	atomic_set(&other_hits, 0);
	start_caller(test, &c);

	for (round = 0; round < 3; round++) {
		KUNIT_EXPECT_EQ(test, register_kprobes(same, NR_FNS / 2), 0);
		msleep(20);
		KUNIT_EXPECT_EQ(test, register_kprobes(others, NR_FNS / 2), 0);
		msleep(20);
		unregister_kprobes(same, NR_FNS / 2);
		unregister_kprobes(others, NR_FNS / 2);
	}
	stop_caller(&c);
	KUNIT_EXPECT_TRUE(test, kprobe_is_site(get_kprobe(watched[0]->addr)));
	unregister_kprobes(watched, NR_FNS / 2);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(c.wrong));
	KUNIT_EXPECT_GT(test, c.rounds, 0UL);
	/* call_all() calls each function once per round. */
	KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&hits),
			c.rounds * NR_FNS / 2);
	KUNIT_EXPECT_GT(test, atomic_read(&other_hits), 0);
}

static struct kunit_case kprobes_scale_cases[] = {
	KUNIT_CASE(kps_batch_entries),
	KUNIT_CASE(kps_batch_bodies),
	KUNIT_CASE(kps_rollback_bad_probe),
	KUNIT_CASE(kps_rollback_after_attach),
	KUNIT_CASE(kps_duplicate_addresses),
	KUNIT_CASE_SLOW(kps_unregister_mixed),
	KUNIT_CASE_SLOW(kps_hits_during_batches),
	KUNIT_CASE(kps_table_churn),
	KUNIT_CASE_SLOW(kps_sites_made_under_hits),
	{}
};

static struct kunit_suite kprobes_scale_suite = {
	.name = "kprobes_scale",
	.test_cases = kprobes_scale_cases,
};

#ifdef MODULE
/*
 * Module text as it goes away (built as a module only: built in, this
 * file's text is the kernel's).  A module being freed turns UNFORMED, and
 * from then on lookups no longer find it; a registration that found the
 * module must hold a reference on it from that very lookup, or refuse.
 * (It used to look the module up twice: a module freed in between left a
 * probe planted with no reference, armed on text freed a moment later.)
 * The window is forced: a kretprobe on __module_text_address() makes
 * this module look freed as soon as the registering task's first lookup
 * of it returns.
 */
static struct task_struct *unform_task;
static atomic_t unform_lookups;

static int unform_after_lookup(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	if (current != READ_ONCE(unform_task) ||
	    regs_return_value(regs) != (unsigned long)THIS_MODULE)
		return 0;
	if (atomic_inc_return(&unform_lookups) == 1)
		WRITE_ONCE(THIS_MODULE->state, MODULE_STATE_UNFORMED);
	return 0;
}

static void kpm_module_freed_during_lookup(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "__module_text_address",
		.handler = unform_after_lookup,
	};
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kps_fns[0].fn,
		.pre_handler = count_pre,
	};
	int ret;

	atomic_set(&unform_lookups, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	WRITE_ONCE(unform_task, current);
	ret = register_kprobe(&kp);
	WRITE_ONCE(unform_task, NULL);
	WRITE_ONCE(THIS_MODULE->state, MODULE_STATE_LIVE);
	unregister_kretprobe(&rp);
	if (!ret)
		unregister_kprobe(&kp);
	KUNIT_EXPECT_GT(test, atomic_read(&unform_lookups), 0);
	KUNIT_EXPECT_EQ(test, ret, -ENOENT);
	KUNIT_EXPECT_NULL(test, get_kprobe((void *)kps_fns[0].fn));

	/* Found live throughout, the same text takes the probe. */
	atomic_set(&hits, 0);
	kp = (struct kprobe) { .addr = (kprobe_opcode_t *)kps_fns[0].fn,
			       .pre_handler = count_pre };
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kps_fns[0].fn(0), kps_fns[0].add);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&hits), 1);
}

static struct kunit_case kprobes_module_cases[] = {
	KUNIT_CASE(kpm_module_freed_during_lookup),
	{}
};

static struct kunit_suite kprobes_module_suite = {
	.name = "kprobes_module",
	.test_cases = kprobes_module_cases,
};

kunit_test_suites(&kprobes_scale_suite, &kprobes_module_suite);
#else
kunit_test_suites(&kprobes_scale_suite);
#endif

MODULE_DESCRIPTION("KUnit cases for kprobes in bulk");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
