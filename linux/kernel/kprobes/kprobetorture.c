// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobetorture: kprobes hammered the way production uses them.
 *
 * Caller threads call a few probed functions in a loop and check every
 * result.  Churner threads, meanwhile, register and unregister probes on
 * them (one at a time and in batches), disable and enable them, flip the
 * global kprobes/enabled knob and debug.kprobes-optimization.  Each
 * function has five probe slots: two at its entry (a site of two probes;
 * on x86 an ftrace site), one in its body without a post_handler
 * (boosted, and optimized when the sysctl allows), one in its body with
 * a post_handler, and a kretprobe.  A slot's probe comes and goes, so
 * its site turns from lone probe to several probes and back.  Two more
 * functions live in a companion module, kprobetorture_mod, which a
 * script loads and unloads meanwhile: their probes are registered by
 * symbol and go [GONE] with the module's text, and the module's own
 * thread calls them while it is loaded.
 *
 * Every registration is audited when it ends, from counters alone:
 *  - lost: a call that began after the probe was armed and ended before
 *    it was disarmed must have been counted.  Per armed interval that is
 *    at least (calls finished at its end) - (calls begun at its start);
 *    for the companion's functions, only over intervals the module
 *    stayed loaded through.  A call that ran through a breakpoint memory
 *    held without its CPU trapping ran stale code: no kernel can catch
 *    that, only a faulty CPU or emulator does it (QEMU's multi-threaded
 *    TCG can keep a translation of text another vCPU just patched).
 *    Such calls are counted and reported ("stale"), and taken off the
 *    bound of the interval they ended in (which may also drop a call in
 *    flight when the interval opened: at most one per caller, and only
 *    on a machine that ran stale code).
 *  - invented: no more hits than calls that overlapped the registration:
 *    (calls begun after unregistration) - (calls finished before
 *    registration).
 *  - late: no handler may run once unregistration has returned.
 *  - post: every pre_handler run of the post slot is followed by one
 *    post_handler run.
 *  - wrong: every call returns its right value.
 * The verdict line "kprobetorture: verdict PASS|FAIL ..." is for the
 * harness (tools/testing/selftests/kprobes/torture.sh).
 *
 * A port may add functions of its own, built around instructions it
 * handles in its own way, and the functions its hit path calls, which
 * get probes too (struct kprobetorture_port; arm64 adds PC-relative
 * literal loads and its BRK handlers' callees).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/kprobes_hit.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/torture.h>

#include "kprobetorture.h"

static int duration = 30;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "Seconds to run before the verdict (0: until rmmod)");
static int callers_per_cpu = 1;
module_param(callers_per_cpu, int, 0444);
MODULE_PARM_DESC(callers_per_cpu, "Threads per CPU calling the probed functions");
static int churners = 2;
module_param(churners, int, 0444);
MODULE_PARM_DESC(churners, "Threads changing the probes");
static int flip_knobs = 1;
module_param(flip_knobs, int, 0444);
MODULE_PARM_DESC(flip_knobs, "Also flip kprobes/enabled and kprobes-optimization");
/*
 * Off by default, as the bridge itself is: with it, about one 20 s run in
 * six or eight on arm64 loses the hits of an ftrace site with two probes
 * for a while, not yet explained (kernel/kprobes/bridge.c).
 */
static int flip_bridge;
module_param(flip_bridge, int, 0444);
MODULE_PARM_DESC(flip_bridge, "Also flip kprobes.ftrace_bridge (with flip_knobs)");
static int check_post = 1;
module_param(check_post, int, 0444);
MODULE_PARM_DESC(check_post, "Fail on a pre_handler run without its post_handler run");
static int verbose;
module_param(verbose, int, 0444);
MODULE_PARM_DESC(verbose, "Log every churn action");

#define ENABLED_KNOB	"/sys/kernel/debug/kprobes/enabled"
#define OPT_KNOB	"/proc/sys/debug/kprobes-optimization"
#define BRIDGE_KNOB	"/sys/module/kprobes/parameters/ftrace_bridge"

/* --- the probed functions --- */

static int kpt_sink;

/* Each computes its own function of @x, touching memory on the way. */
static noinline int kpt_fn0(int x)
{
	WRITE_ONCE(kpt_sink, READ_ONCE(kpt_sink) + x);
	return x * 3 + 1;
}

static noinline int kpt_fn1(int x)
{
	WRITE_ONCE(kpt_sink, READ_ONCE(kpt_sink) ^ x);
	return x * 5 - 2;
}

static noinline int kpt_fn2(int x)
{
	WRITE_ONCE(kpt_sink, READ_ONCE(kpt_sink) - x);
	return x ^ 0x5a5a;
}

static noinline int kpt_fn3(int x)
{
	WRITE_ONCE(kpt_sink, READ_ONCE(kpt_sink) | x);
	return x + 17;
}

/* What the port adds, if anything (NULL: nothing). */
static const struct kprobetorture_port *port;
#define NR_FNS		4	/* the core's own functions */
#define NR_PORT_FNS	(port ? port->nr_fns : 0)

