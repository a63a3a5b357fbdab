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
