// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jump optimization: a probe whose instruction, together with the ones
 * after it, can run from a copy is reached by a 5-byte jmp instead of an
 * int3.  The jmp leads to the probe's detour, which lives in an
 * instruction slot:
 *
 *	+0	the site's struct kprobe *
 *	+8	the probe's address + 1, the ip its hits show
 *	+16	call kprobe_detour_entry (kprobe_detour_sp_entry: push, pop)
 *	+21	the region's instructions, relocated
 *	...	jmp to the first instruction after the region
 *	...	the post path: the probed instruction alone, relocated
 *	...	call kprobe_detour_post_entry
 *
 * kprobe_detour_entry builds a struct pt_regs the way a trap would, runs
 * the handlers and returns to the copy (or to where a pre_handler sent
 * execution).  The call's return address is how it finds the probe.
 *
 * A hit with a post phase, on an instruction the decoder carries out on
 * pt_regs (push, pop, register moves, nops: prologues), does so on the
 * pre phase's frame and runs the post phase right away, with interrupts
 * off; a push or pop moves sp, so such a probe's call goes to a twin of
 * the entry that leaves through the sp the handler puts in the frame.
 * Any other hit with a post phase returns to the post path instead, with
 * interrupts off, as a single step would run the instruction; after it,
 * kprobe_detour_post_entry runs the post_handlers on a fresh struct
 * pt_regs, turns interrupts back on if they were, and returns into the
 * region's copy right after the instruction (or to where a post_handler
 * sent execution).  It finds the probe as this CPU's running one.  The
 * post path is left out, and the core then takes the jump away while a
 * post_handler is there, when the slot has no room for it or when the
 * instruction changes IF itself (cli, sti, popf): the post phase must
 * run with interrupts off, and must hand them back as they were.
 *
 * The region is the probed instruction and as many after it as it takes
 * to cover the jmp.  Everything the core relies on before it asks for the
 * jmp is checked here: the region stays inside one function, nothing in
 * the function jumps into it past its first byte, the function has no
 * indirect jump (it could land anywhere), no instruction in the region has
 * an exception-table entry, branches, calls or returns, and no other
 * subsystem patches those bytes.
 */
#include <linux/kprobes_arch.h>
#include <linux/kprobes_hit.h>
#include <linux/extable.h>
#include <linux/kallsyms.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/ftrace.h>
#include <linux/memory.h>
#include <linux/perf_event.h>
#include <asm/insn.h>
#include <asm/nospec-branch.h>
#include <asm/text-patching.h>

#include "decode.h"
#include "simulate.h"
#include "common.h"

#define DETOUR_OWNER	0
/* Kept rather than computed: one instruction less on every hit. */
#define DETOUR_HIT_IP	8
#define DETOUR_CALL	16
/* The copy starts right after the call (asm/kprobes.h has its own use). */
#define DETOUR_COPY	KPROBE_DETOUR_COPY

/* Bytes of a detour whose region is @len bytes long. */
#define DETOUR_SIZE(len)	(DETOUR_COPY + (len) + JMP32_INSN_SIZE)

/*
 * The detour's entry stubs, entered by its calls on the probed code's
 * stack ([rsp] the return address into the detour): each builds the
 * pt_regs frame of common.h (cs, ip and orig_ax left to C) and calls its
 * handler, which rewrites the return address when the detour is not to
 * go on where the call came from.  No return value to test: a hit that simply
 * resumes pays for nothing it does not use.
 */
#define DETOUR_ENTRY_STUB(name, handler, leave)			\
	asm(".pushsection .text\n"				\
	    ".global " #name "\n"				\
	    ".type " #name ", @function\n"			\
	    #name ":\n"						\
	    ANNOTATE_NOENDBR					\
	    UNWIND_HINT_FUNC					\
	    PT_REGS_FRAME_ENTER_STRING				\
	    "	movq %rsp, %rdi\n"				\
	    "	call " #handler "\n"				\
	    leave						\
	    ASM_RET						\
	    ".size " #name ", .-" #name "\n"			\
	    ".popsection\n")

/*
 * Leave with sp loaded from the frame's sp slot, where the handler put the
 * address of the word to return to: for the instructions a hit carries
 * out on the frame itself (post_in_place()), which may move sp.
 */