/* What kpt_fn<n>(@x) (the port's n - NR_FNS) must return, computed apart. */
static int kpt_expected(int n, int x)
{
	if (n >= NR_FNS)
		return port->expected[n - NR_FNS](x);
	switch (n) {
	case 0:
		return x * 3 + 1;
	case 1:
		return x * 5 - 2;
	case 2:
		return x ^ 0x5a5a;
	default:
		return x + 17;
	}
}

struct kpt_target {
	int (*fn)(int x);
	int nr;
	const char *name;
	kprobe_opcode_t *entry, *body;
	/* Where the entry probe's bridge breakpoint goes, if it can have one. */
	kprobe_opcode_t *bridge;
	/* The companion's: probed by symbol, body at this offset. */
	bool mod;
	unsigned long body_offset;
	/* Calls begun and calls finished. */
	atomic_long_t begun, finished;
	/* Calls that ran past a breakpoint at @body or @bridge untrapped. */
	atomic_long_t stale;
};

#define TARGET(n) { kpt_fn##n, n, "kpt_fn" #n }
#define NR_MOD_FNS	2
#define MAX_TARGETS	(NR_FNS + KPROBETORTURE_PORT_FNS + NR_MOD_FNS)
/* The core's, then the port's and the companion's (filled in at init). */
static struct kpt_target targets[MAX_TARGETS] = {
	TARGET(0), TARGET(1), TARGET(2), TARGET(3),
};

/* The callers' share: the companion calls its own. */
#define NR_CORE_TARGETS	(NR_FNS + NR_PORT_FNS)
#define NR_TARGETS	(NR_CORE_TARGETS + NR_MOD_FNS)

/*
 * Odd while the companion is loaded, bumped as it arrives and as it
 * leaves: an interval over which it did not change saw one load of it.
 */
static atomic_t mod_generation = ATOMIC_INIT(0);

/* --- probe slots --- */

enum kpt_kind { KPT_ENTRY, KPT_ENTRY_TWIN, KPT_BODY, KPT_BODY_POST, KPT_RET,
		NR_KINDS };
enum kpt_state { KPT_OFF, KPT_ON, KPT_DISABLED };

struct kpt_slot {
	struct mutex lock;		/* held across each change */
	struct kpt_target *t;
	enum kpt_kind kind;
	enum kpt_state state;
	struct kprobe kp;
	struct kretprobe rp;
	/* The registration being audited. */
	bool armed;			/* in an interval the lower bound covers */
	bool dead;			/* unregistration has returned */
	long interval_begun;		/* begun calls when the interval opened */
	long interval_stale;		/* stale calls then */
	int interval_gen;		/* mod_generation then */
	int reg_gen;			/* mod_generation at registration */
	long lower;			/* calls the probe must have seen so far */
	long finished_before;		/* finished calls before registering */
	atomic_long_t hits, posts;
};

#define NR_SLOTS	(NR_TARGETS * NR_KINDS)
static struct kpt_slot slots[MAX_TARGETS * NR_KINDS];

/*
 * Held for reading by every slot change, for writing while the global
 * knob is off: no interval can be open while probes are not armed.
 */
static DECLARE_RWSEM(world_lock);
static bool world_armed = true;

static atomic_long_t n_calls, n_wrong, n_late, n_lost, n_invented, n_post;
static atomic_long_t n_reg, n_unreg, n_batch, n_toggle, n_world, n_opt;
static atomic_long_t n_errors, n_optimized, n_ftrace, n_mod_absent;
static atomic_long_t n_mod_loads, n_stale, n_bridge_flips;
static atomic_long_t n_aux_reg, n_aux_refused, n_aux_hits, n_aux_calls;
/* What an armed breakpoint looks like in text (read off a live probe). */
static kprobe_opcode_t kpt_breakpoint;
static bool kpt_breakpoint_known;

static struct task_struct **caller_tasks, **churner_tasks, *supervisor_task;
static int nr_callers;
static atomic_t churners_active, callers_active;
static bool stop_churn, stop_calls;
static int opt_saved = -1, bridge_saved = -1;

static int pre_count(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_slot *s = container_of(kp, struct kpt_slot, kp);

	if (READ_ONCE(s->dead))
		atomic_long_inc(&n_late);
	atomic_long_inc(&s->hits);
	return 0;
}
NOKPROBE_SYMBOL(pre_count);

static void post_count(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	struct kpt_slot *s = container_of(kp, struct kpt_slot, kp);

	if (READ_ONCE(s->dead))
		atomic_long_inc(&n_late);
	atomic_long_inc(&s->posts);
}
NOKPROBE_SYMBOL(post_count);

static int ret_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kpt_slot *s = container_of(rp, struct kpt_slot, rp);

	if (READ_ONCE(s->dead))
		atomic_long_inc(&n_late);
	atomic_long_inc(&s->hits);
	return 0;
}
NOKPROBE_SYMBOL(ret_count);

static struct kprobe *slot_kprobe(struct kpt_slot *s)
{
	return s->kind == KPT_RET ? &s->rp.kp : &s->kp;
}

