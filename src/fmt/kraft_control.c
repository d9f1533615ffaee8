/* KRaft control record values: see fmt/kraft_control.h. */
#include <string.h>

#include "fmt/kraft.h"
#include "fmt/kraft_control.h"

bool ss_kctl_known(int type)
{
	return type >= SS_KC_LEADER_CHANGE && type <= SS_KC_KRAFT_VOTERS;
}

const char *ss_kctl_name(int type)
{
	/* DumpLogSegments.printControlRecord's words */
	switch (type) {
	case SS_KC_LEADER_CHANGE: return "LeaderChange";
	case SS_KC_SNAPSHOT_HEADER: return "SnapshotHeader";
	case SS_KC_SNAPSHOT_FOOTER: return "SnapshotFooter";
	case SS_KC_KRAFT_VERSION: return "KRaftVersion";
	case SS_KC_KRAFT_VOTERS: return "KRaftVoters";
	default: return NULL;
	}
}

/* Each struct of these schemas ends with its tagged fields; none is known at version 0. */
static void skip_tags(struct ss_kmsg *r) { ss_km_tags(r, NULL, NULL, NULL); }

static void rd_endpoint(struct ss_kmsg *r, struct ss_kctl_endpoint *e)
{
	e->name = ss_km_str(r, true, false);
	e->host = ss_km_str(r, true, false);
	e->port = (uint16_t)ss_km_i16(r);
	skip_tags(r);
}

static void rd_voter(struct ss_kmsg *r, int type, struct ss_kctl_voter *v)
{
	memset(v, 0, sizeof *v);
	v->id = ss_km_i32(r);
	if (type == SS_KC_KRAFT_VOTERS) {
		const uint8_t *u = ss_km_take(r, 16);
		if (u)
			memcpy(v->dir_id, u, 16);
		v->endpoints.n = ss_km_arrlen(r, true, false, 5);   /* name, host, port, tags: >= 5 bytes */
		v->endpoints.p = r->p;
		for (int32_t i = 0; i < v->endpoints.n && !r->err; i++) {
			struct ss_kctl_endpoint e;
			rd_endpoint(r, &e);
		}
		v->endpoints.end = r->p;
		v->min_version = ss_km_i16(r);
		v->max_version = ss_km_i16(r);
		skip_tags(r);   /* KRaftVersionFeature's */
	}
	skip_tags(r);
}

/* An array of voters: its bounds, every element read once to check it. */
static struct ss_kctl_arr rd_voters(struct ss_kmsg *r, int type)
{
	struct ss_kctl_arr a = { 0, NULL, NULL };
	/* smallest voter: id + tags (5), or id, uuid, endpoints, feature, tags (27) */
	a.n = ss_km_arrlen(r, true, false, type == SS_KC_KRAFT_VOTERS ? 27 : 5);
	a.p = r->p;
	for (int32_t i = 0; i < a.n && !r->err; i++) {
		struct ss_kctl_voter v;
		rd_voter(r, type, &v);
	}
	a.end = r->p;
	if (r->err)
		a.n = 0;
	return a;
}

int ss_kctl_decode(int type, const uint8_t *buf, size_t len, struct ss_kctl *out)
{
	memset(out, 0, sizeof *out);
	out->type = type;
	if (!ss_kctl_known(type) || !buf)
		return SEGSCAN_ESCHEMA;
	struct ss_kmsg r = { buf, buf + len, 0 };
	out->version = ss_km_i16(&r);
	switch (type) {
	case SS_KC_LEADER_CHANGE:
		out->u.leader_change.leader_id = ss_km_i32(&r);
		out->u.leader_change.voters = rd_voters(&r, type);
		out->u.leader_change.granting = rd_voters(&r, type);
		break;
	case SS_KC_SNAPSHOT_HEADER:
		out->u.header.last_contained_log_timestamp = ss_km_i64(&r);
		break;
	case SS_KC_SNAPSHOT_FOOTER:
		break;
	case SS_KC_KRAFT_VERSION:
		out->u.kraft_version.kraft_version = ss_km_i16(&r);
		break;
	case SS_KC_KRAFT_VOTERS:
		out->u.voters.voters = rd_voters(&r, type);
		break;
	}
	skip_tags(&r);
	return ss_km_end(&r);
}

void ss_kctl_iter_init(struct ss_kctl_iter *it, const struct ss_kctl_arr *a, int type)
{
	it->r = (struct ss_kmsg){ a->p, a->end, 0 };
	it->left = a->p ? a->n : 0;
	it->type = type;
}

int ss_kctl_next_voter(struct ss_kctl_iter *it, struct ss_kctl_voter *v)
{
	if (it->left <= 0)
		return 0;
	it->left--;
	rd_voter(&it->r, it->type, v);
	return it->r.err ? it->r.err : 1;
}

int ss_kctl_next_endpoint(struct ss_kctl_iter *it, struct ss_kctl_endpoint *e)
{
	if (it->left <= 0)
		return 0;
	it->left--;
	rd_endpoint(&it->r, e);
	return it->r.err ? it->r.err : 1;
}
