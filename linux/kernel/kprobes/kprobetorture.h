/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What kprobetorture offers its companion module, kprobetorture_mod: the
 * module reports its arrival and departure and makes its calls through
 * these, so that the torture run audits the probes on its functions.
 */
#ifndef _KERNEL_KPROBES_KPROBETORTURE_H
#define _KERNEL_KPROBES_KPROBETORTURE_H

#include <linux/kprobes.h>

/* The most functions and hit-path symbols a port may add. */
#define KPROBETORTURE_PORT_FNS	4
#define KPROBETORTURE_PORT_AUX	16

/**
 * struct kprobetorture_port - what a port adds to a kprobetorture run
 * @fns: functions built around instructions only this port handles in
 *	its own way (arm64: PC-relative literal loads, simulated); they are
 *	called, probed and audited like the core's
 * @expected: what @fns[i](x) must return, computed apart from it
 * @names: their names, for the log
 * @nr_fns: how many (at most KPROBETORTURE_PORT_FNS)
 * @body_candidate: whether @addr, inside @fns[@i], may hold the body
 *	probe; it sees the function's instructions in order from its
 *	entry, and @state (zeroed per function) is its own
 * @aux_symbols: what the port's hit path calls, or once called: probes
 *	on them come and go during the run and must be refused or fire
 *	without harm; their handlers call @fns, so those are hit inside
 *	another probe's handler
 * @nr_aux: how many (at most KPROBETORTURE_PORT_AUX)
 *
 * A port that has anything to add defines kprobetorture_port, built in
 * whenever CONFIG_KPROBES_TORTURE_TEST is set, and exports it;
 * kprobetorture takes it with symbol_get() and runs without it where
 * there is none.
 */
struct kprobetorture_port {
	int (* const *fns)(int x);
	int (* const *expected)(int x);
	const char * const *names;
	int nr_fns;
	bool (*body_candidate)(int i, kprobe_opcode_t *addr, int *state);
	const char * const *aux_symbols;
	int nr_aux;
};

extern const struct kprobetorture_port kprobetorture_port;

void kprobetorture_mod_arrive(const unsigned long *body_offsets, int n);
void kprobetorture_mod_leave(void);
int kprobetorture_mod_call(int nr, int (*fn)(int x), int x);
void kprobetorture_mod_wrong(void);

#endif /* _KERNEL_KPROBES_KPROBETORTURE_H */
