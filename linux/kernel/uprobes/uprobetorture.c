// SPDX-License-Identifier: GPL-2.0
/*
 * uprobetorture: file uprobes that come and go on a busy program
 * (uprobe_torture.sh runs it on uprobe_torture_target).
 *
 * Parameters name the program's file (path), the running process (pid),
 * the user address of its counters (counters: begun[n] then finished[n],
 * one u64 each, n the number of offsets) and the file offsets of its
 * probed functions (offsets).  Churner threads then register and
 * unregister consumers on those offsets at random for duration seconds:
 * each function has one consumer slot per kind below, so a site holds
 * anything from none to all of them, and its uprobe is created and
 * freed again and again.  Unregistration is uprobe_unregister_nosync()
 * and uprobe_unregister_sync(), for one consumer or for a batch of them
 * with one sync.  The program's threads keep calling the functions; it
 * also forks children that call them and exec it again, and those trap
 * too.
 *
 * Only hits in the target's mm are counted.  Every registration is
 * audited from the target's counters, read at the edges of it:
 *  - lost: a call that began after uprobe_register() returned and
 *    finished before unregistration started must have been seen, at
 *    entry and at return alike.  So at least
 *    (finished before unregistering) - (begun after registering).
 *  - invented: no more hits than calls that overlapped the registration:
 *    (begun after the sync returned) - (finished before registering).
 *  - late: no handler runs once uprobe_unregister_sync() has returned.
 *  - errors: a registration failed, or the target went away early.
 *
 * The breakpoint is written into text other CPUs are running, and an
 * emulator may go on running a translation of the old text (QEMU with
 * one host thread per vCPU does, now and then, for a long while).  Such
 * calls are told from lost hits by counting the target's entries into
 * each probe (kprobes on uprobe_notify_resume(), for the breakpoint's
 * trap, and on uprobe_handle_direct(), for a port's direct entry such as
 * x86's jump on a 5-byte nop): every entry counted while a consumer was
 * registered must have run its entry handler, and calls short of those
 * entries are "stale" only when the probe's text (the breakpoint, or
 * what the port put in its place: anything but the file's bytes) was
 * in the target's memory at both ends of the registration and the
 * engine took it out of the target (uprobe_remove(), also kprobed) in
 * between never.  Stale calls are reported, not failed; anything else
 * missing is lost.
 *
 * The last lines are "uprobetorture: registrations ..." (statistics)
 * and "uprobetorture: verdict PASS|FAIL lost N invented N late N
 * errors N".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/err.h>
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
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uprobes.h>

#define UT_MAX_FUNCS	8
#define UT_MAX_CHURNERS	16

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "The target program's file");
static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "The target process");
static ulong counters;
module_param(counters, ulong, 0444);
MODULE_PARM_DESC(counters, "User address of its begun[n], finished[n] counters (u64)");
static ulong offsets[UT_MAX_FUNCS];
static int nr_offsets;
module_param_array(offsets, ulong, &nr_offsets, 0444);
MODULE_PARM_DESC(offsets, "File offsets of the probed functions, in counter order");
static int duration = 20;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "Seconds to churn before the verdict");
static int churners = 2;
module_param(churners, int, 0444);
MODULE_PARM_DESC(churners, "Threads registering and unregistering consumers");
static int verbose;
module_param(verbose, int, 0444);
MODULE_PARM_DESC(verbose, "Log every registration's audit");

/*
 * The kinds of consumer each function has a slot for.  The filtered
 * ones decline every mm but the target's and ask to leave a foreign mm
 * from their handler, so as long as only they are on a site the
 * children lose the breakpoint (or never get it); an unfiltered one
 * puts it back.
 */
enum ut_kind {
	UT_ENTRY,		/* handler */
	UT_ENTRY_FILTERED,	/* handler, filter */
	UT_RET,			/* ret_handler */
	UT_RET_FILTERED,	/* ret_handler, filter */
	UT_BOTH_FILTERED,	/* handler, ret_handler, filter */
	UT_NR_KINDS
};

