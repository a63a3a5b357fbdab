// SPDX-License-Identifier: GPL-2.0
/*
 * uprobetorture_pid: process probes (struct pid_uprobe, struct
 * pid_uretprobe) that come and go on a busy program, beside the
 * uprobetorture module's file consumers on the same functions
 * (uprobe_torture.sh loads both on one uprobe_torture_target).
 *
 * Parameters: the process (pid), the user address of its counters
 * (counters: begun[n], finished[n], then the pid of its latest child,
 * one u64 each) and the virtual addresses of its probed functions
 * (vaddrs, in counter order).  Four kinds of probe slot:
 *
 *  - the driver: an entry probe on function 0, registered for the whole
 *    run; its handler is where most of the calls from handlers are made;
 *  - churned slots (an entry and a return probe per function):
 *    registered and unregistered by churner threads, in process context;
 *  - handler slots (an entry and a return probe per function): registered
 *    and unregistered only from handlers (any slot's on the target acts,
 *    this one's own included), and unregistered from process context by
 *    the churners, which cancels a queued call or waits for it.  Now and
 *    then a churner opens a round: the next hits of the target's threads,
 *    one per thread, all make the same call (register, unregister, or
 *    register then unregister) on the same slot at once;
 *  - child slots: churned, on the target's latest child, which calls the
 *    functions a while and then exits or execs the program anew.
 *
 * Every registration is audited from the counters of the process it
 * probes, read at its edges (in process context through the mm, in
 * handlers and registration callbacks from the thread's own memory):
 *  - lost: a call that began after the registration completed and
 *    finished before its unregistration started must have been seen;
 *  - invented: a hit in another process (a forked child, an exec'ed one)
 *    or another mm, or more hits than calls that overlapped the
 *    registration;
 *  - late: a handler or a registration callback that runs after the
 *    unregistration that covers it returned;
 *  - errors: a call answered with what the API does not allow (a
 *    registration from a handler is -EINPROGRESS or -EBUSY, a callback
 *    reports the registration's result, never more callbacks than
 *    queued calls, callbacks of the right kind), or a registered probe
 *    has no breakpoint in its process.
 * Calls an emulator ran on stale text are told from lost hits as in
 * uprobetorture: kprobes count each slot's traps in its process and
 * the engine's removals there, and calls under a registration that
 * cannot have trapped, with the breakpoint checked in place when it
 * armed and never taken out until it disarmed, are reported as stale.
 * The last lines are "uprobetorture_pid: registrations ..." and
 * "uprobetorture_pid: verdict PASS|FAIL lost N invented N late N
 * errors N".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>

#define PT_MAX_FUNCS	8
#define PT_MAX_CHURNERS	8
#define PT_NO_VALUE	U64_MAX		/* a counter that could not be read */

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "The target process");
static ulong counters;
module_param(counters, ulong, 0444);
MODULE_PARM_DESC(counters, "User address of begun[n], finished[n], last child (u64)");
static ulong vaddrs[PT_MAX_FUNCS];
static int nr_funcs;
module_param_array(vaddrs, ulong, &nr_funcs, 0444);
MODULE_PARM_DESC(vaddrs, "Virtual addresses of the probed functions, in counter order");
static int duration = 20;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "Seconds to churn before the verdict");
static int churners = 2;
module_param(churners, int, 0444);
MODULE_PARM_DESC(churners, "Threads registering and unregistering in process context");
static int act_every = 512;
module_param(act_every, int, 0444);
MODULE_PARM_DESC(act_every, "A handler makes a call on about one hit in this many");
static int verbose;
module_param(verbose, int, 0444);
MODULE_PARM_DESC(verbose, "Log every registration's audit");

enum pt_class { PT_DRIVER, PT_CHURNED, PT_HANDLER, PT_CHILD };
enum pt_op { PT_OP_REG, PT_OP_UNREG, PT_OP_BOTH, PT_NR_OPS };

/*
 * The record of one registration, written by whoever starts it and read
 * by whoever ends it, under the slot's rec_lock for the handler slots
 * (a handler can start one while a churner ends the one before).
 */
struct pt_record {
	u64 finished_before;	/* before the registration started */
	u64 begun_armed;	/* after it completed */
	long traps_armed;	/* the slot's traps, before begun_armed */
	long removals_armed;	/* the engine's removals there, then */
	unsigned int armed_seq;	/* the registration begun_armed is of */
	unsigned long armed_at;	/* jiffies then */
};

struct pt_slot {
	struct pid_uretprobe rp;	/* rp.u alone for an entry probe */
	enum pt_class cls;
	bool ret;
	int func;
	int nr;
	struct mutex lock;		/* churned and child: each change */
	spinlock_t rec_lock;
	/*
	 * (sequence << 1) | alive: alive from before a registration can
	 * arm the probe to after its unregistration returned; the
	 * sequence tells one registration from the next.
	 */
	atomic_t life;
	pid_t pid;			/* the process probed */
	struct mm_struct *mm;		/* its mm then (mmgrab()ed), or NULL */
	bool mm_sure;			/* the probe can only be in @mm */
	bool registered;		/* churned and child: as far as we know */
	struct pt_record rec;
	atomic64_t finished_disarm;	/* least read before unregistering */
	/* The least traps and removals counted after such a read. */
	atomic64_t traps_disarm, removals_disarm;
	/* Traps at the probe in its process, and removals of it there. */
	atomic_long_t traps, removals;
	atomic_long_t hits, other_image;
	atomic_long_t queued, cb_reg, cb_unreg;
	/* Whether a process-context unregistration saw the breakpoint. */
	int diag_bp;
	unsigned long last_hit;		/* jiffies */
};

