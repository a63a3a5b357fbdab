// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 uprobes port.
 *
 * A breakpoint is BRK #UPROBES_BRK_IMM.  The shared instruction layer
 * (decode.h) says what a hit does with the probed instruction: the
 * PC-relative ones (branches, adr/adrp, literal loads) are simulated on
 * pt_regs, and so are, for user text only, the stack-frame stp/ldp and
 * SP arithmetic of function entries and exits; the rest run from an XOL
 * slot followed by the same BRK, so no hardware single-step is needed.
 * User text differs from kernel text in the policy: literals are read as
 * user memory, and DAIF and pointer-authentication instructions are
 * stepped, acting on the user's state as they would in place.
 *
 * The return trampoline is that BRK too; the engine tells it from a
 * probe by its address.
 */
#include <linux/kprobes.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>
#include <linux/uprobes_arch.h>
#include <asm/cacheflush.h>
#include <asm/debug-monitors.h>

#include "decode.h"

/* No fault uses this code: still there after the step, nothing faulted. */
#define UPROBE_INV_FAULT_CODE	UINT_MAX

static int user_read(void *dst, unsigned long src, size_t len)
{
	return copy_from_user(dst, (const void __user *)src, len) ? -EFAULT : 0;
}

static int user_write(unsigned long dst, const void *src, size_t len)
{
	return copy_to_user((void __user *)dst, src, len) ? -EFAULT : 0;
}

static const struct arm64_probe_policy uprobe_policy = {
	.kernel = false,
	.frame = true,
	.read = user_read,
	.write = user_write,
};

bool arch_uprobe_mm_supported(struct mm_struct *mm)
{
	/* A32/T32 are not decoded. */
	return !(mm->context.flags & MMCF_AARCH32);
}

int arch_uprobe_prepare(struct arch_uprobe *au, const u8 *text, size_t len)
{
	struct arm64_probe_verdict v;
	u32 insn;

	if (len < AARCH64_INSN_SIZE)
		return -EILSEQ;
	insn = get_unaligned_le32(text);
	v = arm64_probe_classify(insn, &uprobe_policy);
	if (v.class == ARM64_PROBE_REFUSED) {
		pr_debug("uprobes: %08x refused: %s\n", insn, v.why);
		return -EOPNOTSUPP;
	}
	au->insn = cpu_to_le32(insn);
	au->class = v.class;
	return 0;
}

bool arch_uprobe_emulate(struct arch_uprobe *au, struct pt_regs *regs)
{
	unsigned long pc = instruction_pointer(regs);

	if (!arm64_probe_simulated(au->class))
		return false;
	if (arm64_probe_simulate(le32_to_cpu(au->insn), au->class, pc, regs,
				 &uprobe_policy))
		return true;
	/* A frame instruction that declined runs from the slot... */
	if (arm64_probe_may_step(au->class))
		return false;
	/* ...an unreadable literal faults here as the load would in place. */
	force_sig_fault(SIGSEGV, SEGV_MAPERR, (void __user *)pc);
	return true;
}

unsigned int arch_uprobe_fill_slot(struct arch_uprobe *au, unsigned long slot,
				   u8 *buf)
{
	__le32 *code = (__le32 *)buf;

	code[0] = au->insn;
	code[1] = UPROBE_SWBP_INSN;
	return AARCH64_INSN_SIZE;
}

void arch_uprobe_sync_slot(void *kaddr, unsigned long vaddr, size_t len)
{
	sync_icache_aliases((unsigned long)kaddr, (unsigned long)kaddr + len);
}

int arch_uprobe_pre_xol(struct arch_uprobe *au, struct pt_regs *regs,
			struct uprobe_task *ut)
{
	ut->autask.saved_fault_code = current->thread.fault_code;
	current->thread.fault_code = UPROBE_INV_FAULT_CODE;
	instruction_pointer_set(regs, ut->slot);
	return 0;
}

int arch_uprobe_post_xol(struct arch_uprobe *au, struct pt_regs *regs,
			 struct uprobe_task *ut)
{
	current->thread.fault_code = ut->autask.saved_fault_code;
	instruction_pointer_set(regs, ut->vaddr + AARCH64_INSN_SIZE);
	return 0;
}

bool arch_uprobe_xol_was_trapped(struct task_struct *t)
{
	return t->thread.fault_code != UPROBE_INV_FAULT_CODE;
}

void arch_uprobe_abort_xol(struct arch_uprobe *au, struct pt_regs *regs,
			   struct uprobe_task *ut)
{
	current->thread.fault_code = ut->autask.saved_fault_code;
	instruction_pointer_set(regs, ut->vaddr);
}

unsigned long arch_uprobe_trap_vaddr(struct pt_regs *regs)
{
	/* BRK leaves the pc at itself. */
	return instruction_pointer(regs);
}

unsigned long arch_uretprobe_hijack_return_addr(unsigned long trampoline,
						struct pt_regs *regs)
{
	unsigned long orig = procedure_link_pointer(regs);

	procedure_link_pointer_set(regs, trampoline);
	return orig;
}

/*
 * @ri->entry_sp is the stack pointer at the probed function's entry.  The
 * return address travels in x30, so sp is the same when the function
 * returns, and when it branched (not called) into another probed
 * function; a call made from inside its frame enters below it.
 */
bool arch_uretprobe_frame_live(struct return_instance *ri,
			       enum uprobe_frame_check ctx,
			       struct pt_regs *regs)
{
	if (ctx == UPROBE_FRAME_TAIL_CALL)
		return regs->sp <= ri->entry_sp;
	return regs->sp < ri->entry_sp;
}

static const __le32 uretprobe_trampoline = UPROBE_SWBP_INSN;

const void *arch_uprobe_trampoline(size_t *size)
{
	*size = sizeof(uretprobe_trampoline);
	return &uretprobe_trampoline;
}

/**
 * uprobe_brk_handler() - an EL0 BRK with the uprobes immediate
 * @regs: user registers
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED when uprobes takes it, else DBG_HOOK_ERROR.
 */
int uprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	return uprobe_breakpoint_trap(regs) ? DBG_HOOK_HANDLED : DBG_HOOK_ERROR;
}
NOKPROBE_SYMBOL(uprobe_brk_handler);

/**
 * uprobe_single_step_handler() - an EL0 single-step exception
 * @regs: user registers
 * @esr: the exception syndrome
 *
 * Uprobes never single-step: slots end in a breakpoint.
 *
 * Return: DBG_HOOK_ERROR, always.
 */
int uprobe_single_step_handler(struct pt_regs *regs, unsigned long esr)
{
	return DBG_HOOK_ERROR;
}
NOKPROBE_SYMBOL(uprobe_single_step_handler);
