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

#include "common/log.h"
#include "discover/discover.h"
#include "eval/remote.h"
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

/* The scanned partitions whose metadata partition can be computed (they have a topic id
 * and are not internal): *tps is the caller's to free. */
static int scanned_tps(const struct ss_catalog *cat, struct ss_cluster_tp **tps, uint32_t *n_tp)
{
	*n_tp = 0;
	if (cat->n_parts && !(*tps = calloc(cat->n_parts, sizeof(**tps))))
		return -ENOMEM;
	for (uint32_t i = 0; i < cat->n_parts; i++) {
		const struct ss_part *p = &cat->parts[i];
		if (!p->has_topic_id)
			continue;   /* without partition.metadata there is no placement to compute */
		if (!strncmp(p->topic, "__", 2))
			continue;   /* Kafka's internal topics are never tiered (remote.storage.enable is refused) */
		memcpy((*tps)[*n_tp].topic_id, p->topic_id, 16);
		(*tps)[*n_tp].partition = p->partition;
		(*n_tp)++;
	}
	return 0;
}

/* The metadata topic's partition count, from serve's tail or a client opened here (*c,
 * the caller's to close). -EINVAL: a config the operator must fix (errbuf, usage). */
static int rlmm_partition_count(const struct ss_cluster_load_in *in, struct ss_cluster **c, int32_t *nparts,
				char *err, size_t errlen, struct ss_cluster_loaded *out, char *errbuf, size_t errbuflen)
{
	if (in->tail)
		return ss_cluster_tail_rlmm_partitions(in->tail, nparts, err, errlen);
	int r = ss_cluster_open(c, in->cluster, err, errlen);
	if (r == -EINVAL) {
		/* the config file or a client property: the operator's to fix */
		snprintf(errbuf, errbuflen, "%s", err);
		out->usage_error = true;
		return r;
	}
	return r ? r : ss_cluster_rlmm_partitions(*c, nparts, err, errlen);
}

/* Every metadata partition instead of those of the scanned partitions: the remote-store
 * audit joins every partition the store holds, the whole topic (scan/store_job.c). */
static int all_mparts(int32_t nparts, int32_t **mparts, uint32_t *n_mp)
{
	int32_t *all = realloc(*mparts, (size_t)nparts * sizeof(*all));
	if (!all)
		return -ENOMEM;
	*mparts = all;
	for (int32_t m = 0; m < nparts; m++)
		all[m] = m;
	*n_mp = (uint32_t)nparts;
	return 0;
}

/* A finished replay: its taint (the evaluator reads it, the scan frees it), the warnings
 * beyond the listed ones, the progress line. */
static int finish_replay(struct replay *x, const struct ss_cluster_load_in *in, struct ss_cluster_loaded *out)
{
	int r;
	ss_remote_taint_finish(&x->taint, x->nparts);
	if (x->taint.n_mparts) {
		if (!(out->taint = malloc(sizeof(*out->taint))))
			return -ENOMEM;
		*out->taint = x->taint;
		memset(&x->taint, 0, sizeof(x->taint));
	}
	if (x->warnings > SS_REMOTE_TOPIC_MAX_PROBLEMS &&
	    (r = ss_catalog_problem(x->cat, x->where, SEGSCAN_ESCHEMA, -1, false,
				    "%llu more __remote_log_metadata warnings not listed",
				    (unsigned long long)(x->warnings - SS_REMOTE_TOPIC_MAX_PROBLEMS))))
		return r;
	ss_progress_end(in->log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_ITEMS, "records", x->records, x->records);
	out->warnings = x->warnings;
	out->all_mparts = in->all_mparts && x->nparts > 0;
	return 0;
}

int ss_cluster_load_remote(const struct ss_cluster_load_in *in, struct ss_cluster_loaded *out, char *errbuf,
			   size_t errlen)
{
	struct ss_cluster_tp *tps = NULL;
	int32_t *mparts = NULL;
	uint32_t n_tp = 0, n_mp = 0;
	struct ss_cluster *c = NULL;
	struct ss_remote *store = NULL;
	struct ss_catalog *cat = in->cat;
	const char *bootstrap = in->cluster->bootstrap;
	struct replay x;
	char err[768] = "";
	int r;

	memset(&x, 0, sizeof(x));
	memset(out, 0, sizeof(*out));
	if (!bootstrap || !*bootstrap) {
		snprintf(errbuf, errlen, "--remote-metadata=cluster needs --bootstrap-server");
		out->usage_error = true;
		return -EINVAL;
	}
	if ((r = scanned_tps(cat, &tps, &n_tp)))
		goto out;
	r = rlmm_partition_count(in, &c, &x.nparts, err, sizeof(err), out, errbuf, errlen);   /* c closed at out */
	if (r == -EINVAL && out->usage_error)
		goto out;
	if (r)
		goto unavailable;
	if ((r = ss_cluster_mparts_for(tps, n_tp, x.nparts, &mparts, &n_mp)))
		goto out;
	if (in->all_mparts && x.nparts > 0 && (r = all_mparts(x.nparts, &mparts, &n_mp)))
		goto out;
	if ((r = ss_remote_new(SS_REMOTE_KAFKA, SS_SOURCE_CLUSTER, &store)))   /* freed at out unless kept */
		goto out;
	x.r = store;
	x.cat = cat;
	x.log = in->log;
	snprintf(x.where, sizeof(x.where), "%s@%s", SS_CLUSTER_RLMM_TOPIC, bootstrap);
	const struct ss_cluster_sink sink = { .record = on_rec, .corrupt = on_corrupt, .arg = &x };
	if (in->tail)
		r = ss_cluster_tail_snapshot(in->tail, mparts, n_mp, &sink, in->cluster->cancel, err, sizeof(err));
	else
		r = ss_cluster_read_rlmm(c, mparts, n_mp, &sink, NULL, err, sizeof(err));
	if (r == -ENOMEM)
		goto out;
	if (r)
		goto unavailable;
	if ((r = finish_replay(&x, in, out)))
		goto out;
	out->remote = store;
	store = NULL;
	r = 0;
	goto out;

unavailable:
	if (r == -ECANCELED) {
		/* segscan_cancel: the scan stops here, with no report (scan.c) */
		snprintf(errbuf, errlen, "%s", err);
		goto out;
	}
	/* No remote state at all rather than part of it: the tiered partitions become
	 * REMOTE_STATE_UNKNOWN, and the scan exits 1 with the reason in errors[]. */
	ss_logmsg(in->log, SEGSCAN_LOG_ERROR, "%s", err);
	r = ss_catalog_problem(cat, x.where[0] ? x.where : bootstrap, r, -1, true, "remote state unknown: %s", err);
out:
	ss_remote_taint_release(&x.taint);
	if (store)
		ss_remote_free(store);
	ss_cluster_close(c);
	free(tps);
	free(mparts);
	return r;
}
