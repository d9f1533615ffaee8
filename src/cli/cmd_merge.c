/* `segscan merge`: parse options, read each REPORT through src/merge/, merge, print. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/esc.h"
#include "merge/merge.h"
#include "out/out.h"
#include "segscan.h"

static const char usage_merge[] =
"Usage: segscan merge [OPTIONS] REPORT...\n"
"\n"
"Put the reports of several brokers of one Kafka cluster together into one cluster\n"
"report, counting each partition once whatever its replication factor. Each REPORT is\n"
"the output of `segscan scan -f json` on one broker (a file), or a running\n"
"`segscan serve` given as http://HOST:PORT or https://HOST:PORT (its /v1/partitions is\n"
"read; a URL with a path is read as given). Nothing but the reports is read: no log dir,\n"
"no cluster.\n"
"\n"
"Per partition: the leader (from the reports' assignment), the remote state counted\n"
"once (the leader's, or any replica's when those that know it agree), the leader's copy\n"
"lag and only-local set, and every replica's local size and only-local bytes. Per topic\n"
"and for the cluster: totals with each partition once; the disk total sums every\n"
"replica. A total is printed only when every broker is in (no REPORT missing, every node\n"
"an assignment names reported, every assignment known); otherwise it is unknown (null in\n"
"json, ? in the table) and the report says what is left out.\n"
"\n"
"Findings (per partition):\n"
"  REMOTE_STATE_DISAGREEMENT  two replicas report different remote state, or disagree\n"
"                             on whether the topic is tiered\n"
"  LEADER_NOT_REPORTED        no scanned broker leads it (no leader, or the leader's\n"
"                             report is not among the REPORTs)\n"
"  REPLICA_NOT_REPORTED       the assignment lists a replica that no report has\n"
"  ASSIGNMENT_DISAGREEMENT    the replicas' reports give different assignments\n"
"\n"
"Options:\n"
"  -f, --format=table|json|ndjson\n"
"                         output format (default table). json: {\"partitions\": [...],\n"
"                         \"topics\": [...], \"summary\": {...}, \"errors\": [...]}; ndjson:\n"
"                         one partition object per line, sorted by topic then partition\n"
"      --http.config.file=PATH\n"
"                         TLS and basic auth for https/http REPORTs, in the HTTP client\n"
"                         config format of the Prometheus tools (promtool's\n"
"                         --http.config.file): basic_auth (username, password_file or\n"
"                         password) and tls_config (ca_file, cert_file, key_file,\n"
"                         server_name, insecure_skip_verify); relative paths are\n"
"                         relative to PATH's directory. Credentials are never taken\n"
"                         from a URL\n"
"      --timeout=MS       bound on reading each endpoint, connecting included (default\n"
"                         10000)\n"
"      --max-report-bytes=N\n"
"                         refuse a REPORT larger than N bytes (default 536870912: 512\n"
"                         MiB; an endpoint's answer is bounded after decompression)\n"
"  -h, --help             this help\n"
"\n"
"Exit status:\n"
"  0  every REPORT read and merged, every broker in: the totals are complete\n"
"  1  merged, but incomplete: a broker is missing (an endpoint could not be read, or\n"
"     answered something that is not a report: it is listed as missing and the others\n"
"     are merged), a node the assignments name has no report, an assignment is not\n"
"     known; or a report's own scan could not read some data (its exit code 1)\n"
"  2  usage error: a bad option, no REPORT, a REPORT file that cannot be read or does\n"
"     not parse (the message names the file and the line, column and byte, or the\n"
"     field), reports of different clusters or segscan versions, one node's replica in\n"
"     two reports, a row that says no node\n"
"\n"
"Examples:\n"
"  for b in 1 2 3; do ssh broker-$b segscan scan -f json /var/lib/kafka/data > b$b.json; done\n"
"  segscan merge b1.json b2.json b3.json\n"
"  segscan merge -f json http://broker-1:10405 http://broker-2:10405 http://broker-3:10405\n"
"  segscan merge --http.config.file=merge.yml https://broker-1:10405 https://broker-2:10405\n";

enum { OPT_HTTP_CONFIG = 0x100, OPT_TIMEOUT, OPT_MAX_BYTES };

static const struct option merge_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "http.config.file", required_argument, NULL, OPT_HTTP_CONFIG },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-report-bytes", required_argument, NULL, OPT_MAX_BYTES },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One line of input bytes to stderr, escaped (a report's names are anyone's bytes). */
static void say(const char *prefix, const char *msg)
{
	char *e = ss_esc_line(msg ? msg : "");
	fprintf(stderr, "segscan: %s%s\n", prefix, e ? e : "out of memory");
	free(e);
}

