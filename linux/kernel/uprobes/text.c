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
 * Arming also counts the probe on its SDT semaphore, if it has one
 * (sdt.c).
 *
 * A port may replace a breakpoint that trapped with its own way in
 * (ARCH_UPROBE_DIRECT_ENTRY in <linux/uprobes_arch.h>); the bytes it
 * writes go through uprobe_text_replace() here, and arming or disarming
 * puts the breakpoint back before anything else.
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

int uprobe_text_read(struct mm_struct *mm, unsigned long vaddr, u8 *buf,
		     size_t len)
{
	struct page *page;
	void *kaddr;
	long got;

	if (offset_in_page(vaddr) + len > PAGE_SIZE)
		return -EINVAL;
	/* Not a user access: the text may be execute-only. */
	got = get_user_pages_remote(mm, vaddr, 1, FOLL_FORCE, &page, NULL);
	if (got <= 0)
		return got ? got : -EFAULT;
	kaddr = kmap_local_page(page);
	memcpy(buf, kaddr + offset_in_page(vaddr), len);
	kunmap_local(kaddr);
	put_page(page);
	return 0;
}

/*
 * The mm's own copy of the page at @vaddr, made by a forced write fault,
 * and its vma.  Return: 0 with a reference on *@pagep, or -errno.
 */
static int text_page_for_write(struct mm_struct *mm, unsigned long vaddr,
			       struct page **pagep, struct vm_area_struct **vmap)
{
	long got = get_user_pages_remote(mm, vaddr, 1,
					 FOLL_FORCE | FOLL_WRITE | FOLL_SPLIT_PMD,
					 pagep, NULL);

	if (got <= 0)
		return got ? got : -EFAULT;
	*vmap = vma_lookup(mm, vaddr);
	if (WARN_ON_ONCE(!*vmap)) {
		put_page(*pagep);
		return -EFAULT;
	}
	return 0;
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
	int ret;

	if (!install) {
		/*
		 * Look before writing: a forced write gives the mm its own
		 * copy of the page, which an mm that never had the
		 * breakpoint (one a process probe left alone, an image
		 * mapped after exec) must not get.
		 */
		ret = uprobe_text_read(mm, vaddr, (u8 *)&cur,
				       UPROBE_SWBP_INSN_SIZE);
		if (ret)
			return ret;
		if (memcmp(&cur, &bp, UPROBE_SWBP_INSN_SIZE))
			return 0;
	}
	ret = text_page_for_write(mm, vaddr, &page, &vma);
	if (ret)
		return ret;

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
		if (install) {
			set_bit(UPROBE_ARMED, &uprobe->flags);
			/*
			 * The probe is in the hash and prepared before the
			 * breakpoint can be seen: pairs with the smp_rmb()
			 * between a hit's look at the breakpoint and its
			 * second lookup (handle_breakpoint() in hit.c).
			 */
			smp_wmb();
		}
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

/* ---- Bytes for a port's direct entries ---- */

int uprobe_text_replace(struct mm_struct *mm, unsigned long vaddr,
			const u8 *old, const u8 *new, size_t len)
{
	struct vm_area_struct *vma;
	u8 cur[MAX_UINSN_BYTES];
	struct page *page;
	void *kaddr;
	int ret;

	if (len > sizeof(cur))
		return -EINVAL;
	/* A mismatch must not cost the mm a copy of the page. */
	ret = uprobe_text_read(mm, vaddr, cur, len);
	if (ret || memcmp(cur, old, len))
		return ret;
	ret = text_page_for_write(mm, vaddr, &page, &vma);
	if (ret)
		return ret;
	lock_page(page);
	kaddr = kmap_local_page(page);
	ret = !memcmp(kaddr + offset_in_page(vaddr), old, len);
	if (ret) {
		copy_to_user_page(vma, page, vaddr,
				  kaddr + offset_in_page(vaddr), new, len);
		set_page_dirty(page);
	}
	kunmap_local(kaddr);
	unlock_page(page);
	put_page(page);
	return ret;
}

/**
 * uprobe_direct_try() - let the port replace the breakpoint just hit
 * @vaddr: where, in current->mm
 *
 * The probe is looked up again under the mmap_lock held for writing: no
 * registration walk can arm or disarm it meanwhile, and one that comes
 * later finds the port's entry and puts the breakpoint back first.
 */
void uprobe_direct_try(unsigned long vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct uprobe *u;
	int idx;

	if (mmap_write_lock_killable(mm))
		return;
	idx = srcu_read_lock(&uprobes_srcu);
	vma = vma_lookup(mm, vaddr);
	if (vma && uprobe_vma_ok(vma, true)) {
		u = uprobe_lookup_rcu(file_inode(vma->vm_file),
				      uprobe_file_offset(vma, vaddr));
		/* Pairs with uprobe_prepare() publishing the port's copy. */
		if (u && test_bit_acquire(UPROBE_PREPARED, &u->flags) &&
		    !u->prepare_err && test_bit(UPROBE_ARMED, &u->flags))
			arch_uprobe_direct_enter(&u->arch, mm, vaddr);
	}
	srcu_read_unlock(&uprobes_srcu, idx);
	mmap_write_unlock(mm);
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
	/* Armed already, and entered by the port's way, not the breakpoint. */
	if (ret == -EEXIST &&
	    arch_uprobe_direct_leave(&uprobe->arch, mm, vaddr) > 0)
		ret = poke(uprobe, mm, vaddr, true);
	if (ret <= 0)
		return ret;
	ret = uprobe_ref_ctr_update(uprobe, mm, 1);
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
	/* The breakpoint first, where the port entered the probe its way. */
	ret = arch_uprobe_direct_leave(&uprobe->arch, mm, vaddr);
	if (ret < 0)
		return ret;
	ret = poke(uprobe, mm, vaddr, false);
	if (ret <= 0)
		return ret;
	return uprobe_ref_ctr_update(uprobe, mm, -1);
}