#define PT_KINDS	2		/* entry, return */
#define PT_MAX_SLOTS	(1 + 2 * PT_KINDS * PT_MAX_FUNCS + 2)
static struct pt_slot slots[PT_MAX_SLOTS];
static int nr_slots;
static struct pt_slot *driver;
static struct pt_slot *handler_slots[PT_KINDS * PT_MAX_FUNCS];
static int nr_handler_slots;
static struct pt_slot *churned_slots[PT_KINDS * PT_MAX_FUNCS + 2];
static int nr_churned_slots;	/* the child slots included */

static struct mm_struct *target_mm;	/* mmgrab()ed */
static atomic_t target_gone;
/* Handlers make no more calls; then every callback is late. */
static bool stop_acting, all_done;

/* A round: the next hits of several threads all make one call. */
static atomic_t round_left;
static struct pt_slot *round_slot;
static int round_op;

static atomic_long_t n_lost, n_invented, n_late, n_errors;
static atomic_long_t n_reg, n_unreg, n_hits, n_queued, n_busy, n_callbacks;
static atomic_long_t n_rounds, n_pc_cancel, n_child_reg, n_child_gone;
static atomic_long_t n_other_image, n_acts, n_stale;
static int target_threads;
/* The file's bytes at each function (read_orig_text()). */
static uprobe_opcode_t orig_text[PT_MAX_FUNCS];
static bool counting_direct;

static struct task_struct *churner_tasks[PT_MAX_CHURNERS];
static struct task_struct *supervisor_task;
static int nr_churners;

#define pt_err(fmt, ...)	pr_err_ratelimited(fmt, ##__VA_ARGS__)

/* --- counters --- */

enum { PT_BEGUN, PT_FINISHED };