/* A companion function's probe: by symbol, whichever load it finds. */
static void slot_prepare_mod(struct kpt_slot *s)
{
	struct kprobe *kp = s->kind == KPT_RET ? &s->rp.kp : &s->kp;

	kp->symbol_name = s->t->name;
	if (s->kind == KPT_BODY || s->kind == KPT_BODY_POST)
		kp->offset = READ_ONCE(s->t->body_offset);
	if (s->kind == KPT_RET) {
		s->rp.handler = ret_count;
		s->rp.maxactive = 4;
		return;
	}
	kp->pre_handler = pre_count;
	if (s->kind == KPT_BODY_POST)
		kp->post_handler = post_count;
}

/* Start auditing a new registration of @s. */
static void slot_prepare(struct kpt_slot *s)
{
	struct kpt_target *t = s->t;

	memset(&s->kp, 0, sizeof(s->kp));
	memset(&s->rp, 0, sizeof(s->rp));
	if (t->mod) {
		slot_prepare_mod(s);
		goto counters;
	}
	switch (s->kind) {
	case KPT_ENTRY:
	case KPT_ENTRY_TWIN:
		s->kp.addr = t->entry;
		s->kp.pre_handler = pre_count;
		break;
	case KPT_BODY:
		s->kp.addr = t->body;
		s->kp.pre_handler = pre_count;
		break;
	case KPT_BODY_POST:
		s->kp.addr = t->body;
		s->kp.pre_handler = pre_count;
		s->kp.post_handler = post_count;
		break;
	case KPT_RET:
		s->rp.kp.addr = (kprobe_opcode_t *)t->fn;
		s->rp.handler = ret_count;
		s->rp.maxactive = 4 * num_possible_cpus() * callers_per_cpu;
		break;
	default:
		break;
	}
counters:
	atomic_long_set(&s->hits, 0);
	atomic_long_set(&s->posts, 0);
	s->lower = 0;
	s->armed = false;
	WRITE_ONCE(s->dead, false);
	s->finished_before = atomic_long_read(&t->finished);
}

static void interval_open(struct kpt_slot *s)
{
	/* A [GONE] probe's text went with its module: it sees no calls. */
	if (world_armed && s->state == KPT_ON && !kprobe_gone(slot_kprobe(s))) {
		s->interval_gen = atomic_read(&mod_generation);
		s->interval_stale = atomic_long_read(&s->t->stale);
		s->interval_begun = atomic_long_read(&s->t->begun);
		s->armed = true;
	}
}

static void interval_close(struct kpt_slot *s)
{
	long done;

	if (!s->armed)
		return;
	done = atomic_long_read(&s->t->finished) - s->interval_begun;
	done -= atomic_long_read(&s->t->stale) - s->interval_stale;
	s->armed = false;
	/* The companion came or went: its probe may have gone with it. */
	if (s->t->mod && (atomic_read(&mod_generation) != s->interval_gen ||
			  !(s->interval_gen & 1)))
		return;
	if (done > 0)
		s->lower += done;
}

/* The registration of @s is over (unregistration returned): audit it. */
static void slot_audit(struct kpt_slot *s)
{
	struct kprobe *kp = slot_kprobe(s);
	long hits, missed, most;

	WRITE_ONCE(s->dead, true);
	most = atomic_long_read(&s->t->begun) - s->finished_before;
	hits = atomic_long_read(&s->hits);
	missed = kp->nmissed + (s->kind == KPT_RET ? s->rp.nmissed : 0);
	if (hits + missed < s->lower) {
		atomic_long_add(s->lower - hits - missed, &n_lost);
		pr_err("%s slot %d: %ld hits (%ld missed), at least %ld calls ran under it (at %pS, flags %#x, module generation %d..%d)\n",
		       s->t->name, s->kind, hits, missed, s->lower, kp->addr,
		       kp->flags, s->reg_gen, atomic_read(&mod_generation));
	}
	if (hits > most) {
		atomic_long_add(hits - most, &n_invented);
		pr_err("%s slot %d: %ld hits, at most %ld calls overlapped it\n",
		       s->t->name, s->kind, hits, most);
	}
	if (s->kind == KPT_BODY_POST &&
	    atomic_long_read(&s->posts) != hits) {
		atomic_long_inc(&n_post);
		pr_err("%s: %ld pre_handler runs, %ld post_handler runs\n",
		       s->t->name, hits, atomic_long_read(&s->posts));
	}
	s->state = KPT_OFF;
	atomic_long_inc(&n_unreg);
}

/* Record what the probe became while it lived. */
static void slot_observe(struct kpt_slot *s)
{
	struct kprobe *kp = slot_kprobe(s);

	if (kp->flags & KPROBE_FLAG_OPTIMIZED)
		atomic_long_inc(&n_optimized);
	if (kp->flags & KPROBE_FLAG_FTRACE)
		atomic_long_inc(&n_ftrace);
}

static void slot_registered(struct kpt_slot *s)
{
	s->reg_gen = atomic_read(&mod_generation);
	s->state = KPT_ON;
	atomic_long_inc(&n_reg);
	interval_open(s);
}

