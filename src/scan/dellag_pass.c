/*
 * PHANTOM_DELETE_LAG's scan step (issue 27): after every partition is evaluated, each
 * --broker-metrics broker's RemoteDeleteLag* gauges, topic by topic, against the true delete
 * lag of the topic's partitions that broker leads by the metadata log (eval/dellag.h does
 * the comparison; this gathers its inputs). One ss_topic_dellag per (broker, topic) the
 * broker has delete-lag gauges for: the gauge is a per-topic fact, so it is never copied
 * onto a partition's row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/search.h"
#include "eval/dellag.h"
#include "scan/scan_int.h"
#include "source/cluster_ctx.h"
#include "source/cluster_image.h"

void ss_scan_dellag_free(struct segscan_scan *s)
{
	for (uint32_t i = 0; i < s->n_topic_dellag; i++)
		ss_topic_dellag_free(&s->topic_dellag[i]);
	free(s->topic_dellag);
	s->topic_dellag = NULL;
	s->n_topic_dellag = 0;
}

struct tp_key {
	const char *topic;
	int32_t     partition;
};

/* The catalog's order (discover.c: topic bytewise, then partition, then log dir). */
static int cmp_tp(const void *elem, const void *key)
{
	const struct ss_part *p = elem;
	const struct tp_key *k = key;
	int c = strcmp(p->topic, k->topic);
	return c ? c : p->partition < k->partition ? -1 : p->partition > k->partition;
}

/* This node's evaluated replica of topic-partition, or NULL: a binary search, then the
 * partition's log dirs (one replica per node). */
static const struct ss_eval *replica(const struct segscan_scan *s, const char *topic, int32_t partition, int32_t node)
{
	const struct tp_key k = { topic, partition };
	for (size_t i = ss_lower_bound(s->cat.parts, s->cat.n_parts, sizeof(*s->cat.parts), cmp_tp, &k, NULL);
	     i < s->cat.n_parts && cmp_tp(&s->cat.parts[i], &k) == 0; i++) {
		const struct ss_part *p = &s->cat.parts[i];
		if (p->eval && ss_cluster_ctx_replica_node(s->cluster, p, &s->cat) == node)
			return p->eval;
	}
	return NULL;
}

/* The topic's partitions in the metadata log, each with this node's replica: *members
 * malloc'd (NULL with *n 0 when the image does not know the topic for sure). */
static int members_of(const struct segscan_scan *s, const char *topic, int32_t node, struct ss_dellag_member **out,
		      uint32_t *n)
{
	const struct ss_cluster_ctx *c = s->cluster;
	*out = NULL;
	*n = 0;
	if (!c || !c->mlog_used || !ss_cimage_topic_known(c->img, topic))
		return 0;
	const struct ss_ci_topic *t = ss_cimage_topic(c->img, topic);
	if (!t || !t->n_parts)
		return 0;
	struct ss_dellag_member *m = calloc(t->n_parts, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n_parts; i++) {
		const struct ss_ci_partition *cp = &t->parts[i];
		m[i] = (struct ss_dellag_member){ .partition = cp->id, .leader = cp->leader,
						  .leader_epoch = cp->leader_epoch,
						  .ev = replica(s, topic, cp->id, node) };
	}
	*out = m;
	*n = t->n_parts;
	return 0;
}

static int one_topic(struct segscan_scan *s, const struct ss_broker_gauges *g, const struct ss_topic_gauges *tg,
		     int32_t node, const struct ss_eval_release *rel)
{
	struct ss_dellag_member *m;
	uint32_t nm;
	int r = members_of(s, tg->topic, node, &m, &nm);
	if (r)
		return r;
	struct ss_topic_dellag *grown = realloc(s->topic_dellag, (s->n_topic_dellag + 1) * sizeof(*grown));
	if (!grown) {
		free(m);
		return -ENOMEM;
	}
	s->topic_dellag = grown;
	struct ss_topic_dellag *out = &grown[s->n_topic_dellag];
	memset(out, 0, sizeof(*out));
	const struct ss_dellag_input in = {
		.topic = tg->topic, .node_id = node, .gauges = g, .tg = tg, .image = m != NULL, .members = m,
		.n_members = nm, .release = rel, .now_ms = s->opts.now_ms,
	};
	r = ss_eval_topic_delete_lag(&in, out);
	s->n_topic_dellag++;   /* freed with the others whatever r is */
	free(m);
	return r;
}

int ss_scan_dellag(struct segscan_scan *s)
{
	struct ss_eval_release relbuf;
	const struct ss_eval_release *rel = ss_scan_release(s, &relbuf);
	ss_scan_dellag_free(s);
	for (uint32_t k = 0; k < s->n_gauges; k++) {
		const struct ss_broker_gauges *g = s->gauges[k];
		/* -1: the scan's only broker, the node the cluster context names */
		int32_t node = g->node_id >= 0 ? g->node_id : s->cluster ? s->cluster->node_id : -1;
		for (size_t i = 0; g->ok && i < g->n; i++) {
			const struct ss_topic_gauges *tg = &g->topics[i];
			if (!tg->delete_lag_segments.present && !tg->delete_lag_bytes.present)
				continue;
			int r = one_topic(s, g, tg, node, rel);
			if (r)
				return r;
		}
	}
	return 0;
}
