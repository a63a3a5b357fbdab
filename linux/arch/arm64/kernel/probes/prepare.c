// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 kprobes: deciding what a probed instruction needs, its slot, and
 * planting or removing BRKs.  The hit side is in kprobes.c.
 */
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/execmem.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/sections.h>
#include <asm/virt.h>

#include "decode.h"

/*
 * Reads a simulated literal load's data, and the word under a BRK with no
 * probe, inside the BRK handler.  Nothing here may be probed: a probe hit
 * on top of that hit would be a third level once the hit is a nested
 * one.  So copy_from_kernel_nofault() (probeable) is open-coded with its
 * inline accessor; a fault is fixed up through its exception table.
 * @len is 4, 8 or 16.
 */
static int read_kernel_text(void *dst, unsigned long src, size_t len)
{
	int err = 0;

	pagefault_disable();
	for (; len >= sizeof(u64); len -= sizeof(u64)) {
		__get_kernel_nofault(dst, (const void *)src, u64, fault);
		dst += sizeof(u64);
		src += sizeof(u64);
	}
	if (len)
		__get_kernel_nofault(dst, (const void *)src, u32, fault);
out:
	pagefault_enable();
	return err;
fault:
	err = -EFAULT;
	goto out;
}
NOKPROBE_SYMBOL(read_kernel_text);

/*
 * Stores a simulated stp makes: into the probed function's own frame, at
 * or above its sp, which the breakpoint's frame below it cannot overlap.
 */
static int write_kernel_stack(unsigned long dst, const void *src, size_t len)
{
	int err = 0;

	pagefault_disable();
	for (; len >= sizeof(u64); len -= sizeof(u64)) {
		__put_kernel_nofault((void *)dst, src, u64, fault);
		dst += sizeof(u64);
		src += sizeof(u64);
	}
	if (len)
		__put_kernel_nofault((void *)dst, src, u32, fault);
out:
	pagefault_enable();
	return err;
fault:
	err = -EFAULT;
	goto out;
}
NOKPROBE_SYMBOL(write_kernel_stack);

const struct arm64_probe_policy arm64_kprobe_policy = {
	.kernel = true,
	.frame = true,
	.read = read_kernel_text,
	.write = write_kernel_stack,
};

/* How far back a probe looks for the load-exclusive that would enclose it. */
#define EXCLUSIVE_SCAN_MAX	32

/*
 * Is @addr between a load-exclusive and its store-exclusive?  The trap
 * around a step clears the exclusive monitor, so the store would fail on
 * every pass and the loop around it would never end.  Sequences do not
 * cross function boundaries, so the scan stops at the function's start.
 */
static bool inside_exclusive_sequence(u32 *addr)
{
	unsigned long size, offset = EXCLUSIVE_SCAN_MAX * AARCH64_INSN_SIZE;
	__le32 window[EXCLUSIVE_SCAN_MAX];
	unsigned int n;
	u32 insn;

	kallsyms_lookup_size_offset((unsigned long)addr, &size, &offset);
	n = min_t(unsigned long, offset / AARCH64_INSN_SIZE, EXCLUSIVE_SCAN_MAX);
	/* One read for the window: registering many probes adds up. */
	if (copy_from_kernel_nofault(window, addr - n, n * AARCH64_INSN_SIZE))
		return false;
	while (n--) {
		insn = le32_to_cpu(window[n]);
		if (arm64_insn_is_exclusive_load(insn))
			return true;
		if (arm64_insn_is_exclusive(insn))
			return false;
	}
	return false;
}

static void refuse(struct kprobe *p, const char *why)
{
	pr_info_ratelimited("kprobes: %pS: %s, not probed\n", p->addr, why);
}

/*
 * Words just before a function that are data, not code.  With
 * DYNAMIC_FTRACE_WITH_CALL_OPS, the 8 bytes before each function ftrace
 * can trace hold a pointer to the ftrace_ops its call site uses, which
 * every traced call loads; with kCFI the 4 bytes before a function hold
 * its type hash, which every indirect call checks.  Both decode as some
 * instruction, and a BRK there corrupts them: the next traced call, or
 * indirect call, oopses.  kallsyms counts those words in the function
 * before, so the end of the symbol holding @addr is the function whose
 * prefix they are.
 */
