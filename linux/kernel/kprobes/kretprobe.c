// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes on top of rethook.
 *
 * A kretprobe is a kprobe at the function's entry whose pre_handler takes
 * an instance from the kretprobe's rethook pool and lets rethook swap the
 * return address for its trampoline.  When the function returns, rethook
 * calls kretprobe_return() with the real return address already back in
 * regs, so the user's handler sees a normal return: regs_return_value()
 * and stack traces work as they would after the return.
 */
#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "internal.h"

/* The entry side: the kprobe pre_handler of every kretprobe. */
static int kretprobe_entry(struct kprobe *probe, struct pt_regs *regs)
{
	struct kretprobe *krp = container_of(probe, struct kretprobe, kp);
	struct kretprobe_instance *inst;
	struct rethook_node *node;

	node = rethook_try_get(krp->rh);
	if (!node) {
		krp->nmissed++;
		return 0;
	}
	inst = container_of(node, struct kretprobe_instance, node);
	/* An entry handler may decline to watch this call. */
	if (!krp->entry_handler || !krp->entry_handler(inst, regs))
		rethook_hook(node, regs, kprobe_ftrace(probe));
	else
		rethook_recycle(node);
	return 0;
}
NOKPROBE_SYMBOL(kretprobe_entry);

/* The return side, called by rethook with preemption disabled. */
static void kretprobe_return(struct rethook_node *node, void *data,
			     unsigned long ret_addr, struct pt_regs *regs)
{
	struct kretprobe *krp = data;

	if (WARN_ON_ONCE(!krp) || !krp->handler)
		return;
	/* Probes hit inside the handler count as missed, as in any handler. */
	__this_cpu_write(current_kprobe, &krp->kp);
	__this_cpu_write(kprobe_in_handler, &krp->kp);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
	kprobe_note_hit_context();
	krp->handler(container_of(node, struct kretprobe_instance, node), regs);
	__this_cpu_write(kprobe_in_handler, NULL);
	__this_cpu_write(current_kprobe, NULL);
}
NOKPROBE_SYMBOL(kretprobe_return);

bool kprobe_is_kretprobe(struct kprobe *probe)
{
	return probe->pre_handler == kretprobe_entry;
}

bool __weak arch_kretprobe_blacklisted(unsigned long addr)
{
	return false;
}

/* Everything but the entry probe: checks, instances, handlers. */
static int prepare_kretprobe(struct kretprobe *krp)
{
	kprobe_opcode_t *addr;
	struct rethook *rh;
	int ret;

	ret = kprobe_func_entry_of(krp->kp.addr, krp->kp.symbol_name,
				   krp->kp.offset, &addr);
	if (ret)
		return ret;
	/* Some functions must keep their return address (arch's say). */
	if (arch_kretprobe_blacklisted((unsigned long)addr))
		return -EINVAL;
	if (kprobe_registered(&krp->kp))
		return -EINVAL;
	if (krp->data_size > KRETPROBE_MAX_DATA_SIZE ||
	    krp->maxactive > KRETPROBE_MAXACTIVE_MAX)
		return -E2BIG;
	if (krp->maxactive < 1)
		krp->maxactive = max_t(unsigned int, 10, 2 * num_possible_cpus());

	rh = rethook_alloc(krp, kretprobe_return,
			   sizeof(struct kretprobe_instance) + krp->data_size,
			   krp->maxactive);
	if (IS_ERR(rh))
		return PTR_ERR(rh);
	krp->rh = rh;
	krp->nmissed = 0;
	/* The entry probe is ours: no user post_handler runs there. */
	krp->kp.pre_handler = kretprobe_entry;
	krp->kp.post_handler = NULL;
	return 0;
}

/* Register the entry probes of the prepared @krps as one batch. */
static int register_prepared(struct kretprobe **krps, int num)
{
	struct kprobe *one, **kps = &one;
	int i, ret;

	if (num > 1) {
		kps = kvcalloc(num, sizeof(*kps), GFP_KERNEL);
		if (!kps)
			return -ENOMEM;
	}
	for (i = 0; i < num; i++)
		kps[i] = &krps[i]->kp;
	ret = register_kprobes(kps, num);
	if (kps != &one)
		kvfree(kps);
	return ret;
}