#define LEAVE_TO_SP_SLOT_STRING					\
	RESTORE_REGS_STRING					\
	"	popfq\n"						\
	"	popq %rsp\n"						\
	UNWIND_HINT_FUNC

/* The call right before the region's copy: the pre phase. */
DETOUR_ENTRY_STUB(kprobe_detour_entry, kprobe_detour_hit,
		  PT_REGS_FRAME_LEAVE_STRING);
NOKPROBE_SYMBOL(kprobe_detour_entry);
/* The same for a probe on a push or pop. */
DETOUR_ENTRY_STUB(kprobe_detour_sp_entry, kprobe_detour_sp_hit,
		  LEAVE_TO_SP_SLOT_STRING);
NOKPROBE_SYMBOL(kprobe_detour_sp_entry);
/* The call after the post path's instruction: the post phase. */
DETOUR_ENTRY_STUB(kprobe_detour_post_entry, kprobe_detour_post_hit,
		  PT_REGS_FRAME_LEAVE_STRING);
NOKPROBE_SYMBOL(kprobe_detour_post_entry);

/* The return address into the detour, right above the registers. */
static __always_inline unsigned long *detour_return(struct pt_regs *regs)
{
	return (unsigned long *)(regs + 1);
}

/*
 * What a trap would show, besides ss and sp (the entry stubs push them):
 * the kernel's cs, as a whole word, which also clears what FRED keeps
 * above it, and no system call.
 */
static __always_inline void fill_frame(struct pt_regs *regs)
{
	regs->csx = __KERNEL_CS;
	regs->orig_ax = ~0UL;
}

/**
 * kprobe_detour_step() - run @p's instruction on its detour's post path
 * @p: a head whose detour has a post path, its hit's pre phase over
 * @regs: the hit's registers; execution resumes where they say
 * @kcb: this CPU's get_kprobe_ctlblk()
 *
 * The hit stays this CPU's running one, with interrupts off, until the
 * post path comes back to kprobe_detour_post_hit().  For detour hits and
 * for breakpoint hits alike: while the site may have a jump, no hit with a
 * post phase may resume inside the region.
 */
void kprobe_detour_step(struct kprobe *p, struct pt_regs *regs,
			struct kprobe_ctlblk *kcb)
{
	kcb->kprobe_status = KPROBE_HIT_SS;
	kcb->saved_irq = regs->flags & X86_EFLAGS_IF;
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)p->ainsn.detour + p->ainsn.post_path;
}
NOKPROBE_SYMBOL(kprobe_detour_step);

/*
 * The hit has a post phase, interrupts are off, and @p's instruction is
 * one the decoder carries out on pt_regs (post_in_place()): do so on the
 * pre phase's own frame and run the post phase at once, one frame instead
 * of two.  Returns the sp to resume with; the address to resume at is
 * stored in the word right below it.
 */
static __always_inline unsigned long
detour_post_in_place(struct kprobe *p, struct pt_regs *regs)
{
	const struct x86_probe_insn *pi = &p->ainsn.pi;
	unsigned long next = (unsigned long)p->addr + pi->len, sp, to;

	/*
	 * From the stack the probed code had: the stub's exits honour the
	 * instruction's move of sp, not a handler's.
	 */
	regs->sp = (unsigned long)(detour_return(regs) + 1);
	/* The kernel stack is there: these cannot fail. */
	if (pi->op == X86_PROBE_PUSH)
		x86_probe_push(regs, &x86_probe_hit_mem,
			       *x86_probe_reg(regs, pi->cond));
	else if (pi->op == X86_PROBE_POP)
		x86_probe_pop(regs, &x86_probe_hit_mem, pi->cond);
	else if (pi->op == X86_PROBE_MOV)
		x86_probe_mov(regs, pi);
	regs->ip = next;
	sp = regs->sp;
	kprobe_site_hit_end(regs);
	/* Unless a post_handler moved ip: on with the region's copy. */
	to = regs->ip;
	if (to == next)
		to = (unsigned long)p->ainsn.detour + DETOUR_COPY + pi->len;
	/* A push put its word where the return address was: one lower. */
	((unsigned long *)sp)[-1] = to;
	if (regs->flags & X86_EFLAGS_IF)
		local_irq_enable();
	return sp;
}