static const char *function_prefix_data(unsigned long addr)
{
	unsigned long size, offset, next;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS) &&
	    !IS_ENABLED(CONFIG_CFI_CLANG))
		return NULL;
	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return NULL;
	next = addr - offset + size;
	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS) &&
	    next - addr <= 2 * AARCH64_INSN_SIZE && ftrace_location(next))
		return "ftrace ops pointer before a function";
	if (IS_ENABLED(CONFIG_CFI_CLANG) && next - addr <= AARCH64_INSN_SIZE)
		return "kCFI type hash before a function";
	return NULL;
}

int arch_prepare_kprobe(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	struct arm64_probe_verdict v;
	const char *why;
	__le32 slot[2];
	u32 insn;

	if (!IS_ALIGNED(addr, AARCH64_INSN_SIZE))
		return -EILSEQ;
	/*
	 * A fault on a kernel address does not reach kprobes on arm64, and
	 * the fixup would be looked up at the slot: no probe on code that
	 * relies on one.
	 */
	if (search_exception_tables(addr)) {
		refuse(p, "instruction with an exception-table fixup");
		return -EINVAL;
	}
	why = function_prefix_data(addr);
	if (why) {
		refuse(p, why);
		return -EINVAL;
	}
	if (aarch64_insn_read(p->addr, &insn))
		return -EFAULT;
	v = arm64_probe_classify(insn, &arm64_kprobe_policy);
	if (v.class == ARM64_PROBE_REFUSED) {
		refuse(p, v.why);
		return -EINVAL;
	}
	if (inside_exclusive_sequence(p->addr)) {
		refuse(p, "inside a load/store-exclusive sequence");
		return -EINVAL;
	}
	p->opcode = insn;
	p->ainsn.class = v.class;
	p->ainsn.simulate = arm64_probe_simulator(v.class);
	p->ainsn.insn = NULL;
	if (v.class != ARM64_PROBE_STEP)
		return 0;

	p->ainsn.insn = kprobe_alloc_insn_slot();
	if (!p->ainsn.insn)
		return -ENOMEM;
	slot[0] = cpu_to_le32(insn);
	slot[1] = cpu_to_le32(BRK64_OPCODE_KPROBES_SS);
	arch_write_insn_slot(p->ainsn.insn, slot, sizeof(slot));
	return 0;
}

void arch_remove_kprobe(struct kprobe *p)
{
	if (p->ainsn.insn) {
		kprobe_free_insn_slot(p->ainsn.insn);
		p->ainsn.insn = NULL;
	}
}

/*
 * execmem maps kprobe pages without the guarded bit.  Where the kernel
 * enforces BTI a slot page gets it, like the text it copies: the CPU
 * enters a copy with the BTYPE of the trap and checks it as it would the
 * original, so a landing pad passes and anything else raises the Branch
 * Target exception it would have raised in place.
 */
void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (page && system_supports_bti_kernel() &&
	    set_memory_x((unsigned long)page, 1)) {
		execmem_free(page);
		return NULL;
	}
	return page;
}

/*
 * A CPU only enters a slot through an exception return, which is context
 * synchronising, so cleaning the caches to the point of unification is
 * all a new slot needs: no IPI to every CPU, which flush_icache_range()
 * (and so aarch64_insn_copy()) would send for each probe.
 */
void arch_write_insn_slot(void *slot, const void *insn, size_t len)
{
	const __le32 *words = insn;
	u32 *to = slot;
	size_t i;

	for (i = 0; i < len / AARCH64_INSN_SIZE; i++)
		aarch64_insn_patch_text_nosync(to + i, le32_to_cpu(words[i]));
}

/* What ftrace_init_nop() writes before each call site. */
static u32 ftrace_mov_x9(void)
{
	return aarch64_insn_gen_move_reg(AARCH64_INSN_REG_9, AARCH64_INSN_REG_LR,
					 AARCH64_INSN_VARIANT_64BIT);
}

#ifdef CONFIG_KPROBES_FTRACE_BRIDGE
/*
 * The bridge breakpoint of an ftrace site goes on ftrace's `mov x9, x30`
 * just before it: every call runs it, and ftrace writes it once, when
 * the function's text is first set up, and checks only the site itself
 * when it patches later.  kprobe_brk_handler() carries it out.
 */
bool arch_kprobe_ftrace_bridge_ok(struct kprobe *p)
{
	u32 insn;

	return !aarch64_insn_read(p->addr - 1, &insn) && insn == ftrace_mov_x9();
}
#endif

