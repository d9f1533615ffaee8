/*
 * The scan's context loaders: each reads the scan's options, hands a source (src/source/)
 * the small option struct it needs and keeps the object it returns in the scan. The
 * sources know nothing of the scan object; this file is the one place that maps options to
 * them (stages 1, 3 and 4 of docs/architecture.md's picture).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/config.h"
#include "eval/remote.h"
#include "fmt/config.h"
#include "fmt/names.h"
#include "fmt/httpconf.h"
#include "scan/scan_int.h"
#include "source/broker_metrics.h"
#include "source/cluster.h"
#include "source/cluster_ctx.h"
#include "source/cluster_load.h"
#include "source/context.h"
#include "source/http.h"
#include "source/local_files.h"
#include "source/remote_topic.h"

static int usage(struct segscan_scan *s, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	s->usage_error = true;
	return err;
}

int ss_scan_load_configs(struct segscan_scan *s)
{
	int r;
	if (s->opts.disable_tiering && s->opts.horizon_ms <= 0)
		return usage(s, -EINVAL, "--disable-tiering=%.200s: a what-if of the forecast, it needs --horizon",
			     s->opts.disable_tiering);
	if ((r = ss_config_new(&s->config)))
		return r;
	if (s->opts.topic_config &&
	    (r = ss_source_topic_config(s->config, s->opts.topic_config, s->err, sizeof(s->err)))) {
		s->usage_error = true;
		return r;
	}
	if (s->opts.server_properties) {
		/* serve's bytes, read once at its start (scan/embed.h), or the file now */
		if (s->props_text)
			r = ss_config_load_server_buf(s->config, s->props_text, s->props_len, s->opts.server_properties,
						      s->err, sizeof(s->err));
		else
			r = ss_source_server_properties(s->config, s->opts.server_properties, s->err, sizeof(s->err));
		if (r) {
			s->usage_error = true;
			return r;
		}
		if (s->n_logdir_paths == 0) {
			for (uint32_t i = 0; i < s->config->n_log_dirs; i++)
				if ((r = ss_scan_logdir_add(s, s->config->log_dirs[i])))
					return r;
		}
	}
	for (uint32_t i = 0; i < s->config->n_warnings; i++)
		ss_logmsg(&s->log, SEGSCAN_LOG_WARNING, "%s", s->config->warnings[i]);
	s->err[0] = 0;
	return 0;
}

int ss_scan_find_static(struct segscan_scan *s)
{
	const struct ss_static_opts o = {
		.server_properties = s->opts.server_properties,
		.broker_process = s->opts.broker_process,
		.proc_root = s->opts.proc_root,
		.logdirs = s->logdir_paths,
		.n_logdirs = s->n_logdir_paths,
	};
	return ss_cluster_find_static(&o, s->config, &s->static_config, &s->static_config_how);
}

/* The live-cluster client's options from the scan's: bounded and cancellable like every
 * read of the cluster (--kafka-timeout, --kafka-deadline, segscan_cancel). */
static struct ss_cluster_opts cluster_opts(struct segscan_scan *s)
{
	return (struct ss_cluster_opts){
		.bootstrap = s->opts.bootstrap_server,
		.config_file = s->opts.kafka_config,
		.timeout_ms = s->opts.kafka_timeout_ms,
		.deadline_ms = s->opts.kafka_deadline_ms,
		.cancel = &s->cancel,
		.warn = ss_logsink_warn,
		.warn_arg = &s->log,
	};
}

int ss_scan_cluster_ctx(struct segscan_scan *s)
{
	/* DescribeConfigs when no metadata log is readable: bounded and cancellable like the
	 * read of remote metadata (--kafka-deadline, segscan_cancel), not only per wait */
	const struct ss_cluster_opts co = cluster_opts(s);
	const struct ss_cluster_ctx_opts o = {
		.metadata_dir = s->opts.metadata_dir,
		.cluster_metadata = s->opts.cluster_metadata,
		.kafka_version = s->opts.kafka_version,
		.cluster = s->opts.bootstrap_server ? &co : NULL,
	};
	return ss_cluster_ctx_load(&o, s->config, &s->cat, &s->log, &s->cluster);
}

/* A remote-state file that names a topic id must agree with partition.metadata: a
 * different id is another incarnation of the topic, and its segments are not these. */
