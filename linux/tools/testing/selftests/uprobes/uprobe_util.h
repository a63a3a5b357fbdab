/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the programs of the uprobes selftests: where an
 * address of this program lies in its file, and the line protocol the
 * scripts use to pace a program (see uprobe_lib.sh).
 */
#ifndef UPROBE_UTIL_H
#define UPROBE_UTIL_H

#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Probed functions stay real functions, whatever the optimiser thinks. */
#ifdef __clang__
#define PROBED __attribute__((optnone))
#else
#define PROBED __attribute__((noipa))
#endif

struct where {
	uintptr_t addr;
	long off;
};

static int where_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct where *w = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		uintptr_t lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;

		/* Only bytes that really come from the file count. */
		if (info->dlpi_phdr[i].p_type != PT_LOAD || w->addr < lo ||
		    w->addr >= lo + info->dlpi_phdr[i].p_filesz)
			continue;
		w->off = (long)(w->addr - lo + info->dlpi_phdr[i].p_offset);
		return 1;
	}
	return 0;
}

/* The offset in this program's file of @addr, or -1. */
static inline long file_offset(const void *addr)
{
	struct where w = { (uintptr_t)addr, -1 };

	dl_iterate_phdr(where_cb, &w);
	return w.off;
}

/*
 * A line for the script on descriptor 3, when the script opened one; it
 * keeps the reading end open for as long as the program runs.
 */
static inline void tell(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdprintf(3, fmt, ap);
	va_end(ap);
}

/* The next line from the script on stdin: 1, or 0 when it closed it. */
static inline int await_line(void)
{
	char c;

	while (read(0, &c, 1) == 1)
		if (c == '\n')
			return 1;
	return 0;
}

#endif
