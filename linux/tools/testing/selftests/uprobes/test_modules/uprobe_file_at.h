/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the uprobe test modules: the file and offset behind an address of
 * a process, which is what uprobe_register() takes.
 */
#ifndef _UPROBE_FILE_AT_H
#define _UPROBE_FILE_AT_H

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>

/* A reference to the file @vaddr maps in process @pid, or NULL. */
static struct file *uprobe_file_at(int pid, unsigned long vaddr,
				   loff_t *offset)
{
	struct vm_area_struct *vma;
	struct task_struct *task;
	struct file *file = NULL;
	struct mm_struct *mm;

	task = get_pid_task(find_get_pid(pid), PIDTYPE_PID);
	if (!task)
		return NULL;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return NULL;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, vaddr);
	if (vma && vma->vm_file) {
		file = get_file(vma->vm_file);
		*offset = ((loff_t)vma->vm_pgoff << PAGE_SHIFT) +
			  vaddr - vma->vm_start;
	}
	mmap_read_unlock(mm);
	mmput(mm);
	return file;
}

#endif /* _UPROBE_FILE_AT_H */