struct ut_slot {
	struct mutex lock;		/* held across each change */
	struct uprobe_consumer uc;
	struct uprobe *uprobe;		/* while registered */
	int func;
	enum ut_kind kind;
	/* Set once the sync after unregistration has returned. */
	bool dead;
	/* Counters read at the edges of the current registration. */
	u64 finished_before;		/* before uprobe_register() */
	u64 begun_armed;		/* after it returned */
	u64 finished_disarm;		/* before unregistration started */
	/* Traps and removals at the probe, counted after/before those. */
	long traps_armed, traps_disarm;
	long removals_armed, removals_disarm;
	bool bp_armed, bp_disarm;	/* the breakpoint was in memory */
	atomic_long_t hits, rets;	/* in the target's mm */
};

#define UT_MAX_SLOTS	(UT_MAX_FUNCS * UT_NR_KINDS)
static struct ut_slot slots[UT_MAX_SLOTS];
static int nr_slots;

/* Consumers registered per function now, and the most ever. */
static atomic_t site_live[UT_MAX_FUNCS];
static atomic_t site_max;

static struct mm_struct *target_mm;	/* mmgrab()ed: compared, never freed */
static struct path target_path;		/* keeps the inode for uprobe_register() */
static atomic_t target_gone;

static atomic_long_t n_lost, n_invented, n_late, n_errors;
static atomic_long_t n_reg, n_unreg, n_batches, n_hits, n_rets;
static atomic_long_t n_foreign, n_remove, n_reads, n_stale;
/* Entries into the target's probes that took no trap (count_direct()). */
static atomic_long_t n_direct;

/* Where each probe is in the target, and what the kprobes saw there. */
static unsigned long probe_vaddr[UT_MAX_FUNCS];
static int target_threads;
static bool counting_removals, counting_direct;
static atomic_long_t traps[UT_MAX_FUNCS], removals[UT_MAX_FUNCS];
/* The file's bytes at each probe (read_orig_text()). */
static uprobe_opcode_t orig_text[UT_MAX_FUNCS];

static struct task_struct *churner_tasks[UT_MAX_CHURNERS];
static struct task_struct *supervisor_task;
static int nr_churners;

/* --- consumers: short, allocation-free, count and nothing else --- */

static bool ut_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	return mm == READ_ONCE(target_mm);
}

static int ut_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct ut_slot *s = container_of(uc, struct ut_slot, uc);

	/* Late in any mm: the engine still knew a consumer it was told to forget. */
	if (READ_ONCE(s->dead))
		atomic_long_inc(&n_late);
	if (current->mm != READ_ONCE(target_mm)) {
		atomic_long_inc(&n_foreign);
		if (!uc->filter)
			return 0;
		atomic_long_inc(&n_remove);
		return UPROBE_HANDLER_REMOVE;
	}
	atomic_long_inc(&s->hits);
	return 0;
}

static int ut_ret_handler(struct uprobe_consumer *uc, unsigned long func,
			  struct pt_regs *regs)
{
	struct ut_slot *s = container_of(uc, struct ut_slot, uc);

	if (READ_ONCE(s->dead))
		atomic_long_inc(&n_late);
	if (current->mm != READ_ONCE(target_mm)) {
		atomic_long_inc(&n_foreign);
		return 0;
	}
	atomic_long_inc(&s->rets);
	return 0;
}

/* --- the target's counters --- */

static void target_lost(void)
{
	if (!atomic_xchg(&target_gone, 1)) {
		atomic_long_inc(&n_errors);
		pr_err("the target process went away before the end\n");
	}
}

/*
 * Read the target's counters, begun[] into @begun and finished[] into
 * @finished.  Each u64 is loaded whole from the page, so a counter the
 * target bumps meanwhile is read before or after, never torn.  The
 * page is looked up afresh each time: after a fork the target writes
 * to a copy of it.
 */
static int read_counters(u64 *begun, u64 *finished)
{
	unsigned long addr, page_addr = 0;
	struct page *page = NULL;
	int i, ret = 0;
	void *kaddr;
	u64 v;

	if (!mmget_not_zero(target_mm))
		return -ESRCH;
	mmap_read_lock(target_mm);
	for (i = 0; i < 2 * nr_offsets; i++) {
		addr = counters + i * sizeof(u64);
		if (!page || (addr & PAGE_MASK) != page_addr) {
			if (page)
				put_page(page);
			page_addr = addr & PAGE_MASK;
			if (get_user_pages_remote(target_mm, page_addr, 1, 0,
						  &page, NULL) != 1) {
				page = NULL;
				ret = -EFAULT;
				break;
			}
		}
		kaddr = kmap_local_page(page);
		v = READ_ONCE(*(u64 *)(kaddr + offset_in_page(addr)));
		kunmap_local(kaddr);
		if (i < nr_offsets) {
			if (begun)
				begun[i] = v;
		} else if (finished) {
			finished[i - nr_offsets] = v;
		}
	}
	if (page)
		put_page(page);
	mmap_read_unlock(target_mm);
	mmput(target_mm);
	atomic_long_inc(&n_reads);
	return ret;
}