/*
 * The rest of a detour hit whose chain has a post_handler, out of line so
 * the common hit keeps its registers few; from kprobe_site_hit_enter() on
 * to preemption back on.  Leaves the resume address right below the sp
 * it puts in the frame's sp slot, which only the sp stub reads.
 */
static noinline void detour_hit_post_chain(struct kprobe *p,
					   struct kprobe_chain *chain,
					   struct pt_regs *regs)
{
	unsigned long sp = (unsigned long)(detour_return(regs) + 1);

	switch (kprobe_site_walk_pre_post(chain, regs, p->ainsn.post_path)) {
	case KPROBE_DETOUR_POST:
		/* Off before preemption is back on, until the post phase. */
		local_irq_disable();
		if (p->ainsn.post_in_place) {
			sp = detour_post_in_place(p, regs);
			break;
		}
		kprobe_detour_step(p, regs, get_kprobe_ctlblk());
		*detour_return(regs) = regs->ip;
		break;
	case KPROBE_DETOUR_REDIRECTED:
		*detour_return(regs) = regs->ip;
		fallthrough;
	case KPROBE_DETOUR_RESUME:
		reset_current_kprobe();
		break;
	}
	preempt_enable_notrace();
	regs->sp = sp - sizeof(long);
}
NOKPROBE_SYMBOL(detour_hit_post_chain);

/*
 * Run the handlers of an optimized probe.  The detour goes on with the
 * region's copy, unless a pre_handler redirected execution or the hit has
 * a post phase: then the return address is rewritten.  @sp_exit: the
 * stub leaves through the frame's sp slot (LEAVE_TO_SP_SLOT_STRING).
 */
static __always_inline void detour_hit(struct pt_regs *regs,
				       const bool sp_exit)
{
	unsigned long back = *detour_return(regs);
	struct kprobe *p = *(struct kprobe **)(back - DETOUR_COPY + DETOUR_OWNER);
	struct kprobe_chain *chain;
	struct kprobe *lone;

	fill_frame(regs);
	/* As after the int3 the probe would otherwise have hit. */
	regs->ip = *(unsigned long *)(back - DETOUR_COPY + DETOUR_HIT_IP);

	preempt_disable_notrace();
	/*
	 * No test of the site's disabled flag: the jump goes right after the
	 * flag is set, so only hits already under way can see it, and the
	 * chain says what such a hit runs (it lost its last enabled probe
	 * before the flag was set).
	 */
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(p);
	} else {
		chain = kprobe_site_hit_enter(p);
		lone = chain->lone;
		if (likely(lone)) {
			if (kprobe_site_run_lone(lone, regs))
				*detour_return(regs) = regs->ip;
		} else if (unlikely(chain->has_post)) {
			detour_hit_post_chain(p, chain, regs);
			return;
		} else if (kprobe_site_walk_pre(chain, regs)) {
			*detour_return(regs) = regs->ip;
		}
		reset_current_kprobe();
	}
	preempt_enable_notrace();
	if (sp_exit)
		regs->sp = (unsigned long)detour_return(regs);
}

__visible void kprobe_detour_hit(struct pt_regs *regs)
{
	detour_hit(regs, false);
}
NOKPROBE_SYMBOL(kprobe_detour_hit);

__visible void kprobe_detour_sp_hit(struct pt_regs *regs)
{
	detour_hit(regs, true);
}
NOKPROBE_SYMBOL(kprobe_detour_sp_hit);

/*
 * The post path ran the probed instruction: finish the hit as the trap
 * after a single step would, and pick where the entry returns to.
 */