static int slot_register(struct kpt_slot *s)
{
	int ret;

	slot_prepare(s);
	if (s->kind == KPT_RET)
		ret = register_kretprobe(&s->rp);
	else
		ret = register_kprobe(&s->kp);
	/*
	 * The companion is not loaded, or on its way in or out; or it went
	 * between the symbol's lookup and the check of the text there, and
	 * other code now sits at the address (-EILSEQ: not an instruction
	 * start of what is there now).
	 */
	if (s->t->mod && (ret == -ENOENT || ret == -EINVAL || ret == -EILSEQ)) {
		atomic_long_inc(&n_mod_absent);
		return ret;
	}
	if (ret) {
		atomic_long_inc(&n_errors);
		pr_err("%s slot %d: registration failed: %d\n", s->t->name,
		       s->kind, ret);
		return ret;
	}
	slot_registered(s);
	return 0;
}

static void slot_unregister(struct kpt_slot *s)
{
	interval_close(s);
	slot_observe(s);
	if (s->kind == KPT_RET)
		unregister_kretprobe(&s->rp);
	else
		unregister_kprobe(&s->kp);
	slot_audit(s);
}

static void slot_toggle(struct kpt_slot *s)
{
	int ret;

	if (s->state == KPT_ON) {
		interval_close(s);
		ret = disable_kprobe(slot_kprobe(s));
		s->state = KPT_DISABLED;
	} else {
		ret = enable_kprobe(slot_kprobe(s));
		if (!ret) {
			s->state = KPT_ON;
			interval_open(s);
		}
	}
	/* A [GONE] probe cannot be enabled: its text went away. */
	if (ret && !(s->t->mod && ret == -EINVAL &&
		     kprobe_gone(slot_kprobe(s)))) {
		atomic_long_inc(&n_errors);
		pr_err("%s slot %d: enable/disable failed: %d\n", s->t->name,
		       s->kind, ret);
	}
	atomic_long_inc(&n_toggle);
}

/* --- the churn --- */

#define BATCH_MAX	4

/* Register or unregister up to BATCH_MAX kprobe slots as one batch. */
static void churn_batch(struct torture_random_state *rnd, bool add)
{
	struct kpt_slot *picked[BATCH_MAX];
	struct kprobe *kps[BATCH_MAX];
	int n = 0, tries, i, ret;

	for (tries = 0; tries < 4 * BATCH_MAX && n < BATCH_MAX; tries++) {
		struct kpt_slot *s = &slots[torture_random(rnd) % NR_SLOTS];

		/* The companion's may fail for being away: not in batches. */
		if (s->kind == KPT_RET || s->t->mod || !mutex_trylock(&s->lock))
			continue;
		for (i = 0; i < n && picked[i] != s; i++)
			;
		if (i < n || (add ? s->state != KPT_OFF : s->state == KPT_OFF)) {
			if (i == n)
				mutex_unlock(&s->lock);
			continue;
		}
		picked[n++] = s;
	}
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		if (add)
			slot_prepare(picked[i]);
		else
			interval_close(picked[i]);
		kps[i] = &picked[i]->kp;
	}
	if (add) {
		ret = register_kprobes(kps, n);
		if (ret) {
			atomic_long_inc(&n_errors);
			pr_err("batch of %d: registration failed: %d\n", n, ret);
		}
		for (i = 0; !ret && i < n; i++)
			slot_registered(picked[i]);
	} else {
		for (i = 0; i < n; i++)
			slot_observe(picked[i]);
		unregister_kprobes(kps, n);
		for (i = 0; i < n; i++)
			slot_audit(picked[i]);
	}
	for (i = 0; i < n; i++)
		mutex_unlock(&picked[i]->lock);
	atomic_long_inc(&n_batch);
}

static void churn_one(struct torture_random_state *rnd)
{
	struct kpt_slot *s = &slots[torture_random(rnd) % NR_SLOTS];

	mutex_lock(&s->lock);
	if (s->state == KPT_OFF)
		slot_register(s);
	else if (torture_random(rnd) % 3 == 0)
		slot_toggle(s);
	else
		slot_unregister(s);
	mutex_unlock(&s->lock);
}

static int write_knob(const char *path, const char *val)
{
	struct file *f = filp_open(path, O_WRONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, val, strlen(val), &pos);
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

/* 1 for a knob holding "1" or "Y", 0 for anything else, or an errno. */
static int read_knob(const char *path)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	char buf[4] = {};
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	return n > 0 && (buf[0] == '1' || buf[0] == 'Y');
}

/*
 * Turn every probe off with the global knob for a moment.  No slot may
 * change meanwhile, and every open interval closes first: the probes do
 * not fire while the knob is off.
 */
static void churn_world(struct torture_random_state *rnd)
{
	int i;

	down_write(&world_lock);
	for (i = 0; i < NR_SLOTS; i++)
		interval_close(&slots[i]);
	if (write_knob(ENABLED_KNOB, "0")) {
		/* No debugfs: the knob cannot be flipped, nothing changed. */
		for (i = 0; i < NR_SLOTS; i++)
			interval_open(&slots[i]);
		up_write(&world_lock);
		return;
	}
	world_armed = false;
	up_write(&world_lock);

	torture_hrtimeout_us(500, 1000000, rnd);

	down_write(&world_lock);
	if (write_knob(ENABLED_KNOB, "1")) {
		atomic_long_inc(&n_errors);
		pr_err("cannot turn kprobes/enabled back on\n");
	}
	world_armed = true;
	for (i = 0; i < NR_SLOTS; i++)
		interval_open(&slots[i]);
	up_write(&world_lock);
	atomic_long_inc(&n_world);
}

