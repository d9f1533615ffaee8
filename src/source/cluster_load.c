/*
 * The scan's entry to the live-cluster source (source/cluster.h): which metadata partitions
 * hold the scanned partitions, the read (one-shot, or a snapshot of serve's tail), and the
 * replay through the same decoder and state machine as the on-disk topic
 * (ss_remote_topic_apply_value). See ss_cluster_load_remote in cluster_load.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/darray.h"
#include "eval/config.h"
#include "eval/remote.h"
#include "scan/scan_int.h"
#include "source/cluster.h"
#include "source/cluster_load.h"
#include "source/remote_topic.h"
#include "segscan.h"

struct replay {
	struct ss_remote            *r;
	struct ss_catalog           *cat;
	int32_t                      nparts;
	struct ss_remote_topic_stats st;
	struct ss_remote_taint       taint;    /* metadata partitions with a refused batch */
	uint64_t                     warnings;
	char                         where[300];
	struct ss_logsink           *log;      /* progress: records read (the total is not known here) */
	uint64_t                     records;
};

static int warn_fn(void *arg, const char *path, int32_t mpart, int64_t offset, int64_t file_pos, int err,
		   const char *msg)
{
	struct replay *x = arg;
	x->warnings++;
	if (!x->cat || x->warnings > SS_REMOTE_TOPIC_MAX_PROBLEMS)
		return 0;
	/* a batch that fails its CRC is data that failed verification (exit 1) */
	return ss_catalog_problem(x->cat, path, err, -1, err == SEGSCAN_ECRC, "%s", msg);
}

static int on_rec(void *arg, int32_t mpart, int64_t offset, int64_t ts, const void *value, size_t len,
		  bool has_value)
{
	struct replay *x = arg;
	if ((++x->records & 255) == 0)   /* a million records need no million clock reads */
		ss_progress(x->log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_ITEMS, "records", x->records, 0);
	return ss_remote_topic_apply_value(x->r, mpart, x->nparts, offset, value,
					   has_value ? (int32_t)len : -1, x->where, warn_fn, x, &x->st, &x->taint);
}

/* A batch the client refused (check.crcs): named, and its metadata partition tainted, so
 * that neither it nor the records after it count and its partitions are unknown. */
static int on_corrupt(void *arg, int32_t mpart, int64_t offset, const char *what)
{
	struct replay *x = arg;
	int e = ss_remote_taint_add(&x->taint, mpart, offset, -1, x->where);
	if (e)
		return e;
	x->st.corrupt++;
	x->st.crc_errors++;
	char msg[700];
	snprintf(msg, sizeof(msg),
		 "%s-%d offset %lld: the batch fails its CRC-32C check (%s): its records and the later ones of this "
		 "metadata partition are not applied, and the remote state of the partitions whose metadata is here "
		 "is unknown", SS_CLUSTER_RLMM_TOPIC, mpart, (long long)offset, what);
	return warn_fn(x, x->where, mpart, offset, -1, SEGSCAN_ECRC, msg);
}

bool ss_cluster_wanted(const struct segscan_scan *s)
{
	if (s->opts.remote_state)
		return false;
	const char *m = s->opts.remote_metadata;
	if (m && !strcmp(m, "cluster"))
		return true;
	return (!m || !strcmp(m, "auto")) && s->opts.bootstrap_server && *s->opts.bootstrap_server;
}