/* One counter of @func in @mm, from any process context. */
static u64 read_mm_counter(struct mm_struct *mm, int which, int func)
{
	unsigned long addr = counters + (which * nr_funcs + func) * sizeof(u64);
	struct page *page;
	u64 v = PT_NO_VALUE;
	void *kaddr;

	if (!mm || !mmget_not_zero(mm))
		return PT_NO_VALUE;
	mmap_read_lock(mm);
	if (get_user_pages_remote(mm, addr & PAGE_MASK, 1, 0, &page,
				  NULL) == 1) {
		kaddr = kmap_local_page(page);
		v = READ_ONCE(*(u64 *)(kaddr + offset_in_page(addr)));
		kunmap_local(kaddr);
		put_page(page);
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return v;
}

/*
 * Is a probe's entry at function @func of @mm (NULL: the current one):
 * a breakpoint, or what a port's direct entry wrote in its place (x86's
 * jump on a 5-byte nop), anything but the file's bytes?  1, 0, or
 * -EFAULT when it cannot be read.
 */
static int breakpoint_in(struct mm_struct *mm, int func)
{
	unsigned long vaddr = vaddrs[func];
	uprobe_opcode_t cur;
	struct page *page;
	void *kaddr;
	int ret = -EFAULT;

	if (!mm) {
		if (copy_from_user(&cur, (void __user *)vaddr, sizeof(cur)))
			return -EFAULT;
		return !!memcmp(&cur, &orig_text[func], sizeof(cur));
	}
	if (!mmget_not_zero(mm))
		return -EFAULT;
	mmap_read_lock(mm);
	if (get_user_pages_remote(mm, vaddr & PAGE_MASK, 1, FOLL_FORCE, &page,
				  NULL) == 1) {
		kaddr = kmap_local_page(page);
		ret = !!memcmp(kaddr + offset_in_page(vaddr), &orig_text[func],
			       sizeof(cur));
		kunmap_local(kaddr);
		put_page(page);
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return ret;
}

/*
 * The file's bytes at each function, read through the target's mapping
 * of it: what the target runs where no probe changed its copy.
 */
static int read_orig_text(void)
{
	struct vm_area_struct *vma;
	struct file *f;
	int i, ret = 0;
	loff_t pos;

	for (i = 0; i < nr_funcs && !ret; i++) {
		f = NULL;
		if (!mmget_not_zero(target_mm))
			return -ESRCH;
		mmap_read_lock(target_mm);
		vma = vma_lookup(target_mm, vaddrs[i]);
		if (vma && vma->vm_file) {
			f = get_file(vma->vm_file);
			pos = ((loff_t)vma->vm_pgoff << PAGE_SHIFT) +
			      vaddrs[i] - vma->vm_start;
		}
		mmap_read_unlock(target_mm);
		mmput(target_mm);
		if (!f)
			return -ENOENT;
		if (kernel_read(f, &orig_text[i], sizeof(orig_text[i]), &pos) !=
		    sizeof(orig_text[i]))
			ret = -EIO;
		fput(f);
	}
	return ret;
}

/* A registered probe of @s must have its breakpoint in the process. */
static void check_breakpoint(struct pt_slot *s, struct mm_struct *mm,
			     const char *when)
{
	if (!breakpoint_in(mm, s->func)) {
		atomic_long_inc(&n_errors);
		pt_err("slot %d (function %d, %s): no breakpoint %s\n",
		       s->nr, s->func, s->ret ? "return" : "entry", when);
	}
}

/* The same from a thread of the process itself (handler, callback). */
static u64 read_own_counter(int which, int func)
{
	u64 __user *p = (u64 __user *)(counters +
				       (which * nr_funcs + func) * sizeof(u64));
	u64 v;

	if (!current->mm || copy_from_user(&v, p, sizeof(v)))
		return PT_NO_VALUE;
	return v;
}

static pid_t target_last_child(void)
{
	u64 v = read_mm_counter(target_mm, 2, 0);	/* after finished[] */

	return v == PT_NO_VALUE ? 0 : (pid_t)v;
}

/* --- traps and removals at the probes --- */

/* Count @what for every slot probing @vaddr of @mm. */
static void count_at(struct mm_struct *mm, unsigned long vaddr, bool trap)
{
	int i;

	for (i = 0; i < nr_slots; i++) {
		struct pt_slot *s = &slots[i];

		if (READ_ONCE(s->mm) == mm && vaddrs[s->func] == vaddr)
			atomic_long_inc(trap ? &s->traps : &s->removals);
	}
}

static int pt_count_trap(struct kprobe *kp, struct pt_regs *regs)
{
	struct pt_regs *uregs;
	unsigned long vaddr;

	if (!current->mm)
		return 0;
	uregs = (struct pt_regs *)regs_get_kernel_argument(regs, 0);
	vaddr = uprobe_get_swbp_addr(uregs);
	count_at(current->mm, vaddr, true);
	return 0;
}

static int pt_count_removal(struct kprobe *kp, struct pt_regs *regs)
{
	count_at((struct mm_struct *)regs_get_kernel_argument(regs, 1),
		 regs_get_kernel_argument(regs, 2), false);
	return 0;
}

static struct kprobe trap_kp = {
	.symbol_name	= "uprobe_notify_resume",
	.pre_handler	= pt_count_trap,
};

static struct kprobe removal_kp = {
	.symbol_name	= "uprobe_remove",
	.pre_handler	= pt_count_removal,
};

/* uprobe_handle_direct(regs, vaddr): an entry that took no trap. */
static int pt_count_direct(struct kprobe *kp, struct pt_regs *regs)
{
	if (current->mm)
		count_at(current->mm, regs_get_kernel_argument(regs, 1), true);
	return 0;
}

static struct kprobe direct_kp = {
	.symbol_name	= "uprobe_handle_direct",
	.pre_handler	= pt_count_direct,
};

/* --- slot life --- */

static bool alive(struct pt_slot *s)
{
	return atomic_read(&s->life) & 1;
}

static void min64(atomic64_t *v, u64 x)
{
	s64 old = atomic64_read(v);

	while ((u64)old > x && !atomic64_try_cmpxchg(v, &old, x))
		;
}

/* @s's traps and removals, counted after a finished[] read that bounds it. */
static void disarm_counts(struct pt_slot *s)
{
	min64(&s->traps_disarm, atomic_long_read(&s->traps));
	min64(&s->removals_disarm, atomic_long_read(&s->removals));
}

/*
 * A registration of @s starts: a new sequence, alive, a fresh record.
 * Returns the sequence.  Handler slots: rec_lock held.
 */
static unsigned int life_start(struct pt_slot *s, u64 finished_before)
{
	unsigned int seq = (atomic_read(&s->life) >> 1) + 1;

	s->rec.finished_before = finished_before;
	s->rec.begun_armed = PT_NO_VALUE;
	s->rec.armed_seq = 0;
	atomic64_set(&s->finished_disarm, PT_NO_VALUE);
	atomic64_set(&s->traps_disarm, PT_NO_VALUE);
	atomic64_set(&s->removals_disarm, PT_NO_VALUE);
	atomic_long_set(&s->hits, 0);
	atomic_long_set(&s->other_image, 0);
	atomic_set(&s->life, seq << 1 | 1);
	return seq;
}

/* --- handlers --- */

/* Does the hit belong to the probe's process, in the mm it was armed in? */
static void count_hit(struct pt_slot *s)
{
	if (!alive(s) || READ_ONCE(all_done)) {
		atomic_long_inc(&n_late);
		pt_err("slot %d: a handler ran after unregistration returned\n",
		       s->nr);
	}
	if (current->tgid != READ_ONCE(s->pid)) {
		atomic_long_inc(&n_invented);
		pt_err("slot %d: hit in process %d, the probe is on %d\n",
		       s->nr, current->tgid, READ_ONCE(s->pid));
		return;
	}
	if (current->mm != READ_ONCE(s->mm)) {
		/* An exec raced the registration: either image may have it. */
		if (READ_ONCE(s->mm_sure)) {
			atomic_long_inc(&n_invented);
			pt_err("slot %d: hit in another mm of process %d\n",
			       s->nr, current->tgid);
		}
		atomic_long_inc(&s->other_image);
		return;
	}
	atomic_long_inc(&s->hits);
	WRITE_ONCE(s->last_hit, jiffies);
}

static int pt_register(struct pt_slot *s)
{
	if (s->ret)
		return register_pid_uretprobe(&s->rp);
	return register_pid_uprobe(&s->rp.u);
}

static void pt_unregister(struct pt_slot *s)
{
	if (s->ret)
		unregister_pid_uretprobe(&s->rp);
	else
		unregister_pid_uprobe(&s->rp.u);
}

/* A handler registers handler slot @h. */
static void act_register(struct pt_slot *h)
{
	u64 fin = read_own_counter(PT_FINISHED, h->func);
	int ret = pt_register(h);

	if (ret == -EBUSY) {
		atomic_long_inc(&n_busy);
		return;
	}
	if (ret != -EINPROGRESS) {
		atomic_long_inc(&n_errors);
		pt_err("slot %d: register from a handler: %d\n", h->nr, ret);
		return;
	}
	/*
	 * Ours is queued, to run on this thread once the handler returns:
	 * nothing can arm the probe before the record is set.
	 */
	atomic_long_inc(&h->queued);
	atomic_long_inc(&n_queued);
	spin_lock(&h->rec_lock);
	life_start(h, fin);
	spin_unlock(&h->rec_lock);
}

/* A handler unregisters handler slot @h (maybe ignored, maybe itself). */
static void act_unregister(struct pt_slot *h)
{
	int life = atomic_read(&h->life);
	u64 fin = read_own_counter(PT_FINISHED, h->func);

	/* Before the call: the disarming cannot have started yet. */
	if (fin != PT_NO_VALUE) {
		min64(&h->finished_disarm, fin);
		disarm_counts(h);
	}
	pt_unregister(h);
	/*
	 * A registration from another thread's handler may have begun
	 * between the read and the call: its fresh record lost the read,
	 * yet this call may be the one that ends it, and a later reader's
	 * bound would come after the disarming.  Such a life gets no lower
	 * bound, as in churn_handler_slot().  Had its registration not been
	 * carried out yet, this call was ignored and the registration's
	 * callback sets the bound afterwards.
	 */
	if (atomic_read(&h->life) == life)
		return;
	spin_lock(&h->rec_lock);
	h->rec.armed_seq = 0;
	spin_unlock(&h->rec_lock);
}

static void act(struct pt_slot *h, int op)
{
	atomic_long_inc(&n_acts);
	switch (op) {
	case PT_OP_REG:
		act_register(h);
		break;
	case PT_OP_UNREG:
		act_unregister(h);
		break;
	default:
		/* The unregister is ignored when the register was queued. */
		act_register(h);
		act_unregister(h);
		break;
	}
}

/* What a hit on the target does besides counting. */
static void maybe_act(struct pt_slot *s)
{
	struct pt_slot *h;

	if (READ_ONCE(stop_acting) || current->tgid != pid ||
	    current->mm != target_mm)
		return;
	if (atomic_add_unless(&round_left, -1, 0)) {
		/* Published before round_left by the churner's release. */
		smp_rmb();
		act(READ_ONCE(round_slot), READ_ONCE(round_op));
		return;
	}
	if (get_random_u32_below(act_every))
		return;
	/* Now and then a slot's own handler unregisters it. */
	if (s->cls == PT_HANDLER && get_random_u32_below(4) == 0) {
		act(s, PT_OP_UNREG);
		return;
	}
	h = handler_slots[get_random_u32_below(nr_handler_slots)];
	act(h, get_random_u32_below(PT_NR_OPS));
}

static void pt_entry_handler(struct pid_uprobe *u, struct pt_regs *regs)
{
	struct pt_slot *s = container_of(u, struct pt_slot, rp.u);

	count_hit(s);
	maybe_act(s);
}

static void pt_ret_handler(struct pid_uretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct pt_slot *s = container_of(ri->rp, struct pt_slot, rp);

	count_hit(s);
	maybe_act(s);
}

/* --- audits --- */

/*
 * The registration @rec of @s ended (its unregistration returned, or it
 * never armed); @seq is its sequence, @hits what it counted, @disarm the
 * least finished count read before its unregistration started, @after
 * the begun count read after it ended.
 */
/*
 * Of the @least calls under a registration, those that cannot have
 * trapped while the breakpoint stayed in (checked when it armed, and
 * not taken out since): text older than memory ran.  One call per
 * thread at each edge may have trapped outside the calls counted.
 */
static s64 stale_calls(const struct pt_record *rec, s64 least,
		       u64 traps_disarm, u64 removals_disarm)
{
	s64 trapped;

	if (traps_disarm == PT_NO_VALUE || removals_disarm == PT_NO_VALUE ||
	    (long)removals_disarm != rec->removals_armed)
		return 0;
	trapped = (long)traps_disarm - rec->traps_armed;
	if (least <= trapped)
		return 0;
	return min_t(s64, least, least - trapped + 2 * target_threads);
}

static void audit(struct pt_slot *s, const struct pt_record *rec,
		  unsigned int seq, long hits, u64 disarm, u64 after,
		  u64 traps_disarm, u64 removals_disarm, const char *who)
{
	s64 least, most, stale;

	atomic_long_add(hits, &n_hits);
	atomic_long_inc(&n_unreg);
	if (rec->armed_seq == seq && rec->begun_armed != PT_NO_VALUE &&
	    disarm != PT_NO_VALUE) {
		least = (s64)(disarm - rec->begun_armed);
		stale = least > 0 ? stale_calls(rec, least, traps_disarm,
						removals_disarm) : 0;
		if (stale) {
			least -= stale;
			atomic_long_add(stale, &n_stale);
			pr_warn_ratelimited("slot %d (function %d): %lld calls ran stale text, no trap with the breakpoint in place\n",
					    s->nr, s->func, stale);
		}
		if (least > 0 && hits < least) {
			atomic_long_add(least - hits, &n_lost);
			pt_err("slot %d (function %d, %s): %ld hits, but at least %lld calls ran under it (seq %u, begun %llu at arming, finished %llu at disarming, %u ms, ended by %s)\n",
			       s->nr, s->func, s->ret ? "return" : "entry",
			       hits, least, seq, rec->begun_armed, disarm,
			       jiffies_to_msecs(jiffies - rec->armed_at), who);
			pt_err("slot %d: last hit %d ms after arming; breakpoint before a process-context unregistration: %d; %lld traps and %lld removals under it\n",
			       s->nr, (int)jiffies_to_msecs(READ_ONCE(s->last_hit) - rec->armed_at),
			       s->diag_bp,
			       traps_disarm == PT_NO_VALUE ? -1LL :
			       (s64)traps_disarm - rec->traps_armed,
			       removals_disarm == PT_NO_VALUE ? -1LL :
			       (s64)removals_disarm - rec->removals_armed);
		}
	}
	/*
	 * Counters that went backwards were read in two images of a child
	 * that exec'ed meanwhile (the first inherited the parent's counts,
	 * the new one starts at 0): they bound nothing.
	 */
	if (rec->finished_before != PT_NO_VALUE && after != PT_NO_VALUE &&
	    after >= rec->finished_before) {
		most = (s64)(after - rec->finished_before);
		if (hits > most) {
			atomic_long_add(hits - most, &n_invented);
			pt_err("slot %d (function %d, %s): %ld hits, but at most %lld calls overlapped it\n",
			       s->nr, s->func, s->ret ? "return" : "entry",
			       hits, most);
		}
	}
	if (verbose)
		pr_info("slot %d: %ld hits, seq %u\n", s->nr, hits, seq);
}

/*
 * End the registration of handler slot @h whose life was @life when its
 * unregistration started, unless another registration began meanwhile
 * (then that one is not ours to end).  @after is read after it ended.
 */
static void handler_slot_end(struct pt_slot *h, int life, u64 after,
			     const char *who)
{
	struct pt_record rec;
	u64 disarm, traps, removals;
	long hits;

	spin_lock(&h->rec_lock);
	if (atomic_read(&h->life) != life || !(life & 1)) {
		spin_unlock(&h->rec_lock);
		return;
	}
	atomic_set(&h->life, life & ~1);
	rec = h->rec;
	hits = atomic_long_read(&h->hits);
	disarm = atomic64_read(&h->finished_disarm);
	traps = atomic64_read(&h->traps_disarm);
	removals = atomic64_read(&h->removals_disarm);
	spin_unlock(&h->rec_lock);
	audit(h, &rec, life >> 1, hits, disarm, after, traps, removals, who);
}

/* A call queued from a handler of the target completed. */
static void pt_callback(struct pid_uprobe *u, int reg, enum uprobe_type type,
			int result)
{
	struct pt_slot *s = container_of(u, struct pt_slot, rp.u);
	long traps, removals;
	u64 v;

	atomic_long_inc(&n_callbacks);
	if (READ_ONCE(all_done)) {
		atomic_long_inc(&n_late);
		pt_err("slot %d: a callback after the last unregistration\n",
		       s->nr);
	}
	if (s->cls != PT_HANDLER || type != (s->ret ? UPTY_URETPROBE :
					     UPTY_UPROBE)) {
		atomic_long_inc(&n_errors);
		pt_err("slot %d: callback of type %d\n", s->nr, type);
		return;
	}
	if (reg) {
		atomic_long_inc(&s->cb_reg);
		if (atomic_long_read(&s->cb_reg) > atomic_long_read(&s->queued)) {
			atomic_long_inc(&n_errors);
			pt_err("slot %d: more registration callbacks than calls\n",
			       s->nr);
		}
		/* Only an unregistration from process context ends it now. */
		traps = atomic_long_read(&s->traps);
		removals = atomic_long_read(&s->removals);
		v = read_own_counter(PT_BEGUN, s->func);
		spin_lock(&s->rec_lock);
		if (!result && alive(s)) {
			s->rec.traps_armed = traps;
			s->rec.removals_armed = removals;
			s->rec.begun_armed = v;
			s->rec.armed_seq = atomic_read(&s->life) >> 1;
			s->rec.armed_at = jiffies;
		} else if (!result) {
			/* Only what waits for this callback ends the life. */
			atomic_long_inc(&n_errors);
			pt_err("slot %d: registered, but its life already ended\n",
			       s->nr);
		}
		spin_unlock(&s->rec_lock);
		if (!result)
			check_breakpoint(s, NULL, "once its queued registration completed");
		if (result) {
			atomic_long_inc(&n_errors);
			pt_err("slot %d: queued registration: %d\n", s->nr,
			       result);
			handler_slot_end(s, atomic_read(&s->life), PT_NO_VALUE,
					 "a failed registration");
		} else {
			atomic_long_inc(&n_reg);
		}
		return;
	}
	atomic_long_inc(&s->cb_unreg);
	if (result) {
		atomic_long_inc(&n_errors);
		pt_err("slot %d: queued unregistration: %d\n", s->nr, result);
	}
	/*
	 * Our call was queued since the handler and no registration can be
	 * queued or run beside it: the life now is the one it ended.
	 */
	handler_slot_end(s, atomic_read(&s->life),
			 read_own_counter(PT_BEGUN, s->func),
			 "an unregistration from a handler");
}

/* --- process context: churned, child and driver slots --- */

static void slot_reset(struct pt_slot *s, pid_t p, unsigned long vaddr)
{
	struct pid_uretprobe *rp = &s->rp;

	memset(rp, 0, sizeof(*rp));
	rp->u.pid = p;
	rp->u.vaddr = vaddr;
	if (s->ret)
		rp->handler = pt_ret_handler;
	else
		rp->u.handler = pt_entry_handler;
	rp->u.registration_callback = pt_callback;
}

/* The target's threads now, at least one. */
static int target_nr_threads(void)
{
	struct task_struct *task;
	struct pid *sp;
	int n = 1;

	sp = find_get_pid(pid);
	task = sp ? get_pid_task(sp, PIDTYPE_PID) : NULL;
	put_pid(sp);
	if (task) {
		n = max(get_nr_threads(task), 1);
		put_task_struct(task);
	}
	return n;
}

static struct mm_struct *mm_of(pid_t p)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *sp;

	sp = find_get_pid(p);
	task = sp ? get_pid_task(sp, PIDTYPE_PID) : NULL;
	put_pid(sp);
	if (!task)
		return NULL;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (mm) {
		mmgrab(mm);
		mmput(mm);
	}
	return mm;
}

static void slot_drop_mm(struct pt_slot *s)
{
	if (s->mm && s->mm != target_mm)
		mmdrop(s->mm);
	WRITE_ONCE(s->mm, NULL);
}

/*
 * Register churned, driver or child slot @s (its lock held) on process
 * @p, whose mm the caller looked up (@mm, NULL when it has none).
 */
static int slot_register(struct pt_slot *s, pid_t p, struct mm_struct *mm)
{
	struct mm_struct *now;
	int ret;

	WRITE_ONCE(s->pid, p);
	WRITE_ONCE(s->mm, mm);
	WRITE_ONCE(s->mm_sure, false);
	slot_reset(s, p, vaddrs[s->func]);
	life_start(s, read_mm_counter(mm, PT_FINISHED, s->func));
	ret = pt_register(s);
	if (ret) {
		atomic_set(&s->life, atomic_read(&s->life) & ~1);
		slot_drop_mm(s);
		/* A child may exit or exec while it is being probed. */
		if (s->cls == PT_CHILD &&
		    (ret == -ESRCH || ret == -EINVAL)) {
			atomic_long_inc(&n_child_gone);
			return ret;
		}
		atomic_long_inc(&n_errors);
		pt_err("slot %d: register on %d: %d\n", s->nr, p, ret);
		return ret;
	}
	/*
	 * The same mm before and after: the registration found that one
	 * (an exec would have replaced it, and it cannot come back).
	 */
	now = s->cls == PT_CHILD ? mm_of(p) : mm;
	WRITE_ONCE(s->mm_sure, mm && now == mm);
	/* mm_of() took a reference of its own; the slot keeps @mm's. */
	if (s->cls == PT_CHILD && now)
		mmdrop(now);
	s->rec.traps_armed = atomic_long_read(&s->traps);
	s->rec.removals_armed = atomic_long_read(&s->removals);
	s->rec.begun_armed = read_mm_counter(mm, PT_BEGUN, s->func);
	s->rec.armed_seq = atomic_read(&s->life) >> 1;
	s->rec.armed_at = jiffies;
	s->registered = true;
	if (s->cls != PT_CHILD)
		check_breakpoint(s, mm, "once registered");
	atomic_long_inc(&n_reg);
	if (s->cls == PT_CHILD)
		atomic_long_inc(&n_child_reg);
	return 0;
}

static void slot_unregister(struct pt_slot *s)
{
	u64 fin = read_mm_counter(s->mm, PT_FINISHED, s->func);
	struct pt_record rec;
	int life;

	/* An image the counters do not describe: only the bounds of ours. */
	if (fin != PT_NO_VALUE && !s->mm_sure &&
	    atomic_long_read(&s->other_image))
		fin = PT_NO_VALUE;
	if (fin != PT_NO_VALUE)
		disarm_counts(s);
	/* Registered all along: nothing may have taken it out. */
	if (s->cls != PT_CHILD)
		check_breakpoint(s, s->mm, "while registered");
	pt_unregister(s);
	life = atomic_read(&s->life);
	atomic_set(&s->life, life & ~1);
	rec = s->rec;
	atomic_long_add(atomic_long_read(&s->other_image), &n_other_image);
	audit(s, &rec, life >> 1, atomic_long_read(&s->hits), fin,
	      read_mm_counter(s->mm, PT_BEGUN, s->func),
	      atomic64_read(&s->traps_disarm),
	      atomic64_read(&s->removals_disarm), "a churner");
	s->registered = false;
	slot_drop_mm(s);
}

/* A churner on a churned or child slot. */
static void churn_slot(struct pt_slot *s)
{
	struct mm_struct *mm;
	pid_t p;

	mutex_lock(&s->lock);
	if (s->registered) {
		slot_unregister(s);
	} else if (s->cls == PT_CHURNED) {
		slot_register(s, pid, target_mm);
	} else {
		p = target_last_child();
		mm = p > 0 ? mm_of(p) : NULL;
		if (mm)
			slot_register(s, p, mm);
	}
	mutex_unlock(&s->lock);
}

/* A churner unregisters handler slot @h from process context. */
static void churn_handler_slot(struct pt_slot *h)
{
	int life = atomic_read(&h->life), now;
	u64 fin = read_mm_counter(target_mm, PT_FINISHED, h->func);

	if (fin != PT_NO_VALUE) {
		min64(&h->finished_disarm, fin);
		disarm_counts(h);
	}
	h->diag_bp = breakpoint_in(target_mm, h->func);
	pt_unregister(h);
	atomic_long_inc(&n_pc_cancel);
	now = atomic_read(&h->life);
	if (now == life) {
		/* Whatever registration there was, this call ended it. */
		handler_slot_end(h, life,
				 read_mm_counter(target_mm, PT_BEGUN, h->func),
				 "an unregistration from process context");
		return;
	}
	/*
	 * A handler's registration began meanwhile: this call may have
	 * waited for it to arm and then disarmed it, or left it to start
	 * afterwards.  Its hits cannot be bounded from below.
	 */
	spin_lock(&h->rec_lock);
	if (atomic_read(&h->life) == now)
		h->rec.armed_seq = 0;
	spin_unlock(&h->rec_lock);
}

/* The next hits of the target's threads make one call together. */
static void open_round(void)
{
	WRITE_ONCE(round_slot,
		   handler_slots[get_random_u32_below(nr_handler_slots)]);
	WRITE_ONCE(round_op, get_random_u32_below(PT_NR_OPS));
	/* The slot and call before the count: see maybe_act(). */
	smp_wmb();
	atomic_set(&round_left, 3);
	atomic_long_inc(&n_rounds);
}

static int churner(void *arg)
{
	u32 r;

	while (!kthread_should_stop()) {
		if (atomic_read(&target_gone)) {
			schedule_timeout_interruptible(HZ / 10);
			continue;
		}
		r = get_random_u32_below(100);
		if (r < 20)
			open_round();
		else if (r < 35)
			churn_handler_slot(handler_slots[get_random_u32_below(nr_handler_slots)]);
		else
			churn_slot(churned_slots[get_random_u32_below(nr_churned_slots)]);
		if (!mmget_not_zero(target_mm)) {
			if (!atomic_xchg(&target_gone, 1)) {
				atomic_long_inc(&n_errors);
				pr_err("the target went away before the end\n");
			}
		} else {
			mmput(target_mm);
		}
		if (r & 1)
			usleep_range(100, 400);
		else
			usleep_range(1000, 4000);
	}
	return 0;
}

/* --- setup, verdict, teardown --- */

static void stop_churners(void)
{
	int i;

	for (i = 0; i < nr_churners; i++)
		kthread_stop(churner_tasks[i]);
	nr_churners = 0;
}

/*
 * Twice over: a handler that was running when acting stopped may have
 * queued a call on a slot already done; after the first pass no such
 * handler runs any more.
 */
static void unregister_all(void)
{
	int pass, i;

	WRITE_ONCE(stop_acting, true);
	atomic_set(&round_left, 0);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr_slots; i++) {
			struct pt_slot *s = &slots[i];

			if (s->cls == PT_HANDLER) {
				churn_handler_slot(s);
				continue;
			}
			mutex_lock(&s->lock);
			if (s->registered)
				slot_unregister(s);
			mutex_unlock(&s->lock);
		}
	}
	WRITE_ONCE(all_done, true);
}