static void churn_optimization(struct torture_random_state *rnd)
{
	if (opt_saved < 0)
		return;
	if (!write_knob(OPT_KNOB, torture_random(rnd) % 2 ? "1" : "0"))
		atomic_long_inc(&n_opt);
}

/*
 * The bridge knob only changes how later lone registrations on ftrace
 * sites are armed (a breakpoint first, or ftrace at once), so no
 * interval needs closing.  Y/N: the kernel's bool parameter reads so.
 */
static void churn_bridge(struct torture_random_state *rnd)
{
	if (!flip_bridge || bridge_saved < 0)
		return;
	if (!write_knob(BRIDGE_KNOB, torture_random(rnd) % 2 ? "Y" : "N"))
		atomic_long_inc(&n_bridge_flips);
}

static void churn_aux(struct torture_random_state *rnd);

static int churner(void *arg)
{
	struct torture_random_state rnd;
	unsigned long r;

	torture_random_init(&rnd);
	/* Differ from the other churners: torture_random seeds by CPU. */
	rnd.trs_state += (unsigned long)arg * 7919;
	atomic_inc(&churners_active);
	while (!READ_ONCE(stop_churn) && !torture_must_stop()) {
		r = torture_random(&rnd) % 100;
		if (flip_knobs && r < 2) {
			churn_world(&rnd);
		} else if (flip_knobs && r < 5) {
			churn_optimization(&rnd);
		} else if (flip_knobs && r < 7) {
			churn_bridge(&rnd);
		} else {
			down_read(&world_lock);
			if (r < 20)
				churn_batch(&rnd, r % 2);
			else if (r < 25)
				churn_aux(&rnd);
			else
				churn_one(&rnd);
			up_read(&world_lock);
		}
		if (verbose)
			pr_info("churn thread %lu: action %lu\n", (unsigned long)arg, r);
		torture_hrtimeout_us(100, 400000, &rnd);
	}
	atomic_dec(&churners_active);
	torture_kthread_stopping("kpt_churner");
	return 0;
}

/* --- the callers --- */

/*
 * Where a bridge breakpoint (kernel/kprobes/bridge.c) of an entry probe
 * goes: the word before the ftrace site.  Learnt off the core's
 * functions, and for the companion's, which are built alike, as the
 * same offset from the function: 0 when there is none.
 */
static unsigned long kpt_bridge_offset;

static kprobe_opcode_t *bridge_word(void *fn)
{
	unsigned long off = READ_ONCE(kpt_bridge_offset);

	return off ? fn + off : NULL;
}

static bool planted(const kprobe_opcode_t *word)
{
	return word && READ_ONCE(*word) == kpt_breakpoint;
}

/*
 * One counted call of @t.  If a breakpoint at @body or @bridge was in
 * memory when the call began and when it ended, yet this CPU took no
 * breakpoint trap in between, the CPU ran code other than what memory
 * held: the call is counted as stale (see "lost" above).  Preemption
 * stays off so that both trap counts are this CPU's; an interrupt's
 * traps only make the test miss a stale call, never invent one.
 */
static int kpt_call(struct kpt_target *t, int (*fn)(int x), int x,
		    const kprobe_opcode_t *body, const kprobe_opcode_t *bridge)
{
	bool in_body, in_bridge;
	unsigned long traps;
	int r;

	atomic_long_inc(&t->begun);
	preempt_disable();
	in_body = kpt_breakpoint_known && planted(body);
	in_bridge = kpt_breakpoint_known && planted(bridge);
	traps = this_cpu_read(kprobe_traps_taken);
	r = fn(x);
	if (traps == this_cpu_read(kprobe_traps_taken) &&
	    ((in_body && planted(body)) || (in_bridge && planted(bridge)))) {
		/* Before the call is seen finished: see interval_close(). */
		atomic_long_inc(&t->stale);
		atomic_long_inc(&n_stale);
	}
	preempt_enable();
	atomic_long_inc(&t->finished);
	atomic_long_inc(&n_calls);
	return r;
}

static int caller(void *arg)
{
	struct torture_random_state rnd;
	unsigned long i = 0;
	int x, r;

	torture_random_init(&rnd);
	atomic_inc(&callers_active);
	while (!READ_ONCE(stop_calls) && !torture_must_stop()) {
		struct kpt_target *t = &targets[torture_random(&rnd) % NR_CORE_TARGETS];
		int (*fn)(int x) = t->fn;

		OPTIMIZER_HIDE_VAR(fn);
		x = torture_random(&rnd) & 0xffff;
		r = kpt_call(t, fn, x, t->body, t->bridge);
		if (r != kpt_expected(t->nr, x))
			atomic_long_inc(&n_wrong);
		if (!(++i % 64))
			cond_resched_tasks_rcu_qs();
	}
	atomic_dec(&callers_active);
	torture_kthread_stopping("kpt_caller");
	return 0;
}