static int check_topic_ids(struct segscan_scan *s)
{
	for (uint32_t i = 0; i < s->cat.n_parts; i++) {
		const struct ss_part *p = &s->cat.parts[i];
		if (!p->has_topic_id)
			continue;
		const struct ss_remote_part *rp = ss_remote_find(s->remote, p->topic, p->partition, p->topic_id);
		if (!rp || !rp->has_topic_id || memcmp(rp->topic_id, p->topic_id, 16) == 0)
			continue;
		char a[23], b[23];
		ss_uuid_format(rp->topic_id, a);
		ss_uuid_format(p->topic_id, b);
		return usage(s, SEGSCAN_EMISMATCH,
			     "%s: topic_id %s of %s-%d differs from %s/%s/partition.metadata (%s): the remote "
			     "state describes another incarnation of the topic",
			     s->opts.remote_state, a, p->topic, p->partition, p->logdir_path, p->dir, b);
	}
	return 0;
}

int ss_scan_load_remote_file(struct segscan_scan *s, char *err, size_t errlen)
{
	int r;
	if (!s->opts.remote_state)
		return 0;
	if ((r = ss_remote_new(SS_REMOTE_STRICT, SS_SOURCE_REMOTE_STATE, &s->remote)))
		return r;
	if ((r = ss_source_remote_state_log(s->remote, s->opts.remote_state, &s->log, err, errlen))) {
		s->usage_error = true;
		return r;
	}
	s->remote_source = SS_SOURCE_REMOTE_STATE;
	return 0;
}

/* Does this scan take its remote state from the cluster? --remote-metadata=cluster, or
 * auto with --bootstrap-server (and no --remote-state file). */
static bool cluster_wanted(const struct segscan_scan *s)
{
	if (s->opts.remote_state)
		return false;
	const char *m = s->opts.remote_metadata;
	if (m && !strcmp(m, "cluster"))
		return true;
	return (!m || !strcmp(m, "auto")) && s->opts.bootstrap_server && *s->opts.bootstrap_server;
}

/* The live cluster (source/cluster_load.h), or serve's tail of it: one read into *got
 * (the caller owns got->remote and got->taint). */
int ss_scan_cluster_read(struct segscan_scan *s, struct ss_cluster_loaded *got, char *err, size_t errlen)
{
	const struct ss_cluster_opts co = cluster_opts(s);
	/* serve's tail serves the scans of its own servers only */
	struct ss_cluster_tail *tail = s->cluster_tail;
	if (tail && s->opts.bootstrap_server && strcmp(s->opts.bootstrap_server, ss_cluster_tail_bootstrap(tail)))
		tail = NULL;
	const struct ss_cluster_load_in in = {
		.cluster = &co,
		.tail = tail,
		.cat = &s->cat,
		.log = &s->log,
		.all_mparts = s->opts.remote_store != NULL,
	};
	return ss_cluster_load_remote(&in, got, err, errlen);
}

static int remote_from_cluster(struct segscan_scan *s)
{
	struct ss_cluster_loaded got;
	int r = ss_scan_cluster_read(s, &got, s->err, sizeof(s->err));
	if (got.usage_error)
		s->usage_error = true;
	s->remote_taint = got.taint;   /* freed at the end of segscan_run */
	if (r)
		return r;
	if (got.remote) {
		s->remote = got.remote;
		s->remote_source = SS_SOURCE_CLUSTER;
		s->remote_all_mparts = got.all_mparts;
	}
	s->remote_warnings += got.warnings;
	return 0;
}

int ss_scan_load_remote(struct segscan_scan *s)
{
	int r;
	if (s->opts.remote_state) {
		if (!s->remote && (r = ss_scan_load_remote_file(s, s->err, sizeof(s->err))))
			return r;
		return check_topic_ids(s);
	}
	/* --remote-metadata=cluster, or auto with --bootstrap-server: the live cluster */
	if (cluster_wanted(s))
		return remote_from_cluster(s);
	if (strcmp(s->opts.remote_metadata, "off") != 0 && strcmp(s->opts.remote_metadata, "cluster") != 0 &&
	    s->cat.n_rlmm_dirs > 0) {
		if ((r = ss_remote_new(SS_REMOTE_KAFKA, SS_SOURCE_METADATA_TOPIC, &s->remote)))
			return r;
		/* the metadata log's partition count places user partitions exactly; without it
		 * the replay derives one from the dirs it has */
		r = ss_remote_topic_load(s->remote, (const char *const *)s->cat.rlmm_dirs, s->cat.n_rlmm_dirs,
					 s->cluster ? s->cluster->rlmm_partitions : 0, &s->cat, &s->remote_warnings,
					 &s->remote_taint);
		if (r)
			return r;
		s->remote_source = SS_SOURCE_METADATA_TOPIC;
	}
	return 0;
}

/* ---- --broker-metrics ---- */

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool scan_cancelled(void *arg)
{
	return atomic_load_explicit((atomic_bool *)arg, memory_order_relaxed);
}

