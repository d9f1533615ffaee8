/* serve's live-cluster tail: see cluster_tail.h. */
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/cluster_tail.h"
#include "service/log.h"
#include "source/cluster.h"

/* Started once by the service's main thread before any scan and stopped after the last.
 * The scan thread hands it to each scan (ss_serve_cluster_tail, scan/embed.h); the HTTP
 * thread reads its status. g_mu guards the pointer: the HTTP thread may still answer while
 * main clears it at shutdown. */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ss_cluster_tail *g_tail;

struct ss_cluster_tail *ss_serve_cluster_tail(void)
{
	pthread_mutex_lock(&g_mu);
	struct ss_cluster_tail *t = g_tail;
	pthread_mutex_unlock(&g_mu);
	return t;
}

static const char *opt(const struct ss_serve_opts *o, const char *name)
{
	const char *v = NULL;
	for (size_t i = 0; i < o->n_scan_opts; i++)
		if (!strcmp(o->scan_opts[i].name, name))
			v = o->scan_opts[i].value ? o->scan_opts[i].value : "";
	return v;   /* the last one wins, as segscan_set applies them in order */
}

static void warn_cb(void *arg, const char *msg)
{
	ss_log("warn", "kafka config", msg);
}

int ss_serve_cluster_start(const struct ss_serve_opts *o, char *err, size_t errlen)
{
	const char *bs = opt(o, "bootstrap-server"), *mode = opt(o, "remote-metadata");
	if (!bs || !*bs || opt(o, "remote-state"))
		return 0;
	if (mode && strcmp(mode, "auto") && strcmp(mode, "cluster"))
		return 0;
	const char *to = opt(o, "kafka-timeout");
	struct ss_cluster_opts co = {
		.bootstrap = bs,
		.config_file = opt(o, "kafka-config"),
		.timeout_ms = to ? strtoll(to, NULL, 10) : 0,
		.warn = warn_cb,
	};
	struct ss_cluster_tail *t = NULL;
	int r = ss_cluster_tail_start(&t, &co, err, errlen);   /* stopped in ss_serve_cluster_stop */
	if (r)
		return r;
	pthread_mutex_lock(&g_mu);
	g_tail = t;
	pthread_mutex_unlock(&g_mu);
	struct ss_logline l;
	ss_log_begin(&l, "info", "consuming __remote_log_metadata");
	ss_log_str(&l, "bootstrap", bs);
	ss_log_end(&l);
	return 0;
}

void ss_serve_cluster_stop(void)
{
	pthread_mutex_lock(&g_mu);
	struct ss_cluster_tail *t = g_tail;
	g_tail = NULL;
	pthread_mutex_unlock(&g_mu);
	if (t)
		ss_cluster_tail_stop(t);   /* partner of ss_cluster_tail_start */
}

int ss_serve_cluster_metrics(const char *head, size_t head_len, char **out, size_t *len)
{
	struct ss_cluster_tail *t = ss_serve_cluster_tail();
	struct ss_cluster_status *st = NULL;
	*out = NULL;
	*len = 0;
	if (!t)
		return 0;
	int r = ss_cluster_tail_status(t, &st);   /* freed below */
	if (r)
		return r;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f) {
		free(st);
		return -ENOMEM;
	}
	fwrite(head, 1, head_len, f);
	fprintf(f,
		"# HELP segscan_remote_metadata_connected 1 while the cluster answers the __remote_log_metadata "
		"consumer (--bootstrap-server), else 0.\n"
		"# TYPE segscan_remote_metadata_connected gauge\n"
		"segscan_remote_metadata_connected %d\n",
		st->connected ? 1 : 0);
	fprintf(f, "# HELP segscan_remote_metadata_lag_records Records of this __remote_log_metadata partition not yet "
		   "consumed (high watermark minus next offset).\n"
		   "# TYPE segscan_remote_metadata_lag_records gauge\n");
	for (uint32_t i = 0; i < st->n_parts; i++)
		if (st->parts[i].lag_records >= 0)
			fprintf(f, "segscan_remote_metadata_lag_records{topic=\"%s\",partition=\"%d\"} %" PRId64 "\n",
				SS_CLUSTER_RLMM_TOPIC, st->parts[i].partition, st->parts[i].lag_records);
	fprintf(f, "# HELP segscan_remote_metadata_age_seconds Seconds since this __remote_log_metadata partition "
		   "was last known to be up to date (its last record, or a watermark check it had reached); grows "
		   "while the cluster does not answer.\n"
		   "# TYPE segscan_remote_metadata_age_seconds gauge\n");
	for (uint32_t i = 0; i < st->n_parts; i++)
		fprintf(f, "segscan_remote_metadata_age_seconds{topic=\"%s\",partition=\"%d\"} %.3f\n",
			SS_CLUSTER_RLMM_TOPIC, st->parts[i].partition, st->parts[i].age_s);
	free(st);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	*len = n;
	return 0;
}

