/*
 * bench/reusebench: the incremental rescan ratio. A full scan of the tree, then a second
 * scan handed the first through segscan_reuse() (what `serve` does between intervals),
 * over the same unchanged tree: time, bytes read, syscalls, segments reused. Uses only
 * the public API (include/segscan.h); syscalls come from segscan_write_stats().
 *
 *   reusebench [-r REPS] [-o NAME=VALUE]... LOGDIR...
 *
 * -o sets any scan option by its CLI name (io=pread, threads=1, ...). Output, one line
 * per scan: "reusebench full|reuse REP SECONDS SEGMENTS REUSED BYTES_READ SYSCALLS".
 * Exit 0, 1 when a scan fails, 2 on usage errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "segscan.h"

#define RB_MAX_OPTS 16

struct rb_result {
	double   wall;
	struct segscan_scan_stats st;
	int64_t  syscalls;   /* -1 when the stats text did not say */
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The "syscalls N for M submissions" line of --stats. */
static int64_t stats_syscalls(const segscan_scan *s)
{
	char *text = NULL;
	size_t len = 0;
	int64_t n = -1;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return -1;
	int e = segscan_write_stats(s, f);
	fclose(f);
	if (e == 0 && text) {
		const char *p = strstr(text, "\n  syscalls");
		long long v;
		if (p && sscanf(p, "\n  syscalls %lld", &v) == 1)
			n = v;
	}
	free(text);
	return n;
}

static int scan_once(char **opts, int n_opts, char **dirs, int n_dirs, const segscan_scan *prev,
		     segscan_scan **out, struct rb_result *res)
{
	segscan_scan *s = NULL;
	int e = segscan_scan_new(&s);
	if (e)
		return e;
	if ((e = segscan_set(s, "quiet", "true")) == -EINVAL)
		e = 0; /* not every build has a quiet option: progress goes to a non-tty anyway */
	for (int i = 0; !e && i < n_opts; i++) {
		char *eq = strchr(opts[i], '=');
		*eq = '\0';
		e = segscan_set(s, opts[i], eq + 1);
		*eq = '=';
		if (e)
			fprintf(stderr, "reusebench: -o %s: %s\n", opts[i], segscan_last_error(s));
	}
	for (int i = 0; !e && i < n_dirs; i++)
		e = segscan_add_logdir(s, dirs[i]);
	/* the full scan too (prev NULL), as serve does: it then keeps the identities the
	 * reuse scan compares (include/segscan.h) */
	if (!e)
		e = segscan_reuse(s, prev);
	if (e)
		goto fail;
	double t0 = mono();
	e = segscan_run(s);
	res->wall = mono() - t0;
	if (e) {
		fprintf(stderr, "reusebench: scan: %s\n", segscan_last_error(s));
		goto fail;
	}
	segscan_get_stats(s, &res->st);
	res->syscalls = stats_syscalls(s);
	*out = s;
	return 0;
fail:
	segscan_scan_free(s);
	return e;
}

static void print(const char *what, unsigned rep, const struct rb_result *r)
{
	printf("reusebench %s %u %.6f %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 "\n", what, rep, r->wall,
	       r->st.segments, r->st.segments_reused, r->st.bytes_read, r->syscalls);
}

int main(int argc, char **argv)
{
	char *opts[RB_MAX_OPTS];
	int n_opts = 0, opt, e = 0;
	unsigned reps = 3;
	while ((opt = getopt(argc, argv, "r:o:h")) != -1) {
		switch (opt) {
		case 'r': reps = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'o':
			if (n_opts == RB_MAX_OPTS || !strchr(optarg, '=')) {
				fprintf(stderr, "reusebench: -o wants NAME=VALUE (at most %d)\n", RB_MAX_OPTS);
				return 2;
			}
			opts[n_opts++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: reusebench [-r REPS] [-o NAME=VALUE]... LOGDIR...\n");
			return 2;
		}
	}
	if (optind >= argc || reps == 0) {
		fprintf(stderr, "usage: reusebench [-r REPS] [-o NAME=VALUE]... LOGDIR...\n");
		return 2;
	}
	for (unsigned rep = 0; rep < reps && !e; rep++) {
		segscan_scan *full = NULL, *again = NULL;
		struct rb_result a, b;
		if ((e = scan_once(opts, n_opts, argv + optind, argc - optind, NULL, &full, &a)))
			break;
		/* full must outlive the reusing scan's segscan_run() */
		e = scan_once(opts, n_opts, argv + optind, argc - optind, full, &again, &b);
		if (!e) {
			print("full", rep, &a);
			print("reuse", rep, &b);
		}
		segscan_scan_free(again);
		segscan_scan_free(full);
	}
	if (e)
		fprintf(stderr, "reusebench: %s\n", segscan_strerror(e));
	return e ? 1 : 0;
}