static const char *node_text(int32_t id, char *buf, size_t len)
{
	if (id < 0)
		return "unknown";
	snprintf(buf, len, "%d", id);
	return buf;
}

/* Whose is each endpoint: one URL without NODE_ID needs log dirs of one node (known or
 * not); each NODE_ID=URL needs a log dir of that node. */
static int check_bm_nodes(struct segscan_scan *s)
{
	const struct ss_catalog *c = &s->cat;
	const struct ss_bm_url *u = s->opts.bmetrics;
	char a[16], b[16];
	if (s->opts.n_bmetrics == 1 && u[0].node_id < 0) {
		for (uint32_t i = 1; i < c->n_logdirs; i++)
			if (c->logdirs[i].node_id != c->logdirs[0].node_id)
				return usage(s, -EINVAL,
					     "--broker-metrics: the scanned log dirs belong to several brokers (nodes %s "
					     "and %s, from their meta.properties): give one endpoint per broker as "
					     "--broker-metrics=NODE_ID=URL",
					     node_text(c->logdirs[0].node_id, a, sizeof(a)),
					     node_text(c->logdirs[i].node_id, b, sizeof(b)));
		return 0;
	}
	for (uint32_t k = 0; k < s->opts.n_bmetrics; k++) {
		bool found = false;
		for (uint32_t i = 0; i < c->n_logdirs && !found; i++)
			found = c->logdirs[i].node_id == u[k].node_id;
		if (!found)
			return usage(s, -EINVAL, "--broker-metrics=%d=...: no scanned log dir belongs to node %d (the node "
				     "ids come from each log dir's meta.properties)", u[k].node_id, u[k].node_id);
	}
	return 0;
}

static int load_bm_prereqs(struct segscan_scan *s, struct ss_bm_names *names, char **store, struct ss_httpconf *hc)
{
	char err[512];
	int r;
	*names = ss_bm_default_names;
	if (s->opts.bmetrics_names && (r = ss_bm_names_parse(s->opts.bmetrics_names, names, store, err, sizeof(err))))
		return r == -ENOMEM ? r : usage(s, r, "--broker-metrics-names: %s", err);
	if (s->opts.http_config && (r = ss_http_conf_load(s->opts.http_config, hc, err, sizeof(err))))
		return r == -ENOMEM ? r : usage(s, r, "--http.config.file: %s", err);
	return 0;
}

int ss_scan_load_gauges(struct segscan_scan *s)
{
	struct ss_bm_names names;
	struct ss_httpconf hc = { 0 };
	char *store = NULL;
	int r;
	if (!s->opts.n_bmetrics)
		return 0;
	if ((r = check_bm_nodes(s)) || (r = load_bm_prereqs(s, &names, &store, &hc)))
		goto out;
	r = -ENOMEM;
	if (!(s->gauges = calloc(s->opts.n_bmetrics, sizeof(*s->gauges))))
		goto out;
	for (uint32_t i = 0; i < s->opts.n_bmetrics; i++) {
		const struct ss_bm_url *u = &s->opts.bmetrics[i];
		const struct ss_bm_opts o = {
			/* one URL for the scan's one node: that node's, when its meta.properties says */
			.node_id = u->node_id >= 0 ? u->node_id : s->cat.n_logdirs ? s->cat.logdirs[0].node_id : -1,
			.url = u->url,
			.names = &names,
			.http_conf = s->opts.http_config ? &hc : NULL,
			.timeout_ms = (long)s->opts.bmetrics_timeout_ms,
			.cancelled = scan_cancelled,
			.cancel_arg = &s->cancel,
			.now_ms = wall_ms(),   /* when it was read, whatever --now says */
		};
		if ((r = ss_bm_load(&o, &s->gauges[i])))
			goto out;
		s->n_gauges++;
		if (!s->gauges[i]->ok)
			ss_logmsg(&s->log, SEGSCAN_LOG_WARNING, "--broker-metrics: %s: the broker's own gauges are unknown "
				  "for this scan", s->gauges[i]->error);
	}
	r = 0;
out:
	free(store);
	ss_httpconf_free(&hc);
	return r;
}

const struct ss_broker_gauges *ss_scan_gauges_of(const struct segscan_scan *s, const struct ss_part *p)
{
	if (!s->n_gauges)
		return NULL;
	if (s->opts.bmetrics[0].node_id < 0)
		return s->gauges[0];
	int32_t node = s->cat.logdirs[p->logdir].node_id;
	for (uint32_t i = 0; i < s->n_gauges; i++)
		if (node >= 0 && s->opts.bmetrics[i].node_id == node)
			return s->gauges[i];
	return NULL;
}
