// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probed text: what the file holds at a probe, and the breakpoint in
 * the memory of one mm.
 *
 * A breakpoint is written the way a debugger pokes text: the page is
 * faulted in for a forced write, which gives the mm its own copy of it
 * (private file mappings only), and the breakpoint goes into that copy.
 * Other mms mapping the file keep the page cache's page and never trap.
 * Removal writes the original bytes back into the copy.
 *
 * Writing and removing are decided and done under the page lock, so two
 * paths acting on the same probe in the same mm at once (a registration
 * walk and a handler asking for removal, say) see each other's result.
 *
 * An SDT semaphore (ref_ctr_offset) counts the probes armed on it in
 * each mm; it lives in the file's data, which may be mapped after the
 * text: then the increment waits on a list until uprobe_mmap() sees the
 * data mapped.
 */
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/cacheflush.h>

#include "internal.h"

/*
 * Copy up to @len bytes of @inode at @offset.  With @file NULL only
 * pages already in the page cache are used (no I/O is started without
 * the file some filesystems need for it).
 */
static int read_file_text(struct inode *inode, struct file *file,
			  loff_t offset, u8 *buf, size_t len)
{
	struct address_space *mapping = inode->i_mapping;
	loff_t size = i_size_read(inode);
	size_t done = 0;

	if (offset < 0 || offset >= size)
		return -EINVAL;
	len = min_t(loff_t, len, size - offset);
	while (done < len) {
		loff_t pos = offset + done;
		size_t n = min_t(size_t, len - done,
				 PAGE_SIZE - offset_in_page(pos));
		struct folio *folio;

		if (shmem_mapping(mapping))
			folio = shmem_read_folio(mapping, pos >> PAGE_SHIFT);
		else if (file)
			folio = read_mapping_folio(mapping, pos >> PAGE_SHIFT,
						   file);
		else
			folio = filemap_get_folio(mapping, pos >> PAGE_SHIFT);
		if (IS_ERR(folio)) {
			if (done)
				return done;
			return file || shmem_mapping(mapping) ? PTR_ERR(folio) : -EAGAIN;
		}
		if (!folio_test_uptodate(folio)) {
			folio_put(folio);
			return done ? done : -EAGAIN;
		}
		memcpy_from_folio(buf + done, folio, offset_in_folio(folio, pos),
				  n);
		folio_put(folio);
		done += n;
	}
	return done;
}

/**
 * uprobe_prepare() - have the port look at the probed instruction
 * @uprobe: the probe
 * @file: the file, or NULL to use only what the page cache holds
 *
 * Done once; later calls return the first verdict.
 *
 * Return: 0, the port's refusal, or -EAGAIN when @file was NULL and the
 * text was not cached.
 */
int uprobe_prepare(struct uprobe *uprobe, struct file *file)
{
	u8 text[MAX_UINSN_BYTES];
	int n, ret;

	/* Pairs with the barrier before set_bit() below. */
	if (test_bit_acquire(UPROBE_PREPARED, &uprobe->flags))
		return READ_ONCE(uprobe->prepare_err);

	/*
	 * Per probe: the file may be read here (I/O), and uprobe_mmap()
	 * calls this with the mapping mm's mmap_lock held for writing.  A
	 * global lock would let one slow file stall every mmap of a probed
	 * file in the system, and tie unrelated files together: a FUSE
	 * server mapping a probed library would wait behind a client's
	 * mmap that waits for that server to read a file it serves.
	 */
	mutex_lock(&uprobe->prepare_lock);
	ret = READ_ONCE(uprobe->prepare_err);
	if (test_bit(UPROBE_PREPARED, &uprobe->flags))
		goto out;
	n = read_file_text(uprobe->inode, file, uprobe->offset, text,
			   sizeof(text));
	if (n < 0) {
		ret = n;
		goto out;
	}
	if (n < UPROBE_SWBP_INSN_SIZE) {
		ret = -EINVAL;
	} else {
		memcpy(&uprobe->orig_opcode, text, UPROBE_SWBP_INSN_SIZE);
		ret = arch_uprobe_prepare(&uprobe->arch, text, n);
	}
	WRITE_ONCE(uprobe->prepare_err, ret);
	/*
	 * The verdict, the opcode and the port's copy before the flag
	 * that publishes them: hits read them locklessly once they see
	 * the flag (test_bit_acquire() in hit.c and above).
	 */
	smp_mb__before_atomic();
	set_bit(UPROBE_PREPARED, &uprobe->flags);
out:
	mutex_unlock(&uprobe->prepare_lock);
	return ret;
}

/*
 * Put the breakpoint in (@install) or take it out of @mm at @vaddr.
 * mmap_lock held.  Return: 1 when the text changed, 0 when it already
 * was as wanted, -EEXIST when the text there is neither the file's
 * instruction nor our breakpoint, or the fault's error.
 */
