// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * File probes: consumers come and go, and the breakpoint follows them
 * into and out of every mm that maps the file at the probe.
 *
 * A registration change walks the file's reverse map (i_mmap) and arms
 * or disarms each mm.  Mappings made later are armed by uprobe_mmap(),
 * which the mm code calls with the new vma linked in i_mmap: a walk that
 * started before the link cannot miss it, because the mmap then sees the
 * consumer already added, and one that ends after it takes the mm's
 * mmap_lock, which the mmap holds until it is done.  Fork copies page
 * tables, breakpoints included, so walks exclude forks
 * (uprobes_dup_mmap_sem): a child is either copied before the walk and
 * found by it, or copied after it from a parent the walk already fixed.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rculist.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>

#include "internal.h"

DEFINE_PERCPU_RWSEM(uprobes_dup_mmap_sem);

static bool consumer_wants(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	return !uc->filter || uc->filter(uc, mm);
}

/**
 * uprobe_wanted_by() - should @uprobe be armed in @mm?
 * @uprobe: the probe
 * @mm: the mm
 *
 * Return: true when a consumer has no filter or its filter accepts @mm.
 */
bool uprobe_wanted_by(struct uprobe *uprobe, struct mm_struct *mm)
{
	struct uprobe_consumer *uc;
	bool want = false;
	int idx;

	idx = srcu_read_lock(&uprobes_srcu);
	list_for_each_entry_srcu(uc, &uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu)) {
		if (consumer_wants(uc, mm)) {
			want = true;
			break;
		}
	}
	srcu_read_unlock(&uprobes_srcu, idx);
	return want;
}

struct walk_target {
	struct list_head	node;
	struct mm_struct	*mm;
	unsigned long		vaddr;
};

static void free_targets(struct list_head *list)
{
	struct walk_target *t, *tmp;

	list_for_each_entry_safe(t, tmp, list, node) {
		list_del(&t->node);
		if (t->mm)
			mmput(t->mm);
		kfree(t);
	}
}

/*
 * Every (mm, address) where the file maps @uprobe, each mm with a user
 * reference.  i_mmap is read under a lock that reclaim also takes, so
 * nothing is allocated while it is held: count, allocate, and fill,
 * again if the mappings grew in between.
 */
static int collect_targets(struct uprobe *uprobe, bool install,
			   struct list_head *out)
{
	struct address_space *mapping = uprobe->inode->i_mapping;
	pgoff_t pgoff = uprobe->offset >> PAGE_SHIFT;
	LIST_HEAD(spare);
	int have = 0;

	for (;;) {
		struct vm_area_struct *vma;
		struct walk_target *t;
		int need = 0;

		i_mmap_lock_read(mapping);
		vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff, pgoff) {
			if (!uprobe_vma_ok(vma, install))
				continue;
			need++;
			if (list_empty(&spare) || !mmget_not_zero(vma->vm_mm))
				continue;
			t = list_first_entry(&spare, struct walk_target, node);
			t->mm = vma->vm_mm;
			t->vaddr = uprobe_vaddr(vma, uprobe->offset);
			list_move_tail(&t->node, out);
		}
		i_mmap_unlock_read(mapping);
		if (need <= have)
			break;

		/* Too few: start over with enough. */
		list_splice_init(out, &spare);
		list_for_each_entry(t, &spare, node) {
			if (t->mm)
				mmput(t->mm);
			t->mm = NULL;
		}
		for (; have < need; have++) {
			t = kzalloc(sizeof(*t), GFP_KERNEL);
			if (!t) {
				free_targets(&spare);
				return -ENOMEM;
			}
			list_add(&t->node, &spare);
		}
	}
	free_targets(&spare);
	return 0;
}

/* The vma at @vaddr, if it still maps @uprobe there. */
static struct vm_area_struct *probe_vma(struct uprobe *uprobe,
					struct mm_struct *mm,
					unsigned long vaddr, bool install)
{
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);

	if (!vma || !uprobe_vma_ok(vma, install) ||
	    file_inode(vma->vm_file) != uprobe->inode ||
	    uprobe_file_offset(vma, vaddr) != uprobe->offset)
		return NULL;
	return vma;
}

/*
 * Arm @uprobe where @added wants it (@added not NULL), or disarm it where
 * no consumer does.  Under register_rwsem and uprobes_dup_mmap_sem.
 * Return: the first error met; the walk goes on regardless.
 */
