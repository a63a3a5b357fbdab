// SPDX-License-Identifier: GPL-2.0
/*
 * A module with functions to probe.  Writing N to the module parameter
 * "call" calls kprobes_target_work(N) once, which calls
 * kprobes_target_square(N) once; "last" reads its result.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/error-injection.h>

static int last;
module_param(last, int, 0444);
MODULE_PARM_DESC(last, "result of the last call");

/* Called once per kprobes_target_work(): a second function to attach to. */
static noinline int kprobes_target_square(int n)
{
	return n * n;
}

/* fail_function may make this return an errno (fail_function.sh). */
static noinline int kprobes_target_work(int n)
{
	return kprobes_target_square(n) + 1;
}
ALLOW_ERROR_INJECTION(kprobes_target_work, ERRNO);

static int call_set(const char *val, const struct kernel_param *kp)
{
	int n, ret = kstrtoint(val, 0, &n);

	if (!ret)
		last = kprobes_target_work(n);
	return ret;
}

static const struct kernel_param_ops call_ops = {
	.set = call_set,
};
module_param_cb(call, &call_ops, NULL, 0200);
MODULE_PARM_DESC(call, "write N to run kprobes_target_work(N)");

MODULE_DESCRIPTION("Probe target for the kprobes selftests");
MODULE_LICENSE("GPL");
