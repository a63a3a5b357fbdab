/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What kprobetorture offers its companion module, kprobetorture_mod: the
 * module reports its arrival and departure and makes its calls through
 * these, so that the torture run audits the probes on its functions.
 */
#ifndef _KERNEL_KPROBES_KPROBETORTURE_H
#define _KERNEL_KPROBES_KPROBETORTURE_H

void kprobetorture_mod_arrive(const unsigned long *body_offsets, int n);
void kprobetorture_mod_leave(void);
int kprobetorture_mod_call(int nr, int (*fn)(int x), int x);
void kprobetorture_mod_wrong(void);

#endif /* _KERNEL_KPROBES_KPROBETORTURE_H */
