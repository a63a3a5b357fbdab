// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 probes on ftrace call sites: the fentry call is hooked through ftrace
 * instead of an int3.  Handlers see the same regs an int3 hit would give
 * (ip just past the probed address); the probed "instruction" is the
 * call site's nop, so there is nothing to replay but moving ip past it.
 *
 * A site reaches its probe in one of two ways: through the ftrace_ops all
 * such sites share (kprobe_ftrace_handler() looks the head up by ip), or
 * through a lane of its own (see kernel/kprobes/lanes.c): ftrace calls
 * the lane's trampoline below directly, which knows its head.
 */
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/ftrace.h>
#include <linux/linkage.h>
#include <asm/unwind_hints.h>

#include "decode.h"
#include "common.h"

/*
 * The hit, with preemption off and @probe found: the same whichever way
 * the site was reached.  @regs->ip is where ftrace (or the lane) returns.
 */
static __always_inline void ftrace_site_hit(struct kprobe *probe,
					    unsigned long ip,
					    struct pt_regs *regs)
{
	unsigned long resume;

	/*
	 * A gone head's hook is out; a call that raced with that is not ours
	 * (kprobe_disabled() is true for gone heads too).
	 */
	if (kprobe_disabled(probe))
		return;
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(probe);
		return;
	}
	resume = regs->ip;
	regs->ip = ip + INT3_INSN_SIZE;
	if (kprobe_hit_begin(probe, regs)) {
		/* A handler chose where to go; ftrace returns there. */
		reset_current_kprobe();
		return;
	}
	/* As if the nop had executed, then back to where the call returns. */
	if (kprobe_hit_wants_post(probe)) {
		regs->ip = ip + MCOUNT_INSN_SIZE;
		kprobe_hit_end(probe, regs);
	} else {
		reset_current_kprobe();
	}
	regs->ip = resume;
}

void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct kprobe *probe;

	/*
	 * ftrace calls us directly: we keep ourselves on this CPU.  No
	 * recursion guard is needed beyond kprobe_running(): nothing before
	 * that check can be traced (this file and the core are built without
	 * ftrace), and a probed function called from a handler only counts
	 * a miss.
	 */
	preempt_disable_notrace();
	probe = kprobe_lookup((void *)ip);
	if (likely(probe))
		ftrace_site_hit(probe, ip, ftrace_get_regs(fregs));
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kprobe_ftrace_handler);

int arch_prepare_kprobe_ftrace(struct kprobe *probe)
{
	probe->ainsn.insn = NULL;
	probe->ainsn.pi.len = MCOUNT_INSN_SIZE;
	probe->ainsn.pi.op = X86_PROBE_NOP;
	return 0;
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/*
 * Called by lane trampolines with the registers they saved and the lane's
 * head slot.  Right above the registers is the trampoline's return
 * address: just past the fentry call, or where another ftrace user sent
 * the call (livepatch).
 */
__visible void kprobe_lane_hit(struct pt_regs *regs, struct kprobe **slot)
{
	unsigned long *back = (unsigned long *)(regs + 1);
	struct kprobe *probe;

	/* ss and cs as whole words, clearing what FRED keeps above them. */
	regs->ssx = __KERNEL_DS;
	regs->sp = (unsigned long)(back + 1);
	regs->csx = __KERNEL_CS;
	regs->orig_ax = ~0UL;
	regs->ip = *back;

	preempt_disable_notrace();
	/* NULL once the lane is unhooked: a task preempted on its way here. */
	probe = rcu_dereference_raw(*slot);
	if (probe)
		ftrace_site_hit(probe, (unsigned long)probe->addr, regs);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kprobe_lane_hit);

/*
 * The lane trampolines, one per lane and alike but for the slot they pass,
 * entered by the direct call with the pt_regs frame of common.h (ss and
 * sp filled in by kprobe_lane_hit()).  The ip the handlers leave becomes
 * the return address.
 */
static_assert(KPROBE_FTRACE_LANES == 8);
/* In .kprobes.text: never probed themselves. */
asm(".pushsection .kprobes.text, \"ax\"\n"
	".irp lane, 0, 1, 2, 3, 4, 5, 6, 7\n"
	".type kprobe_lane_\\lane, @function\n"
	"kprobe_lane_\\lane:\n"
	ANNOTATE_NOENDBR
	UNWIND_HINT_FUNC
	PT_REGS_FRAME_ENTER_STRING
	"	movq %rsp, %rdi\n"
	"	leaq kprobe_lane_heads + 8 * \\lane(%rip), %rsi\n"
	"	call kprobe_lane_hit\n"
	PT_REGS_FRAME_RETURN_TO_IP_STRING
	PT_REGS_FRAME_LEAVE_STRING
	ASM_RET
	".size kprobe_lane_\\lane, .-kprobe_lane_\\lane\n"
	".endr\n"
	".popsection\n"
	".pushsection .rodata\n"
	".balign 8\n"
	".globl kprobe_lane_entries\n"
	".type kprobe_lane_entries, @object\n"
	"kprobe_lane_entries:\n"
	".irp lane, 0, 1, 2, 3, 4, 5, 6, 7\n"
	"	.quad kprobe_lane_\\lane\n"
	".endr\n"
	".size kprobe_lane_entries, .-kprobe_lane_entries\n"
	".popsection\n");
#endif /* CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS */
