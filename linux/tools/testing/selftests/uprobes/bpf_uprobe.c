// SPDX-License-Identifier: GPL-2.0
/*
 * perf and BPF on uprobes, on two functions of this very program:
 *
 *  - the perf "uprobe" PMU: an entry and a return event opened for this
 *    process only count exactly its own calls, not those of a forked
 *    child; BPF programs attached to them count the same calls and read
 *    the return value;
 *  - BPF_TRACE_UPROBE_MULTI links on both functions, each offset with
 *    its own cookie: without a pid every process running the file
 *    counts, with a pid only that process does; a return link reads
 *    the return value.
 *
 * No libbpf: the programs are a few hand-assembled instructions.  The
 * uprobe_multi part of the BPF ABI is spelled out here, because the
 * system headers this may be built against can predate it.
 *
 * Exit status: 0 pass, 1 fail, 4 skip (kselftest convention).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "uprobe_util.h"

#define PMU_DIR		"/sys/bus/event_source/devices/uprobe/"

/* Where the return value sits in the registers a program gets. */
#if defined(__x86_64__)
#define RET_OFF		80	/* pt_regs.ax */
#elif defined(__aarch64__)
#define RET_OFF		0	/* user_pt_regs.regs[0] */
#else
#error "add the return register's offset for this architecture"
#endif

/* The uprobe_multi attach type and the attributes of BPF_LINK_CREATE. */
#define ATTACH_UPROBE_MULTI	48
#define UPROBE_MULTI_RETURN	1U
struct link_create_multi {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
};

PROBED uint64_t ub_twice(uint64_t x)
{
	return 2 * x + 5;
}

PROBED uint64_t ub_plus(uint64_t x)
{
	return x + 42;
}

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failures++;
}

static uint64_t hide(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* @n calls of ub_twice (1, 2, ... n) and @m of ub_plus, results checked. */
static void calls(int n, int m)
{
	int i;

	for (i = 1; i <= n; i++)
		if (ub_twice(hide(i)) != 2 * (uint64_t)i + 5)
			fail("ub_twice(%d) went wrong", i);
	for (i = 1; i <= m; i++)
		if (ub_plus(hide(i)) != (uint64_t)i + 42)
			fail("ub_plus(%d) went wrong", i);
}

/*
 * A child that makes @n and @m calls, after a byte on the pipe *@go when
 * @go is given (the caller writes it and closes it).
 */
static pid_t child_calls(int n, int m, int *go)
{
	int p[2] = { -1, -1 };
	pid_t pid;
	char c;

	if (go && pipe(p)) {
		fail("pipe: %s", strerror(errno));
		exit(1);
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		/* The child's verdict is about its own calls only. */
		failures = 0;
		if (go) {
			close(p[1]);
			if (read(p[0], &c, 1) != 1)
				_exit(2);
		}
		calls(n, m);
		_exit(failures ? 1 : 0);
	}
	if (go) {
		close(p[0]);
		*go = p[1];
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fail("the child did not exit normally (status 0x%x)", status);
}

static long read_num(const char *path, const char *fmt)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	long v = -1;

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) > 0)
		sscanf(buf, fmt, &v);
	close(fd);
	return v;
}

/* ---- BPF ---- */

static long sys_bpf(int cmd, void *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(union bpf_attr));
}

static int new_map(int slots)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(uint32_t);
	attr.value_size = sizeof(uint64_t);
	attr.max_entries = slots;
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

static uint64_t slot(int map, uint32_t key)
{
	union bpf_attr attr;
	uint64_t value = ~0ULL;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)&value;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		fail("reading map entry %u: %s", key, strerror(errno));
	return value;
}

#define I(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV_R(d, s)	I(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_K(d, k)	I(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, k)
#define ADD_K(d, k)	I(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, k)
#define LD_DW(d, s, o)	I(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST_DW(d, s, o)	I(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST_W(d, r)	I(BPF_STX | BPF_MEM | BPF_W, d, r, -4, 0)
#define ATOMIC_ADD(d, s) I(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, 0, BPF_ADD)
#define JEQ_K(d, k, o)	I(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, k)
#define CALL(f)		I(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define MAP_LO(d, fd)	I(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define MAP_HI()	I(0, 0, 0, 0, 0)

/*
 * A program that adds one to the map entry given by its attach cookie
 * (or @key when @key >= 0) and, when @ret_slot >= 0, stores the return
 * register in that entry.
 */
