// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86-64 uprobes: probes on a 5-byte nop entered without a trap.
 *
 * Once a probe on "nopl 0x0(%rax,%rax,1)" has trapped in an mm, the nop
 * there becomes a "jmp rel32" to a stub in a page mapped within 2 GiB
 * of it.  The stub moves the stack pointer down by the 128 bytes of the
 * red zone, which the ABI lets a leaf function keep below its stack
 * pointer, before it stores anything; it saves the three registers the
 * syscall instruction clobbers and makes the uretprobe syscall (which
 * seccomp lets through).  The kernel puts every register back, runs the
 * hit as the breakpoint would have at the nop, and the thread goes on
 * after the nop:
 *
 *	lea -128(%rsp),%rsp; push %rax; push %rcx; push %r11
 *	mov $__NR_uretprobe,%eax; syscall
 *
 * A jump, unlike a call, leaves no trace of where it came from, so each
 * probed nop has a stub of its own and the syscall's return address
 * says which stub ran.  All stubs are the same 16 bytes, so one page of
 * them serves the whole system, mapped read-only wherever it is needed;
 * what an mm owns is the table of which nop each stub serves.  A stub
 * serves its nop for the life of the table: a thread may be between the
 * jump and the syscall at any moment, and must come back where it left.
 *
 * Writing the jump keeps the breakpoint as the first byte until the
 * offset behind it is in place and every CPU has serialized; taking it
 * out puts the breakpoint back first.  A thread meets the nop, the
 * breakpoint or the whole jump, never a mix.  Both run under the mmap
 * lock (for writing when the jump goes in), so they never overlap each
 * other or the engine's arming.
 *
 * A fork copies the jumps with the pages and the stub pages with the
 * vmas; parent and child then share the table, to which either only
 * adds.  When no page can be mapped within reach, or the table is full,
 * the breakpoint stays; an mm that met that STUB_MISSES_MAX times stops
 * asking.  Turning uprobes.nop5_jump off keeps the jumps already written
 * and writes no more.
 */
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/security.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sync_core.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>
#include <linux/uprobes_arch.h>
#include <asm/unistd.h>

#include "uprobes_jump.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "uprobes."

/* Off: probes on 5-byte nops keep trapping (for comparison, or a bug). */
static bool nop5_jump = true;
module_param(nop5_jump, bool, 0644);
MODULE_PARM_DESC(nop5_jump, "enter probes on 5-byte nops by a jump, not a trap");

#define NOP5_LEN	5
#define STUB_LEN	UPROBE_STUB_LEN
#define STUBS_PER_PAGE	(PAGE_SIZE / STUB_LEN)
#define STUB_PAGES_MAX	16
/*
 * Nops an mm found no stub for (none left in reach) before it stops
 * trying: each try takes the mmap_lock for writing, on a hit.
 */
#define STUB_MISSES_MAX	64
/* lea -128(%rsp),%rsp moves past the ABI's red zone. */
#define RED_ZONE	128

static const u8 nop5[NOP5_LEN] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static const u8 stub_code[STUB_LEN] = {
	0x48, 0x8d, 0x64, 0x24, 0x80,			/* lea -0x80(%rsp),%rsp */
	0x50, 0x51, 0x41, 0x53,				/* push rax, rcx, r11 */
	0xb8, __NR_uretprobe & 0xff, (__NR_uretprobe >> 8) & 0xff, 0, 0,
	0x0f, 0x05,					/* syscall */
};

/**
 * struct stub_page - one mapped page of stubs
 * @base: its user address
 * @site: the nop each stub jumps back after, 0 while the stub is free;
 *	set once, under the table's lock, before any jump to the stub
 */
struct stub_page {
	unsigned long	base;
	unsigned long	site[STUBS_PER_PAGE];
};

/**
 * struct uprobe_stub_table - the stubs of an mm, and of its forks
 * @ref: the mms sharing it
 * @lock: serializes adding pages and giving stubs out
 * @nr: pages published in @pages
 * @misses: nops no stub could be found for
 * @pages: append-only; read locklessly from the syscall
 */
struct uprobe_stub_table {
	refcount_t		ref;
	struct mutex		lock;	/* see @lock above */
	unsigned int		nr;
	unsigned int		misses;
	struct stub_page	*pages[STUB_PAGES_MAX];
};

static struct page *stub_pages[2];

/* A moved stub page would send every jump to it into the void. */
static int stub_mremap(const struct vm_special_mapping *sm,
		       struct vm_area_struct *new_vma)
{
	return -EINVAL;
}

static const struct vm_special_mapping stub_mapping = {
	.name	= "[uprobes-stubs]",
	.pages	= stub_pages,
	.mremap	= stub_mremap,
};