/*
 * An arbitrary instruction may not be replaced by a BRK while another
 * CPU may execute it, so patching stops the machine; a batch pays for
 * that once.  When the arrays cannot be had, chunks on the stack still
 * keep it to one stop per BATCH_ON_STACK probes.
 */
#define BATCH_ON_STACK	16

static void patch_chunk(struct kprobe **kps, int n, bool arm, void **addrs,
			u32 *insns)
{
	int i;

	for (i = 0; i < n; i++) {
		addrs[i] = kps[i]->addr;
		insns[i] = arm ? BRK64_OPCODE_KPROBES : kps[i]->opcode;
		if (kprobe_has_flag(kps[i], KPROBE_FLAGS_BRIDGED)) {
			addrs[i] = kps[i]->addr - 1;
			insns[i] = arm ? BRK64_OPCODE_KPROBES : ftrace_mov_x9();
		}
	}
	WARN_ON_ONCE(aarch64_insn_patch_text(addrs, insns, n));
}

static void patch_breakpoints(struct kprobe **kps, int n, bool arm)
{
	void *stack_addrs[BATCH_ON_STACK];
	u32 stack_insns[BATCH_ON_STACK];
	void **addrs = NULL;
	u32 *insns = NULL;
	int i;

	if (n > BATCH_ON_STACK) {
		addrs = kvmalloc_array(n, sizeof(*addrs), GFP_KERNEL);
		insns = kvmalloc_array(n, sizeof(*insns), GFP_KERNEL);
	}
	if (addrs && insns) {
		patch_chunk(kps, n, arm, addrs, insns);
	} else {
		for (i = 0; i < n; i += BATCH_ON_STACK)
			patch_chunk(kps + i, min(n - i, BATCH_ON_STACK), arm,
				    stack_addrs, stack_insns);
	}
	kvfree(addrs);
	kvfree(insns);
}

void arch_arm_kprobes(struct kprobe **kps, int n)
{
	patch_breakpoints(kps, n, true);
}

void arch_disarm_kprobes(struct kprobe **kps, int n)
{
	patch_breakpoints(kps, n, false);
}

/*
 * The ftrace call site an entry probe of the function at @addr goes on,
 * or 0.  Before the site come at most a BTI and ftrace's `mov x9, x30`:
 * a handler sees the same registers on the site as on either of them
 * (x9 aside, scratch at an entry), and the site is reached by a call,
 * not a BRK.
 */
static unsigned long entry_ftrace_site(unsigned long addr)
{
	unsigned long site;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return 0;
	site = ftrace_location(addr);
	if (site <= addr || site - addr > 2 * AARCH64_INSN_SIZE)
		return 0;
	return site;
}

/*
 * An entry probe goes on the ftrace call site where the function has
 * one, else after a BTI, the landing pad.  Either way it stays before a
 * PACIASP: a kretprobe must swap x30 before it is signed.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long site = entry_ftrace_site(addr);
	u32 insn;

	if (site && offset <= site - addr &&
	    IS_ALIGNED(offset, AARCH64_INSN_SIZE)) {
		*on_func_entry = true;
		return (kprobe_opcode_t *)site;
	}
	if ((!offset || offset == AARCH64_INSN_SIZE) &&
	    !aarch64_insn_read((void *)addr, &insn) && aarch64_insn_is_bti(insn)) {
		*on_func_entry = true;
		return (kprobe_opcode_t *)(addr + AARCH64_INSN_SIZE);
	}
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Text that runs before, or outside, the state a BRK handler needs: the
 * exception vectors and entry code, and the hypervisor's text (its
 * identity-mapped part only matters when the kernel is not itself at EL2).
 */
int arch_populate_kprobe_blacklist(void)
{
	const struct {
		char *start, *end;
		bool only_at_el1;
	} ranges[] = {
		{ __entry_text_start, __entry_text_end },
		{ __irqentry_text_start, __irqentry_text_end },
		{ __hyp_text_start, __hyp_text_end },
		{ __hyp_idmap_text_start, __hyp_idmap_text_end, true },
	};
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		if (ranges[i].only_at_el1 && is_kernel_in_hyp_mode())
			continue;
		err = kprobe_add_area_blacklist((unsigned long)ranges[i].start,
						(unsigned long)ranges[i].end);
		if (err)
			return err;
	}
	return 0;
}
