/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an architecture port (arch/<arch>/kernel/probes/)
 * provides to the generic kprobes core (kernel/kprobes/), and nothing
 * else.  What the core offers a port's trap handlers in return is in
 * <linux/kprobes_hit.h>.
 *
 * A port's <asm/kprobes.h> defines:
 *   kprobe_opcode_t           the unit the breakpoint is made of
 *   struct arch_specific_insn the port's copy of a probed instruction
 *   struct kprobe_ctlblk      per-CPU hit state; must have kprobe_status,
 *                             saved_irq (the interrupt mask bits of the
 *                             probed context, which a step masks) and
 *                             prev_kprobe, a struct prev_kprobe with kp,
 *                             status and saved_irq: the outer hit, kept
 *                             while a probe hit under it is stepped; and
 *                             hit_context, an unsigned int only the core
 *                             uses (kprobe_note_hit_context())
 *   KPROBE_INSN_SLOT_SIZE     bytes of executable slot one probe may use
 *   KPROBE_PREEMPTIBLE_SLOTS  1 when a task may be preempted while it runs
 *                             an out-of-line copy other than a detour (a
 *                             copy that jumps back by itself, entered
 *                             with preemption on); the core then waits
 *                             for RCU-tasks before it frees any slot.
 *                             0 when every such copy runs with preemption
 *                             off or ends in a trap.
 *   KPROBE_SLOT_POISON        a byte value: a slot filled with it traps at
 *                             any offset it is entered (tests fill the
 *                             slots they free with it to catch late users)
 *   KPROBE_BOOSTS             1 when a hit with no post phase may run the
 *                             instruction from a copy that jumps back by
 *                             itself, with no second trap; the port then
 *                             implements arch_kprobe_boostable().  0 or
 *                             undefined otherwise (it may depend on the
 *                             config, on CONFIG_PREEMPTION say).
 *   arch_kprobe_context_word() optional: the word preempt_count() is
 *                             read from, when preempt_count() masks bits
 *                             of the port's own out of it (an instruction
 *                             on every hit); the core only looks at its
 *                             KPROBE_CONTEXT_BITS.  preempt_count() if
 *                             undefined.
 *   KPROBE_JUMP_REGION_MAX    (CONFIG_OPTPROBES) the most bytes a jump
 *                             region may span: how far before a new
 *                             breakpoint the core looks for a region that
 *                             would cover it.
 * and implements the functions below.  Those marked "default" have a weak
 * version in the core that a port may leave alone.
 */
#ifndef _LINUX_KPROBES_ARCH_H
#define _LINUX_KPROBES_ARCH_H

#include <linux/kprobes.h>

#ifdef CONFIG_KPROBES

/**
 * arch_prepare_kprobe() - check that @p->addr can be probed and copy it
 * @p: probe with @addr set; fill @opcode and @ainsn
 *
 * Called once per probed address, under the core's mutex.  The core may
 * later move @opcode and @ainsn to another kprobe by copying them (when a
 * lone probe becomes a site), so they must not point into @p itself; the
 * copy then owns what they refer to.
 *
 * Return: 0, -EILSEQ when @addr is not on an instruction boundary, -EINVAL
 * for an instruction that must never be probed, -ENOMEM when no slot is
 * free.
 */
int arch_prepare_kprobe(struct kprobe *p);

#ifndef KPROBE_BOOSTS
#define KPROBE_BOOSTS 0
#endif

#if KPROBE_BOOSTS
/**
 * arch_kprobe_boostable() - may hits at @head skip the second trap?
 * @head: a prepared head
 *
 * For tests; never called on the hit path.
 *
 * Return: true when a hit with no post phase runs the probed instruction
 * from a copy that jumps back by itself.
 */
bool arch_kprobe_boostable(struct kprobe *head);
#else
static inline bool arch_kprobe_boostable(struct kprobe *head)
{
	return false;
}
#endif

/* Free what arch_prepare_kprobe() took.  Called once the probe can no
 * longer be hit (after kprobe_wait_out_hits()), possibly more than once.
 */
void arch_remove_kprobe(struct kprobe *p);

/*
 * Plant (arm) or remove (disarm) the breakpoints of @n probes, text_mutex
 * held.  All of them must be visible to every CPU when this returns, with
 * one synchronisation for the whole set: registering a thousand probes
 * costs one round of patching, not a thousand.
 */
void arch_arm_kprobes(struct kprobe **kps, int n);
void arch_disarm_kprobes(struct kprobe **kps, int n);

/* One-time setup at boot (trap hooks, notifiers); 0 or an errno. */
int arch_init_kprobes(void);

/* Default: adds nothing.  Add the port's no-probe ranges with
 * kprobe_add_area_blacklist().
 */
int arch_populate_kprobe_blacklist(void);

/* Default: the .kprobes.text section.  True when @addr lies in text the
 * port never lets a probe touch beyond the blacklist.
 */
bool arch_within_kprobe_blacklist(unsigned long addr);

/* Default: none.  True when no kretprobe may sit at the function at @addr
 * (say, one that switches stacks under its own return address).
 */
bool arch_kretprobe_blacklisted(unsigned long addr);

/**
 * arch_adjust_kprobe_addr() - where a probe asked for at @addr+@offset goes
 * @addr: the start of the function (a symbol's address)
 * @offset: the offset asked for
 * @on_func_entry: set when the result is the function's entry, as seen by
 *	kretprobes and kprobe_on_func_entry()
 *
 * Default: @addr + @offset, an entry when @offset is 0.  A port whose
 * functions may begin with a landing pad (x86 ENDBR, arm64 BTI) moves an
 * entry probe past it: the pad is part of the entry.
 *
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);

/**
 * kprobe_fault_handler() - a fault on a CPU that is handling a probe hit
 * @regs: registers at the fault
 * @trapnr: the architecture's trap number or fault status
 *
 * Called from the port's trap code and from kprobe_page_fault().  A fault
 * in an out-of-line copy must be made to look as if it happened at the
 * probed address; then kprobe_run_fault_handler() gives the probe that
 * was running its say.
 *
 * Return: non-zero when the fault was dealt with.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);

/* Default: execmem's EXECMEM_KPROBES range.  An executable page for
 * instruction slots, and its release.
 */