/* The same during the run, where failing means the target is gone. */
static int read_target(u64 *begun, u64 *finished)
{
	int ret = read_counters(begun, finished);

	if (ret)
		target_lost();
	return ret;
}

/* --- traps and removals at the probes, and the text there --- */

static int count_trap(struct kprobe *kp, struct pt_regs *regs)
{
	struct pt_regs *uregs;
	unsigned long vaddr;
	int i;

	if (current->mm != READ_ONCE(target_mm))
		return 0;
	uregs = (struct pt_regs *)regs_get_kernel_argument(regs, 0);
	/* Where the breakpoint was, wherever the port leaves the pc. */
	vaddr = uprobe_get_swbp_addr(uregs);
	for (i = 0; i < nr_offsets; i++)
		if (vaddr == probe_vaddr[i])
			atomic_long_inc(&traps[i]);
	return 0;
}

/* uprobe_handle_direct(regs, vaddr): an entry without the trap. */
static int count_direct(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long vaddr = regs_get_kernel_argument(regs, 1);
	int i;

	if (current->mm != READ_ONCE(target_mm))
		return 0;
	for (i = 0; i < nr_offsets; i++)
		if (vaddr == probe_vaddr[i])
			atomic_long_inc(&traps[i]);
	atomic_long_inc(&n_direct);
	return 0;
}

static int count_removal(struct kprobe *kp, struct pt_regs *regs)
{
	struct mm_struct *mm;
	unsigned long vaddr;
	int i;

	mm = (struct mm_struct *)regs_get_kernel_argument(regs, 1);
	vaddr = regs_get_kernel_argument(regs, 2);
	if (mm != READ_ONCE(target_mm))
		return 0;
	for (i = 0; i < nr_offsets; i++)
		if (vaddr == probe_vaddr[i])
			atomic_long_inc(&removals[i]);
	return 0;
}

static struct kprobe trap_kp = {
	.symbol_name	= "uprobe_notify_resume",
	.pre_handler	= count_trap,
};

static struct kprobe direct_kp = {
	.symbol_name	= "uprobe_handle_direct",
	.pre_handler	= count_direct,
};

static struct kprobe removal_kp = {
	.symbol_name	= "uprobe_remove",
	.pre_handler	= count_removal,
};

/* The target's text at probe @func now, into @cur; false if unreadable. */
static bool text_in_target(int func, uprobe_opcode_t *cur)
{
	struct page *page;
	bool ret = false;
	void *kaddr;

	if (!mmget_not_zero(target_mm))
		return false;
	mmap_read_lock(target_mm);
	if (get_user_pages_remote(target_mm, probe_vaddr[func], 1, FOLL_FORCE,
				  &page, NULL) == 1) {
		kaddr = kmap_local_page(page);
		memcpy(cur, kaddr + offset_in_page(probe_vaddr[func]),
		       sizeof(*cur));
		kunmap_local(kaddr);
		put_page(page);
		ret = true;
	}
	mmap_read_unlock(target_mm);
	mmput(target_mm);
	return ret;
}

/*
 * Is a probe's entry in the target's memory at @func now: a breakpoint,
 * or whatever a port's direct entry wrote there?
 */
static bool breakpoint_in_target(int func)
{
	uprobe_opcode_t cur;

	return text_in_target(func, &cur) &&
	       memcmp(&cur, &orig_text[func], sizeof(cur));
}

/* --- registrations and their audit --- */

static bool slot_counts_entries(struct ut_slot *s)
{
	return s->uc.handler;
}

static bool slot_counts_returns(struct ut_slot *s)
{
	return s->uc.ret_handler;
}

static void site_grew(int func)
{
	int n = atomic_inc_return(&site_live[func]);
	int max = atomic_read(&site_max);

	while (n > max && !atomic_try_cmpxchg(&site_max, &max, n))
		;
}