static void check_slots(void)
{
	long q, c;
	int i;

	for (i = 0; i < nr_slots; i++) {
		struct pt_slot *s = &slots[i];

		if (alive(s)) {
			atomic_long_inc(&n_errors);
			pr_err("slot %d: still registered at the end\n", s->nr);
		}
		q = atomic_long_read(&s->queued);
		c = atomic_long_read(&s->cb_reg);
		if (c > q) {
			atomic_long_inc(&n_errors);
			pr_err("slot %d: %ld registration callbacks for %ld queued registrations\n",
			       s->nr, c, q);
		}
	}
}

static void print_verdict(void)
{
	long bad = atomic_long_read(&n_lost) + atomic_long_read(&n_invented) +
		   atomic_long_read(&n_late) + atomic_long_read(&n_errors);

	pr_info("registrations %ld unregistrations %ld hits %ld queued %ld busy %ld callbacks %ld acts %ld rounds %ld pc-unregistrations %ld child-registrations %ld child-gone %ld other-image %ld stale %ld\n",
		atomic_long_read(&n_reg), atomic_long_read(&n_unreg),
		atomic_long_read(&n_hits), atomic_long_read(&n_queued),
		atomic_long_read(&n_busy), atomic_long_read(&n_callbacks),
		atomic_long_read(&n_acts), atomic_long_read(&n_rounds),
		atomic_long_read(&n_pc_cancel), atomic_long_read(&n_child_reg),
		atomic_long_read(&n_child_gone),
		atomic_long_read(&n_other_image), atomic_long_read(&n_stale));
	pr_info("verdict %s lost %ld invented %ld late %ld errors %ld\n",
		bad ? "FAIL" : "PASS", atomic_long_read(&n_lost),
		atomic_long_read(&n_invented), atomic_long_read(&n_late),
		atomic_long_read(&n_errors));
}

