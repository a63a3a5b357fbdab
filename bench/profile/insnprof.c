// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts how many times each guest instruction
 * runs, for scripts/profile.sh.  At exit it writes "pc count" lines (hex
 * address, decimal count) for every instruction that ran to the file
 * named by its out= argument; mode=inline (the default) or mode=cb picks
 * how it counts (below).
 *
 * The counters are inline adds that TCG emits before each instruction,
 * so counting costs no callback.  They live in QEMU scoreboards (one
 * slot per vCPU, summed at exit), which is what the plugin API of
 * QEMU 8.2 and later offers for inline operations; per-vCPU slots also
 * keep the counts right when vCPUs run on host threads of their own.
 *
 * With mode=cb every instruction calls a plain callback instead, which
 * adds one to that instruction's counter (atomically, for vCPUs on host
 * threads of their own): slower, but it leaves the guest's own code as
 * it is.
 *
 * Each instruction is also classified once, when translated: an atomic
 * read-modify-write of memory (x86: a lock prefix, or xchg with a memory
 * operand; arm64: an LSE atomic, a compare-and-swap, or the store half
 * of an exclusive pair) gets a third field, "a", on its line, so that
 * report.py can say how many of them a hit runs, and where.
 *
 * QEMU 10.0's inline ops do not on single-threaded TCG (no
 * CF_PARALLEL): there gen_plugin_u64_ptr() (accel/tcg/plugin-gen.c)
 * takes the vCPU index as a TCG constant and multiplies that constant
 * in place by the scoreboard's element size, so on vCPU 1 the rest of
 * the translation block reads CHUNK * 8 wherever it uses the constant 1.
 * An x86_64 guest's `cld` stores that constant as EFLAGS.DF, and its
 * next `rep movsq` strides 4 MiB: sync_regs() oopses on the first entry
 * from user space.  scripts/profile.sh uses mode=cb on x86_64.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/*
 * Counter i belongs to the guest address pcs[i]; its count is the u64 at
 * offset (i % CHUNK) of scoreboard i / CHUNK, one such array per vCPU.
 * Translation may run on several host threads at once: one lock guards
 * the table, the scoreboards are QEMU's to keep.
 */
#define CHUNK		65536
#define TABLE_BITS	22

static struct qemu_plugin_scoreboard **boards;
static uint64_t *pcs;
static uint8_t *is_atomic;	/* per counter, as pcs */
static bool arm64;
static size_t nboards, used;
static uint32_t *table;		/* open addressing; 1 + index, 0 = free */
static GMutex lock;
static const char *out_path = "insnprof.txt";
/* mode=cb: the counters, CHUNK to an array (arrays never move). */
static bool use_cb;
static uint64_t **cb_chunks;

static qemu_plugin_u64 counter_at(size_t i)
{
	qemu_plugin_u64 entry = {
		.score = boards[i / CHUNK],
		.offset = (i % CHUNK) * sizeof(uint64_t),
	};

	return entry;
}

/* The index of pc's counter, made on first sight. */
static size_t counter_for(uint64_t pc)
{
	size_t mask = (1u << TABLE_BITS) - 1;
	size_t h = (pc * 0x9E3779B97F4A7C15ull) >> (64 - TABLE_BITS);

	for (; table[h]; h = (h + 1) & mask)
		if (pcs[table[h] - 1] == pc)
			return table[h] - 1;
	if (used % CHUNK == 0) {
		boards = realloc(boards, (nboards + 1) * sizeof(*boards));
		cb_chunks = realloc(cb_chunks, (nboards + 1) * sizeof(*cb_chunks));
		pcs = realloc(pcs, (nboards + 1) * CHUNK * sizeof(*pcs));
		is_atomic = realloc(is_atomic, (nboards + 1) * CHUNK);
		if (!boards || !cb_chunks || !pcs || !is_atomic) {
			fprintf(stderr, "insnprof: out of memory\n");
			exit(1);
		}
		boards[nboards] = NULL;
		cb_chunks[nboards] = NULL;
		if (use_cb)
			cb_chunks[nboards] = calloc(CHUNK, sizeof(uint64_t));
		else
			boards[nboards] = qemu_plugin_scoreboard_new(CHUNK * sizeof(uint64_t));
		if (!boards[nboards] && !cb_chunks[nboards]) {
			fprintf(stderr, "insnprof: out of memory\n");
			exit(1);
		}
		nboards++;
	}
	pcs[used] = pc;
	is_atomic[used] = 0;
	table[h] = ++used;
	if (used * 2 > mask) {
		fprintf(stderr, "insnprof: more instructions than the table holds\n");
		exit(1);
	}
	return used - 1;
}