/**
 * register_kretprobe() - watch a function's returns
 * @krp: the kretprobe; set @kp.addr or @kp.symbol_name to a function entry
 *
 * @maxactive <= 0 picks max(10, 2 * possible CPUs) and is written back.
 * Return: 0, -EINVAL when not at a function entry, already registered or
 * refused by the arch, -ENOENT for an unknown symbol, -E2BIG when
 * @data_size exceeds KRETPROBE_MAX_DATA_SIZE, -ENOMEM, or any error of
 * register_kprobe().  On error nothing is left registered.
 */
int register_kretprobe(struct kretprobe *krp)
{
	return register_kretprobes(&krp, 1);
}
EXPORT_SYMBOL_GPL(register_kretprobe);

static int cmp_rethooks(const void *a, const void *b)
{
	unsigned long x = *(unsigned long *)a, y = *(unsigned long *)b;

	return x < y ? -1 : x > y;
}

/**
 * unregister_kretprobes() - remove several kretprobes with one grace period
 * @krps: the kretprobes
 * @num: how many
 *
 * Calls still in flight return normally; their handlers no longer run.
 */
void unregister_kretprobes(struct kretprobe **krps, int num)
{
	struct kprobe **kps, **dead;
	struct rethook **rhs;
	int i, n;

	if (num <= 0)
		return;
	kps = kvcalloc(num, sizeof(*kps), GFP_KERNEL | __GFP_NOFAIL);
	dead = kvcalloc(num, sizeof(*dead), GFP_KERNEL | __GFP_NOFAIL);
	rhs = kvcalloc(num, sizeof(*rhs), GFP_KERNEL | __GFP_NOFAIL);
	for (i = 0; i < num; i++) {
		kps[i] = &krps[i]->kp;
		rhs[i] = krps[i]->rh;
	}
	n = kprobe_detach_batch(kps, num, dead);
	/*
	 * Entry hits already under way may still reach kretprobe_entry() and
	 * read @rh, so it stays set until they are over.  Freeing a rethook
	 * only makes it hand out no more instances and call no more return
	 * handlers (it is released after a grace period of its own); doing
	 * that now means none runs once this returns.  The same kretprobe
	 * twice in @krps has one rethook, freed once.
	 */
	sort(rhs, num, sizeof(*rhs), cmp_rethooks, NULL);
	for (i = 0; i < num; i++)
		if (rhs[i] && (!i || rhs[i] != rhs[i - 1]))
			rethook_free(rhs[i]);
	kprobe_free_batch(kps, num, dead, n);
	for (i = 0; i < num; i++)
		krps[i]->rh = NULL;
	kvfree(rhs);
	kvfree(dead);
	kvfree(kps);
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/** unregister_kretprobe() - remove a kretprobe; see unregister_kretprobes() */
void unregister_kretprobe(struct kretprobe *krp)
{
	unregister_kretprobes(&krp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);

/**
 * register_kretprobes() - register several kretprobes, all or none
 * @krps: the kretprobes
 * @num: how many
 *
 * Their entry probes are planted as one kprobes batch.
 *
 * Return: 0, or the first error (see register_kretprobe()); then none of
 * them is registered.
 */
int register_kretprobes(struct kretprobe **krps, int num)
{
	struct rethook *rh_one, **rhs = &rh_one;
	int i, ret = 0, prepared;

	if (num <= 0)
		return -EINVAL;
	/* Kept apart from krps[]: the same kretprobe twice gets two. */
	if (num > 1) {
		rhs = kvcalloc(num, sizeof(*rhs), GFP_KERNEL);
		if (!rhs)
			return -ENOMEM;
	}
	for (prepared = 0; prepared < num; prepared++) {
		ret = prepare_kretprobe(krps[prepared]);
		if (ret)
			break;
		rhs[prepared] = krps[prepared]->rh;
	}
	if (!ret)
		ret = register_prepared(krps, num);
	if (ret) {
		for (i = prepared - 1; i >= 0; i--) {
			krps[i]->rh = NULL;
			rethook_free(rhs[i]);
		}
	}
	if (rhs != &rh_one)
		kvfree(rhs);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);