static int __init uprobe_stubs_init(void)
{
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	unsigned int i;
	u8 *kaddr;

	if (!page)
		return -ENOMEM;
	kaddr = page_address(page);
	for (i = 0; i < STUBS_PER_PAGE; i++)
		memcpy(kaddr + i * STUB_LEN, stub_code, STUB_LEN);
	stub_pages[0] = page;
	return 0;
}
late_initcall(uprobe_stubs_init);

static struct uprobe_stub_table *table_of(struct mm_struct *mm)
{
	struct arch_uprobes_state *st = &mm->uprobes_state.arch;

	/* Pairs with the release in table_get(): an initialized table. */
	return smp_load_acquire(&st->stubs_mm) == mm ? st->stubs : NULL;
}

/* The table of @mm, made on first use; mmap_lock held for writing. */
static struct uprobe_stub_table *table_get(struct mm_struct *mm)
{
	struct arch_uprobes_state *st = &mm->uprobes_state.arch;
	struct uprobe_stub_table *t = table_of(mm);

	if (t)
		return t;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	refcount_set(&t->ref, 1);
	mutex_init(&t->lock);
	st->stubs = t;
	/* Publishes @t whole: pairs with the acquire in table_of(). */
	smp_store_release(&st->stubs_mm, mm);
	return t;
}

static void table_put(struct uprobe_stub_table *t)
{
	unsigned int i;

	if (!refcount_dec_and_test(&t->ref))
		return;
	for (i = 0; i < t->nr; i++)
		kfree(t->pages[i]);
	kfree(t);
}

void arch_uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	struct arch_uprobes_state *st = &newmm->uprobes_state.arch;
	struct uprobe_stub_table *t = table_of(oldmm);

	/* The child's pages jump to the same stubs, at the same addresses. */
	st->stubs = t;
	if (t)
		refcount_inc(&t->ref);
	st->stubs_mm = t ? newmm : NULL;
}

void arch_uprobe_clear_state(struct mm_struct *mm)
{
	struct uprobe_stub_table *t = table_of(mm);

	mm->uprobes_state.arch.stubs = NULL;
	mm->uprobes_state.arch.stubs_mm = NULL;
	if (t)
		table_put(t);
}

/* The nop a stub ending at @ret (the syscall's return address) serves. */
static unsigned long stub_site(struct uprobe_stub_table *t, unsigned long ret)
{
	unsigned long stub = ret - STUB_LEN;
	/* Pairs with the release in map_page(): those pages are filled. */
	unsigned int i, nr = smp_load_acquire(&t->nr);

	if (!IS_ALIGNED(stub, STUB_LEN))
		return 0;
	for (i = 0; i < nr; i++) {
		struct stub_page *p = t->pages[i];

		if (stub - p->base < PAGE_SIZE)
			return READ_ONCE(p->site[(stub - p->base) / STUB_LEN]);
	}
	return 0;
}

/* Can a jump at @site reach @target? */
static bool in_reach(unsigned long site, unsigned long target)
{
	long d = (long)target - (long)(site + NOP5_LEN);

	return d == (s32)d;
}

/* Is @p mapped at its address in @mm (not unmapped by the program)? */
static bool page_mapped_in(struct mm_struct *mm, struct stub_page *p)
{
	struct vm_area_struct *vma = vma_lookup(mm, p->base);

	return vma && vma->vm_start == p->base &&
	       vma_is_special_mapping(vma, &stub_mapping);
}

/*
 * Map a stub page within reach of @site in @mm.  Return: its entry in
 * @t, which may be one a fork's other side made at the same address
 * (its stubs serve the same nops here), or NULL.
 */