/* x86-64: a lock prefix, or xchg (which locks by itself) with memory. */
static bool x86_atomic(const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		switch (b[i]) {
		case 0xf0:
			return true;
		case 0x66: case 0x67: case 0xf2: case 0xf3:
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
			continue;
		}
		if ((b[i] & 0xf0) == 0x40)	/* REX */
			continue;
		return (b[i] == 0x86 || b[i] == 0x87) && i + 1 < len &&
		       (b[i + 1] >> 6) != 3;
	}
	return false;
}

/* arm64: LSE atomics (not LDAPR), CAS/CASP, and STXR/STLXR/STXP. */
static bool arm64_atomic(uint32_t w)
{
	if ((w & 0x3f200c00) == 0x38200000)	/* LDADD...SWP, LDAPR */
		return !((w >> 15) & 1 && ((w >> 12) & 7) == 4);
	if ((w & 0x3f000000) == 0x08000000) {	/* load/store exclusive */
		bool o2 = (w >> 23) & 1, l = (w >> 22) & 1, o1 = (w >> 21) & 1;

		if (o2)
			return o1;		/* CAS; LDAR/STLR are plain */
		if (o1 && !(w >> 31))
			return true;		/* CASP */
		return !l;			/* STXR, STXP and their -L forms */
	}
	return false;
}

static bool insn_is_atomic(const struct qemu_plugin_insn *insn)
{
	uint8_t b[16];
	size_t len = qemu_plugin_insn_data(insn, b, sizeof(b));
	uint32_t w;

	if (!arm64)
		return x86_atomic(b, len);
	if (len < 4)
		return false;
	memcpy(&w, b, 4);
	return arm64_atomic(w);
}

static uint64_t *cb_counter(size_t i)
{
	return &cb_chunks[i / CHUNK][i % CHUNK];
}

static void on_exec(unsigned int vcpu, void *counter)
{
	__atomic_fetch_add((uint64_t *)counter, 1, __ATOMIC_RELAXED);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, i_at, insns = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < insns; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		qemu_plugin_u64 c = { 0 };
		uint64_t *n = NULL;

		g_mutex_lock(&lock);
		i_at = counter_for(qemu_plugin_insn_vaddr(insn));
		is_atomic[i_at] = insn_is_atomic(insn);
		if (use_cb)
			n = cb_counter(i_at);
		else
			c = counter_at(i_at);
		g_mutex_unlock(&lock);
		if (use_cb)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec,
					QEMU_PLUGIN_CB_NO_REGS, n);
		else
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn,
					QEMU_PLUGIN_INLINE_ADD_U64, c, 1);
	}
}

static void at_exit(qemu_plugin_id_t id, void *unused)
{
	FILE *f = fopen(out_path, "w");
	size_t i;

	if (!f) {
		perror(out_path);
		return;
	}
	for (i = 0; i < used; i++) {
		uint64_t n = use_cb ? __atomic_load_n(cb_counter(i), __ATOMIC_RELAXED)
				    : qemu_plugin_u64_sum(counter_at(i));

		if (n)
			fprintf(f, "%" PRIx64 " %" PRIu64 "%s\n", pcs[i], n,
				is_atomic[i] ? " a" : "");
	}
	fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
		else if (!strcmp(argv[i], "mode=cb"))
			use_cb = true;
		else if (strcmp(argv[i], "mode=inline")) {
			fprintf(stderr, "insnprof: unknown argument %s\n", argv[i]);
			return -1;
		}
	arm64 = !strcmp(info->target_name, "aarch64");
	table = calloc(1u << TABLE_BITS, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