__visible void kprobe_detour_post_hit(struct pt_regs *regs)
{
	struct kprobe *p = kprobe_running();
	unsigned long irq = __this_cpu_read(kprobe_ctlblk.saved_irq);
	unsigned long next = (unsigned long)p->addr + p->ainsn.pi.len;

	/*
	 * Interrupts have been off since the pre phase; a breakpoint hit's
	 * exception exit did not tell lockdep so.
	 */
	trace_hardirqs_off();
	preempt_disable_notrace();
	fill_frame(regs);
	regs->ip = next;
	/* What the instruction saw or pushed of IF was the post path's. */
	if (unlikely(p->ainsn.pushes_flags))
		*(unsigned long *)regs->sp |= irq;
	regs->flags |= irq;
	kprobe_site_hit_end(regs);
	/* Unless a post_handler moved it: on with the region's copy. */
	*detour_return(regs) = regs->ip != next ? regs->ip :
			       (unsigned long)p->ainsn.detour + DETOUR_COPY +
			       p->ainsn.pi.len;
	if (regs->flags & X86_EFLAGS_IF)
		local_irq_enable();
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kprobe_detour_post_hit);

/* Would control land at @target, which is outside any one function? */
static bool thunked_indirect(unsigned long target)
{
#ifdef CONFIG_MITIGATION_RETPOLINE
	unsigned long base = (unsigned long)__x86_indirect_thunk_array;

	if (target - base < 16 * sizeof(retpoline_thunk_t))
		return true;
#endif
	return false;
}

/*
 * May the instruction at @at run from the detour's copy?  The shared
 * instruction layer says whether it does the same anywhere; a fault in
 * it must not need an exception-table fixup, which knows @at only.
 */
static bool copyable(const u8 *bytes, unsigned long at, u8 *len)
{
	struct x86_probe_insn pi;

	if (x86_probe_classify(bytes, MAX_INSN_SIZE, X86_PROBE_KERNEL, &pi))
		return false;
	*len = pi.len;
	return x86_probe_runs_anywhere(pi.op) && !search_exception_tables(at);
}

/* The region at @addr: its length, or a negative errno. */
static int region_of(unsigned long addr, u8 *copy)
{
	int len = 0;
	u8 n;

	while (len < JMP32_INSN_SIZE) {
		if (kprobe_read_original(addr + len, copy + len))
			return -EFAULT;
		if (!copyable(copy + len, addr + len, &n))
			return -EINVAL;
		/* Another probe inside the region would be jumped over. */
		if (len && get_kprobe((void *)(addr + len)))
			return -EBUSY;
		len += n;
	}
	return len;
}

/* Nothing in the function may enter the region other than at its start. */
static int check_function(unsigned long addr, int len)
{
	unsigned long size, offset, pos, end;
	struct x86_probe_flow flow;
	u8 buf[MAX_INSN_SIZE];

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -EINVAL;
	pos = addr - offset;
	end = pos + size;
	if (addr + len > end)
		return -EINVAL;
	for (; pos < end; pos += flow.len) {
		if (kprobe_read_original(pos, buf) ||
		    x86_probe_flow(buf, MAX_INSN_SIZE, pos, &flow))
			return -EINVAL;
		if (flow.indirect_jump || thunked_indirect(flow.target))
			return -EINVAL;
		if (flow.target > addr && flow.target < addr + len)
			return -EINVAL;
	}
	return 0;
}

static bool reserved_by_others(unsigned long addr, int len)
{
	void *start = (void *)addr, *last = (void *)(addr + len - 1);
	bool busy;

	jump_label_lock();
	preempt_disable();
	busy = ftrace_text_reserved(start, last) ||
	       jump_label_text_reserved(start, last) ||
	       static_call_text_reserved(start, last);
	preempt_enable();
	jump_label_unlock();
	if (busy)
		return true;
	scoped_guard(mutex, &text_mutex)
		busy = alternatives_text_reserved(start, last);
	return busy;
}

/* Copy the region to run at @to, rebasing RIP-relative operands. */
static int relocate_region(u8 *dst, const u8 *src, int len,
			   unsigned long from, unsigned long to)
{
	struct x86_probe_flow flow;
	int pos, ret;

	for (pos = 0; pos < len; pos += flow.len) {
		ret = x86_probe_flow(src + pos, len - pos, from + pos, &flow);
		if (ret)
			return ret;
		ret = x86_probe_relocate(src + pos, flow.len, from + pos,
					 to + pos, dst + pos);
		if (ret)
			return ret;
	}
	return 0;
}