static struct stub_page *map_page(struct mm_struct *mm,
				  struct uprobe_stub_table *t,
				  unsigned long site)
{
	unsigned long top = site < DEFAULT_MAP_WINDOW ? DEFAULT_MAP_WINDOW :
							TASK_SIZE_MAX;
	struct vm_unmapped_area_info info = {
		.flags		= VM_UNMAPPED_AREA_TOPDOWN,
		.length		= PAGE_SIZE,
	};
	struct stub_page *p = NULL;
	struct vm_area_struct *vma;
	unsigned long addr, low;
	unsigned int i;

	/*
	 * A page of margin on both sides of the 2 GiB.  Both limits page
	 * aligned: without an alignment mask, vm_unmapped_area() returns
	 * the highest address that fits, aligned or not.
	 */
	low = site > SZ_2G ? site - SZ_2G + 2 * PAGE_SIZE : 0;
	info.low_limit = PAGE_ALIGN(max(low, mmap_min_addr));
	info.high_limit = min((site + SZ_2G - 2 * PAGE_SIZE) & PAGE_MASK, top);
	if (info.low_limit >= info.high_limit)
		return NULL;
	addr = vm_unmapped_area(&info);
	if (IS_ERR_VALUE(addr) || offset_in_page(addr) ||
	    !in_reach(site, addr) ||
	    !in_reach(site, addr + PAGE_SIZE - STUB_LEN))
		return NULL;

	for (i = 0; i < t->nr; i++)
		if (t->pages[i]->base == addr)
			p = t->pages[i];
	if (!p && t->nr == STUB_PAGES_MAX)
		return NULL;
	vma = _install_special_mapping(mm, addr, PAGE_SIZE,
				       VM_READ | VM_EXEC | VM_MAYREAD |
				       VM_MAYEXEC | VM_DONTEXPAND,
				       &stub_mapping);
	if (IS_ERR(vma))
		return NULL;
	if (p)
		return p;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		do_munmap(mm, addr, PAGE_SIZE, NULL);
		return NULL;
	}
	p->base = addr;
	t->pages[t->nr] = p;
	/* Pairs with the acquire in stub_site(). */
	smp_store_release(&t->nr, t->nr + 1);
	return p;
}

/* A free stub of @p, or 0. */
static unsigned long free_stub(struct stub_page *p)
{
	unsigned int j;

	for (j = 0; j < STUBS_PER_PAGE; j++)
		if (!p->site[j])
			return p->base + j * STUB_LEN;
	return 0;
}

/*
 * The stub for @site in @mm: the one it had, a free one in a page in
 * reach, or one in a page mapped now.  0 when there is none.
 */
static unsigned long stub_for(struct mm_struct *mm,
			      struct uprobe_stub_table *t, unsigned long site)
{
	struct stub_page *p, *room = NULL;
	unsigned long stub = 0;
	unsigned int i, j;

	mutex_lock(&t->lock);
	for (i = 0; i < t->nr; i++) {
		p = t->pages[i];
		if (!in_reach(site, p->base) ||
		    !in_reach(site, p->base + PAGE_SIZE - STUB_LEN) ||
		    !page_mapped_in(mm, p))
			continue;
		for (j = 0; j < STUBS_PER_PAGE; j++)
			if (p->site[j] == site)
				stub = p->base + j * STUB_LEN;
		if (stub)
			goto out;
		if (!room && free_stub(p))
			room = p;
	}
	if (!room)
		room = map_page(mm, t, site);
	if (room) {
		stub = free_stub(room);
		/* Before any jump to it: the syscall reads it locklessly. */
		if (stub)
			WRITE_ONCE(room->site[(stub - room->base) / STUB_LEN],
				   site);
	}
	if (!stub)
		WRITE_ONCE(t->misses, t->misses + 1);
out:
	mutex_unlock(&t->lock);
	return stub;
}

static void serialize_cpu(void *unused)
{
	sync_core();
}

/*
 * Every CPU through a serializing instruction: none goes on with bytes
 * of the text fetched before the last write.
 */
static void serialize_all(void)
{
	on_each_cpu(serialize_cpu, NULL, 1);
}

static void make_jump(u8 *buf, unsigned long site, unsigned long stub)
{
	buf[0] = 0xe9;
	put_unaligned((s32)(stub - (site + NOP5_LEN)), (s32 *)(buf + 1));
}

/* Called by arch_uprobe_prepare(). */
void uprobe_jump_prepare(struct arch_uprobe *au, const u8 *text, size_t len)
{
	au->nop5 = len >= NOP5_LEN && !memcmp(text, nop5, NOP5_LEN);
}

/* The rest of arch_uprobe_direct_wanted(), for a 5-byte nop. */
bool uprobe_jump_wanted(unsigned long vaddr)
{
	struct uprobe_stub_table *t;

	if (!READ_ONCE(nop5_jump) || !stub_pages[0] ||
	    offset_in_page(vaddr) > PAGE_SIZE - NOP5_LEN)
		return false;
	t = table_of(current->mm);
	return !t || READ_ONCE(t->misses) < STUB_MISSES_MAX;
}

