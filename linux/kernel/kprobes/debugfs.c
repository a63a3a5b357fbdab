// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /sys/kernel/debug/kprobes/: "list" (every registered probe), "enabled"
 * (the global arm switch) and "blacklist" (where probes are refused).
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/kallsyms.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/slab.h>

#include "internal.h"

/* Addresses print as 16 hex digits, or zeros when kallsyms hides them. */
static unsigned long shown(struct seq_file *m, const void *addr)
{
	return kallsyms_show_value(m->file->f_cred) ? (unsigned long)addr : 0;
}

/*
 * A site queued for its jump already skips the single step (its hits use
 * the detour's copy), and the jump follows as soon as no task can be in
 * the region: list it as optimized from then on, as the previous
 * implementation did.  The flags of the probes say when the jump is in.
 */
static bool shows_optimized(struct kprobe *head)
{
	return kprobe_aggr(head) &&
	       (kprobe_optimized(head) ||
		(IS_ENABLED(CONFIG_OPTPROBES) &&
		 !list_empty(&to_site(head)->opt_node)));
}

static void show_probe(struct seq_file *m, struct kprobe *head,
		       struct kprobe *probe)
{
	char symbuf[KSYM_NAME_LEN], *modname;
	const char *sym;
	unsigned long offset = 0;
	unsigned long addr = shown(m, head->addr);

	sym = kallsyms_lookup((unsigned long)head->addr, NULL, &offset,
			      &modname, symbuf);
	if (sym)
		seq_printf(m, "%016lx  %s  %s+0x%lx  %s ", addr,
			   kprobe_is_kretprobe(probe) ? "r" : "k", sym, offset,
			   modname ?: " ");
	else
		seq_printf(m, "%016lx  %s  %pS ", addr,
			   kprobe_is_kretprobe(probe) ? "r" : "k", head->addr);
	seq_printf(m, "%s%s%s%s\n",
		   kprobe_gone(probe) ? "[GONE]" : "",
		   kprobe_disabled(probe) && !kprobe_gone(probe) ? "[DISABLED]" : "",
		   shows_optimized(head) ? "[OPTIMIZED]" : "",
		   kprobe_ftrace(head) ? "[FTRACE]" : "");
}

static void show_site(struct kprobe *head, void *m)
{
	struct kprobe *probe;

	if (!kprobe_aggr(head)) {
		show_probe(m, head, head);
		return;
	}
	list_for_each_entry(probe, &head->list, list)
		show_probe(m, head, probe);
}

static int list_show(struct seq_file *m, void *v)
{
	guard(mutex)(&probes_mutex);
	kprobe_visit_sites(show_site, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(list);

static void *blacklist_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&probes_mutex);
	return seq_list_start(&kprobe_blacklist, *pos);
}

static void *blacklist_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &kprobe_blacklist, pos);
}

static void blacklist_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&probes_mutex);
}

static int blacklist_show(struct seq_file *m, void *v)
{
	struct kprobe_blacklist_entry *range =
		list_entry(v, struct kprobe_blacklist_entry, list);

	seq_printf(m, "0x%016lx-0x%016lx\t%ps\n",
		   shown(m, (void *)range->start_addr),
		   shown(m, (void *)range->end_addr),
		   (void *)range->start_addr);
	return 0;
}

static const struct seq_operations blacklist_sops = {
	.start = blacklist_start,
	.next = blacklist_next,
	.stop = blacklist_stop,
	.show = blacklist_show,
};
DEFINE_SEQ_ATTRIBUTE(blacklist);

/* Arm or disarm every site; per-probe disabled state is left alone. */
struct site_list {
	struct kprobe **heads;
	unsigned int n, max;
};

static void list_site(struct kprobe *head, void *arg)
{
	struct site_list *list = arg;

	if (list->n < list->max)
		list->heads[list->n] = head;
	list->n++;
}

static void sync_one(struct kprobe *head, void *arg)
{
	int *err = arg;

	*err = kprobe_site_sync_arming(head) ?: *err;
}

/*
 * All sites in one go (one text synchronisation, one ftrace update) when
 * there is memory for the list, else one by one.  Returns 0, or an error
 * of a site that could not be armed.
 */
static int set_global_arming(bool on)
{
	struct site_list list = {};
	unsigned int i, failed = 0;
	int err = 0;

	guard(mutex)(&probes_mutex);
	if (kprobes_armed_globally == on)
		return 0;
	kprobes_armed_globally = on;
	kprobe_visit_sites(list_site, &list);
	list.heads = kvmalloc_array(list.n, sizeof(*list.heads), GFP_KERNEL);
	if (list.heads) {
		list.max = list.n;
		list.n = 0;
		kprobe_visit_sites(list_site, &list);
		err = kprobe_sites_sync_arming(list.heads, list.n);
		for (i = 0; i < list.n; i++) {
			struct kprobe *head = list.heads[i];

			if (on && head_nr_enabled(head) && !kprobe_gone(head) &&
			    !kprobe_has_flag(head, KPROBE_FLAG_ARMED))
				failed++;
		}
		kvfree(list.heads);
	} else {
		kprobe_visit_sites(sync_one, &err);
		failed = !!err;
	}
	if (failed)
		pr_warn("Kprobes globally enabled, but %u of %u probe sites could not be armed\n",
			failed, list.n);
	else
		pr_info("Kprobes globally %s\n", on ? "enabled" : "disabled");
	return err;
}

static ssize_t enabled_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[3] = { READ_ONCE(kprobes_armed_globally) ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, 2);
}

/* An iterator, so that kernel_write() works too (kprobetorture flips it). */
static ssize_t enabled_write(struct kiocb *iocb, struct iov_iter *from)
{
	size_t count = iov_iter_count(from);
	char buf[8] = {};
	bool on;
	int ret;

	if (copy_from_iter(buf, min(count, sizeof(buf) - 1), from) !=
	    min(count, sizeof(buf) - 1))
		return -EFAULT;
	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	ret = set_global_arming(on);
	return ret ?: count;
}

static const struct file_operations enabled_fops = {
	.read = enabled_read,
	.write_iter = enabled_write,
	.llseek = default_llseek,
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &list_fops);
	/*
	 * Never removed, so the debugfs proxy (which does not pass
	 * write_iter through) is not needed.
	 */
	debugfs_create_file_unsafe("enabled", 0600, dir, NULL, &enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL, &blacklist_fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);