static int load_counter(int map, int key, int ret_slot, int multi)
{
	struct bpf_insn prog[32];
	static char log[8192];
	union bpf_attr attr;
	int n = 0, skip1, skip2 = -1, fd;

	prog[n++] = MOV_R(BPF_REG_6, BPF_REG_1);
	if (key < 0) {
		prog[n++] = CALL(BPF_FUNC_get_attach_cookie);
		prog[n++] = MOV_R(BPF_REG_7, BPF_REG_0);
	} else {
		prog[n++] = MOV_K(BPF_REG_7, key);
	}
	/* entry[r7] += 1 */
	prog[n++] = ST_W(BPF_REG_10, BPF_REG_7);
	prog[n++] = MOV_R(BPF_REG_2, BPF_REG_10);
	prog[n++] = ADD_K(BPF_REG_2, -4);
	prog[n++] = MAP_LO(BPF_REG_1, map);
	prog[n++] = MAP_HI();
	prog[n++] = CALL(BPF_FUNC_map_lookup_elem);
	skip1 = n;
	prog[n++] = JEQ_K(BPF_REG_0, 0, 0);	/* to the end, set below */
	prog[n++] = MOV_K(BPF_REG_1, 1);
	prog[n++] = ATOMIC_ADD(BPF_REG_0, BPF_REG_1);
	if (ret_slot >= 0) {
		/* entry[ret_slot] = the return register */
		prog[n++] = MOV_K(BPF_REG_7, ret_slot);
		prog[n++] = ST_W(BPF_REG_10, BPF_REG_7);
		prog[n++] = MOV_R(BPF_REG_2, BPF_REG_10);
		prog[n++] = ADD_K(BPF_REG_2, -4);
		prog[n++] = MAP_LO(BPF_REG_1, map);
		prog[n++] = MAP_HI();
		prog[n++] = CALL(BPF_FUNC_map_lookup_elem);
		skip2 = n;
		prog[n++] = JEQ_K(BPF_REG_0, 0, 0);
		prog[n++] = LD_DW(BPF_REG_1, BPF_REG_6, RET_OFF);
		prog[n++] = ST_DW(BPF_REG_0, BPF_REG_1, 0);
	}
	prog[skip1].off = n - skip1 - 1;
	if (skip2 >= 0)
		prog[skip2].off = n - skip2 - 1;
	prog[n++] = MOV_K(BPF_REG_0, 0);
	prog[n++] = EXIT();

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.expected_attach_type = multi ? ATTACH_UPROBE_MULTI : 0;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = n;
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		fail("loading a BPF program: %s\n%s", strerror(errno), log);
	return fd;
}

/* ---- perf ---- */

