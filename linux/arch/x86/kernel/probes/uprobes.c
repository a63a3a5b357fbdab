// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86-64 uprobes port.
 *
 * A breakpoint is an int3; the user int3 trap (do_int3_user()) offers it
 * to uprobe_breakpoint_trap() before the die chain.  Most probed
 * instructions are carried out on pt_regs at the hit by the shared
 * instruction decoder (decode.h); the rest run from an XOL slot
 * followed by an int3, a RIP-relative operand addressed through a scratch
 * register since the slot may be anywhere in the address space.  No trap
 * flag is used, so a debugger's single-stepping is left alone.
 *
 * Return probes come back through a trampoline that saves the three
 * registers the syscall instruction clobbers and enters the kernel by
 * the uretprobe syscall, which is cheaper than a trap and is let through
 * by seccomp filters.  The same syscall enters probes on 5-byte nops
 * from a stub they jump to (uprobes_jump.c), without a trap.
 */
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>
#include <linux/uprobes_arch.h>
#include <asm/shstk.h>
#include <asm/traps.h>

#include "simulate.h"
#include "uprobes_jump.h"

/* No trap uses this number: still there after the step, nothing faulted. */
#define UPROBE_TRAP_NR		UINT_MAX

bool arch_uprobe_mm_supported(struct mm_struct *mm)
{
#ifdef CONFIG_IA32_EMULATION
	/* Only 64-bit code is decoded. */
	return !(mm->context.flags & MM_CONTEXT_UPROBE_IA32);
#else
	return true;
#endif
}

int arch_uprobe_prepare(struct arch_uprobe *au, const u8 *text, size_t len)
{
	int ret;

	ret = x86_probe_classify(text, len, X86_PROBE_USER, &au->pi);
	if (ret)
		return ret;
	memcpy(au->insn, text, au->pi.len);
	au->scratch = -1;
	ret = x86_probe_riprel_to_reg(text, &au->pi, au->ixol);
	if (ret >= 0)
		au->scratch = ret;
	else if (ret != -ENOENT)
		return -EOPNOTSUPP;
	uprobe_jump_prepare(au, text, len);
	return 0;
}

/*
 * With a user shadow stack, a call must push onto it as well: the call
 * then runs from the slot, see arch_uprobe_fill_slot().
 */
static bool call_in_slot(struct arch_uprobe *au)
{
	return shstk_is_enabled() &&
	       (au->pi.op == X86_PROBE_CALL || au->pi.op == X86_PROBE_CALL_IND);
}

bool arch_uprobe_emulate(struct arch_uprobe *au, struct pt_regs *regs)
{
	if (au->pi.op == X86_PROBE_STEP || call_in_slot(au))
		return false;
	return x86_probe_emulate(&au->pi, au->insn, regs->ip, regs,
				 &x86_probe_user_mem);
}

unsigned int arch_uprobe_fill_slot(struct arch_uprobe *au, unsigned long slot,
				   u8 *buf)
{
	if (call_in_slot(au)) {
		/*
		 * "call 1f; 1: int3": the CPU pushes on both stacks, and
		 * post_xol puts the real return address and target in.
		 */
		buf[0] = 0xe8;
		put_unaligned(0, (s32 *)(buf + 1));
		buf[5] = UPROBE_SWBP_INSN;
		return 5;
	}
	memcpy(buf, au->ixol, au->pi.len);
	buf[au->pi.len] = UPROBE_SWBP_INSN;
	return au->pi.len;
}

void arch_uprobe_sync_slot(void *kaddr, unsigned long vaddr, size_t len)
{
	/* x86 keeps instruction fetch coherent with stores. */
}

int arch_uprobe_pre_xol(struct arch_uprobe *au, struct pt_regs *regs,
			struct uprobe_task *ut)
{
	struct arch_uprobe_task *at = &ut->autask;

	if (call_in_slot(au)) {
		/* Where the call goes, read now, while ip is at the probe. */
		struct pt_regs tmp = *regs;

		if (!x86_probe_emulate(&au->pi, au->insn, regs->ip, &tmp,
				       &x86_probe_user_mem))
			return -EFAULT;
		at->saved_scratch = tmp.ip;
	} else if (au->scratch >= 0) {
		unsigned long *reg = x86_probe_reg(regs, au->scratch);

		at->saved_scratch = *reg;
		*reg = ut->vaddr + au->pi.len;
	}
	at->saved_trap_nr = current->thread.trap_nr;
	current->thread.trap_nr = UPROBE_TRAP_NR;
	regs->ip = ut->slot;
	return 0;
}

int arch_uprobe_post_xol(struct arch_uprobe *au, struct pt_regs *regs,
			 struct uprobe_task *ut)
{
	struct arch_uprobe_task *at = &ut->autask;
	unsigned long next = ut->vaddr + au->pi.len;

