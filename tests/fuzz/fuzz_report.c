/*
 * segscan merge's report parser (src/fmt/report.c: a scan's json report, untrusted) on
 * arbitrary bytes: no crash, no leak, no read past the input; a refusal says why and
 * names the report; an accepted report's rows have a topic and a partition, replica
 * lists within their count, and a leader that is a node id or -1.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	struct ss_report rep;
	memset(&rep, 0, sizeof(rep));
	char err[512];
	err[0] = 0;
	int r = ss_report_parse(buf, size, "r.json", &rep, err, sizeof(err));
	if (r == 0) {
		if (!rep.version)
			abort();
		for (uint32_t i = 0; i < rep.n_rows; i++) {
			const struct ss_rep_row *w = &rep.rows[i];
			if (!w->topic || !w->topic[0] || w->partition < 0 || w->leader < -1)
				abort();
			if (w->n_replicas && !w->replicas)
				abort();
		}
	} else if (r != -12 /* -ENOMEM */ && strncmp(err, "r.json: ", 8)) {
		abort(); /* a refusal names the report and says why */
	}
	ss_report_free(&rep);
	free(buf);
	return 0;
}
