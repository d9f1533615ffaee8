/* Test helpers: generate a log dir with the library and scan it to a string. */
#ifndef SS_SCANUTIL_H
#define SS_SCANUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "segscan.h"

/* Generate into <tmp>/<tag>/logdir (remote state in <tmp>/<tag>/remote.ndjson when
 * with_remote). Returns the log dir path (malloc'd); *dir gets the parent. */
static inline char *su_gen(const char *tag, uint32_t topics, uint32_t parts, uint32_t segs, int64_t seg_bytes,
			   uint32_t single_tail, bool with_remote, char **dir)
{
	char *root = tu_mkdtemp(tag), *logdir = NULL, *remote = NULL, err[256];
	if (!root)
		return NULL;
	if (asprintf(&logdir, "%s/logdir", root) < 0 || asprintf(&remote, "%s/remote.ndjson", root) < 0)
		return NULL;
	struct ss_gen_opts o;
	ss_gen_opts_init(&o);
	o.outdir = logdir;
	o.topics = topics;
	o.partitions = parts;
	o.segments = segs;
	o.segment_bytes = seg_bytes;
	o.seed = 7;
	o.single_record_tail = single_tail;
	o.remote_state = with_remote ? remote : NULL;
	if (ss_gen_run(&o, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "gen failed: %s\n", err);
		return NULL;
	}
	free(remote);
	if (dir)
		*dir = root;
	else
		free(root);
	return logdir;
}

/* Run a scan with NULL-terminated (name, value) option pairs; returns the report in
 * fmt (malloc'd) or NULL; *rc gets segscan_run's result and *exit_code the exit code. */
static inline char *su_scan(const char *logdir, enum segscan_format fmt, int *exit_code, const char *const *kv)
{
	segscan_scan *s = NULL;
	char *buf = NULL;
	size_t len = 0;
	if (segscan_scan_new(&s))
		return NULL;
	segscan_set(s, "quiet", "true");
	for (; kv && kv[0]; kv += 2) {
		if (segscan_set(s, kv[0], kv[1])) {
			fprintf(stderr, "set %s=%s: %s\n", kv[0], kv[1] ? kv[1] : "", segscan_last_error(s));
			segscan_scan_free(s);
			return NULL;
		}
	}
	if (logdir)
		segscan_add_logdir(s, logdir);
	int r = segscan_run(s);
	if (exit_code)
		*exit_code = segscan_exit_code(s);
	if (r) {
		fprintf(stderr, "scan: %s\n", segscan_last_error(s));
		segscan_scan_free(s);
		return NULL;
	}
	FILE *f = open_memstream(&buf, &len);
	if (!f || segscan_write(s, fmt, f) != 0) {
		if (f)
			fclose(f);
		free(buf);
		segscan_scan_free(s);
		return NULL;
	}
	fclose(f);
	segscan_scan_free(s);
	return buf;
}

#endif
