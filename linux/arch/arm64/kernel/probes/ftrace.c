// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 probes on ftrace call sites: the call to ftrace_caller after a
 * function's landing pad is hooked through ftrace, so an entry probe
 * costs a call instead of a BRK exception.  ftrace_entry.S builds the
 * pt_regs and calls the hit below with it.  The probed "instruction" is
 * the call site itself, whose work ftrace_caller has done by the time
 * the handlers run: nothing is left to replay but moving pc past it.
 */
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/ftrace.h>
#include <asm/insn.h>

#include "decode.h"

/*
 * Heads the hit cannot go on with as they are: disabled or gone, and
 * bridged ones (<linux/kprobes_hit.h>), whose breakpoint may have fired
 * already (GRACE alone is plain).  One test of the flags on every hit,
 * the rest out of line.
 */
#ifdef CONFIG_KPROBES_FTRACE_BRIDGE
#define NOT_PLAIN	(KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE | KPROBE_FLAG_BRIDGE)

static __always_inline bool not_plain_fires(struct kprobe *probe)
{
	return kprobe_bridge_ftrace_fires(probe);
}
#else
#define NOT_PLAIN	(KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE)

static __always_inline bool not_plain_fires(struct kprobe *probe)
{
	return false;
}
#endif

/*
 * @regs as a BRK on the site would give them, pc at the site; @fregs is
 * where ftrace_caller resumes from.  ftrace calls us with interrupts as
 * the function was called, so the handlers run as they do on x86's
 * ftrace sites: preemption off, interrupts left alone.  No recursion
 * guard is needed beyond kprobe_running(): nothing before that check is
 * traced (this directory and the core are built without ftrace), and a
 * probed function called from a handler only counts a miss.
 */
asmlinkage void notrace arm64_kprobe_ftrace_hit(struct pt_regs *regs,
						struct ftrace_regs *fregs)
{
	unsigned long site = regs->pc;
	struct kprobe *probe;

	preempt_disable_notrace();
	probe = kprobe_lookup((void *)site);
	/* A gone or disabled head's hook is out; a call that raced is not ours. */
	if (unlikely(!probe) ||
	    (unlikely(kprobe_has_flag(probe, NOT_PLAIN)) && !not_plain_fires(probe)))
		goto out;
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(probe);
		goto out;
	}
	if (kprobe_hit_begin(probe, regs)) {
		/* A handler chose where to go; ftrace_caller returns there. */
		reset_current_kprobe();
		ftrace_regs_set_instruction_pointer(fregs, regs->pc);
		goto out;
	}
	/*
	 * As if the call had been stepped.  Resuming is ftrace_caller's, at
	 * the pc in @fregs: another ftrace user of the site may have moved it.
	 */
	if (kprobe_hit_wants_post(probe)) {
		regs->pc = site + AARCH64_INSN_SIZE;
		kprobe_hit_end(probe, regs);
	} else {
		reset_current_kprobe();
	}
out:
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(arm64_kprobe_ftrace_hit);

/* No slot, no simulator: the BRK paths never see such a probe. */
int arch_prepare_kprobe_ftrace(struct kprobe *probe)
{
	probe->ainsn.insn = NULL;
	probe->ainsn.simulate = NULL;
	/* What the site is, for the handlers, once ftrace_caller has run. */
	probe->ainsn.class = ARM64_PROBE_NOP;
	return 0;
}