/* --- probes on what the port's hit path calls --- */

#define NR_AUX		(port ? port->nr_aux : 0)

struct kpt_aux {
	struct mutex lock;		/* held across each change */
	struct kprobe kp;
	bool on;
	bool dead;			/* unregistration has returned */
	long accepted, refused;
	atomic_long_t hits;
};

static struct kpt_aux aux[KPROBETORTURE_PORT_AUX];

/*
 * Counts, and now and then calls one of the port's functions: a probe on
 * it is then hit inside this one's hit.
 */
static int aux_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpt_aux *a = container_of(kp, struct kpt_aux, kp);
	struct kpt_target *t;
	int x;

	if (READ_ONCE(a->dead))
		atomic_long_inc(&n_late);
	x = atomic_long_inc_return(&a->hits);
	atomic_long_inc(&n_aux_hits);
	if (!NR_PORT_FNS || x % 4)
		return 0;
	t = &targets[NR_FNS + (x / 4) % NR_PORT_FNS];
	x &= 0xffff;
	if (kpt_call(t, t->fn, x, t->body, t->bridge) != kpt_expected(t->nr, x))
		atomic_long_inc(&n_wrong);
	atomic_long_inc(&n_aux_calls);
	return 0;
}
NOKPROBE_SYMBOL(aux_pre);

static void aux_unregister(struct kpt_aux *a)
{
	unregister_kprobe(&a->kp);
	WRITE_ONCE(a->dead, true);
	a->on = false;
}

static void churn_aux(struct torture_random_state *rnd)
{
	struct kpt_aux *a;
	int i, ret;

	if (!NR_AUX)
		return;
	i = torture_random(rnd) % NR_AUX;
	a = &aux[i];
	mutex_lock(&a->lock);
	if (a->on) {
		aux_unregister(a);
		goto out;
	}
	memset(&a->kp, 0, sizeof(a->kp));
	a->kp.symbol_name = port->aux_symbols[i];
	a->kp.pre_handler = aux_pre;
	WRITE_ONCE(a->dead, false);
	ret = register_kprobe(&a->kp);
	if (!ret) {
		a->on = true;
		a->accepted++;
		atomic_long_inc(&n_aux_reg);
	} else if (ret == -EINVAL || ret == -ENOENT) {
		/* Refused (on the kprobes blacklist), or not a function. */
		WRITE_ONCE(a->dead, true);
		a->refused++;
		atomic_long_inc(&n_aux_refused);
	} else {
		WRITE_ONCE(a->dead, true);
		atomic_long_inc(&n_errors);
		pr_err("%s: registration failed: %d\n", port->aux_symbols[i],
		       ret);
	}
out:
	mutex_unlock(&a->lock);
}

static void aux_unregister_all(void)
{
	int i;

	for (i = 0; i < NR_AUX; i++) {
		mutex_lock(&aux[i].lock);
		if (aux[i].on)
			aux_unregister(&aux[i]);
		if (aux[i].accepted || aux[i].refused)
			pr_info("%s: probe accepted %ld refused %ld hits %ld\n",
				port->aux_symbols[i], aux[i].accepted,
				aux[i].refused, atomic_long_read(&aux[i].hits));
		mutex_unlock(&aux[i].lock);
	}
}

/* --- the companion module --- */

/**
 * kprobetorture_mod_arrive() - the companion module is loaded
 * @body_offsets: where in each of its functions a body probe goes
 * @n: how many functions it has
 */
void kprobetorture_mod_arrive(const unsigned long *body_offsets, int n)
{
	int i;

	for (i = 0; i < n && NR_CORE_TARGETS + i < NR_TARGETS; i++)
		WRITE_ONCE(targets[NR_CORE_TARGETS + i].body_offset,
			   body_offsets[i]);
	atomic_long_inc(&n_mod_loads);
	atomic_inc(&mod_generation);
}
EXPORT_SYMBOL_GPL(kprobetorture_mod_arrive);

/** kprobetorture_mod_leave() - the companion module is going, its calls over */
void kprobetorture_mod_leave(void)
{
	atomic_inc(&mod_generation);
}
EXPORT_SYMBOL_GPL(kprobetorture_mod_leave);

/**
 * kprobetorture_mod_call() - call one of the companion's functions, counted
 * @nr: which
 * @fn: the function
 * @x: its argument
 *
 * Return: what @fn returned.
 */
int kprobetorture_mod_call(int nr, int (*fn)(int x), int x)
{
	struct kpt_target *t;

	if (WARN_ON_ONCE(nr < 0 || NR_CORE_TARGETS + nr >= NR_TARGETS))
		return fn(x);
	t = &targets[NR_CORE_TARGETS + nr];
	/* The probe's own address: its offset counts bytes. */
	return kpt_call(t, fn, x, READ_ONCE(t->body_offset) ?
			(void *)fn + READ_ONCE(t->body_offset) : NULL,
			bridge_word(fn));
}
EXPORT_SYMBOL_GPL(kprobetorture_mod_call);