static bool in_rel32_reach(unsigned long from, unsigned long to)
{
	s64 d = (s64)to - (s64)(from + JMP32_INSN_SIZE);

	return d == (s32)d;
}

/*
 * Does a detour hit with a post phase carry @pi out on its own pt_regs
 * rather than run it on the post path?  For what the decoder emulates
 * with sp moved by a fixed amount or not at all.
 */
static bool post_in_place(const struct x86_probe_insn *pi)
{
	switch (pi->op) {
	case X86_PROBE_NOP:
	case X86_PROBE_PUSH:
		return true;
	case X86_PROBE_POP:
		return pi->cond != X86_PROBE_SP;
	case X86_PROBE_MOV:
		return (pi->cond & 15) != X86_PROBE_SP;
	}
	return false;
}

/* May @ai's instruction run on a post path (see the top of the file)? */
static bool post_path_allowed(const struct arch_specific_insn *ai)
{
	return ai->pi.op != X86_PROBE_CLI && ai->pi.op != X86_PROBE_STI &&
	       !ai->sets_if;
}

/*
 * Add the post path after a detour of @len region bytes in @buf, to run
 * at @slot: the probed instruction (@insn, at @addr) and the call.
 * Returns its offset, or 0 where there is none.
 */
static u8 build_post_path(u8 *buf, unsigned long slot, int len,
			  const struct arch_specific_insn *ai,
			  const u8 *insn, unsigned long addr)
{
	unsigned long entry = (unsigned long)kprobe_detour_post_entry;
	int at = DETOUR_SIZE(len), call = at + ai->pi.len;

	OPTIMIZER_HIDE_VAR(entry);
	if (!post_path_allowed(ai) ||
	    call + CALL_INSN_SIZE > KPROBE_INSN_SLOT_SIZE ||
	    !in_rel32_reach(slot + call, entry) ||
	    x86_probe_relocate(insn, ai->pi.len, addr, slot + at, buf + at))
		return 0;
	__text_gen_insn(buf + call, CALL_INSN_OPCODE, (void *)(slot + call),
			(void *)entry, CALL_INSN_SIZE);
	return at;
}

int arch_prepare_optimized_kprobe(struct kprobe *p)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long addr = (unsigned long)p->addr, slot;
	u8 region[KPROBE_JUMP_REGION_MAX + MAX_INSN_SIZE];
	u8 buf[KPROBE_INSN_SLOT_SIZE];
	bool in_place = post_path_allowed(ai) && post_in_place(&ai->pi);
	bool sp_exit = in_place && (ai->pi.op == X86_PROBE_PUSH ||
				    ai->pi.op == X86_PROBE_POP);
	unsigned long entry = sp_exit ? (unsigned long)kprobe_detour_sp_entry :
					(unsigned long)kprobe_detour_entry;
	kprobe_opcode_t *detour;
	int len, ret;

	/*
	 * Keep the compiler from folding "entry - 5" into one relocation:
	 * with IBT, objtool takes that for a pointer to a place with no ENDBR.
	 */
	OPTIMIZER_HIDE_VAR(entry);
	BUILD_BUG_ON(DETOUR_SIZE(KPROBE_JUMP_REGION_MAX) > KPROBE_INSN_SLOT_SIZE);
	BUILD_BUG_ON(DETOUR_CALL + CALL_INSN_SIZE != DETOUR_COPY);
	if (!x86_probe_runs_anywhere(ai->pi.op))
		return -EINVAL;
	len = region_of(addr, region);
	if (len < 0)
		return len;
	ret = check_function(addr, len);
	if (ret)
		return ret;
	if (reserved_by_others(addr, len))
		return -EBUSY;

	detour = kprobe_alloc_insn_slot();
	if (!detour)
		return -ENOMEM;
	slot = (unsigned long)detour;
	if (!in_rel32_reach(addr, slot + DETOUR_CALL) ||
	    !in_rel32_reach(slot + DETOUR_CALL, entry) ||
	    !in_rel32_reach(slot + DETOUR_COPY + len, addr + len)) {
		ret = -ERANGE;
		goto fail;
	}
	memset(buf, INT3_INSN_OPCODE, sizeof(buf));
	*(struct kprobe **)(buf + DETOUR_OWNER) = p;
	*(unsigned long *)(buf + DETOUR_HIT_IP) = addr + INT3_INSN_SIZE;
	__text_gen_insn(buf + DETOUR_CALL, CALL_INSN_OPCODE,
			(void *)(slot + DETOUR_CALL), (void *)entry,
			CALL_INSN_SIZE);
	ret = relocate_region(buf + DETOUR_COPY, region, len, addr,
			      slot + DETOUR_COPY);
	if (ret)
		goto fail;
	__text_gen_insn(buf + DETOUR_COPY + len, JMP32_INSN_OPCODE,
			(void *)(slot + DETOUR_COPY + len), (void *)(addr + len),
			JMP32_INSN_SIZE);
	ai->post_path = build_post_path(buf, slot, len, ai, region, addr);
	/* Breakpoint hits with a post phase still need the post path. */
	if (!ai->post_path && sp_exit) {
		ret = -ENOSPC;
		goto fail;
	}
	ai->post_in_place = in_place && ai->post_path;
	arch_write_insn_slot(detour, buf, sizeof(buf));

	ai->detour = detour;
	ai->region_len = len;
	memcpy(ai->replaced, region, JMP32_INSN_SIZE);
	return 0;
