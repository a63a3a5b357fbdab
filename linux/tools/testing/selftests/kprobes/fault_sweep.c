// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures in the probe registration paths a user can reach:
 * kprobe, kretprobe and uprobe events written to tracefs, and the kprobe
 * and uprobe perf PMUs.  Each operation gets a sweep: its one system call
 * runs with the task's fail-nth counter set to 1, 2, 3, ... so that the
 * first, second, third ... fault-injection check inside it fails, until a
 * run gets through without reaching the armed check.  After every attempt
 * the program checks that a failed call left nothing behind, that a
 * successful one works, and that the "keeper" probes registered beforehand
 * at the same places still count every hit exactly.
 *
 * fault_sweep.sh sets up the failslab/fail_page_alloc knobs this needs and
 * watches the kernel log; run alone, the program assumes they are set.
 * FAULT_SWEEP_SECONDS (default 70) bounds the whole run: the time is
 * shared out between the sweeps, and a sweep that uses up its share stops
 * early (said so in the output, not a failure).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define MAX_NTH		2000	/* a sweep still failing here is unbounded */
#define CALLS		3	/* runs of every probed place per check */
#define PEEK		4	/* entry bytes compared for a breakpoint */
#define ABSENT		(-1LL)	/* a counter that must not exist at all */
#define GROUP		"fzs"
#define PMU_DIR		"/sys/bus/event_source/devices/"
#define KEEP_P		GROUP "_keep"
#define KEEP_R		GROUP "_rkeep"
#define KEEP_U		GROUP "_ukeep"
#define MAX_ERRNO	600
#define MAX_PRINTED	200	/* failure lines shown; more are only counted */
#define KSFT_SKIP	4
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The kernel's names for the attributes; userspace has no compiler.h. */
#define __attr(x)	__attribute__((x))
#define noinline	__attr(noinline)

/*
 * The uprobed functions.  The empty asm stops the compiler from computing
 * their results at the call sites or merging their bodies, and every call
 * loads its function pointer afresh (an atomic load the compiler cannot
 * see through), so each call really enters the function at the address
 * that was probed.
 */
static noinline long fz_shared(long x)
{
	asm volatile("" : "+r" (x));
	return x * 5 + 3;
}

static noinline long fz_fresh(long x)
{
	asm volatile("" : "+r" (x));
	return x * 7 + 1;
}

static noinline long fz_spare(long x)
{
	asm volatile("" : "+r" (x));
	return x * 11 + 2;
}

/*
 * fz_shared carries the keeper uprobe, so new probes there join an existing
 * uprobe; fz_fresh has no other probe, so enabling one there writes the
 * breakpoint inside the armed window; fz_spare is only for the disable
 * sweep, whose breakpoint may legitimately outlive a failed removal.
 */
enum { T_SHARED, T_FRESH, T_SPARE, NR_TARGETS };

static struct target {
	const char *name;
	long (*fn)(long x);		/* load with __atomic_load_n() */
	long mul, add;
	unsigned long offset;		/* of the entry, in the executable */
	unsigned char orig[PEEK];	/* entry bytes with no breakpoint */
} targets[NR_TARGETS] = {
	{ "fz_shared", fz_shared, 5, 3, 0, { 0 } },
	{ "fz_fresh", fz_fresh, 7, 1, 0, { 0 } },
	{ "fz_spare", fz_spare, 11, 2, 0, { 0 } },
};

enum { PMU_NONE, PMU_KPROBE, PMU_KRETPROBE, PMU_UPROBE };

struct attempt;

struct sweep {
	const char *name;
	char letter;		/* event names: fzs_<letter><id> */
	int (*prepare)(struct attempt *a);
	void (*settle)(struct attempt *a, int ok);
	int uprobe;		/* uprobe_events, not kprobe_events */
	const char *kind;	/* "p", "r" or "r16" */
	int target;		/* uprobes: which function */
	int pmu;		/* perf_event_open instead of a write */
};

struct attempt {
	const struct sweep *sw;
	int n;
	char ev[32];
	char text[PATH_MAX + 128];	/* what the armed write writes */
	size_t len;
	int fd;				/* where it writes */
	struct perf_event_attr attr;
	long ret;
	int err;
};

static char tracing[64];
static char ksym[128];
static char exe[PATH_MAX];
static int have_uprobes;
static int kprobe_pmu = -1, kretprobe_bit = -1, uprobe_pmu = -1;
static int nth_fd = -1;
static int list_base = -1;
static int findings, printed, notes, upstream_notes;
static int next_id;