static int slot_register(struct ut_slot *s)
{
	u64 finished[UT_MAX_FUNCS], begun[UT_MAX_FUNCS];
	struct uprobe *u;

	if (read_target(NULL, finished))
		return -ESRCH;
	s->finished_before = finished[s->func];
	atomic_long_set(&s->hits, 0);
	atomic_long_set(&s->rets, 0);
	WRITE_ONCE(s->dead, false);

	u = uprobe_register(d_inode(target_path.dentry), offsets[s->func], 0,
			    &s->uc);
	if (IS_ERR(u)) {
		/* It unregistered and synced the consumer itself. */
		WRITE_ONCE(s->dead, true);
		atomic_long_inc(&n_errors);
		pr_err("function %d kind %d: uprobe_register: %ld\n", s->func,
		       s->kind, PTR_ERR(u));
		return PTR_ERR(u);
	}
	s->uprobe = u;
	atomic_long_inc(&n_reg);
	site_grew(s->func);
	/* Before begun[] is read: a call counted by it traps after this. */
	s->traps_armed = atomic_long_read(&traps[s->func]);
	s->removals_armed = atomic_long_read(&removals[s->func]);
	s->bp_armed = breakpoint_in_target(s->func);
	/*
	 * Every call that bumps begun[] after this read can only enter
	 * the function with the breakpoint in place.
	 */
	if (read_target(begun, NULL))
		s->begun_armed = U64_MAX;	/* no lower bound to check */
	else
		s->begun_armed = begun[s->func];
	return 0;
}

/*
 * Of the @least calls under the probe, those that cannot have trapped
 * although the breakpoint was in place all along: the CPU ran text
 * older than memory.  The traps counted may include one call per
 * thread at each edge that is not among them (begun before the
 * registration, finished after it): that many are given the benefit of
 * the doubt, and only when some call certainly did not trap.
 */
static s64 stale_calls(struct ut_slot *s, s64 least)
{
	long trapped = s->traps_disarm - s->traps_armed;

	if (!counting_removals || least <= trapped || !s->bp_armed ||
	    !s->bp_disarm || s->removals_disarm != s->removals_armed)
		return 0;
	return min_t(s64, least, least - trapped + 2 * target_threads);
}

/* The counts of one registration against what the counters allow. */
static void audit_count(struct ut_slot *s, const char *what, long seen,
			u64 begun_after)
{
	s64 least = (s64)(s->finished_disarm - s->begun_armed);
	s64 most = (s64)(begun_after - s->finished_before);
	s64 stale = 0;

	if (s->begun_armed == U64_MAX)
		least = 0;
	if (least > 0) {
		stale = stale_calls(s, least);
		least -= stale;
	}
	if (stale) {
		atomic_long_add(stale, &n_stale);
		pr_warn("function %d kind %d: %lld calls ran stale text, no trap with the breakpoint in memory\n",
			s->func, s->kind, stale);
	}
	if (least > 0 && seen < least) {
		atomic_long_add(least - seen, &n_lost);
		pr_err("function %d kind %d: %ld %s, but at least %lld calls ran under the probe\n",
		       s->func, s->kind, seen, what, least);
	}
	if (seen > most) {
		atomic_long_add(seen - most, &n_invented);
		pr_err("function %d kind %d: %ld %s, but at most %lld calls overlapped the probe\n",
		       s->func, s->kind, seen, what, most);
	}
	if (verbose)
		pr_info("function %d kind %d: %ld %s, within [%lld, %lld]\n",
			s->func, s->kind, seen, what, least, most);
}

/* The sync after @s's unregistration returned: audit the registration. */
static void slot_audit(struct ut_slot *s, const u64 *begun_after,
		       bool readable)
{
	long hits, rets;

	WRITE_ONCE(s->dead, true);
	hits = atomic_long_read(&s->hits);
	rets = atomic_long_read(&s->rets);
	atomic_long_add(hits, &n_hits);
	atomic_long_add(rets, &n_rets);
	atomic_long_inc(&n_unreg);
	atomic_dec(&site_live[s->func]);
	/* The target went away: its counters say nothing any more. */
	if (!readable)
		return;
	if (slot_counts_entries(s))
		audit_count(s, "entries", hits, begun_after[s->func]);
	if (slot_counts_returns(s))
		audit_count(s, "returns", rets, begun_after[s->func]);
}