void *alloc_insn_page(void);
void free_insn_page(void *page);

/* Write @len bytes into an executable slot (slots are read-only text). */
void arch_write_insn_slot(void *slot, const void *insn, size_t len);

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * Probes on ftrace call sites (optional, CONFIG_KPROBES_ON_FTRACE).  The
 * core hooks the sites through one ftrace_ops without
 * FTRACE_OPS_FL_IPMODIFY.  It asks for FTRACE_OPS_FL_SAVE_REGS where
 * ftrace has DYNAMIC_FTRACE_WITH_REGS; with DYNAMIC_FTRACE_WITH_ARGS only,
 * the port's handler gets ftrace_regs and builds the pt_regs a
 * breakpoint on the site would give from them and from the registers
 * ftrace leaves alone (x86_64 has the first, arm64 the second).  Either
 * way the handler passes back what the handlers changed, and a port may
 * select HAVE_KPROBES_ON_FTRACE only where the arch's ftrace resumes at
 * the ip the callback leaves, whatever the ops' flags: a pre_handler
 * that redirects (BPF's override, fail_function) changes it.  Where
 * ftrace would drop the change, the probe would silently not redirect.
 */

/* Prepare a probe that sits on an ftrace call site. */
int arch_prepare_kprobe_ftrace(struct kprobe *p);
/* The ftrace callback for such probes. */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);

#ifdef CONFIG_KPROBES_FTRACE_BRIDGE
/*
 * Bridges (CONFIG_HAVE_KPROBES_FTRACE_BRIDGE): a port that can stand a
 * breakpoint in for an ftrace call site, on an instruction just before
 * it that every call executes and ftrace never rewrites, says so for the
 * head @p here (under kprobes_mutex, @p prepared, not armed).  The core
 * then arms and disarms that breakpoint with arch_arm_kprobes() and
 * arch_disarm_kprobes() while @p has KPROBE_FLAGS_BRIDGED, and the port's
 * handlers follow <linux/kprobes_hit.h> for such heads.
 */
bool arch_kprobe_ftrace_bridge_ok(struct kprobe *p);
#endif
#else
/* The core never marks a probe as on ftrace then. */
static inline int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	return -ENODEV;
}
#endif

#ifdef CONFIG_OPTPROBES
/*
 * Jump optimization (optional, CONFIG_OPTPROBES).  The core calls these
 * under its mutex, for breakpoint (not ftrace) sites only, in this order:
 * prepare when the site is created or revived, when a neighbour that
 * blocked it goes, or when debug.kprobes-optimization is turned back on;
 * optimize from its optimizer, after the site's breakpoint has been armed
 * and every CPU and task has been seen outside the region; unoptimize
 * (back to the breakpoint) before disarming, or when the site may no
 * longer be optimized; remove once no CPU can be in the detour.
 *
 * What a port's hit path may rely on:
 *  - A breakpoint hit may run the detour's copy of the region instead of
 *    stepping the instruction (when no post_handler wants the trap after
 *    it), but only while the head has KPROBE_FLAG_DETOUR.  The core sets
 *    the flag once prepare succeeded.  It clears it before it waits out
 *    the hits and calls remove, except for a head already out of the
 *    table or [GONE], which no hit can enter by then; so no hit enters a
 *    detour being freed.
 *  - A hit while the jump is being written or taken out must leave
 *    through the detour (which KPROBE_FLAG_DETOUR then always allows):
 *    resuming right after the instruction could land inside the jump.
 *    A detour that cannot run a post phase cannot serve a hit that has
 *    one, so for such a detour the head's post_handler is never set
 *    while any byte of the jump may still be in the region, and a hit
 *    that sees it set may step the instruction and resume after it.  A
 *    detour that can (arch_optimized_kprobe_runs_post()) keeps its jump
 *    when post_handlers come; every hit with a post phase, breakpoint
 *    hits included, must then run the instruction from the detour (or
 *    carry it out on pt_regs) and go on in the detour while
 *    KPROBE_FLAG_DETOUR is set.
 */

/*
 * Check the region at @p->addr and build its detour, which may record @p:
 * @p is a site's head (see struct kprobe_site) and stays the head while
 * the detour exists.  0, or why not.
 */
int arch_prepare_optimized_kprobe(struct kprobe *p);
/*
 * True when @p's prepared detour can also give a hit its post phase: run
 * the probed instruction alone (or carry it out on pt_regs), with
 * interrupts off, then the post_handlers, then the rest of the region.
 * A detour hit passes the answer to kprobe_site_walk_pre_post().
 */
bool arch_optimized_kprobe_runs_post(struct kprobe *p);
/* Free the detour (no CPU may still run in it). */
void arch_remove_optimized_kprobe(struct kprobe *p);
/* True when @addr is inside @p's region but not its first byte. */
bool arch_within_optimized_kprobe(struct kprobe *p, unsigned long addr);
/* Replace each armed breakpoint of @ps with a jump; text_mutex held. */
void arch_optimize_kprobes(struct kprobe **ps, int n);
/* Put @p's breakpoint back in place of its jump; text_mutex held. */
void arch_unoptimize_kprobe(struct kprobe *p);
#endif

#endif /* CONFIG_KPROBES */
#endif /* _LINUX_KPROBES_ARCH_H */