/** kprobetorture_mod_wrong() - a companion function returned a wrong value */
void kprobetorture_mod_wrong(void)
{
	atomic_long_inc(&n_wrong);
}
EXPORT_SYMBOL_GPL(kprobetorture_mod_wrong);

/* --- setup, verdict, teardown --- */

static void wait_inactive(atomic_t *active)
{
	while (atomic_read(active))
		schedule_timeout_uninterruptible(1);
}

static void print_verdict(void)
{
	long bad = atomic_long_read(&n_wrong) + atomic_long_read(&n_late) +
		   atomic_long_read(&n_lost) + atomic_long_read(&n_invented) +
		   atomic_long_read(&n_errors);

	if (check_post)
		bad += atomic_long_read(&n_post);

	pr_info("calls %ld registrations %ld unregistrations %ld batches %ld toggles %ld knob-flips %ld opt-flips %ld optimized %ld ftrace %ld module-loads %ld module-absent %ld bridge-flips %ld\n",
		atomic_long_read(&n_calls), atomic_long_read(&n_reg),
		atomic_long_read(&n_unreg), atomic_long_read(&n_batch),
		atomic_long_read(&n_toggle), atomic_long_read(&n_world),
		atomic_long_read(&n_opt), atomic_long_read(&n_optimized),
		atomic_long_read(&n_ftrace), atomic_long_read(&n_mod_loads),
		atomic_long_read(&n_mod_absent), atomic_long_read(&n_bridge_flips));
	if (NR_AUX)
		pr_info("hit-path probes: accepted %ld refused %ld hits %ld calls from their handlers %ld\n",
			atomic_long_read(&n_aux_reg),
			atomic_long_read(&n_aux_refused),
			atomic_long_read(&n_aux_hits),
			atomic_long_read(&n_aux_calls));
	if (atomic_long_read(&n_stale))
		pr_warn("%ld calls ran through a breakpoint in memory without trapping: this CPU or emulator ran stale text (not counted as lost)\n",
			atomic_long_read(&n_stale));
	pr_info("verdict %s lost %ld invented %ld late %ld post %ld wrong %ld errors %ld\n",
		bad ? "FAIL" : "PASS", atomic_long_read(&n_lost),
		atomic_long_read(&n_invented), atomic_long_read(&n_late),
		atomic_long_read(&n_post), atomic_long_read(&n_wrong),
		atomic_long_read(&n_errors));
}

/* Ends the run after @duration: churn stops, every probe goes, then calls. */
static int supervisor(void *arg)
{
	unsigned long end = jiffies + duration * HZ;
	int i;

	while (!torture_must_stop() && (!duration || time_before(jiffies, end)))
		schedule_timeout_interruptible(HZ / 10);
	WRITE_ONCE(stop_churn, true);
	wait_inactive(&churners_active);
	aux_unregister_all();
	if (opt_saved >= 0)
		write_knob(OPT_KNOB, opt_saved ? "1" : "0");
	if (bridge_saved >= 0)
		write_knob(BRIDGE_KNOB, bridge_saved ? "Y" : "N");
	/* Probes leave while the callers still run through them. */
	down_read(&world_lock);
	for (i = 0; i < NR_SLOTS; i++) {
		mutex_lock(&slots[i].lock);
		if (slots[i].state != KPT_OFF)
			slot_unregister(&slots[i]);
		mutex_unlock(&slots[i].lock);
	}
	up_read(&world_lock);
	WRITE_ONCE(stop_calls, true);
	wait_inactive(&callers_active);
	print_verdict();
	torture_kthread_stopping("kpt_supervisor");
	return 0;
}

/*
 * Read what an armed breakpoint looks like off @kp, just registered on
 * @t's body, and check that a call through it counts a trap on this CPU:
 * without that, every call would look stale (see kpt_call()).
 */
static void learn_breakpoint(struct kpt_target *t, struct kprobe *kp)
{
	kprobe_opcode_t insn = READ_ONCE(*kp->addr);
	unsigned long traps;

	preempt_disable();
	traps = this_cpu_read(kprobe_traps_taken);
	t->fn(1);
	traps = this_cpu_read(kprobe_traps_taken) - traps;
	preempt_enable();
	if (!traps || READ_ONCE(*kp->addr) != insn) {
		atomic_long_inc(&n_errors);
		pr_err("a call through the probe at %pS counted %lu traps: stale calls will not be told apart\n",
		       kp->addr, traps);
		return;
	}
	kpt_breakpoint = insn;
	kpt_breakpoint_known = true;
}

/* May @addr, inside @t, hold its body probe?  The port says for its own. */
static bool body_candidate(struct kpt_target *t, kprobe_opcode_t *addr,
			   int *state)
{
	if (t->nr < NR_FNS || !port->body_candidate)
		return true;
	return port->body_candidate(t->nr - NR_FNS, addr, state);
}