/*
 * Unregister @n slots (their locks held) with one sync for all: the
 * lower bounds are read before the first goes, the upper bounds after
 * the sync, when none of their handlers can run any more.
 */
static void slots_unregister(struct ut_slot **batch, int n)
{
	u64 begun[UT_MAX_FUNCS], finished[UT_MAX_FUNCS];
	bool readable;
	int i;

	readable = !read_target(NULL, finished);
	for (i = 0; i < n; i++) {
		struct ut_slot *s = batch[i];

		/* After finished[] was read: a call it counts trapped before. */
		s->traps_disarm = atomic_long_read(&traps[s->func]);
		s->removals_disarm = atomic_long_read(&removals[s->func]);
		s->bp_disarm = breakpoint_in_target(s->func);
	}
	for (i = 0; i < n; i++) {
		batch[i]->finished_disarm = readable ? finished[batch[i]->func] : 0;
		uprobe_unregister_nosync(batch[i]->uprobe, &batch[i]->uc);
		batch[i]->uprobe = NULL;
	}
	uprobe_unregister_sync();
	readable = readable && !read_target(begun, NULL);
	for (i = 0; i < n; i++)
		slot_audit(batch[i], begun, readable);
}

/* --- the churn --- */

#define BATCH_MAX	5

static void churn_one(void)
{
	struct ut_slot *s = &slots[get_random_u32_below(nr_slots)];

	mutex_lock(&s->lock);
	if (s->uprobe)
		slots_unregister(&s, 1);
	else
		slot_register(s);
	mutex_unlock(&s->lock);
}

/* Unregister whichever registered slots can be had, with one sync. */
static void churn_batch(void)
{
	struct ut_slot *batch[BATCH_MAX];
	int n = 0, tries, i;

	for (tries = 0; tries < 3 * BATCH_MAX && n < BATCH_MAX; tries++) {
		struct ut_slot *s = &slots[get_random_u32_below(nr_slots)];

		/* Fails for a slot already in the batch, too: we hold it. */
		if (!mutex_trylock(&s->lock))
			continue;
		if (!s->uprobe) {
			mutex_unlock(&s->lock);
			continue;
		}
		batch[n++] = s;
	}
	if (!n)
		return;
	slots_unregister(batch, n);
	for (i = 0; i < n; i++)
		mutex_unlock(&batch[i]->lock);
	atomic_long_inc(&n_batches);
}

/* Register a few slots back to back, so that sites fill up. */
static void churn_fill(void)
{
	int i, n = 1 + get_random_u32_below(BATCH_MAX);

	for (i = 0; i < n && !atomic_read(&target_gone); i++) {
		struct ut_slot *s = &slots[get_random_u32_below(nr_slots)];

		if (!mutex_trylock(&s->lock))
			continue;
		if (!s->uprobe)
			slot_register(s);
		mutex_unlock(&s->lock);
	}
}

static int churner(void *arg)
{
	u32 r;

	while (!kthread_should_stop()) {
		if (atomic_read(&target_gone)) {
			/* Nothing to do, but stay until kthread_stop(). */
			schedule_timeout_interruptible(HZ / 10);
			continue;
		}
		r = get_random_u32_below(100);
		if (r < 15)
			churn_batch();
		else if (r < 25)
			churn_fill();
		else
			churn_one();
		/* Sometimes back to back, sometimes long enough for calls. */
		if (r & 1)
			usleep_range(50, 200);
		else
			usleep_range(500, 3000);
	}
	return 0;
}

/* --- setup, verdict, teardown --- */

static void print_verdict(void)
{
	long bad = atomic_long_read(&n_lost) + atomic_long_read(&n_invented) +
		   atomic_long_read(&n_late) + atomic_long_read(&n_errors);

	pr_info("registrations %ld unregistrations %ld batches %ld hits %ld returns %ld foreign %ld remove-asked %ld max-site %d reads %ld stale %ld direct %ld\n",
		atomic_long_read(&n_reg), atomic_long_read(&n_unreg),
		atomic_long_read(&n_batches), atomic_long_read(&n_hits),
		atomic_long_read(&n_rets), atomic_long_read(&n_foreign),
		atomic_long_read(&n_remove), atomic_read(&site_max),
		atomic_long_read(&n_reads), atomic_long_read(&n_stale),
		atomic_long_read(&n_direct));
	pr_info("verdict %s lost %ld invented %ld late %ld errors %ld\n",
		bad ? "FAIL" : "PASS", atomic_long_read(&n_lost),
		atomic_long_read(&n_invented), atomic_long_read(&n_late),
		atomic_long_read(&n_errors));
}