static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

struct merge_args {
	int         fmt; /* 0 table, 1 json, 2 ndjson */
	const char *http_config;
	uint64_t    timeout_ms, max_bytes;
};

/* The options into a. 0, or the exit code to stop with (--help: 0 written as -1). */
static int parse_merge_args(int argc, char **argv, struct merge_args *a)
{
	int c, idx;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:h", merge_longopts, &idx)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "table"))
				a->fmt = 0;
			else if (!strcmp(optarg, "json"))
				a->fmt = 1;
			else if (!strcmp(optarg, "ndjson"))
				a->fmt = 2;
			else {
				say("--format: expected table, json or ndjson, not ", optarg);
				return 2;
			}
			break;
		case OPT_HTTP_CONFIG:
			a->http_config = optarg;
			break;
		case OPT_TIMEOUT:
			if (!parse_u64(optarg, 1, 3600000, &a->timeout_ms)) {
				say("--timeout: expected milliseconds from 1 to 3600000, not ", optarg);
				return 2;
			}
			break;
		case OPT_MAX_BYTES:
			if (!parse_u64(optarg, 1, (uint64_t)1 << 40, &a->max_bytes)) {
				say("--max-report-bytes: expected a number of bytes from 1 to 2^40, not ", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage_merge, stdout);
			return -1;
		case ':':
			fprintf(stderr, "segscan merge: option %s needs a value (try segscan merge --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "segscan merge: unknown option %s (try segscan merge --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	return 0;
}

int ss_cmd_merge(int argc, char **argv)
{
	struct merge_args a = { .timeout_ms = 10000, .max_bytes = SS_REPORT_MAX_BYTES };
	int rc = 2;
	int pr = parse_merge_args(argc, argv, &a);
	if (pr)
		return pr < 0 ? 0 : pr;
	const char *http_config = a.http_config;
	uint64_t timeout_ms = a.timeout_ms, max_bytes = a.max_bytes;
	int fmt = a.fmt;
	int n = argc - optind;
	if (n <= 0) {
		fputs("segscan merge: no REPORT given (try segscan merge --help)\n", stderr);
		return 2;
	}

	struct ss_httpconf hc = { 0 };
	struct ss_report *reps = calloc((size_t)n, sizeof(*reps));
	struct ss_merge_input *in = calloc((size_t)n, sizeof(*in));
	char **shown = calloc((size_t)n, sizeof(*shown)), **errs = calloc((size_t)n, sizeof(*errs));
	struct ss_cluster cl = { 0 };
	char err[1024];
	int r;
	if (!reps || !in || !shown || !errs) {
		fputs("segscan merge: out of memory\n", stderr);
		goto out;
	}
	if (http_config && (r = ss_merge_httpconf_load(http_config, &hc, err, sizeof(err)))) {
		say("--http.config.file: ", err);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *name = argv[optind + i];
		r = ss_merge_fetch(name, &hc, (long)timeout_ms, (size_t)max_bytes, &reps[i], &shown[i], err, sizeof(err));
		in[i].name = shown[i] ? shown[i] : name;
		if (r == -EHOSTUNREACH) {
			/* an endpoint that gave no report: listed as missing, the others merge */
			say("warning: ", err);
			if (!(errs[i] = strdup(err))) {
				fputs("segscan merge: out of memory\n", stderr);
				goto out;
			}
			in[i].error = errs[i];
			ss_report_free(&reps[i]);
			continue;
		}
		if (r) {
			say("", err[0] ? err : segscan_strerror(r));
			goto out;
		}
		in[i].rep = &reps[i];
	}
	if ((r = ss_merge(in, (uint32_t)n, &cl, err, sizeof(err)))) {
		say("", r == -ENOMEM ? "out of memory" : err);
		goto out;
	}
	r = fmt == 0 ? ss_out_cluster_table(&cl, stdout) : ss_out_cluster_json(&cl, stdout, fmt == 2);
	if (!r && fflush(stdout))
		r = -errno;
	if (r) {
		fprintf(stderr, "segscan merge: writing the report: %s\n", segscan_strerror(r));
		rc = 1;
		goto out;
	}
	rc = cl.exit_code;
out:
	ss_cluster_free(&cl);
	for (int i = 0; reps && i < n; i++)
		ss_report_free(&reps[i]);
	for (int i = 0; shown && errs && i < n; i++) {
		free(shown[i]);
		free(errs[i]);
	}
	free(reps);
	free(in);
	free(shown);
	free(errs);
	ss_httpconf_free(&hc);
	return rc;
}
