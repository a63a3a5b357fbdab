// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 probes on ftrace call sites: the fentry call is hooked through ftrace
 * instead of an int3.  Handlers see the same regs an int3 hit would give
 * (ip just past the probed address); the probed "instruction" is the
 * call site's nop, so there is nothing to replay but moving ip past it.
 */
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/ftrace.h>

#include "decode.h"

void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	/*
	 * The core's ops asks for FTRACE_OPS_FL_SAVE_REGS, which x86's
	 * ftrace always honours: the full regs are there, no need to test.
	 */
	struct pt_regs *regs = &arch_ftrace_regs(fregs)->regs;
	unsigned long resume;
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
	/*
	 * A gone head's hook is out; a call that raced with that is not ours
	 * (kprobe_disabled() is true for gone heads too).
	 */
	if (unlikely(!probe) || kprobe_disabled(probe))
		goto out;
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(probe);
		goto out;
	}
	/*
	 * Not simply ip + MCOUNT_INSN_SIZE afterwards: an IPMODIFY user of
	 * the site (livepatch) called before us may have moved it already.
	 */
	resume = regs->ip;
	regs->ip = ip + INT3_INSN_SIZE;
	if (kprobe_hit_begin(probe, regs)) {
		/* A handler chose where to go; ftrace returns there. */
		reset_current_kprobe();
		goto out;
	}
	/* As if the nop had executed, then back to where the call returns. */
	if (kprobe_hit_wants_post(probe)) {
		regs->ip = ip + MCOUNT_INSN_SIZE;
		kprobe_hit_end(probe, regs);
	} else {
		reset_current_kprobe();
	}
	regs->ip = resume;
out:
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
