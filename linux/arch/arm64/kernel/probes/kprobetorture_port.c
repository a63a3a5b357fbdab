// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What arm64 adds to a kprobetorture run (kernel/kprobes/kprobetorture.h).
 *
 * Two functions built around PC-relative literal loads (ldr x, ldrsw,
 * ldr w, prfm), which a probe simulates rather than steps: their entry
 * probes sit on an ldr, their body probes on the second literal load,
 * and their results depend on what was loaded.  And the functions the
 * BRK handlers and the simulator call, or called before they read text
 * with an inline accessor: a probe on each must be refused, or fire
 * without harm (a hit there inside a hit is a reentry, missed).  Names
 * that are not functions in this build (inlined) just do not register.
 *
 * Built in whenever the torture module is configured, so that the module
 * finds it with symbol_get().
 */
#include <linux/export.h>
#include <linux/kprobes.h>
#include <asm/insn.h>

#include "kprobetorture.h"

/*
 * The pools sit in the text, as the assembler lays out literals, and are
 * jumped over.  Nothing in this folder is traced, so each function starts
 * with its loads.
 */
static noinline int kpt_lit0(int x)
{
	long r = x, a, b;

	asm volatile("	ldr	%1, 1f\n"
		     "	ldrsw	%2, 2f\n"
		     "	add	%0, %0, %2\n"
		     "	eor	%0, %0, %1, lsr #40\n"
		     "	b	3f\n"
		     "	.balign	8\n"
		     "1:	.quad	0x1122334455667788\n"
		     "2:	.word	0xfffffc18\n"	/* -1000 */
		     "	.word	0\n"
		     "3:\n"
		     : "+r" (r), "=&r" (a), "=&r" (b));
	return r;
}

static noinline int kpt_lit1(int x)
{
	int r = x, a;

	asm volatile("	ldr	%w1, 1f\n"
		     "	prfm	pldl1keep, 1f\n"
		     "	add	%w0, %w0, %w1\n"
		     "	b	2f\n"
		     "	.balign	4\n"
		     "1:	.word	0x9abc\n"
		     "2:\n"
		     : "+r" (r), "=&r" (a));
	return r;
}

static int kpt_lit0_expected(int x)
{
	return (int)((x - 1000L) ^ 0x112233L);
}

static int kpt_lit1_expected(int x)
{
	return x + 0x9abc;
}

static int (* const port_fns[])(int x) = { kpt_lit0, kpt_lit1 };

static int (* const port_expected[])(int x) = {
	kpt_lit0_expected, kpt_lit1_expected,
};

static const char * const port_names[] = { "kpt_lit0", "kpt_lit1" };

/* The body probe goes on each function's second literal load. */
static bool body_candidate(int i, kprobe_opcode_t *addr, int *loads)
{
	u32 insn = le32_to_cpu(*(__le32 *)addr);

	if (aarch64_insn_is_ldr_lit(insn) || aarch64_insn_is_ldrsw_lit(insn) ||
	    aarch64_insn_is_prfm_lit(insn))
		return ++*loads == 2;
	return false;
}

static const char * const aux_symbols[] = {
	"copy_from_kernel_nofault", "aarch64_insn_read",
	"kprobes_inc_nmissed_count", "get_kprobe", "dump_kprobe",
	"arm64_probe_simulate", "kprobe_brk_handler",
	"kprobe_ss_brk_handler", "call_el1_break_hook", "do_el1_brk64",
};

const struct kprobetorture_port kprobetorture_port = {
	.fns = port_fns,
	.expected = port_expected,
	.names = port_names,
	.nr_fns = ARRAY_SIZE(port_fns),
	.body_candidate = body_candidate,
	.aux_symbols = aux_symbols,
	.nr_aux = ARRAY_SIZE(aux_symbols),
};
EXPORT_SYMBOL_GPL(kprobetorture_port);
