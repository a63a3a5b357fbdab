// SPDX-License-Identifier: GPL-2.0
/*
 * A USDT probe without a semaphore: this file is built without
 * _SDT_HAS_SEMAPHORES, unlike target.c.
 */
#include <sys/sdt.h>

#include "target.h"

void target_tick(int i)
{
	STAP_PROBE1(target, tick, i);
}

/*
 * The same probe on a 5-byte nop, the form -fpatchable-function-entry
 * and other SDT emitters use, which x86_64 enters by a jump rather than
 * the breakpoint.  gas's ';' separates the bytes: a comma would split
 * the macro's argument.
 */
#if defined(__x86_64__)
#undef _SDT_NOP
#define _SDT_NOP .byte 0x0f; .byte 0x1f; .byte 0x44; .byte 0x00; .byte 0x00
#endif

void target_tick5(int i)
{
	STAP_PROBE1(target, tick5, i);
}
