/*
 * The `segscan dump` path (src/dump/) over arbitrary files. Byte 0 picks the kind of file,
 * byte 1 the options (--records, --print-data, --verify-index, the decoder, --offsets,
 * --max-bytes), byte 2 how much of the rest is an index (the rest is its .log). The
 * files are written into a scratch partition directory named for the decoder; every
 * NDJSON line the dump writes must be valid JSON, and the dump must end. The same bytes go
 * to the KRaft control-value parser as well.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/dump.h"
#include "fmt/kraft.h"
#include "fmt/kraft_control.h"

static char g_root[256];

static void write_all(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "00000000000000000100.log", "00000000000000000100.index",
					     "00000000000000000100.timeindex", "00000000000000000100.snapshot",
					     "00000000000000000100.txnindex", "leader-epoch-checkpoint",
					     "partition.metadata", "recovery-point-offset-checkpoint" };
	static const char *const dirs[] = { "t-0", "__remote_log_metadata-0", "__cluster_metadata-0",
					    "__consumer_offsets-0", "__transaction_state-0" };
	if (size < 3)
		return 0;
	if (!g_root[0]) {
		snprintf(g_root, sizeof(g_root), "/tmp/fuzz_dump.%d", (int)getpid());
		mkdir(g_root, 0755);
		for (size_t i = 0; i < 5; i++) {
			char d[512];
			snprintf(d, sizeof(d), "%s/%s", g_root, dirs[i]);
			mkdir(d, 0755);
		}
	}
	/* the KRaft control-value parser (fmt/kraft_control.h) on the raw bytes too: the dump
	 * reaches it only through a whole control batch with a valid CRC */
	struct ss_kctl k;
	int kt = 2 + data[0] % 5;
	if (ss_kctl_decode(kt, data + 3, size - 3, &k) == 0) {
		const struct ss_kctl_arr *arrs[] = { &k.u.leader_change.voters, &k.u.leader_change.granting,
						     &k.u.voters.voters };
		for (int a = 0; a < 3; a++) {
			bool mine = a < 2 ? kt == SS_KC_LEADER_CHANGE : kt == SS_KC_KRAFT_VOTERS;
			if (!mine)
				continue;
			struct ss_kctl_iter it, ei;
			struct ss_kctl_voter v;
			struct ss_kctl_endpoint e;
			ss_kctl_iter_init(&it, arrs[a], kt);
			while (ss_kctl_next_voter(&it, &v) > 0) {
				ss_kctl_iter_init(&ei, &v.endpoints, kt);
				while (ss_kctl_next_endpoint(&ei, &e) > 0)
					if (e.name.len < 0 || e.host.len < 0)
						abort();   /* the decoder checked every endpoint */
			}
			if (it.r.err)
				abort();   /* nor can a walk fail after a good decode */
		}
	}
	uint8_t kind = data[0] % 8, flags = data[1];
	size_t idx = (size_t)data[2] * 16;
	data += 3;
	size -= 3;
	if (idx > size)
		idx = size;
	const char *dir = dirs[(flags >> 3) % 5];
	char path[600], log[600];
	snprintf(path, sizeof(path), "%s/%s/%s", g_root, dir, names[kind]);
	snprintf(log, sizeof(log), "%s/%s/%s", g_root, dir, names[0]);
	if (kind == 1 || kind == 2) {   /* an index and its log */
		write_all(path, data, idx);
		write_all(log, data + idx, size - idx);
	} else {
		write_all(path, data, size);
	}
	struct ss_dump_opts o = { .fmt = (flags & 0x80) ? SS_DUMP_TEXT : SS_DUMP_NDJSON, .max_bytes = -1 };
	o.records = flags & 1;
	o.print_data = flags & 2;
	o.verify_index = flags & 4;
	o.decode = (flags & 0x40) ? SS_DEC_AUTO : SS_DEC_NONE;
	if (flags & 0x20) {
		o.has_from = true;
		o.from = 100 + (flags & 0x18);
	}
	if ((flags & 0x60) == 0x60)
		o.max_bytes = (int64_t)idx;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		abort();
	struct ss_dump d;
	if (ss_dump_init(&d, &o, f))
		abort();
	int st = ss_dump_file(&d, path);
	if (st != SS_DUMP_OK && st != SS_DUMP_DATA)
		abort();   /* the file exists: never "missing" */
	if (ss_dump_finish(&d))
		abort();
	fclose(f);
	if (o.fmt == SS_DUMP_NDJSON) {
		char *save = NULL;
		for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			json_error_t e;
			json_t *j = json_loads(l, JSON_ALLOW_NUL, &e);
			if (!j) {
				fprintf(stderr, "invalid JSON line (%s): %s\n", e.text, l);
				abort();
			}
			json_decref(j);
		}
	}
	free(out);
	return 0;
}