static void finding(const struct attempt *a, const char *fmt, ...)
{
	va_list ap;

	findings++;
	if (++printed > MAX_PRINTED)
		return;
	if (a)
		printf("# FAIL %s n=%d: ", a->sw->name, a->n);
	else
		printf("# FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Something worth showing that does not make the run fail. */
static void aside(const struct attempt *a, const char *fmt, ...)
{
	va_list ap;

	if (++notes > 20)
		return;
	printf("# note %s n=%d: ", a->sw->name, a->n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case ENOMEM: return "ENOMEM";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case ENOSPC: return "ENOSPC";
	case EEXIST: return "EEXIST";
	case EFAULT: return "EFAULT";
	case EIO: return "EIO";
	case EAGAIN: return "EAGAIN";
	case E2BIG: return "E2BIG";
	case ENODEV: return "ENODEV";
	case ENXIO: return "ENXIO";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EINTR: return "EINTR";
	case ESRCH: return "ESRCH";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

/* The whole of a small procfs, sysfs, tracefs or debugfs file. */
static char *slurp(const char *path)
{
	size_t cap = 8192, len = 0;
	char *buf, *grown;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	if (!buf)
		goto fail;
	for (;;) {
		if (cap - len < 2) {
			grown = realloc(buf, cap * 2);
			if (!grown)
				goto fail;
			buf = grown;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0)
			goto fail;
		if (!r)
			break;
		len += r;
	}
	buf[len] = '\0';
	close(fd);
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

static char *tfs_read(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tracing, rel);
	return slurp(path);
}

/*
 * Append TEXT to a tracefs file.  Never O_TRUNC: truncating the events
 * files would delete every probe defined there, not just ours.
 */
static int tfs_write(const char *rel, const char *text)
{
	char path[PATH_MAX];
	size_t len = strlen(text);
	ssize_t r;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", tracing, rel);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, text, len);
	err = errno;
	close(fd);
	if (r < 0)
		return -err;
	return r == (ssize_t)len ? 0 : -EIO;
}

static int set_enable(const char *ev, const char *val)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "events/" GROUP "/%s/enable", ev);
	return tfs_write(rel, val);
}

/* 1 or 0 as the event's enable file says, -1 when it cannot be read. */
static int enable_state(const char *ev)
{
	char rel[128], *buf;
	int st = -1;

	snprintf(rel, sizeof(rel), "events/" GROUP "/%s/enable", ev);
	buf = tfs_read(rel);
	if (buf && (buf[0] == '0' || buf[0] == '1'))
		st = buf[0] - '0';
	free(buf);
	return st;
}

static int event_dir(const char *ev)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events/" GROUP "/%s", tracing, ev);
	return stat(path, &st) == 0;
}

static const char *events_file(const struct sweep *sw)
{
	return sw->uprobe ? "uprobe_events" : "kprobe_events";
}

/*
 * Whether FILE lists a definition of GROUP/EV (lines look like
 * "<type>:<group>/<event> <place> ..."); -1 when FILE cannot be read.
 */
static int defined(const char *file, const char *ev)
{
	const size_t glen = sizeof(GROUP "/") - 1, elen = strlen(ev);
	char *buf, *line, *save = NULL, *p;
	int found = 0;

	buf = tfs_read(file);
	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		p = strchr(line, ':');
		if (!p || strncmp(p + 1, GROUP "/", glen))
			continue;
		p += 1 + glen;
		if (!strncmp(p, ev, elen) && (p[elen] == ' ' || !p[elen]))
			found = 1;
	}
	free(buf);
	return found;
}

/*
 * EV's hit count.  kprobe_profile lines are "<event> <hits> <misses>",
 * uprobe_profile lines "<file> <event> <hits>"; neither names the group,
 * hence the group prefix in all our event names.  -1: EV has no line;
 * -2: the profile cannot be read.
 */
static long long profile_hits(int uprobe, const char *ev)
{
	char *buf, *line, *save = NULL, *tok[3], *last, *t, *s2;
	long long hits = -1;
	int n;

	buf = tfs_read(uprobe ? "uprobe_profile" : "kprobe_profile");
	if (!buf)
		return -2;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		s2 = NULL;
		last = NULL;
		for (n = 0; (t = strtok_r(n ? NULL : line, " \t", &s2)); n++) {
			if (n < 3)
				tok[n] = t;
			last = t;
		}
		if (n < 3 || strcmp(tok[uprobe ? 1 : 0], ev))
			continue;
		hits = strtoll(uprobe ? last : tok[1], NULL, 10);
		break;
	}
	free(buf);
	return hits;
}

