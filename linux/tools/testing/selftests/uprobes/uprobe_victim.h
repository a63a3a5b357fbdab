/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What uprobe_victim.c defines in assembly: functions whose instructions
 * the tests rely on, and labels on single instructions to probe.
 */
#ifndef UPROBE_VICTIM_H
#define UPROBE_VICTIM_H

#include <stdint.h>

uint64_t uv_leaf(uint64_t x);
uint64_t uv_cowfn(uint64_t x);
uint64_t uv_loop(uint64_t n);
extern char uv_loop_insn[], uv_loop_insn2[];
extern unsigned char uv_cowpad[];
uint64_t uv_nop5(uint64_t x);
uint64_t uv_redzone(uint64_t x);
extern unsigned char uv_redzone_nop[];

#endif
