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
	return kprobe_is_site(head) &&
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

static void show_head(struct kprobe *head, void *m)
{
	struct kprobe *probe;

	if (!kprobe_is_site(head)) {
		show_probe(m, head, head);
		return;
	}
	list_for_each_entry(probe, &head->list, list)
		show_probe(m, head, probe);
}

static int list_show(struct seq_file *m, void *v)
{
	guard(mutex)(&kprobes_mutex);
	kprobe_visit_heads(show_head, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(list);

static void *blacklist_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobes_mutex);
	return seq_list_start(&kprobe_blacklist, *pos);
}

static void *blacklist_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &kprobe_blacklist, pos);
}

static void blacklist_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobes_mutex);
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
	ret = kprobe_set_armed_globally(on);
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