static int supervisor(void *arg)
{
	unsigned long end = jiffies + duration * HZ;

	while (!kthread_should_stop() && !atomic_read(&target_gone) &&
	       time_before(jiffies, end))
		schedule_timeout_interruptible(HZ / 10);
	stop_churners();
	unregister_all();
	/* Anything still to come from the engine is late: give it time. */
	schedule_timeout_uninterruptible(HZ / 2);
	check_slots();
	print_verdict();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static struct pt_slot *new_slot(enum pt_class cls, int func, bool ret)
{
	struct pt_slot *s = &slots[nr_slots];

	s->nr = nr_slots++;
	s->cls = cls;
	s->func = func;
	s->ret = ret;
	mutex_init(&s->lock);
	spin_lock_init(&s->rec_lock);
	WRITE_ONCE(s->pid, pid);
	WRITE_ONCE(s->mm, target_mm);
	s->mm_sure = true;
	slot_reset(s, pid, vaddrs[func]);
	return s;
}

static int __init uprobetorture_pid_init(void)
{
	int i, ret;

	if (pid <= 0 || !counters || !IS_ALIGNED(counters, sizeof(u64)) ||
	    nr_funcs < 1 || duration < 1 || churners < 1 ||
	    churners > PT_MAX_CHURNERS || act_every < 1) {
		pr_err("needs pid, counters (u64-aligned), vaddrs, duration >= 1 and 1..%d churners\n",
		       PT_MAX_CHURNERS);
		return -EINVAL;
	}
	target_mm = mm_of(pid);
	if (!target_mm) {
		pr_err("no process %d\n", pid);
		return -ESRCH;
	}
	target_threads = target_nr_threads();
	if (read_mm_counter(target_mm, PT_BEGUN, 0) == PT_NO_VALUE) {
		pr_err("cannot read the counters at %#lx\n", counters);
		ret = -EFAULT;
		goto drop_mm;
	}
	ret = read_orig_text();
	if (ret) {
		pr_err("cannot read the target's file at the addresses given: %d\n",
		       ret);
		goto drop_mm;
	}

	driver = new_slot(PT_DRIVER, 0, false);
	for (i = 0; i < nr_funcs; i++) {
		churned_slots[nr_churned_slots++] = new_slot(PT_CHURNED, i, false);
		churned_slots[nr_churned_slots++] = new_slot(PT_CHURNED, i, true);
		handler_slots[nr_handler_slots++] = new_slot(PT_HANDLER, i, false);
		handler_slots[nr_handler_slots++] = new_slot(PT_HANDLER, i, true);
	}
	churned_slots[nr_churned_slots++] = new_slot(PT_CHILD, 0, false);
	churned_slots[nr_churned_slots++] = new_slot(PT_CHILD, nr_funcs - 1,
						     true);
	for (i = 0; i < nr_slots; i++)
		WRITE_ONCE(slots[i].mm_sure, true);

	ret = register_kprobe(&trap_kp);
	if (ret) {
		pr_err("cannot count traps (kprobe on %s): %d\n",
		       trap_kp.symbol_name, ret);
		goto drop_mm;
	}
	ret = register_kprobe(&removal_kp);
	if (ret) {
		pr_err("cannot count removals (kprobe on %s): %d\n",
		       removal_kp.symbol_name, ret);
		goto drop_trap_kp;
	}
	/* Called, and so there, only on a port with direct entries. */
	ret = register_kprobe(&direct_kp);
	if (!ret) {
		counting_direct = true;
	} else if (ret != -ENOENT) {
		pr_err("cannot count direct entries (kprobe on %s): %d\n",
		       direct_kp.symbol_name, ret);
		goto drop_kps;
	}
	ret = slot_register(driver, pid, target_mm);
	if (ret) {
		pr_err("cannot probe process %d at %#lx: %d\n", pid, vaddrs[0],
		       ret);
		goto drop_direct_kp;
	}
	for (i = 0; i < churners; i++) {
		struct task_struct *t;

		t = kthread_run(churner, NULL, "pt_churner/%d", i);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto stop;
		}
		churner_tasks[nr_churners++] = t;
	}
	supervisor_task = kthread_run(supervisor, NULL, "pt_supervisor");
	if (IS_ERR(supervisor_task)) {
		ret = PTR_ERR(supervisor_task);
		goto stop;
	}
	pr_info("pid %d, %d functions, %d churners, %d s\n", pid, nr_funcs,
		churners, duration);
	return 0;
stop:
	stop_churners();
	unregister_all();
drop_direct_kp:
	if (counting_direct)
		unregister_kprobe(&direct_kp);
drop_kps:
	unregister_kprobe(&removal_kp);
drop_trap_kp:
	unregister_kprobe(&trap_kp);
drop_mm:
	mmdrop(target_mm);
	return ret;
}

static void __exit uprobetorture_pid_exit(void)
{
	kthread_stop(supervisor_task);
	if (counting_direct)
		unregister_kprobe(&direct_kp);
	unregister_kprobe(&removal_kp);
	unregister_kprobe(&trap_kp);
	mmdrop(target_mm);
}

module_init(uprobetorture_pid_init);
module_exit(uprobetorture_pid_exit);
MODULE_DESCRIPTION("uprobes torture test: process probes churned from process context and from handlers");
MODULE_LICENSE("GPL");
