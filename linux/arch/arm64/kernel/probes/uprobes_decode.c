// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User probes on the shared instruction layer (decode.h), through the
 * interface uprobes.c expects (decode-insn.h).  User text differs from
 * kernel text in what a probe may touch: literals are read as user
 * memory, DAIF and pointer-authentication instructions are stepped (they
 * trap or act on user keys exactly as in place), and SIMD/FP literal
 * loads, whose target registers may be saved away from the CPU, are
 * refused.
 */
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "decode.h"
#include "decode-insn.h"

static int user_read(void *dst, unsigned long src, size_t len)
{
	return copy_from_user(dst, (const void __user *)src, len) ? -EFAULT : 0;
}

static const struct arm64_probe_policy uprobe_policy = {
	.kernel = false,
	.read = user_read,
};

static void simulate_for_uprobe(u32 insn, long addr, struct pt_regs *regs)
{
	struct arm64_probe_verdict v = arm64_probe_classify(insn, &uprobe_policy);

	/* An unreadable literal faults, as the load would in place. */
	if (!arm64_probe_simulate(insn, v.class, addr, regs, &uprobe_policy))
		force_sig_fault(SIGSEGV, SEGV_MAPERR, (void __user *)addr);
}

/**
 * arm_probe_decode_insn() - how a uprobe executes @insn
 * @insn: the instruction
 * @api: where the simulation handler is recorded
 *
 * Return: INSN_REJECTED, INSN_GOOD_NO_SLOT (simulated by @api->handler)
 * or INSN_GOOD (stepped out of line).
 */
enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api)
{
	struct arm64_probe_verdict v = arm64_probe_classify(insn, &uprobe_policy);

	api->handler = NULL;
	switch (v.class) {
	case ARM64_PROBE_REFUSED:
		return INSN_REJECTED;
	case ARM64_PROBE_STEP:
		return INSN_GOOD;
	default:
		api->handler = simulate_for_uprobe;
		return INSN_GOOD_NO_SLOT;
	}
}