static int perf_uprobe(int type, uint64_t config, const char *path, long off)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.uprobe_path = (uintptr_t)path;
	attr.probe_offset = off;
	attr.disabled = 1;
	/* This process only, on any CPU; a child does not inherit it. */
	return syscall(__NR_perf_event_open, &attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static uint64_t count_of(int fd)
{
	uint64_t n = ~0ULL;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		fail("reading a perf count: %s", strerror(errno));
	return n;
}

static void toggle(int fd, int on)
{
	if (ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
		fail("enabling/disabling a perf event: %s", strerror(errno));
}

static void expect(const char *what, uint64_t got, uint64_t want)
{
	if (got != want)
		fail("%s: %llu, expected %llu", what, (unsigned long long)got,
		     (unsigned long long)want);
}

static void test_perf(const char *path, long off)
{
	long type = read_num(PMU_DIR "type", "%ld");
	long retbit = read_num(PMU_DIR "format/retprobe", "config:%ld");
	int entry, ret, map, pe, pr;

	if (type < 0 || retbit < 0) {
		printf("SKIP: no uprobe PMU (CONFIG_UPROBE_EVENTS, CONFIG_PERF_EVENTS)\n");
		exit(4);
	}
	entry = perf_uprobe(type, 0, path, off);
	ret = perf_uprobe(type, 1ULL << retbit, path, off);
	if (entry < 0 || ret < 0) {
		fail("perf_event_open on the uprobe PMU: %s", strerror(errno));
		exit(1);
	}
	toggle(entry, 1);
	toggle(ret, 1);
	calls(5, 1);
	reap(child_calls(3, 0, NULL));
	expect("perf entry count", count_of(entry), 5);
	expect("perf return count", count_of(ret), 5);
	toggle(entry, 0);
	toggle(ret, 0);
	calls(2, 0);
	expect("perf entry count after disabling", count_of(entry), 5);
	printf("perf counted this process's calls only\n");

	/* BPF on the same events: count, and read the return value. */
	map = new_map(4);
	if (map < 0) {
		fail("creating a map: %s", strerror(errno));
		exit(1);
	}
	pe = load_counter(map, 0, -1, 0);
	pr = load_counter(map, 1, 2, 0);
	if (pe < 0 || pr < 0)
		exit(1);
	if (ioctl(entry, PERF_EVENT_IOC_SET_BPF, pe) ||
	    ioctl(ret, PERF_EVENT_IOC_SET_BPF, pr)) {
		fail("attaching BPF to the perf events: %s", strerror(errno));
		exit(1);
	}
	toggle(entry, 1);
	toggle(ret, 1);
	calls(4, 2);
	reap(child_calls(3, 0, NULL));
	expect("BPF entry hits", slot(map, 0), 4);
	expect("BPF return hits", slot(map, 1), 4);
	expect("return value BPF read", slot(map, 2), 2 * 4 + 5);
	close(entry);
	close(ret);
	close(pe);
	close(pr);
	calls(1, 0);
	expect("BPF entry hits after close", slot(map, 0), 4);
	close(map);
	printf("BPF on the uprobe PMU counted and read the return value\n");
}

static int link_multi(int prog, const char *path, long off1, long off2,
		      int pid, unsigned int flags)
{
	uint64_t offs[2] = { off1, off2 }, cookies[2] = { 0, 1 };
	union bpf_attr raw;
	struct link_create_multi *a = (void *)&raw;

	memset(&raw, 0, sizeof(raw));
	a->prog_fd = prog;
	a->attach_type = ATTACH_UPROBE_MULTI;
	a->path = (uintptr_t)path;
	a->offsets = (uintptr_t)offs;
	a->cookies = (uintptr_t)cookies;
	a->cnt = off2 >= 0 ? 2 : 1;
	a->multi_flags = flags;
	a->pid = pid;
	return sys_bpf(BPF_LINK_CREATE, &raw);
}

static void test_multi(const char *path, long off1, long off2)
{
	int map, prog, link, go;
	pid_t child;

	/* Every process: this one 4 + 2 calls, a child 3 + 1. */
	map = new_map(4);
	prog = load_counter(map, -1, -1, 1);
	if (map < 0 || prog < 0)
		exit(1);
	link = link_multi(prog, path, off1, off2, 0, 0);
	/* 6.12 has uprobe_multi links on every config these tests need. */
	if (link < 0) {
		fail("BPF_LINK_CREATE uprobe_multi: %s", strerror(errno));
		exit(1);
	}
	calls(4, 2);
	reap(child_calls(3, 1, NULL));
	expect("uprobe_multi hits on ub_twice", slot(map, 0), 7);
	expect("uprobe_multi hits on ub_plus", slot(map, 1), 3);
	close(link);
	calls(1, 1);
	expect("uprobe_multi hits after the link closed", slot(map, 0), 7);
	close(prog);
	close(map);

	/* Only the child: it makes 3 + 1 calls, this process 4 + 2. */
	map = new_map(4);
	prog = load_counter(map, -1, -1, 1);
	if (map < 0 || prog < 0)
		exit(1);
	child = child_calls(3, 1, &go);
	link = link_multi(prog, path, off1, off2, child, 0);
	if (link < 0)
		fail("uprobe_multi link with a pid: %s", strerror(errno));
	calls(4, 2);
	if (write(go, "g", 1) != 1)
		fail("cannot start the child");
	close(go);
	reap(child);
	calls(1, 1);
	expect("uprobe_multi hits on ub_twice, child only", slot(map, 0), 3);
	expect("uprobe_multi hits on ub_plus, child only", slot(map, 1), 1);
	close(link);
	close(prog);
	close(map);

	/* A return link on ub_twice: counted in slot 0, the value in 2. */
	map = new_map(4);
	prog = load_counter(map, -1, 2, 1);
	if (map < 0 || prog < 0)
		exit(1);
	link = link_multi(prog, path, off1, -1, getpid(), UPROBE_MULTI_RETURN);
	if (link < 0)
		fail("uprobe_multi return link: %s", strerror(errno));
	calls(6, 3);
	reap(child_calls(2, 0, NULL));
	expect("uprobe_multi return hits", slot(map, 0), 6);
	expect("return value seen by uprobe_multi", slot(map, 2), 2 * 6 + 5);
	close(link);
	close(prog);
	close(map);
	printf("uprobe_multi links counted the processes they should\n");
}

int main(void)
{
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	long off1 = file_offset((const void *)ub_twice);
	long off2 = file_offset((const void *)ub_plus);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (len <= 0 || off1 < 0 || off2 < 0) {
		fail("cannot find this program's file or functions");
		return 1;
	}
	path[len] = 0;
	test_perf(path, off1);
	test_multi(path, off1, off2);
	if (failures)
		return 1;
	printf("ok: perf and BPF count uprobe hits exactly\n");
	return 0;
}
