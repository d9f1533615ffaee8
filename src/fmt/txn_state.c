/* __transaction_state record decoding: see fmt/txn_state.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/txn_state.h"

int ss_txn_decode_key(const uint8_t *buf, size_t len, struct ss_txn_key *k)
{
	struct ss_kmsg r = { buf, buf + len, 0 };
	memset(k, 0, sizeof *k);
	k->transactional_id.len = -1;
	k->version = ss_km_i16(&r);
	if (r.err)
		return r.err;
	if (k->version != 0)
		return 0;
	k->known = true;
	k->transactional_id = ss_km_str(&r, false, false);
	return ss_km_end(&r);
}

static bool value_tags(void *arg, uint32_t tag, struct ss_kmsg *sub)
{
	struct ss_txn_value *v = arg;
	switch (tag) {
	case 0: v->previous_producer_id = ss_km_i64(sub); return true;
	case 1: v->next_producer_id = ss_km_i64(sub); return true;
	case 2: v->client_txn_version = ss_km_i16(sub); return true;
	}
	return false;
}

int ss_txn_decode_value(const uint8_t *buf, size_t len, struct ss_txn_value *v)
{
	struct ss_kmsg r = { buf, buf + len, 0 };
	memset(v, 0, sizeof *v);
	v->previous_producer_id = v->next_producer_id = -1;
	v->n_topics = -1;
	v->version = ss_km_i16(&r);
	if (r.err)
		return r.err;
	if (v->version < 0 || v->version > 1)
		return SEGSCAN_ESCHEMA;
	bool flex = v->version >= 1;
	v->producer_id = ss_km_i64(&r);
	v->producer_epoch = ss_km_i16(&r);
	v->timeout_ms = ss_km_i32(&r);
	v->status = ss_km_i8(&r);
	int32_t n = ss_km_arrlen(&r, flex, true, 2);
	if (r.err)
		return r.err;
	v->n_topics = n;
	if (n > 0 && !(v->topics = calloc((size_t)n, sizeof(*v->topics))))
		return -ENOMEM;
	for (int32_t i = 0; i < n && !r.err; i++) {
		struct ss_txn_topic *t = &v->topics[i];
		t->topic = ss_km_str(&r, flex, false);
		int32_t np = ss_km_arrlen(&r, flex, false, 4);
		if (r.err)
			break;
		t->n_partitions = np;
		t->partitions = ss_km_take(&r, (size_t)np * 4);   /* fits: arrlen checked 4 bytes each */
		if (flex)
			ss_km_tags(&r, NULL, NULL, &v->unknown_tags);
	}
	v->last_update_timestamp_ms = ss_km_i64(&r);
	v->start_timestamp_ms = ss_km_i64(&r);
	if (flex)
		ss_km_tags(&r, value_tags, v, &v->unknown_tags);
	return ss_km_end(&r);
}

void ss_txn_value_free(struct ss_txn_value *v)
{
	free(v->topics);   /* pairs with the calloc in ss_txn_decode_value */
	v->topics = NULL;
}

const char *ss_txn_status_name(int status)
{
	/* transaction-coordinator/.../TransactionState.java ids */
	static const char *const names[] = { "Empty", "Ongoing", "PrepareCommit", "PrepareAbort",
					     "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence" };
	return status >= 0 && status < (int)(sizeof(names) / sizeof(names[0])) ? names[status] : NULL;
}