/* Where each function's entry and body probes go. */
static int find_addresses(struct kpt_target *t)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)t->fn };
	unsigned long off;
	int ret, state = 0;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	t->entry = kp.addr;	/* past a landing pad where there is one */
	if (IS_ENABLED(CONFIG_KPROBES_FTRACE_BRIDGE) && kprobe_ftrace(&kp)) {
		t->bridge = kp.addr - 1;
		if (t->nr < NR_FNS)
			kpt_bridge_offset = (void *)t->bridge - (void *)t->fn;
	}
	unregister_kprobe(&kp);
	body_candidate(t, t->entry, &state);
	for (off = 1; off < 64; off++) {
		if (!body_candidate(t, t->entry + off, &state))
			continue;
		memset(&kp, 0, sizeof(kp));
		kp.addr = t->entry + off;
		if (register_kprobe(&kp))
			continue;
		/* Armed by now; only a jump optimization comes later. */
		if (!kpt_breakpoint_known)
			learn_breakpoint(t, &kp);
		unregister_kprobe(&kp);
		t->body = t->entry + off;
		return 0;
	}
	return -ENOENT;
}

static void kprobetorture_cleanup(void)
{
	int i;

	if (torture_cleanup_begin())
		return;
	torture_stop_kthread(kpt_supervisor, supervisor_task);
	for (i = 0; churner_tasks && i < churners; i++)
		torture_stop_kthread(kpt_churner, churner_tasks[i]);
	for (i = 0; caller_tasks && i < nr_callers; i++)
		torture_stop_kthread(kpt_caller, caller_tasks[i]);
	kfree(churner_tasks);
	kfree(caller_tasks);
	/* The supervisor took every probe out unless it never started. */
	for (i = 0; i < NR_AUX; i++)
		if (aux[i].on)
			aux_unregister(&aux[i]);
	for (i = 0; i < NR_SLOTS; i++)
		if (slots[i].state != KPT_OFF)
			slot_unregister(&slots[i]);
	torture_cleanup_end();
}

static const char * const mod_names[NR_MOD_FNS] = { "kptm_fn0", "kptm_fn1" };

/* Take what the port adds, if anything, and lay out the targets. */
static int port_take(void)
{
	struct kpt_target *t;
	int i;

	port = symbol_get(kprobetorture_port);
	if (port && (port->nr_fns > KPROBETORTURE_PORT_FNS ||
		     port->nr_aux > KPROBETORTURE_PORT_AUX)) {
		pr_err("the port adds more than this module has room for\n");
		return -EINVAL;
	}
	for (i = 0; i < NR_PORT_FNS; i++) {
		t = &targets[NR_FNS + i];
		t->fn = port->fns[i];
		t->nr = NR_FNS + i;
		t->name = port->names[i];
	}
	for (i = 0; i < NR_MOD_FNS; i++) {
		t = &targets[NR_CORE_TARGETS + i];
		t->nr = i;
		t->mod = true;
		t->name = mod_names[i];
	}
	return 0;
}

static void port_put(void)
{
	if (port)
		symbol_put(kprobetorture_port);
	port = NULL;
}

static int __init kprobetorture_init(void)
{
	int i, ret;

	if (!torture_init_begin("kprobetorture", verbose))
		return -EBUSY;
	ret = port_take();
	if (ret)
		goto fail;
	for (i = 0; i < NR_CORE_TARGETS; i++) {
		ret = find_addresses(&targets[i]);
		if (ret) {
			pr_err("%s: no probe addresses: %d\n", targets[i].name, ret);
			goto fail;
		}
	}
	for (i = 0; i < NR_AUX; i++) {
		mutex_init(&aux[i].lock);
		aux[i].dead = true;
	}
	for (i = 0; i < NR_SLOTS; i++) {
		mutex_init(&slots[i].lock);
		slots[i].t = &targets[i / NR_KINDS];
		slots[i].kind = i % NR_KINDS;
	}
	/* Put back at the end; -1 when there is no such knob. */
	opt_saved = read_knob(OPT_KNOB);
	bridge_saved = read_knob(BRIDGE_KNOB);

	nr_callers = max(1, callers_per_cpu) * num_online_cpus();
	caller_tasks = kcalloc(nr_callers, sizeof(*caller_tasks), GFP_KERNEL);
	churner_tasks = kcalloc(max(1, churners), sizeof(*churner_tasks),
				GFP_KERNEL);
	ret = -ENOMEM;
	if (!caller_tasks || !churner_tasks)
		goto fail;
	for (i = 0; i < nr_callers; i++) {
		ret = torture_create_kthread(caller, NULL, caller_tasks[i]);
		if (ret)
			goto fail;
	}
	for (i = 0; i < churners; i++) {
		ret = torture_create_kthread(churner, (void *)(unsigned long)i,
					     churner_tasks[i]);
		if (ret)
			goto fail;
	}
	ret = torture_create_kthread(supervisor, NULL, supervisor_task);
	if (ret)
		goto fail;
	pr_info("%d callers, %d churners, %d s\n", nr_callers, churners, duration);
	torture_init_end();
	return 0;
fail:
	torture_init_end();
	kprobetorture_cleanup();
	port_put();
	return ret;
}

static void __exit kprobetorture_exit(void)
{
	kprobetorture_cleanup();
	port_put();
}

module_init(kprobetorture_init);
module_exit(kprobetorture_exit);
MODULE_DESCRIPTION("kprobes torture test");
MODULE_LICENSE("GPL");
