// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Target for uprobe_insns.sh.  "uprobe_target points" prints, for each
 * probe point, its name and its offset in this file; "uprobe_target run"
 * calls every function CALLS times and prints what they returned, which
 * must not change when the points are probed.  On arm64 the functions
 * are built around one instruction class each (the ones a uprobe
 * simulates and one it steps); elsewhere only C functions are probed.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CALLS	10
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

typedef uint64_t (*fn_t)(uint64_t x);

uint64_t ut_c_mix(uint64_t x)
{
	return x * 7 + (x >> 1);
}

#ifdef __aarch64__
#define POINT(name) ".globl " #name "_insn\n" #name "_insn:\n"
asm(".text\n"
	".globl ut_bcond\n ut_bcond:\n cmp x0, #5\n"
	POINT(ut_bcond) " b.lt 1f\n mov x0, #2\n ret\n1: mov x0, #1\n ret\n"
	".globl ut_cbz\n ut_cbz:\n"
	POINT(ut_cbz) " cbz x0, 1f\n mov x0, #7\n ret\n1: mov x0, #9\n ret\n"
	".globl ut_tbnz\n ut_tbnz:\n"
	POINT(ut_tbnz) " tbnz x0, #2, 1f\n mov x0, #5\n ret\n1: mov x0, #6\n ret\n"
	".globl ut_adr\n ut_adr:\n"
	POINT(ut_adr) " adr x1, ut_lit\n ldr x0, [x1]\n ret\n"
	".globl ut_adrp\n ut_adrp:\n"
	POINT(ut_adrp) " adrp x1, ut_lit\n add x1, x1, :lo12:ut_lit\n ldr x0, [x1]\n ret\n"
	".globl ut_ldr\n ut_ldr:\n"
	POINT(ut_ldr) " ldr x0, ut_lit\n ret\n"
	".globl ut_ldrsw\n ut_ldrsw:\n"
	POINT(ut_ldrsw) " ldrsw x0, ut_lit32\n ret\n"
	".globl ut_bl\n ut_bl:\n mov x9, x30\n"
	POINT(ut_bl) " bl ut_callee\n mov x30, x9\n ret\n"
	"ut_callee:\n add x0, x0, #10\n ret\n"
	".globl ut_blr\n ut_blr:\n mov x9, x30\n adr x1, ut_callee\n"
	POINT(ut_blr) " blr x1\n mov x30, x9\n ret\n"
	".globl ut_ret\n ut_ret:\n add x0, x0, #3\n"
	POINT(ut_ret) " ret\n"
	".globl ut_nop\n ut_nop:\n"
	POINT(ut_nop) " nop\n add x0, x0, #1\n ret\n"
	".globl ut_add\n ut_add:\n"
	POINT(ut_add) " add x0, x0, #4\n ret\n"
	/* Stack-frame instructions, emulated for user text. */
	".globl ut_stp\n ut_stp:\n"
	POINT(ut_stp) " stp x29, x30, [sp, #-32]!\n str x0, [sp, #16]\n"
	" ldr x1, [sp, #16]\n ldp x29, x30, [sp], #32\n add x0, x1, #2\n ret\n"
	".globl ut_ldp\n ut_ldp:\n stp x29, x30, [sp, #-16]!\n mov x29, #0\n"
	POINT(ut_ldp) " ldp x29, x30, [sp], #16\n add x0, x0, #5\n ret\n"
	".globl ut_movfp\n ut_movfp:\n stp x29, x30, [sp, #-16]!\n"
	POINT(ut_movfp) " mov x29, sp\n mov x2, sp\n sub x0, x0, x29\n"
	" add x0, x0, x2\n ldp x29, x30, [sp], #16\n ret\n"
	".globl ut_subsp\n ut_subsp:\n"
	POINT(ut_subsp) " sub sp, sp, #48\n str x0, [sp, #40]\n ldr x0, [sp, #40]\n"
	" add sp, sp, #48\n add x0, x0, #6\n ret\n"
	".globl ut_stpoff\n ut_stpoff:\n sub sp, sp, #32\n"
	POINT(ut_stpoff) " stp x0, x30, [sp, #16]\n ldr x1, [sp, #16]\n"
	" ldr x30, [sp, #24]\n add sp, sp, #32\n add x0, x1, #8\n ret\n"
	/* One register at sp or x29: locals, spills, a saved x30. */
	".globl ut_strsp\n ut_strsp:\n sub sp, sp, #16\n"
	POINT(ut_strsp) " str x0, [sp, #8]\n ldr x1, [sp, #8]\n add sp, sp, #16\n"
	" add x0, x1, #9\n ret\n"
	".globl ut_ldrfp\n ut_ldrfp:\n stp x29, x30, [sp, #-32]!\n mov x29, sp\n"
	" str x0, [x29, #16]\n"
	POINT(ut_ldrfp) " ldr w1, [x29, #20]\n add x0, x0, x1\n"
	" ldp x29, x30, [sp], #32\n ret\n"
	".globl ut_strpre\n ut_strpre:\n"
	POINT(ut_strpre) " str x30, [sp, #-16]!\n add x0, x0, #11\n"
	" ldr x30, [sp], #16\n ret\n"
	".globl ut_ldrpost\n ut_ldrpost:\n str x30, [sp, #-16]!\n mov x30, #0\n"
	POINT(ut_ldrpost) " ldr x30, [sp], #16\n add x0, x0, #12\n ret\n"
	".p2align 3\n"
	"ut_lit:\n .quad 0x1122334455667788\n"
	"ut_lit32:\n .word 0x80000001\n .word 0\n");