static int walk_mms(struct uprobe *uprobe, struct uprobe_consumer *added)
{
	bool install = added;
	struct walk_target *t;
	LIST_HEAD(targets);
	int ret, err = 0;

	ret = collect_targets(uprobe, install, &targets);
	if (ret)
		return ret;
	list_for_each_entry(t, &targets, node) {
		struct mm_struct *mm = t->mm;
		struct vm_area_struct *vma;

		mmap_read_lock(mm);
		vma = probe_vma(uprobe, mm, t->vaddr, install);
		if (!vma)
			ret = 0;
		else if (install)
			ret = consumer_wants(added, mm) ?
				uprobe_install(uprobe, vma, t->vaddr) : 0;
		else
			ret = uprobe_wanted_by(uprobe, mm) ?
				0 : uprobe_remove(uprobe, mm, t->vaddr);
		mmap_read_unlock(mm);
		if (ret && !err)
			err = ret;
	}
	free_targets(&targets);
	return err;
}

/*
 * Taking @uprobe's breakpoints out failed in some mm (no memory, or a
 * fatal signal cut the page access short) or in all (the list of them
 * could not be made), so breakpoints may be left: the probe stays, for
 * good, with a reference nobody drops, as it would be leaked anyway.  A
 * thread that runs into a stray breakpoint then still finds it, runs the
 * instruction and, no consumer wanting its mm, takes the breakpoint out
 * (run_handlers() in hit.c), where a freed probe would leave it a
 * SIGTRAP.
 */
static void keep_for_strays(struct uprobe *uprobe)
{
	if (test_and_set_bit(UPROBE_KEPT, &uprobe->flags))
		return;
	refcount_inc(&uprobe->ref);
	pr_warn_ratelimited("uprobes: inode %lu offset %#llx could not be disarmed everywhere; kept for the hits left\n",
			    uprobe->inode->i_ino, (unsigned long long)uprobe->offset);
}

static void consumer_add(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	mutex_lock(&uprobe->consumer_lock);
	list_add_tail_rcu(&uc->cons_node, &uprobe->consumers);
	mutex_unlock(&uprobe->consumer_lock);
}

static void consumer_del(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	mutex_lock(&uprobe->consumer_lock);
	list_del_rcu(&uc->cons_node);
	mutex_unlock(&uprobe->consumer_lock);
}

static bool is_consumer(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	struct uprobe_consumer *c;
	bool found = false;

	mutex_lock(&uprobe->consumer_lock);
	list_for_each_entry(c, &uprobe->consumers, cons_node)
		if (c == uc)
			found = true;
	mutex_unlock(&uprobe->consumer_lock);
	return found;
}

/*
 * A consumer on a probe's list has both links set; a fresh one has none
 * and one taken off (consumer_del()) a poisoned back link.  Registering
 * one still on a list, here or on another probe, would link it twice.
 */
static bool consumer_in_use(struct uprobe_consumer *uc)
{
	return uc->cons_node.next && uc->cons_node.prev != LIST_POISON2;
}

/**
 * uprobe_register() - add a consumer to the probe at @inode:@offset
 * @inode: the file
 * @offset: offset of the probed instruction in the file
 * @ref_ctr_offset: offset of the probe's SDT semaphore, or 0 for none
 * @uc: the consumer; stays owned by the caller
 *
 * The probe is armed in every mm mapping the file that @uc's filter
 * accepts, now and in mappings made later.  @uc's handlers may run
 * before this returns.
 *
 * Return: a handle for uprobe_unregister_nosync() and uprobe_apply(), or
 * ERR_PTR(-EINVAL) for an offset outside the file, misaligned, or a
 * semaphore that differs from the probe's existing one, -EOPNOTSUPP when
 * the instruction cannot be probed, -EIO when the file cannot be read,
 * -EEXIST when a process's text at the probe is not the file's,
 * -EBUSY when @uc is registered already, -ENOMEM.
 */
struct uprobe *uprobe_register(struct inode *inode, loff_t offset,
			       loff_t ref_ctr_offset,
			       struct uprobe_consumer *uc)
{
	struct address_space *mapping = inode->i_mapping;
	struct uprobe *uprobe;
	int ret;

	if (!uc->handler && !uc->ret_handler)
		return ERR_PTR(-EINVAL);
	if (consumer_in_use(uc))
		return ERR_PTR(-EBUSY);
	if (!mapping->a_ops->read_folio && !shmem_mapping(mapping))
		return ERR_PTR(-EIO);
	if (offset < 0 || offset >= i_size_read(inode) ||
	    !IS_ALIGNED(offset, UPROBE_SWBP_INSN_SIZE))
		return ERR_PTR(-EINVAL);
	if (ref_ctr_offset < 0 || ref_ctr_offset >= i_size_read(inode) ||
	    !IS_ALIGNED(ref_ctr_offset, sizeof(short)))
		return ERR_PTR(-EINVAL);

