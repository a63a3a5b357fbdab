// SPDX-License-Identifier: GPL-2.0
/*
 * perf and BPF on top of kprobes, the way tools use them: a kprobe and a
 * kretprobe created through the perf "kprobe" PMU, counted by perf, then
 * with BPF programs attached that record the argument and the return
 * value, and one that makes the function fail with bpf_override_return().
 *
 * The probed function is kprobes_target_work() of the kprobes_target test
 * module, which the caller loads; only this process calls it.  No libbpf:
 * the programs are a few hand-assembled instructions.
 *
 * Exit status: 0 pass, 1 fail, 4 skip (kselftest convention).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#define FUNC		"kprobes_target_work"
#define PARAMS		"/sys/module/kprobes_target/parameters/"
#define PMU_DIR		"/sys/bus/event_source/devices/kprobe/"

/* Where the first argument and the return value sit in the BPF context. */
#if defined(__x86_64__)
#define ARG0_OFF	112	/* pt_regs.di */
#define RET_OFF		80	/* pt_regs.ax */
#elif defined(__aarch64__)
#define ARG0_OFF	0	/* user_pt_regs.regs[0] */
#define RET_OFF		0
#else
#error "add the pt_regs offsets for this architecture"
#endif

/* Slots of the result map. */
enum { HITS_ENTRY, ARG_SEEN, HITS_RETURN, RET_SEEN, NR_SLOTS };

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

static void skip(const char *why)
{
	printf("SKIP: %s\n", why);
	exit(4);
}

static long read_long(const char *path)
{
	char buf[64] = "", *end;
	int fd = open(path, O_RDONLY);
	long v;

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) <= 0)
		buf[0] = 0;
	close(fd);
	v = strtol(buf, &end, 10);
	if (end == buf)
		return -1;
	return v;
}

/* Run kprobes_target_work(@n) in this task; its result. */
static long call_target(int n)
{
	char buf[16];
	int fd = open(PARAMS "call", O_WRONLY);
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (fd < 0 || write(fd, buf, len) != len) {
		fail("cannot write %s: %s", PARAMS "call", strerror(errno));
		exit(1);
	}
	close(fd);
	return read_long(PARAMS "last");
}

static int pmu_type(void)
{
	return read_long(PMU_DIR "type");
}

/* The config bit that turns a kprobe PMU event into a kretprobe. */
static int retprobe_bit(void)
{
	char buf[32] = "";
	int fd = open(PMU_DIR "format/retprobe", O_RDONLY);
	int bit = -1;

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) > 0)
			sscanf(buf, "config:%d", &bit);
		close(fd);
	}
	return bit;
}

static int open_probe(int type, int retbit, int is_return)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = is_return ? 1ULL << retbit : 0;
	attr.kprobe_func = (uintptr_t)FUNC;
	attr.disabled = 1;
	/* This task only, any CPU. */
	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t read_count(int fd)
{
	uint64_t count = 0;

	if (read(fd, &count, sizeof(count)) != sizeof(count))
		fail("read of a perf counter: %s", strerror(errno));
	return count;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int create_map(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(uint32_t);
	attr.value_size = sizeof(uint64_t);
	attr.max_entries = NR_SLOTS;
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

static uint64_t map_get(int map, uint32_t key)
{
	union bpf_attr attr;
	uint64_t value = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)&value;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		fail("map lookup %u: %s", key, strerror(errno));
	return value;
}

/* Just enough of an assembler for the programs below. */
#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD64_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define RSH64_IMM(d, i)		INSN(BPF_ALU64 | BPF_RSH | BPF_K, d, 0, 0, i)
#define LDX64(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define STX64(d, s, o)		INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST32_IMM(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define XADD64(d, s, o)		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
#define JNE_IMM(d, i, o)	INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define JEQ_IMM(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* A 64-bit load takes two slots; load_prog() fills in the map's fd. */
#define LD_MAP(d)		INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, 0)
#define LD_MAP_HI()		INSN(0, 0, 0, 0, 0)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

static int load_prog(struct bpf_insn *insns, int n, int map, const char *what)
{
	static char log[4096];
	union bpf_attr attr;
	int fd, i;

	for (i = 0; i < n; i++)
		if (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
		    insns[i].src_reg == BPF_PSEUDO_MAP_FD)
			insns[i].imm = map;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = n;
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		fail("loading the %s program: %s\n%s", what, strerror(errno), log);
	return fd;
}

/*
 * For this process only: count a hit in map slot @hits and store the u64
 * at @ctx_off of the registers in slot @value.
 */
static int load_recorder(int map, int hits, int value, int ctx_off)
{
	struct bpf_insn prog[] = {
		MOV64_REG(BPF_REG_6, BPF_REG_1),
		CALL(BPF_FUNC_get_current_pid_tgid),
		RSH64_IMM(BPF_REG_0, 32),
		JNE_IMM(BPF_REG_0, getpid(), 18),	/* to "out" */
		/* map[hits] += 1 */
		ST32_IMM(BPF_REG_10, -4, hits),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),
		LD_MAP(BPF_REG_1), LD_MAP_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 11),		/* to "out" */
		MOV64_IMM(BPF_REG_1, 1),
		XADD64(BPF_REG_0, BPF_REG_1, 0),
		/* map[value] = the register at ctx_off */
		LDX64(BPF_REG_7, BPF_REG_6, ctx_off),
		ST32_IMM(BPF_REG_10, -4, value),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),
		LD_MAP(BPF_REG_1), LD_MAP_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 1),		/* to "out" */
		STX64(BPF_REG_0, BPF_REG_7, 0),
		/* out: */
		MOV64_IMM(BPF_REG_0, 0),
		EXIT(),
	};

	return load_prog(prog, ARRAY_SIZE(prog), map, "recorder");
}

