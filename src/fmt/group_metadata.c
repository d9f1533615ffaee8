/* __consumer_offsets record decoding: see fmt/group_metadata.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/group_metadata.h"

int ss_gm_decode_key(const uint8_t *buf, size_t len, struct ss_gm_key *k)
{
	struct ss_kmsg r = { buf, buf + len, 0 };
	memset(k, 0, sizeof *k);
	k->group.len = k->topic.len = -1;
	k->partition = -1;
	k->type = ss_km_i16(&r);
	if (r.err)
		return r.err;
	if (k->type < 0)
		return SEGSCAN_ESCHEMA;
	if (k->type > SS_GM_GROUP_METADATA)
		return 0;   /* a KIP-848 record: framed, not decoded */
	k->known = true;
	k->group = ss_km_str(&r, false, false);
	if (k->type != SS_GM_GROUP_METADATA) {
		k->topic = ss_km_str(&r, false, false);
		k->partition = ss_km_i32(&r);
	}
	return ss_km_end(&r);
}

static bool offset_tags(void *arg, uint32_t tag, struct ss_kmsg *sub)
{
	struct ss_gm_offset *v = arg;
	if (tag != 0)
		return false;
	/* OffsetCommitValue.TopicId (tag 0, a Uuid) in the 4.x schema */
	if (ss_km_need(sub, 16)) {
		memcpy(v->topic_id, sub->p, 16);
		sub->p += 16;
		v->has_topic_id = true;
	}
	if (!sub->err && sub->p != sub->end)
		ss_km_fail(sub, SEGSCAN_ESCHEMA);
	return true;
}

int ss_gm_decode_offset(const uint8_t *buf, size_t len, struct ss_gm_offset *v)
{
	struct ss_kmsg r = { buf, buf + len, 0 };
	memset(v, 0, sizeof *v);
	v->leader_epoch = -1;
	v->expire_timestamp = -1;
	v->metadata.len = -1;
	v->version = ss_km_i16(&r);
	if (r.err)
		return r.err;
	if (v->version < 0 || v->version > 4)
		return SEGSCAN_ESCHEMA;
	bool flex = v->version >= 4;
	v->offset = ss_km_i64(&r);
	if (v->version >= 3)
		v->leader_epoch = ss_km_i32(&r);
	v->metadata = ss_km_str(&r, flex, false);
	v->commit_timestamp = ss_km_i64(&r);
	if (v->version == 1)
		v->expire_timestamp = ss_km_i64(&r);
	if (flex)
		ss_km_tags(&r, offset_tags, v, &v->unknown_tags);
	return ss_km_end(&r);
}

int ss_gm_decode_group(const uint8_t *buf, size_t len, struct ss_gm_group *g)
{
	struct ss_kmsg r = { buf, buf + len, 0 };
	memset(g, 0, sizeof *g);
	g->current_state_timestamp = -1;
	g->version = ss_km_i16(&r);
	if (r.err)
		return r.err;
	if (g->version < 0 || g->version > 4)
		return SEGSCAN_ESCHEMA;
	bool flex = g->version >= 4;
	g->protocol_type = ss_km_str(&r, flex, false);
	g->generation = ss_km_i32(&r);
	g->protocol = ss_km_str(&r, flex, true);
	g->leader = ss_km_str(&r, flex, true);
	if (g->version >= 2)
		g->current_state_timestamp = ss_km_i64(&r);
	/* a member is at least 4 strings + 2 bytes fields + 1 int: 13 bytes even compact */
	int32_t n = ss_km_arrlen(&r, flex, false, 6);
	if (r.err)
		return r.err;
	if (n > 0 && !(g->members = calloc((size_t)n, sizeof(*g->members))))
		return -ENOMEM;
	for (int32_t i = 0; i < n && !r.err; i++) {
		struct ss_gm_member *m = &g->members[i];
		m->member_id = ss_km_str(&r, flex, false);
		m->group_instance_id.len = -1;
		if (g->version >= 3)
			m->group_instance_id = ss_km_str(&r, flex, true);
		m->client_id = ss_km_str(&r, flex, false);
		m->client_host = ss_km_str(&r, flex, false);
		m->rebalance_timeout = g->version >= 1 ? ss_km_i32(&r) : -1;
		m->session_timeout = ss_km_i32(&r);
		m->subscription = ss_km_bytes(&r, flex, false);
		m->assignment = ss_km_bytes(&r, flex, false);
		if (flex)
			ss_km_tags(&r, NULL, NULL, &g->unknown_tags);
		g->n_members = i + 1;
	}
	if (flex)
		ss_km_tags(&r, NULL, NULL, &g->unknown_tags);
	return ss_km_end(&r);
}

void ss_gm_group_free(struct ss_gm_group *g)
{
	free(g->members);   /* pairs with the calloc in ss_gm_decode_group */
	g->members = NULL;
	g->n_members = 0;
}