#define CLASS(name) uint64_t name(uint64_t x); extern char name##_insn[]
CLASS(ut_bcond); CLASS(ut_cbz); CLASS(ut_tbnz); CLASS(ut_adr);
CLASS(ut_adrp); CLASS(ut_ldr); CLASS(ut_ldrsw); CLASS(ut_bl);
CLASS(ut_blr); CLASS(ut_ret); CLASS(ut_nop); CLASS(ut_add);
CLASS(ut_stp); CLASS(ut_ldp); CLASS(ut_movfp); CLASS(ut_subsp);
CLASS(ut_stpoff); CLASS(ut_strsp); CLASS(ut_ldrfp); CLASS(ut_strpre);
CLASS(ut_ldrpost);
#define P(name) { #name, name, name##_insn }
#endif

/* Not const: the calls through it stay real calls. */
static struct point {
	const char *name;
	fn_t fn;
	void *at;
} points[] = {
	{ "ut_c_mix", ut_c_mix, (void *)ut_c_mix },
#ifdef __aarch64__
	P(ut_bcond), P(ut_cbz), P(ut_tbnz), P(ut_adr), P(ut_adrp), P(ut_ldr),
	P(ut_ldrsw), P(ut_bl), P(ut_blr), P(ut_ret), P(ut_nop), P(ut_add),
	P(ut_stp), P(ut_ldp), P(ut_movfp), P(ut_subsp), P(ut_stpoff),
	P(ut_strsp), P(ut_ldrfp), P(ut_strpre), P(ut_ldrpost),
#endif
};

struct lookup {
	uintptr_t addr;
	long offset;
};

/* The file offset of an address in this (static, non-PIE) program. */
static int find_offset(struct dl_phdr_info *info, size_t size, void *data)
{
	struct lookup *l = data;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		uintptr_t start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;

		if (info->dlpi_phdr[i].p_type == PT_LOAD && l->addr >= start &&
		    l->addr < start + info->dlpi_phdr[i].p_memsz) {
			l->offset = l->addr - start + info->dlpi_phdr[i].p_offset;
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int i, n;

	if (argc > 1 && !strcmp(argv[1], "points")) {
		for (i = 0; i < ARRAY_SIZE(points); i++) {
			struct lookup l = { (uintptr_t)points[i].at, -1 };

			dl_iterate_phdr(find_offset, &l);
			if (l.offset < 0)
				return 1;
			printf("%s 0x%lx\n", points[i].name, l.offset);
		}
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(points); i++) {
		uint64_t sum = 0;

		for (n = 0; n < CALLS; n++)
			sum = sum * 31 + points[i].fn(n | (n & 1 ? 1ULL << 33 : 0));
		printf("%s %llx\n", points[i].name, (unsigned long long)sum);
	}
	return 0;
}