/* For this process only: make the probed function return -ENOMEM. */
static int load_override(void)
{
	struct bpf_insn prog[] = {
		MOV64_REG(BPF_REG_6, BPF_REG_1),
		CALL(BPF_FUNC_get_current_pid_tgid),
		RSH64_IMM(BPF_REG_0, 32),
		JNE_IMM(BPF_REG_0, getpid(), 3),	/* to "out" */
		MOV64_REG(BPF_REG_1, BPF_REG_6),
		MOV64_IMM(BPF_REG_2, -ENOMEM),
		CALL(BPF_FUNC_override_return),
		/* out: */
		MOV64_IMM(BPF_REG_0, 0),
		EXIT(),
	};

	return load_prog(prog, ARRAY_SIZE(prog), -1, "override");
}

/* How many lines of the kprobes debugfs list name the probed function. */
static int listed(void)
{
	FILE *f = fopen("/sys/kernel/debug/kprobes/list", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, FUNC "+"))
			n++;
	fclose(f);
	return n;
}

static void expect_call(int n, long want)
{
	long got = call_target(n);

	if (got != want)
		fail(FUNC "(%d) returned %ld, expected %ld", n, got, want);
}

static void set_enabled(int fd, int on)
{
	if (ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
		fail("perf enable/disable: %s", strerror(errno));
}

static void attach(int event, int prog)
{
	if (ioctl(event, PERF_EVENT_IOC_SET_BPF, prog))
		fail("attaching a BPF program: %s", strerror(errno));
}

int main(void)
{
	int type = pmu_type(), retbit = retprobe_bit();
	int entry, ret, map, prog, i;
	uint64_t n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (type < 0 || retbit < 0)
		skip("no kprobe PMU (CONFIG_KPROBE_EVENTS, CONFIG_PERF_EVENTS)");
	if (access(PARAMS "call", W_OK))
		skip("the kprobes_target module is not loaded");
	/*
	 * The module was loaded afresh for this test: a probe listed on
	 * it already is one an earlier unregistration left behind.
	 */
	if (listed() != 0) {
		fail("a probe is listed on " FUNC " of a freshly loaded module");
		return 1;
	}

	/* perf alone: a kprobe and a kretprobe counting hits. */
	entry = open_probe(type, retbit, 0);
	ret = open_probe(type, retbit, 1);
	if (entry < 0 || ret < 0) {
		fail("perf_event_open of the kprobe PMU: %s", strerror(errno));
		return 1;
	}
	if (listed() != 2)
		fail("%d lines for " FUNC " in the kprobes list, expected 2", listed());
	set_enabled(entry, 1);
	set_enabled(ret, 1);
	for (i = 1; i <= 5; i++)
		expect_call(i, i * i + 1);
	n = read_count(entry);
	if (n != 5)
		fail("kprobe counted %llu hits, expected 5", (unsigned long long)n);
	n = read_count(ret);
	if (n != 5)
		fail("kretprobe counted %llu hits, expected 5", (unsigned long long)n);
	set_enabled(entry, 0);
	set_enabled(ret, 0);
	expect_call(2, 5);
	if (read_count(entry) != 5 || read_count(ret) != 5)
		fail("disabled perf events still count");
	printf("perf counted kprobe and kretprobe hits\n");

	/* BPF on the same events: the argument and the return value. */
	map = create_map();
	if (map < 0) {
		fail("creating a BPF map: %s", strerror(errno));
		return 1;
	}
	prog = load_recorder(map, HITS_ENTRY, ARG_SEEN, ARG0_OFF);
	if (prog >= 0)
		attach(entry, prog);
	prog = load_recorder(map, HITS_RETURN, RET_SEEN, RET_OFF);
	if (prog >= 0)
		attach(ret, prog);
	set_enabled(entry, 1);
	set_enabled(ret, 1);
	for (i = 0; i < 3; i++)
		expect_call(7, 50);
	if (map_get(map, HITS_ENTRY) != 3 || map_get(map, HITS_RETURN) != 3)
		fail("BPF saw %llu entries and %llu returns, expected 3 and 3",
		     (unsigned long long)map_get(map, HITS_ENTRY),
		     (unsigned long long)map_get(map, HITS_RETURN));
	if ((int)map_get(map, ARG_SEEN) != 7)
		fail("BPF read argument %d, expected 7", (int)map_get(map, ARG_SEEN));
	if ((int)map_get(map, RET_SEEN) != 50)
		fail("BPF read return value %d, expected 50", (int)map_get(map, RET_SEEN));
	close(entry);
	close(ret);
	if (listed() != 0)
		fail(FUNC " is still in the kprobes list after the events closed");
	printf("BPF programs read the argument and the return value\n");

	/* bpf_override_return(): the probe changes the ip and skips the call. */
	entry = open_probe(type, retbit, 0);
	prog = load_override();
	if (entry < 0 || prog < 0) {
		fail("override setup: %s", strerror(errno));
		return 1;
	}
	attach(entry, prog);
	set_enabled(entry, 1);
	expect_call(5, -ENOMEM);
	close(entry);
	expect_call(5, 26);
	printf("bpf_override_return made " FUNC " fail with -ENOMEM\n");

	if (failures)
		return 1;
	printf("ok: perf and BPF work on kprobes and kretprobes\n");
	return 0;
}
