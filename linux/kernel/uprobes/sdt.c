// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SDT semaphores: a USDT probe may name a counter (ref_ctr_offset) in
 * the file's data that the program reads to know whether anyone is
 * tracing it.  Each mm's counter is raised once per probe armed there
 * and lowered when it is disarmed.  The data may be mapped after the
 * text: the increment then waits on a list until uprobe_mmap() sees the
 * data mapped, and is dropped if the probe or the mm goes first.
 */
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "internal.h"

struct ref_ctr_wait {
	struct list_head	node;
	struct uprobe		*uprobe;	/* no reference: forgotten first */
	struct mm_struct	*mm;		/* no reference: forgotten first */
};

static DEFINE_MUTEX(ref_ctr_lock);
static LIST_HEAD(ref_ctr_waiting);

static bool ref_ctr_vma(struct uprobe *uprobe, struct vm_area_struct *vma)
{
	unsigned long vaddr;

	if (!vma->vm_file || file_inode(vma->vm_file) != uprobe->inode ||
	    (vma->vm_flags & (VM_WRITE | VM_SHARED)) != VM_WRITE)
		return false;
	vaddr = uprobe_vaddr(vma, uprobe->ref_ctr_offset);
	return vaddr >= vma->vm_start && vaddr < vma->vm_end;
}

/* Add @d to the semaphore in @vma; mmap_lock held. */
static int ref_ctr_add(struct uprobe *uprobe, struct vm_area_struct *vma,
		       short d)
{
	unsigned long vaddr = uprobe_vaddr(vma, uprobe->ref_ctr_offset);
	struct page *page;
	short *ctr;
	void *kaddr;
	long got;
	int ret = 0;

	got = get_user_pages_remote(vma->vm_mm, vaddr, 1,
				    FOLL_WRITE | FOLL_FORCE, &page, NULL);
	if (got <= 0)
		return got ? got : -EFAULT;
	kaddr = kmap_local_page(page);
	ctr = kaddr + offset_in_page(vaddr);
	if (*ctr + d < 0) {
		pr_warn("uprobes: semaphore at %#lx in pid %d would go negative\n",
			vaddr, current->pid);
		ret = -EINVAL;
	} else {
		*ctr += d;
		set_page_dirty_lock(page);
	}
	kunmap_local(kaddr);
	put_page(page);
	return ret;
}

static struct ref_ctr_wait *ref_ctr_waiter(struct uprobe *uprobe,
					   struct mm_struct *mm)
{
	struct ref_ctr_wait *w;

	list_for_each_entry(w, &ref_ctr_waiting, node)
		if (w->uprobe == uprobe && w->mm == mm)
			return w;
	return NULL;
}

/* Count one more (@d 1) or one fewer (-1) armed probe in @mm. */
int uprobe_ref_ctr_update(struct uprobe *uprobe, struct mm_struct *mm,
			  short d)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	struct ref_ctr_wait *w;
	int ret;

	if (!uprobe->ref_ctr_offset)
		return 0;
	vma_iter_init(&vmi, mm, 0);
	for_each_vma(vmi, vma)
		if (ref_ctr_vma(uprobe, vma))
			return ref_ctr_add(uprobe, vma, d);

	/* The data is not mapped (yet). */
	mutex_lock(&ref_ctr_lock);
	w = ref_ctr_waiter(uprobe, mm);
	ret = 0;
	if (d > 0 && !w) {
		w = kmalloc(sizeof(*w), GFP_KERNEL);
		if (w) {
			w->uprobe = uprobe;
			w->mm = mm;
			list_add(&w->node, &ref_ctr_waiting);
		} else {
			ret = -ENOMEM;
		}
	} else if (d < 0 && w) {
		list_del(&w->node);
		kfree(w);
	}
	mutex_unlock(&ref_ctr_lock);
	return ret;
}

/**
 * uprobe_ref_ctr_mmap() - a vma appeared: any semaphore waiting for it?
 * @vma: the new vma; its mm's mmap_lock is held for writing
 */
void uprobe_ref_ctr_mmap(struct vm_area_struct *vma)
{
	struct ref_ctr_wait *w, *tmp;

	if (list_empty(&ref_ctr_waiting) || !vma->vm_file)
		return;
	mutex_lock(&ref_ctr_lock);
	list_for_each_entry_safe(w, tmp, &ref_ctr_waiting, node) {
		if (w->mm != vma->vm_mm || !ref_ctr_vma(w->uprobe, vma))
			continue;
		ref_ctr_add(w->uprobe, vma, 1);
		list_del(&w->node);
		kfree(w);
	}
	mutex_unlock(&ref_ctr_lock);
}

static void ref_ctr_forget(struct uprobe *uprobe, struct mm_struct *mm)
{
	struct ref_ctr_wait *w, *tmp;

	mutex_lock(&ref_ctr_lock);
	list_for_each_entry_safe(w, tmp, &ref_ctr_waiting, node) {
		if ((uprobe && w->uprobe == uprobe) || (mm && w->mm == mm)) {
			list_del(&w->node);
			kfree(w);
		}
	}
	mutex_unlock(&ref_ctr_lock);
}

/* The mm is going away: its waiting increments with it. */
void uprobe_ref_ctr_forget_mm(struct mm_struct *mm)
{
	if (!list_empty(&ref_ctr_waiting))
		ref_ctr_forget(NULL, mm);
}

/* The probe is going away (nothing is armed any more). */
void uprobe_ref_ctr_forget_uprobe(struct uprobe *uprobe)
{
	if (uprobe->ref_ctr_offset && !list_empty(&ref_ctr_waiting))
		ref_ctr_forget(uprobe, NULL);
}