int ss_cluster_load_remote(struct segscan_scan *s)
{
	struct ss_cluster_tp *tps = NULL;
	int32_t *mparts = NULL;
	uint32_t n_tp = 0, n_mp = 0;
	struct ss_cluster *c = NULL;
	struct ss_remote *store = NULL;
	struct replay x;
	char err[768] = "";
	int r;

	memset(&x, 0, sizeof(x));
	if (!s->opts.bootstrap_server || !*s->opts.bootstrap_server) {
		snprintf(s->err, sizeof(s->err), "--remote-metadata=cluster needs --bootstrap-server");
		s->usage_error = true;
		return -EINVAL;
	}
	const struct ss_cluster_opts co = {
		.bootstrap = s->opts.bootstrap_server,
		.config_file = s->opts.kafka_config,
		.timeout_ms = s->opts.kafka_timeout_ms,
		.deadline_ms = s->opts.kafka_deadline_ms,
		.cancel = &s->cancel,
		.warn = ss_logsink_warn,
		.warn_arg = &s->log,
	};
	if (s->cat.n_parts && !(tps = calloc(s->cat.n_parts, sizeof(*tps)))) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < s->cat.n_parts; i++) {
		const struct ss_part *p = &s->cat.parts[i];
		if (!p->has_topic_id)
			continue;   /* without partition.metadata there is no placement to compute */
		if (!strncmp(p->topic, "__", 2))
			continue;   /* Kafka's internal topics are never tiered (remote.storage.enable is refused) */
		memcpy(tps[n_tp].topic_id, p->topic_id, 16);
		tps[n_tp].partition = p->partition;
		n_tp++;
	}
	struct ss_cluster_tail *tail = ss_cluster_tail_registered(s->opts.bootstrap_server);
	if (tail) {
		r = ss_cluster_tail_rlmm_partitions(tail, &x.nparts, err, sizeof(err));
	} else {
		r = ss_cluster_open(&c, &co, err, sizeof(err));   /* closed at out */
		if (r == -EINVAL) {
			/* the config file or a client property: the operator's to fix */
			snprintf(s->err, sizeof(s->err), "%s", err);
			s->usage_error = true;
			goto out;
		}
		if (!r)
			r = ss_cluster_rlmm_partitions(c, &x.nparts, err, sizeof(err));
	}
	if (r)
		goto unavailable;
	if ((r = ss_cluster_mparts_for(tps, n_tp, x.nparts, &mparts, &n_mp)))
		goto out;
	if (s->opts.remote_store && x.nparts > 0) {
		/* the remote-store audit joins every partition the store holds, not only the
		 * scanned ones: the whole topic (scan/store_job.c) */
		int32_t *all = realloc(mparts, (size_t)x.nparts * sizeof(*all));
		if (!all) {
			r = -ENOMEM;
			goto out;
		}
		mparts = all;
		for (int32_t m = 0; m < x.nparts; m++)
			mparts[m] = m;
		n_mp = (uint32_t)x.nparts;
	}
	if ((r = ss_remote_new(SS_REMOTE_KAFKA, SS_SOURCE_CLUSTER, &store)))   /* freed at out unless kept */
		goto out;
	x.r = store;
	x.cat = &s->cat;
	x.log = &s->log;
	snprintf(x.where, sizeof(x.where), "%s@%s", SS_CLUSTER_RLMM_TOPIC, s->opts.bootstrap_server);
	const struct ss_cluster_sink sink = { .record = on_rec, .corrupt = on_corrupt, .arg = &x };
	if (tail)
		r = ss_cluster_tail_snapshot(tail, mparts, n_mp, &sink, &s->cancel, err, sizeof(err));
	else
		r = ss_cluster_read_rlmm(c, mparts, n_mp, &sink, NULL, err, sizeof(err));
	if (r == -ENOMEM)
		goto out;
	if (r)
		goto unavailable;
	ss_remote_taint_finish(&x.taint, x.nparts);
	if (x.taint.n_mparts) {
		/* the evaluator reads it (scan_int.h), segscan_run frees it */
		if (!(s->remote_taint = malloc(sizeof(*s->remote_taint)))) {
			r = -ENOMEM;
			goto out;
		}
		*s->remote_taint = x.taint;
		memset(&x.taint, 0, sizeof(x.taint));
	}
	if (x.warnings > SS_REMOTE_TOPIC_MAX_PROBLEMS &&
	    (r = ss_catalog_problem(&s->cat, x.where, SEGSCAN_ESCHEMA, -1, false,
				    "%llu more __remote_log_metadata warnings not listed",
				    (unsigned long long)(x.warnings - SS_REMOTE_TOPIC_MAX_PROBLEMS))))
		goto out;
	ss_progress_end(&s->log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_ITEMS, "records", x.records, x.records);
	s->remote = store;
	store = NULL;
	s->remote_source = SS_SOURCE_CLUSTER;
	s->remote_all_mparts = s->opts.remote_store && x.nparts > 0;
	s->remote_warnings += x.warnings;
	r = 0;
	goto out;