	current->thread.trap_nr = at->saved_trap_nr;
	if (call_in_slot(au)) {
		/* Return to after the probed call, on both stacks. */
		if (put_user(next, (unsigned long __user *)regs->sp) ||
		    shstk_update_last_frame(next))
			return -EFAULT;
		regs->ip = at->saved_scratch;
		return 0;
	}
	if (au->scratch >= 0)
		*x86_probe_reg(regs, au->scratch) = at->saved_scratch;
	regs->ip = next;
	return 0;
}

bool arch_uprobe_xol_was_trapped(struct task_struct *t)
{
	return t->thread.trap_nr != UPROBE_TRAP_NR;
}

void arch_uprobe_abort_xol(struct arch_uprobe *au, struct pt_regs *regs,
			   struct uprobe_task *ut)
{
	struct arch_uprobe_task *at = &ut->autask;

	current->thread.trap_nr = at->saved_trap_nr;
	if (au->scratch >= 0 && !call_in_slot(au))
		*x86_probe_reg(regs, au->scratch) = at->saved_scratch;
	regs->ip = ut->vaddr;
}

unsigned long arch_uprobe_trap_vaddr(struct pt_regs *regs)
{
	return regs->ip - UPROBE_SWBP_INSN_SIZE;
}

unsigned long arch_uretprobe_hijack_return_addr(unsigned long trampoline,
						struct pt_regs *regs)
{
	unsigned long __user *slot = (unsigned long __user *)regs->sp;
	unsigned long orig;

	/* At the function's first instruction the return address is on top. */
	if (get_user(orig, slot))
		return -1UL;
	if (orig == trampoline)
		return orig;
	if (put_user(trampoline, slot))
		return -1UL;
	if (shstk_update_last_frame(trampoline)) {
		if (put_user(orig, slot))
			force_sig(SIGSEGV);
		return -1UL;
	}
	return orig;
}

/*
 * @ri->entry_sp is the stack pointer at the probed function's entry, where
 * its return address is.  A call made from inside that frame enters with
 * a lower one; a tail call from it enters with the same one; and once
 * the function has returned, the stack pointer is above it.
 */
bool arch_uretprobe_frame_live(struct return_instance *ri,
			       enum uprobe_frame_check ctx,
			       struct pt_regs *regs)
{
	if (ctx == UPROBE_FRAME_CALL)
		return regs->sp < ri->entry_sp;
	return regs->sp <= ri->entry_sp;
}

/*
 * push %rax; push %rcx; push %r11; mov $__NR_uretprobe, %eax; syscall.
 * The syscall returns to the probed function's caller, never here.
 */
static const u8 uretprobe_trampoline[] = {
	0x50, 0x51, 0x41, 0x53,
	0xb8, __NR_uretprobe & 0xff, (__NR_uretprobe >> 8) & 0xff, 0, 0,
	0x0f, 0x05,
};

const void *arch_uprobe_trampoline(size_t *size)
{
	*size = sizeof(uretprobe_trampoline);
	return uretprobe_trampoline;
}

/* Three words on every hit: one user access section, no copy_from_user(). */
bool uprobe_read_syscall_frame(unsigned long sp, unsigned long saved[3])
{
	const unsigned long __user *p = (const unsigned long __user *)sp;

	if (!user_access_begin(p, 3 * sizeof(*p)))
		return false;
	unsafe_get_user(saved[0], p, fault);
	unsafe_get_user(saved[1], p + 1, fault);
	unsafe_get_user(saved[2], p + 2, fault);
	user_access_end();
	return true;
fault:
	user_access_end();
	return false;
}

/*
 * Entered from the trampoline, or from a stub (uprobes_jump.c).  From the
 * trampoline, the function's rax, rcx and r11 are on the stack; once the
 * handlers ran, every register goes back as the function left it, the
 * instruction pointer at its real return address (so the return is by
 * iret, not sysret, which would clobber rcx and r11).
 */
SYSCALL_DEFINE0(uretprobe)
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long saved[3];		/* r11, rcx, rax */
	unsigned long tramp;

	/* Or from a stub a probed 5-byte nop jumped to. */
	if (uprobe_stub_return(regs->ip) && uprobe_stub_syscall(regs))
		return regs->ax;
	tramp = uprobe_get_trampoline_vaddr();
	if (tramp == UPROBE_NO_TRAMPOLINE_VADDR ||
	    regs->ip != tramp + sizeof(uretprobe_trampoline))
		goto bad;
	if (!uprobe_read_syscall_frame(regs->sp, saved))
		goto bad;
	regs->r11 = saved[0];
	regs->cx = saved[1];
	regs->ax = saved[2];
	regs->sp += sizeof(saved);
	/* Not a syscall to restart, whatever rax looks like. */
	regs->orig_ax = -1;

	uprobe_handle_trampoline(regs);
	return regs->ax;
bad:
	force_sig(SIGILL);
	return -1;
}