static int poke(struct uprobe *uprobe, struct mm_struct *mm,
		unsigned long vaddr, bool install)
{
	uprobe_opcode_t bp = UPROBE_SWBP_INSN, cur;
	const uprobe_opcode_t *want;
	struct vm_area_struct *vma;
	struct page *page;
	void *kaddr;
	long got;
	int ret;

	if (!install) {
		/*
		 * Look before writing: a forced write gives the mm its own
		 * copy of the page, which an mm that never had the
		 * breakpoint (one a process probe left alone, an image
		 * mapped after exec) must not get.
		 */
		got = get_user_pages_remote(mm, vaddr, 1, FOLL_FORCE, &page, NULL);
		if (got <= 0)
			return got ? got : -EFAULT;
		kaddr = kmap_local_page(page);
		memcpy(&cur, kaddr + offset_in_page(vaddr), UPROBE_SWBP_INSN_SIZE);
		kunmap_local(kaddr);
		put_page(page);
		if (memcmp(&cur, &bp, UPROBE_SWBP_INSN_SIZE))
			return 0;
	}
	got = get_user_pages_remote(mm, vaddr, 1,
				    FOLL_FORCE | FOLL_WRITE | FOLL_SPLIT_PMD,
				    &page, NULL);
	if (got <= 0)
		return got ? got : -EFAULT;
	vma = vma_lookup(mm, vaddr);
	if (WARN_ON_ONCE(!vma)) {
		put_page(page);
		return -EFAULT;
	}

	lock_page(page);
	kaddr = kmap_local_page(page);
	memcpy(&cur, kaddr + offset_in_page(vaddr), UPROBE_SWBP_INSN_SIZE);
	if (install) {
		want = &bp;
		/*
		 * A breakpoint already there is ours if this probe armed one
		 * before (fork copies them); before that it can only be
		 * someone else's, a debugger's say.
		 */
		if (!memcmp(&cur, &bp, UPROBE_SWBP_INSN_SIZE))
			ret = test_bit(UPROBE_ARMED, &uprobe->flags) ? 0 : -EEXIST;
		else if (memcmp(&cur, &uprobe->orig_opcode, UPROBE_SWBP_INSN_SIZE))
			ret = -EEXIST;
		else
			ret = 1;
	} else {
		want = &uprobe->orig_opcode;
		ret = memcmp(&cur, &bp, UPROBE_SWBP_INSN_SIZE) ? 0 : 1;
	}
	if (ret == 1) {
		if (install)
			set_bit(UPROBE_ARMED, &uprobe->flags);
		copy_to_user_page(vma, page, vaddr,
				  kaddr + offset_in_page(vaddr), want,
				  UPROBE_SWBP_INSN_SIZE);
		set_page_dirty(page);
	}
	kunmap_local(kaddr);
	unlock_page(page);
	put_page(page);
	return ret;
}

/* ---- SDT semaphores ---- */

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
static int ref_ctr_update(struct uprobe *uprobe, struct mm_struct *mm,
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

/* ---- Arming one mm ---- */

/**
 * uprobe_install() - arm @uprobe in @vma's mm at @vaddr
 * @uprobe: the probe
 * @vma: a vma of the file, mapping the probe at @vaddr; mmap_lock held
 * @vaddr: the probe's address in that mm
 *
 * Return: 0 (also when already armed), or -errno.
 */
int uprobe_install(struct uprobe *uprobe, struct vm_area_struct *vma,
		   unsigned long vaddr)
{
	struct mm_struct *mm = vma->vm_mm;
	int ret;

	ret = arch_uprobe_mm_supported(mm) ? uprobe_prepare(uprobe, vma->vm_file) :
					     -EOPNOTSUPP;
	if (ret)
		return ret;
	/* Before the breakpoint can trap, the trap must know to look. */
	set_bit(MMF_HAS_UPROBES, &mm->flags);
	ret = poke(uprobe, mm, vaddr, true);
	if (ret <= 0)
		return ret;
	ret = ref_ctr_update(uprobe, mm, 1);
	if (ret)
		poke(uprobe, mm, vaddr, false);
	return ret;
}

/**
 * uprobe_remove() - disarm @uprobe in @mm at @vaddr
 * @uprobe: the probe
 * @mm: the mm; its mmap_lock is held
 * @vaddr: the probe's address in it
 *
 * Return: 0 (also when it was not armed), or -errno.
 */
int uprobe_remove(struct uprobe *uprobe, struct mm_struct *mm,
		  unsigned long vaddr)
{
	int ret;

	/* Never armed: a breakpoint there is someone else's. */
	if (!test_bit(UPROBE_ARMED, &uprobe->flags))
		return 0;
	ret = poke(uprobe, mm, vaddr, false);
	if (ret <= 0)
		return ret;
	return ref_ctr_update(uprobe, mm, -1);
}