int arch_uprobe_direct_enter(struct arch_uprobe *au, struct mm_struct *mm,
			     unsigned long vaddr)
{
	u8 trapping[NOP5_LEN], half[NOP5_LEN], jump[NOP5_LEN];
	struct uprobe_stub_table *t;
	unsigned long stub;
	int ret;

	if (!arch_uprobe_direct_wanted(au, vaddr) ||
	    !arch_uprobe_mm_supported(mm))
		return -EOPNOTSUPP;
	t = table_get(mm);
	if (!t)
		return -ENOMEM;
	stub = stub_for(mm, t, vaddr);
	if (!stub)
		return -ENOSPC;

	make_jump(jump, vaddr, stub);
	memcpy(trapping, nop5, NOP5_LEN);
	trapping[0] = UPROBE_SWBP_INSN;
	memcpy(half, jump, NOP5_LEN);
	half[0] = UPROBE_SWBP_INSN;

	/* The offset behind the breakpoint, then the jump's opcode. */
	ret = uprobe_text_replace(mm, vaddr, trapping, half, NOP5_LEN);
	if (ret <= 0)
		return ret ? ret : -EEXIST;
	serialize_all();
	ret = uprobe_text_replace(mm, vaddr, half, jump, NOP5_LEN);
	if (ret == 1)
		return 0;
	/* Cannot happen under the mmap_lock; leave a breakpoint anyway. */
	uprobe_text_replace(mm, vaddr, half, trapping, NOP5_LEN);
	return ret ? ret : -EEXIST;
}

int arch_uprobe_direct_leave(struct arch_uprobe *au, struct mm_struct *mm,
			     unsigned long vaddr)
{
	u8 cur[NOP5_LEN], half[NOP5_LEN], trapping[NOP5_LEN];
	struct uprobe_stub_table *t = table_of(mm);
	unsigned long stub;
	int ret;

	if (!au->nop5 || !t || offset_in_page(vaddr) > PAGE_SIZE - NOP5_LEN)
		return 0;
	ret = uprobe_text_read(mm, vaddr, cur, NOP5_LEN);
	if (ret)
		return ret;
	if (cur[0] != 0xe9)
		return 0;
	/* Only a jump to a stub of ours serving this very nop. */
	stub = vaddr + NOP5_LEN + get_unaligned((s32 *)(cur + 1));
	if (stub_site(t, stub + STUB_LEN) != vaddr)
		return 0;

	memcpy(half, cur, NOP5_LEN);
	half[0] = UPROBE_SWBP_INSN;
	memcpy(trapping, nop5, NOP5_LEN);
	trapping[0] = UPROBE_SWBP_INSN;
	ret = uprobe_text_replace(mm, vaddr, cur, half, NOP5_LEN);
	if (ret <= 0)
		return ret;
	serialize_all();
	ret = uprobe_text_replace(mm, vaddr, half, trapping, NOP5_LEN);
	if (ret <= 0)
		return ret ? ret : -EEXIST;
	/* The engine's write of the nop's first byte comes next. */
	serialize_all();
	return 1;
}

/* Is the jump to the stub ending at @ret still at @site? */
static bool jump_still_at(unsigned long site, unsigned long ret)
{
	u8 cur[NOP5_LEN], want[NOP5_LEN];

	make_jump(want, site, ret - STUB_LEN);
	if (copy_from_user(cur, (void __user *)site, NOP5_LEN) &&
	    access_remote_vm(current->mm, site, cur, NOP5_LEN,
			     FOLL_FORCE) != NOP5_LEN)
		return false;
	return !memcmp(cur, want, NOP5_LEN);
}

/**
 * uprobe_stub_syscall() - the uretprobe syscall, made by a stub?
 * @regs: the syscall's registers
 *
 * Return: false when @regs->ip is not the end of one of the mm's stubs;
 * else true, with @regs what the thread goes on with (rax included).
 */
bool uprobe_stub_syscall(struct pt_regs *regs)
{
	struct uprobe_stub_table *t = current->mm ? table_of(current->mm) : NULL;
	unsigned long site, ret = regs->ip;
	unsigned long f[3];		/* r11, rcx, rax */

	if (!t)
		return false;
	site = stub_site(t, ret);
	if (!site)
		return false;
	if (!uprobe_read_syscall_frame(regs->sp, f)) {
		force_sig(SIGSEGV);
		return true;
	}
	regs->r11 = f[0];
	regs->cx = f[1];
	regs->ax = f[2];
	regs->sp += sizeof(f) + RED_ZONE;
	/* Not a syscall to restart, whatever rax holds. */
	regs->orig_ax = -1;
	regs->ip = site;

	if (!uprobe_handle_direct(regs, site)) {
		/*
		 * No probe any more.  Where the jump is still there (the
		 * breakpoint goes back before the probe goes, so briefly
		 * at most), the nop is done; anything else runs as it now is.
		 */
		regs->ip = jump_still_at(site, ret) ? site + NOP5_LEN : site;
	}
	return true;
}

#ifdef CONFIG_UPROBES_KUNIT_TEST
#include "uprobes_jump_kunit.c"
#endif