static void stop_churners(void)
{
	int i;

	for (i = 0; i < nr_churners; i++)
		kthread_stop(churner_tasks[i]);
	nr_churners = 0;
}

/* Take out every consumer still registered, as one batch. */
static void unregister_all(void)
{
	struct ut_slot *batch[UT_MAX_SLOTS];
	int i, n = 0;

	for (i = 0; i < nr_slots; i++)
		if (slots[i].uprobe)
			batch[n++] = &slots[i];
	if (n)
		slots_unregister(batch, n);
}

/*
 * Ends the run after @duration, early if the target goes away or the
 * module is being removed; then waits for kthread_stop().
 */
static int supervisor(void *arg)
{
	unsigned long end = jiffies + duration * HZ;

	while (!kthread_should_stop() && !atomic_read(&target_gone) &&
	       time_before(jiffies, end))
		schedule_timeout_interruptible(HZ / 10);
	/* Nobody else touches the slots once the churners are gone. */
	stop_churners();
	unregister_all();
	print_verdict();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static int find_target(void)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *p;

	p = find_get_pid(pid);
	task = p ? get_pid_task(p, PIDTYPE_PID) : NULL;
	put_pid(p);
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	target_threads = max(get_nr_threads(task), 1);
	put_task_struct(task);
	if (!mm)
		return -ESRCH;
	/* Only its identity is needed for the run, not its pages. */
	mmgrab(mm);
	mmput(mm);
	target_mm = mm;
	return 0;
}

/*
 * Is every offset inside an executable mapping of the file in the
 * target?  Note where.
 */
static int check_offsets(void)
{
	struct inode *inode = d_inode(target_path.dentry);
	struct vm_area_struct *vma;
	int i, found = 0, ret = 0;

	if (!mmget_not_zero(target_mm))
		return -ESRCH;
	mmap_read_lock(target_mm);
	for (i = 0; i < nr_offsets; i++) {
		VMA_ITERATOR(vmi, target_mm, 0);
		loff_t start, end;

		for_each_vma(vmi, vma) {
			if (!vma->vm_file || file_inode(vma->vm_file) != inode ||
			    !(vma->vm_flags & VM_EXEC))
				continue;
			start = (loff_t)vma->vm_pgoff << PAGE_SHIFT;
			end = start + vma->vm_end - vma->vm_start;
			if ((loff_t)offsets[i] >= start && (loff_t)offsets[i] < end) {
				probe_vaddr[i] = vma->vm_start + (offsets[i] - start);
				found++;
				break;
			}
		}
	}
	mmap_read_unlock(target_mm);
	mmput(target_mm);
	if (found != nr_offsets)
		ret = -EINVAL;
	return ret;
}

/*
 * The file's bytes at each probe: what the target runs where no probe
 * changed its copy (the page cache never holds a breakpoint).
 */
static int read_orig_text(void)
{
	struct file *f = dentry_open(&target_path, O_RDONLY, current_cred());
	int i, ret = 0;

	if (IS_ERR(f))
		return PTR_ERR(f);
	for (i = 0; i < nr_offsets && !ret; i++) {
		loff_t pos = offsets[i];

		if (kernel_read(f, &orig_text[i], sizeof(orig_text[i]), &pos) !=
		    sizeof(orig_text[i]))
			ret = -EIO;
	}
	fput(f);
	return ret;
}