unavailable:
	if (r == -ECANCELED) {
		/* segscan_cancel: the scan stops here, with no report (scan.c) */
		snprintf(s->err, sizeof(s->err), "%s", err);
		goto out;
	}
	/* No remote state at all rather than part of it: the tiered partitions become
	 * REMOTE_STATE_UNKNOWN, and the scan exits 1 with the reason in errors[]. */
	ss_logmsg(&s->log, SEGSCAN_LOG_ERROR, "%s", err);
	r = ss_catalog_problem(&s->cat, x.where[0] ? x.where : s->opts.bootstrap_server, r, -1, true,
			       "remote state unknown: %s", err);
out:
	ss_remote_taint_release(&x.taint);
	if (store)
		ss_remote_free(store);
	ss_cluster_close(c);
	free(tps);
	free(mparts);
	return r;
}

/* ---- topic configs from the cluster ------------------------------------------------------ */

struct cfg_ent {
	char *topic;    /* NULL: the broker resource */
	char *key, *value, *source;
};

struct ss_cluster_cfgs {
	struct cfg_ent *e;
	uint32_t        n, cap;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int cfg_cb(void *arg, const char *topic, const char *key, const char *value, const char *source)
{
	struct ss_cluster_cfgs *c = arg;
	struct cfg_ent *x;
	int e = SS_DA_PUSH(&c->e, &c->n, &c->cap, &x);
	if (e < 0)
		return e;
	memset(x, 0, sizeof(*x));
	x->topic = dup_or_null(topic);
	x->key = strdup(key);
	x->value = dup_or_null(value);
	x->source = strdup(source);
	if ((topic && !x->topic) || !x->key || (value && !x->value) || !x->source)
		return -ENOMEM;
	return 0;
}

int ss_cluster_cfgs_fetch(const struct ss_cluster_opts *o, const char *const *topics, uint32_t n, int32_t broker_id,
			  struct ss_cluster_cfgs **out, char *err, size_t errlen)
{
	struct ss_cluster *c = NULL;
	struct ss_cluster_cfgs *cf = calloc(1, sizeof(*cf));
	int r;
	if (!cf)
		return -ENOMEM;
	if ((r = ss_cluster_open(&c, o, err, errlen)) == 0)   /* closed below */
		r = ss_cluster_describe_configs(c, topics, n, broker_id, cfg_cb, cf, err, errlen);
	ss_cluster_close(c);
	if (r) {
		ss_cluster_cfgs_free(cf);
		return r;
	}
	*out = cf;
	return 0;
}

static const char *dyn_get(const void *arg, enum ss_cfg_level level, const char *topic, const char *key)
{
	const struct ss_cluster_cfgs *c = arg;
	const char *want = level == SS_CFGL_DYN_TOPIC    ? "DYNAMIC_TOPIC_CONFIG"
			   : level == SS_CFGL_DYN_BROKER ? "DYNAMIC_BROKER_CONFIG"
							 : "DYNAMIC_DEFAULT_BROKER_CONFIG";
	for (uint32_t i = 0; i < c->n; i++) {
		const struct cfg_ent *x = &c->e[i];
		if (strcmp(x->key, key) || strcmp(x->source, want))
			continue;
		if (level == SS_CFGL_DYN_TOPIC ? (x->topic && topic && !strcmp(x->topic, topic)) : !x->topic)
			return x->value;
	}
	return NULL;
}

void ss_cluster_cfgs_dynamic(const struct ss_cluster_cfgs *c, struct ss_cfg_dynamic *out)
{
	out->get = dyn_get;
	out->arg = c;
}

void ss_cluster_cfgs_each(const struct ss_cluster_cfgs *c,
			  void (*fn)(void *arg, const char *topic, const char *key, const char *value, const char *source),
			  void *arg)
{
	for (uint32_t i = 0; i < c->n; i++)
		fn(arg, c->e[i].topic, c->e[i].key, c->e[i].value, c->e[i].source);
}

void ss_cluster_cfgs_free(struct ss_cluster_cfgs *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		free(c->e[i].topic);
		free(c->e[i].key);
		free(c->e[i].value);
		free(c->e[i].source);
	}
	free(c->e);
	free(c);
}
