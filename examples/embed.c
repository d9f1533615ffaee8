/*
 * examples/embed.c: the smallest useful embedding of libsegscan. It uses nothing but
 * the installed <segscan.h>: scan the log dirs named on the command line and print, per
 * partition, its segment count, size and log end offset, then the report in the chosen
 * format. Build it against an installed segscan with pkg-config (examples/Makefile):
 *
 *   cc -o embed embed.c $(pkg-config --cflags --libs segscan)
 *   ./embed [-f json|ndjson|prom|table] LOGDIR...
 *
 * Exit status: that of `segscan scan` (segscan_exit_code), 2 for a usage error, 1 when
 * the library is older than this program was built for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <segscan.h>

#if !SEGSCAN_CHECK_VERSION(0, 1, 0)
#error "this example needs the segscan 0.1 API"
#endif

static int parse_format(const char *v, enum segscan_format *out)
{
	static const struct { const char *name; enum segscan_format f; } names[] = {
		{ "table", SEGSCAN_FMT_TABLE }, { "json", SEGSCAN_FMT_JSON },
		{ "ndjson", SEGSCAN_FMT_NDJSON }, { "prom", SEGSCAN_FMT_PROM },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i].name)) {
			*out = names[i].f;
			return 0;
		}
	return -1;
}

/* The library writes nothing to stderr itself: its warnings come here, serialized, from
 * whichever of its threads noticed (segscan.h, "Messages and progress"). */
static void on_log(void *user, const struct segscan_log_event *ev)
{
	(void)user;
	if (ev->kind == SEGSCAN_LOG_MESSAGE)
		fprintf(stderr, "embed: %s: %s\n", ev->level == SEGSCAN_LOG_ERROR ? "error" : "warning", ev->message);
}

int main(int argc, char **argv)
{
	enum segscan_format fmt = SEGSCAN_FMT_JSON;
	segscan_scan *s = NULL;
	int i = 1, r, rc = 2;

	/* the .so we run on may be older than the header we were compiled with */
	if (!segscan_check_version(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR, 0)) {
		fprintf(stderr, "embed: built for segscan %d.%d, running on %s\n", SEGSCAN_VERSION_MAJOR,
			SEGSCAN_VERSION_MINOR, segscan_version());
		return 1;
	}
	if (i + 1 < argc && !strcmp(argv[i], "-f")) {
		if (parse_format(argv[i + 1], &fmt)) {
			fprintf(stderr, "embed: -f %s: expected table, json, ndjson or prom\n", argv[i + 1]);
			return 2;
		}
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: embed [-f json|ndjson|prom|table] LOGDIR...\n");
		return 2;
	}
	if ((r = segscan_scan_new(&s))) {  /* freed at out: */
		fprintf(stderr, "embed: %s\n", segscan_strerror(r));
		return 1;
	}
	/* options by their CLI names; a bad value names itself through segscan_last_error */
	if ((r = segscan_set(s, "quiet", NULL)) || (r = segscan_set(s, "threads", "2")) ||
	    (r = segscan_set_log(s, on_log, NULL, SEGSCAN_LOG_WARNING))) {
		fprintf(stderr, "embed: %s: %s\n", segscan_strerror(r), segscan_last_error(s));
		goto out;
	}
	for (; i < argc; i++)
		if ((r = segscan_add_logdir(s, argv[i]))) {
			fprintf(stderr, "embed: %s: %s\n", argv[i], segscan_strerror(r));
			goto out;
		}
	if ((r = segscan_run(s)) && segscan_exit_code(s) == 0) {
		fprintf(stderr, "embed: scan failed: %s\n", segscan_strerror(r));
		rc = 1;
		goto out;
	}
	/* partitions stay valid until segscan_scan_free */
	size_t n = segscan_partition_count(s);
	fprintf(stderr, "embed: segscan %s, %zu partitions\n", segscan_version(), n);
	for (size_t k = 0; k < n; k++) {
		const segscan_partition *p = segscan_partition_at(s, k);
		/* remote state through the versioned struct: the caller sets .size (segscan.h) */
		struct segscan_remote rm = { .size = sizeof(rm) };
		char hwm[24] = "unknown";
		if (segscan_partition_remote(p, &rm) == 0 && rm.seeded)
			snprintf(hwm, sizeof(hwm), "%lld", (long long)rm.highest_offset);
		fprintf(stderr, "embed: %s-%d segments=%zu size_bytes=%lld log_end_offset=%lld remote_highest_offset=%s "
				"findings=%zu\n",
			segscan_partition_topic(p), (int)segscan_partition_id(p), segscan_partition_segment_count(p),
			(long long)segscan_partition_size_bytes(p), (long long)segscan_partition_log_end_offset(p), hwm,
			segscan_partition_finding_count(p));
	}
	if ((r = segscan_write(s, fmt, stdout))) {
		fprintf(stderr, "embed: writing the report: %s\n", segscan_strerror(r));
		rc = 1;
		goto out;
	}
	rc = segscan_exit_code(s);
out:
	segscan_scan_free(s);
	return rc;
}