/*
 * Probes in the kprobes list at the getppid entry point: every kprobe and
 * kretprobe registered there, enabled or not, event or perf.  -1 when the
 * list is not readable.
 */
static int list_count(void)
{
	char *buf, *line, *save = NULL, f0[32], f1[8], f2[256];
	size_t len = strlen(ksym);
	int n = 0;

	buf = slurp("/sys/kernel/debug/kprobes/list");
	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%31s %7s %255s", f0, f1, f2) == 3 &&
		    !strncmp(f2, ksym, len) && f2[len] == '+')
			n++;
	free(buf);
	return n;
}

static int count_fds(void)
{
	struct dirent *e;
	DIR *d;
	int n = 0;

	d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Whether T's entry bytes differ from the ones seen before any probe. */
static int text_changed(int t)
{
	const unsigned char *p = (const unsigned char *)(uintptr_t)
		__atomic_load_n(&targets[t].fn, __ATOMIC_RELAXED);
	int i;

	/* Atomic loads: each byte is read from the text every time. */
	for (i = 0; i < PEEK; i++)
		if (__atomic_load_n(&p[i], __ATOMIC_RELAXED) != targets[t].orig[i])
			return 1;
	return 0;
}

enum { C_KPROBE, C_UPROBE, C_PERF };

struct counter {
	const char *what;
	int kind;
	const char *ev;		/* C_KPROBE, C_UPROBE */
	int fd;			/* C_PERF */
	long long want;		/* increase over one check, or ABSENT */
	long long before;
};

static long long read_counter(const struct counter *c)
{
	uint64_t v;

	if (c->kind == C_PERF)
		return read(c->fd, &v, sizeof(v)) == sizeof(v) ?
			(long long)v : -2;
	return profile_hits(c->kind == C_UPROBE, c->ev);
}

/*
 * Run every probed place CALLS times: getppid() for the kprobes, the three
 * functions for the uprobes.  Only this process makes these calls, so the
 * counts are exact.  Nonzero when a function computed a wrong result (a
 * breakpoint or its single step went wrong).
 */
static int run_targets(void)
{
	int i, t, bad = 0;

	for (i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	for (t = 0; t < NR_TARGETS; t++) {
		for (i = 0; i < CALLS; i++) {
			long (*fn)(long x);

			fn = __atomic_load_n(&targets[t].fn, __ATOMIC_RELAXED);
			if (fn(i) != i * targets[t].mul + targets[t].add)
				bad = 1;
		}
	}
	return bad;
}

/*
 * The keepers must count every run of their place; EXTRA, if given, is
 * the probe the attempt made (or must not have made).
 */
static void check_counts(const struct attempt *a, const struct counter *extra)
{
	struct counter c[4] = {
		{ "keeper kprobe", C_KPROBE, KEEP_P, -1, CALLS, 0 },
		{ "keeper kretprobe", C_KPROBE, KEEP_R, -1, CALLS, 0 },
		{ "keeper uprobe", C_UPROBE, KEEP_U, -1, CALLS, 0 },
	};
	int i, n = have_uprobes ? 3 : 2;
	long long after;

	if (extra)
		c[n++] = *extra;
	for (i = 0; i < n; i++)
		c[i].before = read_counter(&c[i]);
	if (run_targets())
		finding(a, "a uprobed function returned a wrong result");
	for (i = 0; i < n; i++) {
		after = read_counter(&c[i]);
		if (c[i].want == ABSENT) {
			if (c[i].before != -1 || after != -1)
				finding(a, "%s %s is in the profile", c[i].what,
					c[i].ev);
		} else if (c[i].before < 0 || after < 0) {
			finding(a, "%s: no count to read", c[i].what);
		} else if (after - c[i].before != c[i].want) {
			finding(a, "%s counted %lld of %d calls, want %lld",
				c[i].what, after - c[i].before, CALLS,
				c[i].want);
		}
	}
}

static void definition(const struct attempt *a, char *buf, size_t size)
{
	const struct sweep *sw = a->sw;

	if (sw->uprobe)
		snprintf(buf, size, "p:" GROUP "/%s %s:0x%lx\n", a->ev, exe,
			 targets[sw->target].offset);
	else
		snprintf(buf, size, "%s:" GROUP "/%s %s\n", sw->kind, a->ev,
			 ksym);
}

/* Remove A's event if any trace of it is there, and make sure it went. */
static void drop_event(const struct attempt *a)
{
	const char *file = events_file(a->sw);
	char text[64];

	if (defined(file, a->ev) > 0 || event_dir(a->ev)) {
		set_enable(a->ev, "0");
		snprintf(text, sizeof(text), "-:" GROUP "/%s\n", a->ev);
		tfs_write(file, text);
	}
	if (defined(file, a->ev) != 0 || event_dir(a->ev))
		finding(a, "%s could not be removed", a->ev);
}

/* Checks after every attempt, once its own probe is gone again. */
static void tail_checks(const struct attempt *a)
{
	int n;

	if (list_base >= 0) {
		n = list_count();
		if (n != list_base)
			finding(a, "%d probes listed at %s, want the %d keepers",
				n, ksym, list_base);
	}
	if (!have_uprobes)
		return;
	if (text_changed(T_FRESH))
		finding(a, "a breakpoint stayed in %s", targets[T_FRESH].name);
	/*
	 * A disable that fails to take a breakpoint out may leave it behind,
	 * without a consumer; that costs a trap per call but is not wrong.
	 */
	if (text_changed(T_SPARE))
		aside(a, "a breakpoint stayed in %s", targets[T_SPARE].name);
}

static int open_armed(struct attempt *a, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tracing, rel);
	a->len = strlen(a->text);
	a->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (a->fd < 0) {
		finding(a, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Define A's event outside the armed window. */
static int define_now(struct attempt *a)
{
	char def[PATH_MAX + 128];
	int err;

	definition(a, def, sizeof(def));
	err = tfs_write(events_file(a->sw), def);
	if (err)
		finding(a, "cannot define %s: %s", a->ev, strerror(-err));
	return err;
}

/* The armed write defines the event. */
static int prep_add(struct attempt *a)
{
	definition(a, a->text, sizeof(a->text));
	return open_armed(a, events_file(a->sw));
}

/* The armed write enables an existing, disabled event. */
static int prep_enable(struct attempt *a)
{
	char rel[128];

	if (define_now(a))
		return -1;
	snprintf(rel, sizeof(rel), "events/" GROUP "/%s/enable", a->ev);
	snprintf(a->text, sizeof(a->text), "1");
	return open_armed(a, rel);
}

/* The armed write disables an enabled event. */
static int prep_disable(struct attempt *a)
{
	char rel[128];
	int err;

	if (define_now(a))
		return -1;
	err = set_enable(a->ev, "1");
	if (err) {
		finding(a, "cannot enable %s: %s", a->ev, strerror(-err));
		return -1;
	}
	snprintf(rel, sizeof(rel), "events/" GROUP "/%s/enable", a->ev);
	snprintf(a->text, sizeof(a->text), "0");
	return open_armed(a, rel);
}

/* The armed write removes an existing, disabled event. */
static int prep_remove(struct attempt *a)
{
	if (define_now(a))
		return -1;
	snprintf(a->text, sizeof(a->text), "-:" GROUP "/%s\n", a->ev);
	return open_armed(a, events_file(a->sw));
}

/* The armed call opens a counting perf event at the getppid entry or fz_fresh. */
static int prep_perf(struct attempt *a)
{
	struct perf_event_attr *attr = &a->attr;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (a->sw->pmu == PMU_UPROBE) {
		attr->type = uprobe_pmu;
		attr->config1 = (uintptr_t)exe;
		attr->config2 = targets[a->sw->target].offset;
	} else {
		attr->type = kprobe_pmu;
		attr->config1 = (uintptr_t)ksym;
		attr->config2 = 0;
		if (a->sw->pmu == PMU_KRETPROBE)
			attr->config = 1ULL << kretprobe_bit;
	}
	return 0;
}

static struct counter new_counter(const struct attempt *a, long long want)
{
	struct counter c = {
		"new event", a->sw->uprobe ? C_UPROBE : C_KPROBE, a->ev, -1,
		want, 0
	};

	return c;
}

static void settle_add(struct attempt *a, int ok)
{
	int def = defined(events_file(a->sw), a->ev);
	struct counter c;
	int err;

	if (ok) {
		err = def == 1 ? set_enable(a->ev, "1") : 0;
		if (def != 1) {
			finding(a, "%s is not listed after its definition succeeded",
				a->ev);
		} else if (err == -ENOENT && !event_dir(a->ev)) {
			/*
			 * Not ours: the trace event layer keeps an event whose
			 * tracefs directory it failed to make ("Could not create
			 * tracefs ... directory"), and it cannot be enabled.
			 * Same on 6.12 (kernel/trace/trace_events.c).
			 */
			upstream_notes++;
			aside(a, "%s defined without its tracefs directory (trace events layer)",
			      a->ev);
		} else if (err) {
			finding(a, "cannot enable %s: %s", a->ev, strerror(-err));
		} else {
			c = new_counter(a, CALLS);
			check_counts(a, &c);
		}
	} else {
		if (def != 0)
			finding(a, "the failed definition left %s listed", a->ev);
		if (event_dir(a->ev))
			finding(a, "the failed definition left events/%s/%s",
				GROUP, a->ev);
		c = new_counter(a, ABSENT);
		check_counts(a, &c);
	}
	drop_event(a);
}

/* Enable: the state must follow the result, and the counting the state. */
static void settle_enable(struct attempt *a, int ok)
{
	int st = enable_state(a->ev);
	struct counter c;

	if (ok && st != 1)
		finding(a, "enabling %s succeeded but it reads %d", a->ev, st);
	if (!ok && st != 0)
		finding(a, "enabling %s failed but it reads %d", a->ev, st);
	c = new_counter(a, st == 1 ? CALLS : 0);
	check_counts(a, &c);
	drop_event(a);
}

/*
 * Disable: after success the event is off; after a failure either state is
 * acceptable as long as the probe counts accordingly.
 */
static void settle_disable(struct attempt *a, int ok)
{
	int st = enable_state(a->ev);
	struct counter c;

	if (st < 0)
		finding(a, "cannot read the state of %s", a->ev);
	else if (ok && st != 0)
		finding(a, "disabling %s succeeded but it reads %d", a->ev, st);
	c = new_counter(a, st == 1 ? CALLS : 0);
	check_counts(a, &c);
	drop_event(a);
}

static void settle_remove(struct attempt *a, int ok)
{
	int def = defined(events_file(a->sw), a->ev);
	struct counter c;
	int err;

	if (ok) {
		if (def != 0)
			finding(a, "%s is still listed after its removal", a->ev);
		if (event_dir(a->ev))
			finding(a, "events/%s/%s stayed after the removal",
				GROUP, a->ev);
		c = new_counter(a, ABSENT);
		check_counts(a, &c);
		drop_event(a);
		return;
	}
	err = def == 1 ? set_enable(a->ev, "1") : 0;
	if (def != 1) {
		finding(a, "the failed removal took %s away", a->ev);
	} else if (err) {
		finding(a, "cannot enable %s after the failed removal: %s",
			a->ev, strerror(-err));
	} else {
		/* The event must be as good as before. */
		c = new_counter(a, CALLS);
		check_counts(a, &c);
	}
	drop_event(a);
}

/*
 * Perf: a returned fd must count the calls; after a failure (no fd) the
 * tail checks show that no kprobe or breakpoint stayed.
 */
static void settle_perf(struct attempt *a, int ok)
{
	struct counter c = { "perf counter", C_PERF, NULL, -1, CALLS, 0 };

	if (ok) {
		c.fd = (int)a->ret;
		check_counts(a, &c);
		close(c.fd);
	} else {
		check_counts(a, NULL);
	}
}

static long run_write(struct attempt *a)
{
	return write(a->fd, a->text, a->len);
}

static long run_perf(struct attempt *a)
{
	return syscall(SYS_perf_event_open, &a->attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static void cleanup(void);

static void die(const char *what)
{
	printf("# fatal: %s: %s\n", what, strerror(errno));
	cleanup();
	printf("fault_sweep: aborted\n");
	exit(1);
}

/*
 * Run A's one system call with the N-th fault-injection check of this task
 * failing.  Between arming and reading the count back nothing but that
 * call runs, and every buffer it and the read-back touch has just been
 * written, so no page fault can spend a check.  Returns whether the
 * failure was injected: the count went down to zero.
 */
static int armed(struct attempt *a)
{
	char arm[16], left[16];
	int len = snprintf(arm, sizeof(arm), "%d", a->n);
	ssize_t r;

	memset(left, 0, sizeof(left));
	if (write(nth_fd, arm, len) != len)
		die("cannot arm fail-nth");
	a->ret = a->sw->pmu ? run_perf(a) : run_write(a);
	a->err = errno;
	r = pread(nth_fd, left, sizeof(left) - 1, 0);
	if (write(nth_fd, "0", 1) != 1)
		die("cannot disarm fail-nth");
	if (r <= 0)
		die("cannot read fail-nth back");
	return strtoul(left, NULL, 10) == 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int total_attempts, total_injected;

static void run_sweep(const struct sweep *sw, double deadline)
{
	int attempts = 0, injected = 0, enomem = 0, despite = 0;
	int done = 0, cut = 0, broken = 0, n, hit, ok, fds, e;
	static int errs[MAX_ERRNO];
	char list[256] = "";
	struct attempt a;

	memset(errs, 0, sizeof(errs));
	for (n = 1; n <= MAX_NTH; n++) {
		if (now() > deadline) {
			cut = 1;
			break;
		}
		memset(&a, 0, sizeof(a));
		a.sw = sw;
		a.n = n;
		a.fd = -1;
		snprintf(a.ev, sizeof(a.ev), GROUP "_%c%d", sw->letter,
			 next_id++);
		fds = count_fds();
		if (sw->prepare(&a)) {
			if (a.fd >= 0)
				close(a.fd);
			if (!sw->pmu)
				drop_event(&a);
			broken = 1;
			break;
		}
		hit = armed(&a);
		ok = sw->pmu ? a.ret >= 0 : a.ret == (long)a.len;
		attempts++;
		injected += hit;
		if (ok && hit)
			despite++;
		if (!ok && a.ret >= 0) {
			finding(&a, "short write: %ld of %zu bytes", a.ret, a.len);
		} else if (!ok && !hit) {
			finding(&a, "failed with %s although no fault was injected",
				errname(a.err));
		} else if (!ok && a.err == ENOMEM) {
			enomem++;
		} else if (!ok) {
			e = a.err > 0 && a.err < MAX_ERRNO ? a.err : 0;
			/* May be right (a lookup failing for want of memory). */
			if (!errs[e]++)
				printf("# sweep %s n=%d: the injected failure gave %s\n",
				       sw->name, n, errname(a.err));
		}
		if (a.fd >= 0)
			close(a.fd);
		sw->settle(&a, ok);
		tail_checks(&a);
		if (count_fds() != fds)
			finding(&a, "open files went from %d to %d", fds,
				count_fds());
		if (!hit) {
			done = 1;
			break;
		}
	}
	if (cut)
		printf("# sweep %s: stopped after %d attempts, out of time\n",
		       sw->name, attempts);
	else if (!done && !broken)
		finding(NULL, "sweep %s: still failing after %d attempts (unbounded)",
			sw->name, MAX_NTH);
	for (e = 0; e < MAX_ERRNO; e++)
		if (errs[e])
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s:%d", list[0] ? "," : "", errname(e), errs[e]);
	printf("# sweep %s: attempts=%d injected=%d enomem=%d other_errno=%s",
	       sw->name, attempts, injected, enomem, list[0] ? list : "none");
	printf(" succeeded_despite_fault=%d\n", despite);
	total_attempts += attempts;
	total_injected += injected;
}

/* Event sweeps: OP names the prepare and settle pair. */
#define EV(name, letter, op, uprobe, kind, target) \
	{ name, letter, prep_##op, settle_##op, uprobe, kind, target, PMU_NONE }
#define PERF(name, uprobe, target, pmu) \
	{ name, 'p', prep_perf, settle_perf, uprobe, "p", target, pmu }

static const struct sweep sweeps[] = {
	EV("kprobe_events_add", 'k', add, 0, "p", 0),
	EV("kprobe_events_enable", 'k', enable, 0, "p", 0),
	EV("kprobe_events_disable", 'k', disable, 0, "p", 0),
	EV("kprobe_events_remove", 'k', remove, 0, "p", 0),
	EV("kretprobe_events_add", 'r', add, 0, "r", 0),
	EV("kretprobe_events_add_r16", 'r', add, 0, "r16", 0),
	EV("kretprobe_events_enable", 'r', enable, 0, "r", 0),
	EV("uprobe_events_add", 'u', add, 1, "p", T_SHARED),
	EV("uprobe_events_enable", 'u', enable, 1, "p", T_SHARED),
	EV("uprobe_events_enable_fresh", 'u', enable, 1, "p", T_FRESH),
	EV("uprobe_events_remove", 'u', remove, 1, "p", T_SHARED),
	EV("uprobe_events_disable_spare", 'u', disable, 1, "p", T_SPARE),
	PERF("perf_kprobe_open", 0, 0, PMU_KPROBE),
	PERF("perf_kretprobe_open", 0, 0, PMU_KRETPROBE),
	PERF("perf_uprobe_open", 1, T_FRESH, PMU_UPROBE),
};

/* Why SW cannot run here, or NULL. */
static const char *unsupported(const struct sweep *sw)
{
	if (sw->uprobe && !have_uprobes)
		return "no uprobe_events";
	if ((sw->pmu == PMU_KPROBE || sw->pmu == PMU_KRETPROBE) && kprobe_pmu < 0)
		return "no kprobe PMU";
	if (sw->pmu == PMU_KRETPROBE && kretprobe_bit < 0)
		return "no kprobe PMU retprobe format";
	if (sw->pmu == PMU_UPROBE && uprobe_pmu < 0)
		return "no uprobe PMU";
	return NULL;
}

/* Remove (disabling first) every event of our group in FILE. */
static void drop_group(const char *file)
{
	const size_t glen = sizeof(GROUP "/") - 1;
	char *buf, *line, *save = NULL, *p, *end, text[128];

	buf = tfs_read(file);
	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		p = strchr(line, ':');
		if (!p || strncmp(p + 1, GROUP "/", glen))
			continue;
		p += 1 + glen;
		end = strchr(p, ' ');
		if (end)
			*end = '\0';
		set_enable(p, "0");
		snprintf(text, sizeof(text), "-:" GROUP "/%s\n", p);
		tfs_write(file, text);
	}
	free(buf);
}

static void cleanup(void)
{
	if (nth_fd >= 0 && write(nth_fd, "0", 1) != 1)
		printf("# cannot disarm fail-nth\n");
	drop_group("kprobe_events");
	drop_group("uprobe_events");
}

/* The syscall entry function getppid() reaches, whatever the arch calls it. */
static int find_ksym(void)
{
	static const char *const names[] = {
		"__x64_sys_getppid", "__arm64_sys_getppid", "sys_getppid",
	};
	unsigned int best = ARRAY_SIZE(names), i;
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f;

	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3)
			for (i = 0; i < best; i++)
				if (!strcmp(name, names[i]))
					best = i;
	fclose(f);
	if (best == ARRAY_SIZE(names))
		return -1;
	snprintf(ksym, sizeof(ksym), "%s", names[best]);
	return 0;
}

/* ADDR's offset in the executable, from the mapping of it that holds ADDR. */
static int file_offset(uintptr_t addr, unsigned long *off)
{
	char line[PATH_MAX + 256], perms[8], path[PATH_MAX];
	unsigned long start, end, pgoff;
	int found = -1;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end,
			   perms, &pgoff, path) != 5)
			continue;
		if (addr < start || addr >= end || perms[2] != 'x' ||
		    strcmp(path, exe))
			continue;
		*off = addr - start + pgoff;
		found = 0;
	}
	fclose(f);
	return found;
}

/* A number from a sysfs file, after PREFIX ("config:" in format files). */
static int read_number(const char *path, const char *prefix)
{
	char *buf = slurp(path), *p, *end;
	long v;

	if (!buf)
		return -1;
	p = buf;
	if (prefix) {
		if (strncmp(p, prefix, strlen(prefix))) {
			free(buf);
			return -1;
		}
		p += strlen(prefix);
	}
	v = strtol(p, &end, 10);
	if (end == p || v < 0 || v > INT_MAX)
		v = -1;
	free(buf);
	return (int)v;
}

/*
 * Uprobe sweeps need uprobe_events, the executable's path and the file
 * offsets of the targets; note what their entries look like unprobed.
 */
static int setup_uprobes(void)
{
	char path[PATH_MAX];
	ssize_t r;
	int t;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracing);
	if (access(path, W_OK))
		return -1;
	r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (r <= 0)
		return -1;
	exe[r] = '\0';
	for (t = 0; t < NR_TARGETS; t++) {
		if (file_offset((uintptr_t)targets[t].fn, &targets[t].offset))
			return -1;
		memcpy(targets[t].orig, (const void *)(uintptr_t)targets[t].fn,
		       PEEK);
	}
	return 0;
}

/* Findings before the sweeps are the setup's. */
static const struct sweep setup_sweep = { .name = "setup" };
static const struct attempt setup_attempt = { .sw = &setup_sweep };

/* Define and enable a keeper; without it no sweep could be judged. */
static int set_keeper(const char *file, const char *def, const char *ev)
{
	int err = tfs_write(file, def);

	if (!err)
		err = set_enable(ev, "1");
	if (err)
		finding(&setup_attempt, "cannot set up keeper %s: %s", ev,
			strerror(-err));
	return err;
}

int main(void)
{
	static const char *const tracefs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	double end, budget = 70;
	const char *why, *env;
	char def[PATH_MAX + 128];
	unsigned int i, left;
	int ran = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	env = getenv("FAULT_SWEEP_SECONDS");
	if (env && atof(env) > 0)
		budget = atof(env);
	if (geteuid()) {
		printf("# fault_sweep: must run as root\n");
		return KSFT_SKIP;
	}
	for (i = 0; i < ARRAY_SIZE(tracefs) && !tracing[0]; i++) {
		snprintf(def, sizeof(def), "%s/kprobe_events", tracefs[i]);
		if (!access(def, W_OK))
			snprintf(tracing, sizeof(tracing), "%s", tracefs[i]);
	}
	if (!tracing[0]) {
		printf("# fault_sweep: no kprobe_events (tracefs)\n");
		return KSFT_SKIP;
	}
	if (find_ksym()) {
		printf("# fault_sweep: no getppid entry point in /proc/kallsyms\n");
		return KSFT_SKIP;
	}
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		printf("# fault_sweep: no /proc/thread-self/fail-nth\n");
		return KSFT_SKIP;
	}
	have_uprobes = !setup_uprobes();
	kprobe_pmu = read_number(PMU_DIR "kprobe/type", NULL);
	kretprobe_bit = read_number(PMU_DIR "kprobe/format/retprobe", "config:");
	uprobe_pmu = read_number(PMU_DIR "uprobe/type", NULL);
	printf("# kprobes at %s%s%s\n", ksym, have_uprobes ? ", uprobes in " : "",
	       have_uprobes ? exe : "");

	/* Leftovers of an interrupted run would disturb the counts. */
	cleanup();
	snprintf(def, sizeof(def), "p:" GROUP "/" KEEP_P " %s\n", ksym);
	if (set_keeper("kprobe_events", def, KEEP_P))
		goto out;
	snprintf(def, sizeof(def), "r:" GROUP "/" KEEP_R " %s\n", ksym);
	if (set_keeper("kprobe_events", def, KEEP_R))
		goto out;
	if (have_uprobes) {
		snprintf(def, sizeof(def), "p:" GROUP "/" KEEP_U " %s:0x%lx\n",
			 exe, targets[T_SHARED].offset);
		if (set_keeper("uprobe_events", def, KEEP_U))
			goto out;
	}
	list_base = list_count();
	/* The keepers alone must count right, or nothing below means much. */
	check_counts(&setup_attempt, NULL);
	if (findings)
		goto out;

	end = now() + budget;
	for (i = 0, left = 0; i < ARRAY_SIZE(sweeps); i++)
		left += !unsupported(&sweeps[i]);
	for (i = 0; i < ARRAY_SIZE(sweeps); i++) {
		why = unsupported(&sweeps[i]);
		if (why) {
			printf("# sweep %s: skipped, %s\n", sweeps[i].name, why);
			continue;
		}
		/* Equal shares of what is left; quick sweeps leave more to the rest. */
		run_sweep(&sweeps[i], now() + (end - now()) / left--);
		ran++;
	}
out:
	cleanup();
	close(nth_fd);
	if (printed > MAX_PRINTED)
		printf("# (%d failure lines not shown)\n", printed - MAX_PRINTED);
	printf("fault_sweep: sweeps=%d attempts=%d findings=%d upstream_notes=%d\n",
	       ran, total_attempts, findings, upstream_notes);
	if (findings)
		return 1;
	if (ran && !total_injected) {
		/* The script set the knobs: a sweep that injects nothing is broken. */
		printf("# no failure was ever injected: are the failslab knobs set?\n");
		return 1;
	}
	return 0;
}
