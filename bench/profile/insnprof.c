// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts how many times each guest instruction
 * runs, for scripts/profile.sh.  At exit it writes "pc count" lines (hex
 * address, decimal count) for every instruction that ran to the file
 * named by its out= argument.
 *
 * The counters are inline adds that TCG emits before each instruction,
 * so counting costs no callback.  The harness runs guests with one host
 * thread for all vCPUs (thread=single), so the counters need no atomics.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct counter {
	uint64_t pc;
	uint64_t n;
};

/* Counters live in chunks that never move: TCG code points at them. */
#define CHUNK		65536
#define TABLE_BITS	22

static struct counter **chunks;
static size_t nchunks, used;
static uint32_t *table;		/* open addressing; 1 + index, 0 = free */
static const char *out_path = "insnprof.txt";

static struct counter *counter_at(size_t i)
{
	return &chunks[i / CHUNK][i % CHUNK];
}

static struct counter *counter_for(uint64_t pc)
{
	size_t mask = (1u << TABLE_BITS) - 1;
	size_t h = (pc * 0x9E3779B97F4A7C15ull) >> (64 - TABLE_BITS);
	struct counter *c;

	for (; table[h]; h = (h + 1) & mask)
		if (counter_at(table[h] - 1)->pc == pc)
			return counter_at(table[h] - 1);
	if (used % CHUNK == 0) {
		chunks = realloc(chunks, (nchunks + 1) * sizeof(*chunks));
		if (!chunks || !(chunks[nchunks++] = calloc(CHUNK, sizeof(**chunks)))) {
			fprintf(stderr, "insnprof: out of memory\n");
			exit(1);
		}
	}
	c = counter_at(used);
	c->pc = pc;
	table[h] = ++used;
	if (used * 2 > mask) {
		fprintf(stderr, "insnprof: more instructions than the table holds\n");
		exit(1);
	}
	return c;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct counter *c = counter_for(qemu_plugin_insn_vaddr(insn));

		qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &c->n, 1);
	}
}

static void on_exit(qemu_plugin_id_t id, void *unused)
{
	FILE *f = fopen(out_path, "w");
	size_t i;

	if (!f) {
		perror(out_path);
		return;
	}
	for (i = 0; i < used; i++)
		if (counter_at(i)->n)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", counter_at(i)->pc,
				counter_at(i)->n);
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
	table = calloc(1u << TABLE_BITS, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit, NULL);
	return 0;
}