	uprobe = uprobe_get_or_create(inode, offset, ref_ctr_offset);
	if (IS_ERR(uprobe))
		return uprobe;
	/* Refuse early when the page cache already holds the text. */
	ret = uprobe_prepare(uprobe, NULL);
	if (ret && ret != -EAGAIN)
		goto put;

	down_write(&uprobe->register_rwsem);
	consumer_add(uprobe, uc);
	percpu_down_write(&uprobes_dup_mmap_sem);
	ret = walk_mms(uprobe, uc);
	if (ret) {
		consumer_del(uprobe, uc);
		if (walk_mms(uprobe, NULL))
			keep_for_strays(uprobe);
	}
	percpu_up_write(&uprobes_dup_mmap_sem);
	up_write(&uprobe->register_rwsem);
	if (!ret)
		return uprobe;
	/* Hits may have seen @uc; it is the caller's again after this. */
	synchronize_srcu(&uprobes_srcu);
put:
	uprobe_put(uprobe);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(uprobe_register);

/**
 * uprobe_unregister_nosync() - remove a consumer from its probe
 * @uprobe: what uprobe_register() returned for @uc
 * @uc: the consumer
 *
 * Disarms the probe in every mm no remaining consumer wants.  Handlers of
 * @uc may still be running on return: call uprobe_unregister_sync()
 * (once for any number of these) before freeing @uc.
 */
void uprobe_unregister_nosync(struct uprobe *uprobe,
			      struct uprobe_consumer *uc)
{
	down_write(&uprobe->register_rwsem);
	consumer_del(uprobe, uc);
	percpu_down_write(&uprobes_dup_mmap_sem);
	if (walk_mms(uprobe, NULL))
		keep_for_strays(uprobe);
	percpu_up_write(&uprobes_dup_mmap_sem);
	up_write(&uprobe->register_rwsem);
	uprobe_put(uprobe);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_nosync);

/**
 * uprobe_unregister_sync() - wait out handlers of removed consumers
 *
 * On return no handler of a consumer removed by uprobe_unregister_nosync()
 * before the call is running or will run.
 */
void uprobe_unregister_sync(void)
{
	synchronize_srcu(&uprobes_srcu);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_sync);

/**
 * uprobe_apply() - re-evaluate @uc's filter for every mm
 * @uprobe: the probe @uc was registered on
 * @uc: the consumer
 * @add: true to arm where @uc's filter now accepts, false to disarm
 *	where no consumer's filter accepts any more
 *
 * Return: 0, -ENOENT when @uc is not a consumer of @uprobe, or the
 * first error of arming.
 */
int uprobe_apply(struct uprobe *uprobe, struct uprobe_consumer *uc, bool add)
{
	int ret = -ENOENT;

	down_write(&uprobe->register_rwsem);
	if (is_consumer(uprobe, uc)) {
		percpu_down_write(&uprobes_dup_mmap_sem);
		ret = walk_mms(uprobe, add ? uc : NULL);
		percpu_up_write(&uprobes_dup_mmap_sem);
	}
	up_write(&uprobe->register_rwsem);
	return ret;
}
EXPORT_SYMBOL_GPL(uprobe_apply);

/**
 * uprobe_leave_current_mm() - every consumer asked to leave this mm
 * @uprobe: the probe that was hit
 * @vaddr: where
 *
 * Disarms it here if the filters agree (a consumer without a filter
 * keeps it).
 */
void uprobe_leave_current_mm(struct uprobe *uprobe, unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;

	/*
	 * A hit finds its probe under SRCU only, and the consumer that
	 * asked for removal may have been unregistered meanwhile, taking
	 * the probe's last reference with it.  A new probe at the same
	 * inode:offset then owns the breakpoint, and removing "ours" would
	 * write the original instruction over it.  While we hold a
	 * reference no other probe can exist there, so the breakpoint is
	 * ours to take out.
	 */
	if (!uprobe_tryget(uprobe))
		return;
	down_read(&uprobe->register_rwsem);
	if (!uprobe_wanted_by(uprobe, mm)) {
		mmap_read_lock(mm);
		if (probe_vma(uprobe, mm, vaddr, false))
			uprobe_remove(uprobe, mm, vaddr);
		mmap_read_unlock(mm);
	}
	up_read(&uprobe->register_rwsem);
	uprobe_put(uprobe);
}