fail:
	kprobe_free_insn_slot(detour);
	return ret;
}

void arch_remove_optimized_kprobe(struct kprobe *p)
{
	if (p->ainsn.detour) {
		kprobe_free_insn_slot(p->ainsn.detour);
		p->ainsn.detour = NULL;
		p->ainsn.post_path = 0;
		p->ainsn.post_in_place = 0;
	}
}

bool arch_optimized_kprobe_runs_post(struct kprobe *p)
{
	return p->ainsn.detour && p->ainsn.post_path;
}

bool arch_within_optimized_kprobe(struct kprobe *p, unsigned long addr)
{
	unsigned long start = (unsigned long)p->addr;

	return p->ainsn.detour && addr > start &&
	       addr < start + p->ainsn.region_len;
}

/*
 * Replace the int3 of each site with a jmp to its detour.  No CPU runs the
 * bytes after an int3 any more (the core waited for that), so the tails
 * are written first, then the opcodes, each step made visible everywhere.
 */
void arch_optimize_kprobes(struct kprobe **ps, int n)
{
	u8 jmp[JMP32_INSN_SIZE];
	int i;

	lockdep_assert_held(&text_mutex);
	for (i = 0; i < n; i++) {
		unsigned long addr = (unsigned long)ps[i]->addr;

		__text_gen_insn(jmp, JMP32_INSN_OPCODE, (void *)addr,
				ps[i]->ainsn.detour + DETOUR_CALL, JMP32_INSN_SIZE);
		text_poke((void *)(addr + INT3_INSN_SIZE), jmp + INT3_INSN_SIZE,
			  JMP32_INSN_SIZE - INT3_INSN_SIZE);
	}
	text_poke_sync();
	for (i = 0; i < n; i++) {
		text_poke(ps[i]->addr, &(u8){ JMP32_INSN_OPCODE }, 1);
		__text_gen_insn(jmp, JMP32_INSN_OPCODE, ps[i]->addr,
				ps[i]->ainsn.detour + DETOUR_CALL, JMP32_INSN_SIZE);
		perf_event_text_poke(ps[i]->addr, ps[i]->ainsn.replaced,
				     JMP32_INSN_SIZE, jmp, JMP32_INSN_SIZE);
	}
	text_poke_sync();
}

/*
 * Back to an int3: the opcode first, so nobody starts the jmp any more,
 * then the bytes it displaced.
 */
void arch_unoptimize_kprobe(struct kprobe *p)
{
	u8 int3 = INT3_INSN_OPCODE;

	lockdep_assert_held(&text_mutex);
	text_poke(p->addr, &int3, INT3_INSN_SIZE);
	text_poke_sync();
	text_poke(p->addr + INT3_INSN_SIZE, p->ainsn.replaced + INT3_INSN_SIZE,
		  JMP32_INSN_SIZE - INT3_INSN_SIZE);
	text_poke_sync();
}