static size_t json_str(char *o, size_t cap, const char *s)
{
	size_t k = 0;
	for (; *s && k + 7 < cap; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			o[k++] = '\\';
			o[k++] = (char)ch;
		} else if (ch < 0x20) {
			k += (size_t)snprintf(o + k, cap - k, "\\u%04x", ch);
		} else {
			o[k++] = (char)ch;
		}
	}
	o[k] = 0;
	return k;
}

int ss_serve_cluster_healthz(char *buf, size_t cap, int *connected)
{
	struct ss_cluster_tail *t = ss_serve_cluster_tail();
	struct ss_cluster_status *st = NULL;
	*connected = 1;
	if (!t)
		return 0;
	if (ss_cluster_tail_status(t, &st))   /* freed below */
		return -1;
	char bs[300], le[600];
	json_str(bs, sizeof(bs), ss_cluster_tail_bootstrap(t));
	json_str(le, sizeof(le), st->last_error);
	int64_t lag = 0;
	double age = 0;
	for (uint32_t i = 0; i < st->n_parts; i++) {
		if (st->parts[i].lag_records > 0)
			lag += st->parts[i].lag_records;
		if (st->parts[i].age_s > age)
			age = st->parts[i].age_s;
	}
	size_t k = 0;
	int n = snprintf(buf, cap,
			 "\"remote_metadata\":{\"bootstrap\":\"%s\",\"connected\":%s,\"since_seconds\":%.3f,"
			 "\"reconnects\":%" PRIu64 ",\"caught_up\":%s,\"lag_records\":%" PRId64
			 ",\"age_seconds\":%.3f,\"last_error\":\"%s\",\"partitions\":[",
			 bs, st->connected ? "true" : "false", st->since_s, st->reconnects, st->caught_up ? "true" : "false",
			 lag, age, le);
	if (n < 0 || (size_t)n >= cap)
		goto toolong;
	k = (size_t)n;
	for (uint32_t i = 0; i < st->n_parts; i++) {
		const struct ss_cluster_part_status *p = &st->parts[i];
		n = snprintf(buf + k, cap - k,
			     "%s{\"partition\":%d,\"next_offset\":%" PRId64 ",\"high_watermark\":%" PRId64
			     ",\"lag_records\":%" PRId64 ",\"age_seconds\":%.3f,\"records\":%" PRIu64 "}",
			     i ? "," : "", p->partition, p->next_offset, p->high_watermark, p->lag_records, p->age_s,
			     p->records);
		if (n < 0 || (size_t)n >= cap - k)
			goto toolong;
		k += (size_t)n;
	}
	if (k + 3 > cap)
		goto toolong;
	buf[k++] = ']';
	buf[k++] = '}';
	buf[k] = 0;
	*connected = st->connected ? 1 : 0;
	free(st);
	return (int)k;
toolong:
	free(st);
	return -1;
}
