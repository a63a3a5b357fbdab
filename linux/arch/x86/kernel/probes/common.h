/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the x86 probe code and the rethook trampoline
 * (arch/x86/kernel/rethook.c), which builds its struct pt_regs with these.
 */
#ifndef _X86_KERNEL_PROBES_COMMON_H
#define _X86_KERNEL_PROBES_COMMON_H

#include <linux/stringify.h>
#include <asm/asm.h>
#include <asm/frame.h>
#include <asm/segment.h>

#ifdef CONFIG_X86_64
/*
 * Build the register part of a struct pt_regs below ss/sp/flags already on
 * the stack: leave room for cs, ip and orig_ax, then store the fifteen
 * general registers at their pt_regs slots (r15 lowest, di highest).
 */
#define SAVE_REGS_STRING				\
	"	subq $(15 * 8 + 3 * 8), %rsp\n"		\
	"	movq %r15,  0 * 8(%rsp)\n"		\
	"	movq %r14,  1 * 8(%rsp)\n"		\
	"	movq %r13,  2 * 8(%rsp)\n"		\
	"	movq %r12,  3 * 8(%rsp)\n"		\
	"	movq %rbp,  4 * 8(%rsp)\n"		\
	"	movq %rbx,  5 * 8(%rsp)\n"		\
	"	movq %r11,  6 * 8(%rsp)\n"		\
	"	movq %r10,  7 * 8(%rsp)\n"		\
	"	movq %r9,   8 * 8(%rsp)\n"		\
	"	movq %r8,   9 * 8(%rsp)\n"		\
	"	movq %rax, 10 * 8(%rsp)\n"		\
	"	movq %rcx, 11 * 8(%rsp)\n"		\
	"	movq %rdx, 12 * 8(%rsp)\n"		\
	"	movq %rsi, 13 * 8(%rsp)\n"		\
	"	movq %rdi, 14 * 8(%rsp)\n"		\
	ENCODE_FRAME_POINTER

/* The reverse, leaving the stack where SAVE_REGS_STRING found it. */
#define RESTORE_REGS_STRING				\
	"	movq  0 * 8(%rsp), %r15\n"		\
	"	movq  1 * 8(%rsp), %r14\n"		\
	"	movq  2 * 8(%rsp), %r13\n"		\
	"	movq  3 * 8(%rsp), %r12\n"		\
	"	movq  4 * 8(%rsp), %rbp\n"		\
	"	movq  5 * 8(%rsp), %rbx\n"		\
	"	movq  6 * 8(%rsp), %r11\n"		\
	"	movq  7 * 8(%rsp), %r10\n"		\
	"	movq  8 * 8(%rsp), %r9\n"		\
	"	movq  9 * 8(%rsp), %r8\n"		\
	"	movq 10 * 8(%rsp), %rax\n"		\
	"	movq 11 * 8(%rsp), %rcx\n"		\
	"	movq 12 * 8(%rsp), %rdx\n"		\
	"	movq 13 * 8(%rsp), %rsi\n"		\
	"	movq 14 * 8(%rsp), %rdi\n"		\
	"	addq $(15 * 8 + 3 * 8), %rsp\n"

/*
 * For an entry stub called on the probed code's stack ([rsp] the return
 * address): a struct pt_regs right below the return address, its ss the
 * kernel's and its sp the stack above the return address (as a trap
 * would show them), the flags saved before anything can change them; cs,
 * ip and orig_ax are left for C.  push %rsp stores rsp as it was before
 * the push, 16 below the value wanted.  LEAVE takes the frame down again;
 * the stub then returns to whatever the return address is by then.
 */
#define PT_REGS_FRAME_ENTER_STRING			\
	"	pushq $" __stringify(__KERNEL_DS) "\n"	\
	"	pushq %rsp\n"				\
	"	addq $16, (%rsp)\n"			\
	"	pushfq\n"				\
	SAVE_REGS_STRING

#define PT_REGS_FRAME_LEAVE_STRING			\
	RESTORE_REGS_STRING				\
	"	popfq\n"				\
	"	leaq 16(%rsp), %rsp\n"
#else
#error "x86 kprobes are built for x86_64 only"
#endif

#ifndef __ASSEMBLY__
#include <linux/types.h>
int kprobe_read_original(unsigned long addr, u8 *buf);
#endif

#endif /* _X86_KERNEL_PROBES_COMMON_H */
