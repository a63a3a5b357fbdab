// SPDX-License-Identifier: GPL-2.0
/* The shared library of the client cases' target program. */
#include "target.h"

int lib_work(int n)
{
	return 3 * n + 1;
}


/* A second function, so that a wildcard on the library matches two. */
int lib_twice(int n)
{
	return 2 * n;
}