static int __init uprobetorture_init(void)
{
	int i, k, ret;

	if (!path || pid <= 0 || !counters || !IS_ALIGNED(counters, sizeof(u64)) ||
	    nr_offsets < 1 || duration < 1 || churners < 1 ||
	    churners > UT_MAX_CHURNERS) {
		pr_err("needs path, pid, counters (u64-aligned), offsets, duration >= 1 and 1..%d churners\n",
		       UT_MAX_CHURNERS);
		return -EINVAL;
	}
	ret = kern_path(path, LOOKUP_FOLLOW, &target_path);
	if (ret) {
		pr_err("%s: %d\n", path, ret);
		return ret;
	}
	ret = find_target();
	if (ret) {
		pr_err("no process %d: %d\n", pid, ret);
		goto put_path;
	}
	ret = check_offsets();
	if (ret) {
		pr_err("process %d does not run %s at every offset given\n", pid, path);
		goto drop_mm;
	}
	ret = read_counters(NULL, NULL);
	if (ret) {
		pr_err("cannot read the counters at %#lx: %d\n", counters, ret);
		goto drop_mm;
	}
	ret = read_orig_text();
	if (ret) {
		pr_err("cannot read %s at the offsets given: %d\n", path, ret);
		goto drop_mm;
	}
	ret = register_kprobe(&trap_kp);
	if (ret) {
		pr_err("cannot count traps (kprobe on %s): %d\n",
		       trap_kp.symbol_name, ret);
		goto drop_mm;
	}
	/*
	 * Another engine (upstream's) has no uprobe_remove(): then no call
	 * is taken for stale, which that engine, writing a fresh page for
	 * each change, should not need anyway.
	 */
	ret = register_kprobe(&removal_kp);
	if (ret == -ENOENT) {
		pr_info("no %s: every call missing is lost\n",
			removal_kp.symbol_name);
	} else if (ret) {
		pr_err("cannot count removals (kprobe on %s): %d\n",
		       removal_kp.symbol_name, ret);
		goto drop_trap_kp;
	} else {
		counting_removals = true;
	}
	/* A port without direct entries never calls it, if it is there. */
	ret = register_kprobe(&direct_kp);
	if (!ret) {
		counting_direct = true;
	} else if (ret != -ENOENT) {
		pr_err("cannot count direct entries (kprobe on %s): %d\n",
		       direct_kp.symbol_name, ret);
		goto drop_removal_kp;
	}

	for (i = 0; i < nr_offsets; i++) {
		for (k = 0; k < UT_NR_KINDS; k++) {
			struct ut_slot *s = &slots[nr_slots++];

			mutex_init(&s->lock);
			s->func = i;
			s->kind = k;
			s->dead = true;
			if (k == UT_ENTRY || k == UT_ENTRY_FILTERED ||
			    k == UT_BOTH_FILTERED)
				s->uc.handler = ut_handler;
			if (k == UT_RET || k == UT_RET_FILTERED ||
			    k == UT_BOTH_FILTERED)
				s->uc.ret_handler = ut_ret_handler;
			if (k != UT_ENTRY && k != UT_RET)
				s->uc.filter = ut_filter;
		}
	}

	for (i = 0; i < churners; i++) {
		struct task_struct *t;

		t = kthread_run(churner, NULL, "ut_churner/%d", i);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto stop;
		}
		churner_tasks[nr_churners++] = t;
	}
	supervisor_task = kthread_run(supervisor, NULL, "ut_supervisor");
	if (IS_ERR(supervisor_task)) {
		ret = PTR_ERR(supervisor_task);
		supervisor_task = NULL;
		goto stop;
	}
	pr_info("pid %d, %d functions, %d churners, %d s\n", pid, nr_offsets,
		churners, duration);
	return 0;
stop:
	stop_churners();
	unregister_all();
	if (counting_direct)
		unregister_kprobe(&direct_kp);
drop_removal_kp:
	if (counting_removals)
		unregister_kprobe(&removal_kp);
drop_trap_kp:
	unregister_kprobe(&trap_kp);
drop_mm:
	mmdrop(target_mm);
put_path:
	path_put(&target_path);
	return ret;
}

static void __exit uprobetorture_exit(void)
{
	/* Ends the run early if it is still going: verdict included. */
	kthread_stop(supervisor_task);
	if (counting_direct)
		unregister_kprobe(&direct_kp);
	if (counting_removals)
		unregister_kprobe(&removal_kp);
	unregister_kprobe(&trap_kp);
	mmdrop(target_mm);
	path_put(&target_path);
}

module_init(uprobetorture_init);
module_exit(uprobetorture_exit);
MODULE_DESCRIPTION("uprobes torture test: consumers churned on a running program");
MODULE_LICENSE("GPL");
