/*
 * Remote state replay: Kafka's remote segment state machine (plus DANGLING) and its
 * per-leader-epoch index, fixed for KAFKA-20932. See remote.h.
 *
 * Layout: all segments of all partitions live in one chunked array (stable indices and
 * addresses); one open-addressing hash map finds a segment by (partition, generation,
 * id), another finds a partition. Per partition, epochs are a sorted array
 * and offsetToId a sorted array per epoch (appends are the common case). The
 * unreferenced set of an epoch is kept as a flag on the segment's own entry for that
 * epoch, so membership is O(log epochs-of-the-segment).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/darray.h"
#include "common/hidx.h"
#include "common/search.h"
#include "eval/remote.h"
#include "segscan.h"

/* ---- small arena for ids and epoch arrays: freed all at once ---- */
struct arena_blk {
	struct arena_blk *next;
	size_t used, cap;
	max_align_t data[];
};

#define ARENA_BLK (256u * 1024u)

/* Segments live in fixed-size chunks: no copying on growth, stable addresses. */
#define SEG_CHUNK_BITS 12
#define SEG_CHUNK      (1u << SEG_CHUNK_BITS)

struct ss_remote {
	enum ss_remote_mode mode;
	char               *source;
	struct ss_rseg    **chunks;
	uint32_t            n_segs, n_chunks, cap_chunks;
	struct ss_remote_part **parts;
	uint32_t            n_parts, cap_parts;
	/* (partition, generation, segment id) -> segment index, and (topic, partition[, topic
	 * id]) -> partition index (common/hidx.h, at most half full: the replay's hot path) */
	struct ss_hidx      seg_ix;
	struct ss_hidx      part_ix;
	uint64_t            seq;
	struct ss_remote_counts counts;
	struct arena_blk   *arena;
};

static inline struct ss_rseg *SEG(const struct ss_remote *r, uint32_t i)
{
	return &r->chunks[i >> SEG_CHUNK_BITS][i & (SEG_CHUNK - 1)];
}

static void *arena_alloc(struct ss_remote *r, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	struct arena_blk *b = r->arena;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_BLK ? n : ARENA_BLK;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = r->arena;
		b->used = 0;
		b->cap = cap;
		r->arena = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

bool ss_rseg_transition_ok(int src, int dst)
{
	if (dst < 0 || dst >= SS_RSEG_NSTATES)
		return false;
	if (src < 0)
		return dst == SS_RSEG_COPY_STARTED;
	if (src == SS_RSEG_DELETE_FINISHED)
		return false;   /* terminal: even a repeat is an event for a deleted segment */
	if (src == dst)
		return true;
	switch (src) {
	case SS_RSEG_COPY_STARTED:
		return dst == SS_RSEG_COPY_FINISHED || dst == SS_RSEG_DANGLING || dst == SS_RSEG_DELETE_STARTED;
	case SS_RSEG_COPY_FINISHED:
	case SS_RSEG_DANGLING:
		return dst == SS_RSEG_DELETE_STARTED;
	case SS_RSEG_DELETE_STARTED:
		return dst == SS_RSEG_DELETE_FINISHED || dst == SS_RSEG_DANGLING;
	default:
		return false;
	}
}

/* ---- hashing ---- */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t seg_key_hash(uint32_t part, uint32_t gen, const char *id, size_t len)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ULL, id, len);
	return mix64(h ^ ((uint64_t)part << 32 | gen));
}

static uint64_t part_key_hash(const char *topic, size_t len, int32_t partition, const uint8_t *tid)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ULL, topic, len);
	h = fnv1a(h, &partition, sizeof(partition));
	if (tid)
		h = fnv1a(h, tid, 16);
	return mix64(h);
}

struct seg_key {
	uint32_t    part, gen;
	const char *id;
	size_t      len;
};

static bool seg_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct ss_rseg *s = SEG(ctx, pos);
	const struct seg_key *k = key;
	return s->part == k->part && s->gen == k->gen && s->id_len == k->len && memcmp(s->id, k->id, k->len) == 0;
}

static uint32_t seg_lookup(const struct ss_remote *r, const struct ss_remote_part *p, const char *id, size_t len)
{
	const struct seg_key k = { p->idx, p->gen, id, len };
	int64_t j = ss_hidx_find(&r->seg_ix, (uint32_t)seg_key_hash(p->idx, p->gen, id, len), seg_is, r, &k, NULL);
	return j < 0 ? UINT32_MAX : ss_hidx_pos(&r->seg_ix, j);
}

static int seg_insert_map(struct ss_remote *r, uint32_t si)
{
	const struct ss_rseg *s = SEG(r, si);
	return ss_hidx_insert(&r->seg_ix, (uint32_t)seg_key_hash(s->part, s->gen, s->id, s->id_len), si, NULL);
}

static bool part_matches(const struct ss_remote_part *p, const char *topic, size_t len, int32_t partition,
			 const uint8_t *tid)
{
	if (p->partition != partition || strlen(p->topic) != len || memcmp(p->topic, topic, len) != 0)
		return false;
	if (!p->keyed_by_id)
		return true;
	return tid && memcmp(p->topic_id, tid, 16) == 0;
}

struct part_key {
	const char    *topic;
	size_t         len;
	int32_t        partition;
	const uint8_t *tid;
};

static bool part_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct part_key *k = key;
	return part_matches(((const struct ss_remote *)ctx)->parts[pos], k->topic, k->len, k->partition, k->tid);
}

static struct ss_remote_part *part_lookup(const struct ss_remote *r, const char *topic, size_t len,
					  int32_t partition, const uint8_t *tid)
{
	const struct part_key k = { topic, len, partition, tid };
	int64_t j = ss_hidx_find(&r->part_ix, (uint32_t)part_key_hash(topic, len, partition, tid), part_is, r, &k,
				 NULL);
	return j < 0 ? NULL : r->parts[ss_hidx_pos(&r->part_ix, j)];
}

static int part_create(struct ss_remote *r, const char *topic, size_t len, int32_t partition,
		       const uint8_t *tid, struct ss_remote_part **out)
{
	int e;
	if (r->n_parts == UINT32_MAX - 1)
		return -ENOMEM;
	if ((e = SS_DA_RESERVE(&r->parts, &r->cap_parts, (uint64_t)r->n_parts + 1)) < 0)
		return e;
	struct ss_remote_part *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (!(p->topic = strndup(topic, len))) {
		free(p);
		return -ENOMEM;
	}
	p->partition = partition;
	p->keyed_by_id = r->mode == SS_REMOTE_KAFKA;
	if (tid) {
		p->has_topic_id = true;
		memcpy(p->topic_id, tid, 16);
	}
	p->idx = r->n_parts;
	p->delete_state = SS_RPART_NONE;
	p->store = r;
	uint32_t h = (uint32_t)part_key_hash(topic, len, partition, p->keyed_by_id ? tid : NULL);
	if ((e = ss_hidx_insert(&r->part_ix, h, p->idx, NULL))) {
		free(p->topic);   /* not indexed: not kept */
		free(p);
		return e;
	}
	r->parts[r->n_parts++] = p;
	*out = p;
	return 0;
}

/* ---- lifecycle ---- */
int ss_remote_new(enum ss_remote_mode mode, const char *source, struct ss_remote **out)
{
	struct ss_remote *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->mode = mode;
	r->seg_ix.max_pct = r->part_ix.max_pct = 50;   /* misses are most lookups of the replay */
	if (source && !(r->source = strdup(source))) {
		free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

static void part_free_epochs(struct ss_remote_part *p)
{
	for (uint32_t i = 0; i < p->n_epochs; i++)
		free(p->epochs[i].o2i);
	free(p->epochs);
	p->epochs = NULL;
	p->n_epochs = p->cap_epochs = 0;
}

void ss_remote_free(struct ss_remote *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->n_parts; i++) {
		struct ss_remote_part *p = r->parts[i];
		part_free_epochs(p);
		free(p->segs);
		free(p->topic);
		free(p);
	}
	free(r->parts);
	for (uint32_t i = 0; i < r->n_chunks; i++)
		free(r->chunks[i]);
	free(r->chunks);
	ss_hidx_free(&r->seg_ix);
	ss_hidx_free(&r->part_ix);
	while (r->arena) {
		struct arena_blk *b = r->arena;
		r->arena = b->next;
		free(b);
	}
	free(r->source);
	free(r);
}

enum ss_remote_mode ss_remote_mode(const struct ss_remote *r)
{
	return r->mode;
}

void ss_remote_get_counts(const struct ss_remote *r, struct ss_remote_counts *out)
{
	*out = r->counts;
}

/* ---- epoch index ---- */
/* The first of arr[0..n) (ascending .epoch) whose epoch is >= ep: one sorted search
 * (common/search.h) for the partition's epoch states and a segment's epochs alike. */
static int cmp_repoch(const void *elem, const void *key)
{
	int32_t a = ((const struct ss_repoch *)elem)->epoch, b = *(const int32_t *)key;
	return a < b ? -1 : a > b;
}

static int cmp_rseg_epoch(const void *elem, const void *key)
{
	int32_t a = ((const struct ss_rseg_epoch *)elem)->epoch, b = *(const int32_t *)key;
	return a < b ? -1 : a > b;
}

static struct ss_repoch *epoch_find(const struct ss_remote_part *p, int32_t epoch, uint32_t *pos)
{
	uint32_t lo = (uint32_t)ss_lower_bound(p->epochs, p->n_epochs, sizeof(*p->epochs), cmp_repoch, &epoch, NULL);
	if (pos)
		*pos = lo;
	return lo < p->n_epochs && p->epochs[lo].epoch == epoch ? &p->epochs[lo] : NULL;
}

static int epoch_get(struct ss_remote_part *p, int32_t epoch, struct ss_repoch **out)
{
	uint32_t pos;
	struct ss_repoch *e = epoch_find(p, epoch, &pos);
	if (e) {
		*out = e;
		return 0;
	}
	if (SS_DA_RESERVE(&p->epochs, &p->cap_epochs, (uint64_t)p->n_epochs + 1) < 0)
		return -ENOMEM;
	memmove(&p->epochs[pos + 1], &p->epochs[pos], (size_t)(p->n_epochs - pos) * sizeof(*p->epochs));
	p->n_epochs++;
	e = &p->epochs[pos];
	memset(e, 0, sizeof(*e));
	e->epoch = epoch;
	*out = e;
	return 0;
}

static struct ss_rseg_epoch *seg_epoch(const struct ss_rseg *s, int32_t epoch)
{
	uint32_t lo = (uint32_t)ss_lower_bound(s->epochs, s->n_epochs, sizeof(*s->epochs), cmp_rseg_epoch, &epoch, NULL);
	return lo < s->n_epochs && s->epochs[lo].epoch == epoch ? &s->epochs[lo] : NULL;
}

/* Unreferenced-set membership of segment si in epoch E, kept consistent with the counters. */
static void unref_set(struct ss_remote *r, struct ss_repoch *E, uint32_t si, bool lost)
{
	struct ss_rseg_epoch *se = seg_epoch(SEG(r, si), E->epoch);
	if (!se)
		return;   /* cannot happen: a segment is only indexed under its own epochs */
	if (!(se->flags & SS_REPOCH_UNREF)) {
		se->flags |= SS_REPOCH_UNREF;
		E->n_unref++;
	}
	if (lost && !(se->flags & SS_REPOCH_LOST)) {
		se->flags |= SS_REPOCH_LOST;
		E->n_lost++;
	} else if (!lost && (se->flags & SS_REPOCH_LOST)) {
		/* Kafka's own set now holds it again (e.g. DELETE_SEGMENT_STARTED re-adds it). */
		se->flags &= (uint8_t)~SS_REPOCH_LOST;
		E->n_lost--;
	}
}

static void unref_clear(struct ss_remote *r, struct ss_repoch *E, uint32_t si)
{
	struct ss_rseg_epoch *se = seg_epoch(SEG(r, si), E->epoch);
	if (!se)
		return;
	if (se->flags & SS_REPOCH_UNREF)
		E->n_unref--;
	if (se->flags & SS_REPOCH_LOST)
		E->n_lost--;
	se->flags &= (uint8_t)~(SS_REPOCH_UNREF | SS_REPOCH_LOST);
}

static int cmp_o2i(const void *elem, const void *key)
{
	int64_t a = ((const struct ss_repoch_o2i *)elem)->off, b = *(const int64_t *)key;
	return a < b ? -1 : a > b;
}

/* The first of E's offset-to-segment entries whose offset is >= off. */
static uint32_t o2i_floor_pos(const struct ss_repoch *E, int64_t off)
{
	return (uint32_t)ss_lower_bound(E->o2i, E->n_o2i, sizeof(*E->o2i), cmp_o2i, &off, NULL);
}

/* RemoteLogLeaderEpochState.handleSegmentWithCopySegmentFinishedState, with the fix. */
static int epoch_copy_finished(struct ss_remote *r, struct ss_repoch *E, uint32_t si, int64_t start_off,
			       int64_t end_off)
{
	/* (1) duplicates/overlaps uploaded after a leader change become unreferenced */
	while (E->n_o2i && E->o2i[E->n_o2i - 1].off >= start_off && E->has_highest && E->highest <= end_off) {
		uint32_t xi = E->o2i[--E->n_o2i].seg;
		unref_set(r, E, xi, false);
	}
	/* (2) offsetToId.put(startOffset, id) */
	uint32_t pos = o2i_floor_pos(E, start_off);
	if (pos < E->n_o2i && E->o2i[pos].off == start_off) {
		uint32_t xi = E->o2i[pos].seg;
		if (xi != si) {
			/*
			 * Kafka overwrites the entry and forgets xi (KAFKA-20932). Keep it
			 * listed, and remember that Kafka itself lost it.
			 */
			unref_set(r, E, xi, true);
			E->o2i[pos].seg = si;
		}
	} else {
		if (SS_DA_RESERVE(&E->o2i, &E->cap_o2i, (uint64_t)E->n_o2i + 1) < 0)
			return -ENOMEM;
		memmove(&E->o2i[pos + 1], &E->o2i[pos], (size_t)(E->n_o2i - pos) * sizeof(*E->o2i));
		E->o2i[pos].off = start_off;
		E->o2i[pos].seg = si;
		E->n_o2i++;
	}
	/* (3) */
	unref_clear(r, E, si);
	/* (4) */
	if (!E->has_highest || end_off > E->highest) {
		E->highest = end_off;
		E->has_highest = true;
	}
	return 0;
}

/* offsetToId.remove(startOffset, id): only when mapped to this id. */
static void o2i_remove(struct ss_repoch *E, uint32_t si, int64_t start_off)
{
	uint32_t pos = o2i_floor_pos(E, start_off);
	if (pos < E->n_o2i && E->o2i[pos].off == start_off && E->o2i[pos].seg == si) {
		memmove(&E->o2i[pos], &E->o2i[pos + 1], (size_t)(E->n_o2i - pos - 1) * sizeof(*E->o2i));
		E->n_o2i--;
	}
}

/* Apply the index effect of segment si entering `state`, for each of its epochs. */
static int index_apply(struct ss_remote *r, struct ss_remote_part *p, uint32_t si, int state)
{
	const struct ss_rseg *s = SEG(r, si);
	uint32_t n = s->n_epochs;
	for (uint32_t k = 0; k < n; k++) {
		int32_t epoch = s->epochs[k].epoch;
		int64_t start_off = s->epochs[k].start_offset;
		/* Java long arithmetic: a metadata record's epoch offsets are not validated
		 * by Kafka, so wrap like it does rather than overflow */
		int64_t end_off = k + 1 < n ? (int64_t)((uint64_t)s->epochs[k + 1].start_offset - 1u) : s->end_offset;
		struct ss_repoch *E;
		int e = epoch_get(p, epoch, &E);
		if (e)
			return e;
		switch (state) {
		case SS_RSEG_COPY_STARTED:
			unref_set(r, E, si, false);
			break;
		case SS_RSEG_COPY_FINISHED:
			if ((e = epoch_copy_finished(r, E, si, start_off, end_off)))
				return e;
			break;
		case SS_RSEG_DELETE_STARTED:
		case SS_RSEG_DANGLING:
			/* DANGLING is not Kafka's: treat it like a delete in progress, so the
			 * segment stays listed for cleanup and is never read. */
			o2i_remove(E, si, start_off);
			unref_set(r, E, si, false);
			break;
		case SS_RSEG_DELETE_FINISHED:
			unref_clear(r, E, si);
			break;
		default:
			break;
		}
	}
	return 0;
}

/* ---- applying events ---- */
static void fmt_msg(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fmt_msg(char *msg, size_t len, const char *fmt, ...)
{
	if (!msg || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

/* STRICT: the error; KAFKA: count it and drop the event. */
static int reject(struct ss_remote *r, int err, uint64_t *counter)
{
	if (r->mode == SS_REMOTE_KAFKA) {
		(*counter)++;
		return 1;
	}
	return err;
}

/*
 * Copy the event's epochs into the arena, ascending, one entry per epoch (a Java
 * TreeMap built from the record keeps the last value of a repeated key).
 */
static int epochs_normalize(struct ss_remote *r, const struct ss_remote_event *ev, struct ss_rseg_epoch **out,
			    uint32_t *n_out)
{
	uint32_t n = ev->n_epochs;
	struct ss_rseg_epoch *e = arena_alloc(r, (size_t)(n ? n : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	bool sorted = true;
	for (uint32_t i = 0; i < n; i++) {
		e[i].epoch = ev->epochs[i].epoch;
		e[i].start_offset = ev->epochs[i].start_offset;
		e[i].flags = 0;
		if (i && e[i - 1].epoch >= e[i].epoch)
			sorted = false;
	}
	uint32_t m = n;
	if (!sorted) {
		/* rare (a record written out of order): a stable insertion sort keeps repeated
		 * keys in input order, then the last of each run wins */
		for (uint32_t i = 1; i < n; i++) {
			struct ss_rseg_epoch x = e[i];
			uint32_t j = i;
			while (j > 0 && e[j - 1].epoch > x.epoch) {
				e[j] = e[j - 1];
				j--;
			}
			e[j] = x;
		}
		m = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (m && e[m - 1].epoch == e[i].epoch)
				e[m - 1] = e[i];
			else
				e[m++] = e[i];
		}
	}
	*out = e;
	*n_out = m;
	return 0;
}

#define SEGFMT "segment %.*s of %.*s-%d"
#define SEGARGS(ev) (int)(ev)->segment_id_len, (ev)->segment_id, (int)(ev)->topic_len, (ev)->topic, (ev)->partition

/* Values a segment add must have whatever the source (Kafka's constructor checks). */
static int check_segment_values(struct ss_remote *r, const struct ss_remote_event *ev, char *msg, size_t msglen)
{
	if (ev->n_epochs == 0) {
		fmt_msg(msg, msglen, SEGFMT ": leader_epochs is empty (Kafka requires at least one)", SEGARGS(ev));
		return reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
	}
	if (ev->start_offset < 0 || ev->end_offset < ev->start_offset) {
		fmt_msg(msg, msglen, SEGFMT ": offsets [%lld, %lld] are not a range", SEGARGS(ev),
			(long long)ev->start_offset, (long long)ev->end_offset);
		return reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
	}
	if (ev->size_bytes < 0) {
		fmt_msg(msg, msglen, SEGFMT ": negative size_bytes %lld", SEGARGS(ev), (long long)ev->size_bytes);
		return reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
	}
	if (r->mode == SS_REMOTE_STRICT) {
		/* a hand-written or generated file: its epochs must describe the segment */
		for (uint32_t i = 0; i < ev->n_epochs; i++) {
			const struct ss_epoch_entry *e = &ev->epochs[i];
			if (e->epoch < 0 || e->start_offset < ev->start_offset || e->start_offset > ev->end_offset) {
				fmt_msg(msg, msglen,
					SEGFMT ": leader epoch %d starts at offset %lld, outside the segment [%lld, %lld]",
					SEGARGS(ev), e->epoch, (long long)e->start_offset, (long long)ev->start_offset,
					(long long)ev->end_offset);
				return SEGSCAN_ESCHEMA;
			}
			for (uint32_t j = 0; j < ev->n_epochs; j++) {
				const struct ss_epoch_entry *f = &ev->epochs[j];
				if (f->epoch > e->epoch && f->start_offset < e->start_offset) {
					fmt_msg(msg, msglen,
						SEGFMT ": leader epoch %d starts at %lld, before epoch %d at %lld",
						SEGARGS(ev), f->epoch, (long long)f->start_offset, e->epoch,
						(long long)e->start_offset);
					return SEGSCAN_ESCHEMA;
				}
			}
		}
	}
	return 0;
}

static int find_part_for_event(struct ss_remote *r, const struct ss_remote_event *ev, bool create,
			       struct ss_remote_part **out, char *msg, size_t msglen)
{
	const uint8_t *tid = ev->has_topic_id ? ev->topic_id : NULL;
	struct ss_remote_part *p;

	*out = NULL;
	if (r->mode == SS_REMOTE_KAFKA) {
		p = part_lookup(r, ev->topic, ev->topic_len, ev->partition, tid);
	} else {
		p = part_lookup(r, ev->topic, ev->topic_len, ev->partition, NULL);
		if (p && tid) {
			if (p->has_topic_id && memcmp(p->topic_id, tid, 16) != 0) {
				char a[23], b[23];
				ss_uuid_format(tid, a);
				ss_uuid_format(p->topic_id, b);
				fmt_msg(msg, msglen, "topic_id %s of %.*s-%d differs from %s given earlier", a,
					(int)ev->topic_len, ev->topic, ev->partition, b);
				return SEGSCAN_EMISMATCH;
			}
		}
	}
	if (!p && create) {
		int e = part_create(r, ev->topic, ev->topic_len, ev->partition, tid, &p);
		if (e)
			return e;
	}
	if (p && tid && !p->has_topic_id) {
		p->has_topic_id = true;
		memcpy(p->topic_id, tid, 16);
	}
	*out = p;
	return 0;
}

static int seg_alloc(struct ss_remote *r, uint32_t *out)
{
	if (r->n_segs == UINT32_MAX - 1)
		return -ENOMEM;
	if ((r->n_segs & (SEG_CHUNK - 1)) == 0 && (r->n_segs >> SEG_CHUNK_BITS) == r->n_chunks) {
		if (SS_DA_RESERVE(&r->chunks, &r->cap_chunks, (uint64_t)r->n_chunks + 1) < 0)
			return -ENOMEM;
		if (!(r->chunks[r->n_chunks] = malloc(SEG_CHUNK * sizeof(struct ss_rseg))))
			return -ENOMEM;
		r->n_chunks++;
	}
	*out = r->n_segs++;
	memset(SEG(r, *out), 0, sizeof(struct ss_rseg));
	return 0;
}

/* Room for one more segment index, so adding it later cannot fail. */
static int part_reserve_seg(struct ss_remote_part *p)
{
	return SS_DA_RESERVE(&p->segs, &p->cap_segs, (uint64_t)p->n_segs + 1);
}

static void seg_fill(struct ss_rseg *s, const struct ss_remote_event *ev)
{
	s->start_offset = ev->start_offset;
	s->end_offset = ev->end_offset;
	s->size_bytes = ev->size_bytes;
	s->max_timestamp_ms = ev->max_timestamp_ms;
	s->broker_id = ev->broker_id;
	s->event_ms = ev->event_timestamp_ms;
	if (ev->has_id_bytes) {
		s->has_id_bytes = true;
		memcpy(s->id_bytes, ev->id_bytes, 16);
	}
}

static int apply_segment(struct ss_remote *r, const struct ss_remote_event *ev, uint64_t seq, char *msg,
			 size_t msglen)
{
	struct ss_remote_part *p;
	int e;

	if (ev->state != SS_RSEG_COPY_STARTED) {
		fmt_msg(msg, msglen, SEGFMT ": a new segment must enter COPY_SEGMENT_STARTED, not %s", SEGARGS(ev),
			ss_rseg_state_name(ev->state));
		return reject(r, SEGSCAN_ETRANSITION, &r->counts.dropped_illegal);
	}
	if ((e = check_segment_values(r, ev, msg, msglen)))
		return e;
	if ((e = find_part_for_event(r, ev, true, &p, msg, msglen)))
		return e;

	uint32_t si = seg_lookup(r, p, ev->segment_id, ev->segment_id_len);
	if (si != UINT32_MAX) {
		struct ss_rseg *s = SEG(r, si);
		if (s->state != SS_RSEG_COPY_STARTED) {
			fmt_msg(msg, msglen, SEGFMT ": added again while in %s (only a COPY_SEGMENT_STARTED segment "
				"may be re-added)", SEGARGS(ev), ss_rseg_state_name(s->state));
			return reject(r, SEGSCAN_ETRANSITION, &r->counts.dropped_illegal);
		}
		/*
		 * Kafka's addCopyInProgressSegment replaces the metadata. Its stale
		 * unreferenced entries under epochs the new metadata lacks are not kept
		 * here: they would list the new metadata under an epoch it does not have.
		 */
		struct ss_rseg_epoch *ne;
		uint32_t nn;
		if ((e = epochs_normalize(r, ev, &ne, &nn)))
			return e;
		for (uint32_t k = 0; k < s->n_epochs; k++) {
			struct ss_repoch *E = epoch_find(p, s->epochs[k].epoch, NULL);
			if (E)
				unref_clear(r, E, si);
		}
		s->epochs = ne;
		s->n_epochs = nn;
		seg_fill(s, ev);
		if ((e = index_apply(r, p, si, SS_RSEG_COPY_STARTED)))
			return e;
		return 0;
	}

	struct ss_rseg_epoch *ne;
	uint32_t nn;
	if ((e = epochs_normalize(r, ev, &ne, &nn)))
		return e;
	char *id = arena_alloc(r, ev->segment_id_len + 1);
	if (!id)
		return -ENOMEM;
	memcpy(id, ev->segment_id, ev->segment_id_len);
	id[ev->segment_id_len] = '\0';
	if ((e = part_reserve_seg(p)) || (e = seg_alloc(r, &si)))
		return e;
	struct ss_rseg *s = SEG(r, si);
	s->id = id;
	s->id_len = (uint32_t)ev->segment_id_len;
	s->part = p->idx;
	s->gen = p->gen;
	s->state = SS_RSEG_COPY_STARTED;
	s->order = seq;
	s->epochs = ne;
	s->n_epochs = nn;
	seg_fill(s, ev);
	if ((e = seg_insert_map(r, si))) {
		r->n_segs--;   /* nothing refers to it yet */
		return e;
	}
	p->segs[p->n_segs++] = si;
	return index_apply(r, p, si, SS_RSEG_COPY_STARTED);
}

static int apply_update(struct ss_remote *r, const struct ss_remote_event *ev, char *msg, size_t msglen)
{
	struct ss_remote_part *p;
	int e;

	if (ev->state < 0 || ev->state >= SS_RSEG_NSTATES) {
		fmt_msg(msg, msglen, SEGFMT ": unknown state %d", SEGARGS(ev), ev->state);
		return reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
	}
	if ((e = find_part_for_event(r, ev, false, &p, msg, msglen)))
		return e;
	uint32_t si = p ? seg_lookup(r, p, ev->segment_id, ev->segment_id_len) : UINT32_MAX;
	if (si == UINT32_MAX) {
		fmt_msg(msg, msglen, SEGFMT ": update to %s for a segment never added%s", SEGARGS(ev),
			ss_rseg_state_name(ev->state),
			r->mode == SS_REMOTE_KAFKA ? " (its add record may be gone with the metadata topic's retention)"
						   : "");
		return reject(r, SEGSCAN_EUNKNOWNSEG, &r->counts.dropped_unknown);
	}
	struct ss_rseg *s = SEG(r, si);
	int src = s->state;
	if (!ss_rseg_transition_ok(src, ev->state)) {
		fmt_msg(msg, msglen, SEGFMT ": illegal transition %s -> %s%s", SEGARGS(ev), ss_rseg_state_name(src),
			ss_rseg_state_name(ev->state),
			src == SS_RSEG_DELETE_FINISHED ? " (the segment was already deleted)" : "");
		return reject(r, SEGSCAN_ETRANSITION, &r->counts.dropped_illegal);
	}
	if (ev->state == SS_RSEG_COPY_STARTED && r->mode == SS_REMOTE_KAFKA) {
		/* updateRemoteLogSegmentMetadata throws for a COPY_SEGMENT_STARTED update */
		fmt_msg(msg, msglen, SEGFMT ": an update record cannot carry COPY_SEGMENT_STARTED", SEGARGS(ev));
		return reject(r, SEGSCAN_ETRANSITION, &r->counts.dropped_illegal);
	}
	s->state = (uint8_t)ev->state;
	s->broker_id = ev->broker_id;
	s->event_ms = ev->event_timestamp_ms;
	if (ev->state == SS_RSEG_COPY_STARTED)
		return 0;   /* a repeated start changes nothing in the index */
	if (ev->state == SS_RSEG_DANGLING && src == SS_RSEG_DANGLING)
		return 0;
	return index_apply(r, p, si, ev->state);
}

static int apply_partition_delete(struct ss_remote *r, const struct ss_remote_event *ev, char *msg, size_t msglen)
{
	struct ss_remote_part *p;
	int e;

	if (ev->state < SS_RPART_DELETE_MARKED || ev->state > SS_RPART_DELETE_FINISHED) {
		fmt_msg(msg, msglen, "partition delete of %.*s-%d: unknown state %d", (int)ev->topic_len, ev->topic,
			ev->partition, ev->state);
		return reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
	}
	if ((e = find_part_for_event(r, ev, true, &p, msg, msglen)))
		return e;
	p->delete_state = ev->state;
	p->delete_event_ms = ev->event_timestamp_ms;
	if (ev->state == SS_RPART_DELETE_FINISHED) {
		/*
		 * RemotePartitionMetadataStore drops the partition's whole cache. Segments of
		 * the old generation stay in the store's arrays but no lookup reaches them.
		 */
		part_free_epochs(p);
		p->n_segs = 0;
		p->gen++;
		p->n_resets++;
		if (!p->keyed_by_id)
			p->has_topic_id = false;   /* a recreated topic gets a new id */
	}
	return 0;
}

int ss_remote_apply_fn(void *store, const struct ss_remote_event *ev, char *msg, size_t msglen)
{
	return ss_remote_apply(store, ev, msg, msglen);
}

int ss_remote_apply(struct ss_remote *r, const struct ss_remote_event *ev, char *msg, size_t msglen)
{
	uint64_t seq = r->seq++;
	int e;

	if (msg && msglen)
		msg[0] = '\0';
	r->counts.events++;
	if (ev->type == SS_REV_SNAPSHOT) {
		fmt_msg(msg, msglen, "segment snapshot record: not supported by Kafka's metadata consumer");
		e = reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
		goto out;
	}
	if (!ss_topic_name_ok(ev->topic, ev->topic_len) || ev->partition < 0) {
		fmt_msg(msg, msglen, "invalid topic partition \"%.*s\"-%d", (int)(ev->topic_len > 300 ? 300 : ev->topic_len),
			ev->topic ? ev->topic : "", ev->partition);
		e = reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
		goto out;
	}
	if (r->mode == SS_REMOTE_KAFKA && !ev->has_topic_id) {
		fmt_msg(msg, msglen, "event for %.*s-%d without a topic id", (int)ev->topic_len, ev->topic,
			ev->partition);
		e = reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
		goto out;
	}
	if (ev->type != SS_REV_PARTITION_DELETE && (!ev->segment_id || ev->segment_id_len > UINT32_MAX - 1)) {
		fmt_msg(msg, msglen, "event for %.*s-%d without a segment id", (int)ev->topic_len, ev->topic,
			ev->partition);
		e = reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
		goto out;
	}
	switch (ev->type) {
	case SS_REV_SEGMENT:
		e = apply_segment(r, ev, seq, msg, msglen);
		break;
	case SS_REV_UPDATE:
		e = apply_update(r, ev, msg, msglen);
		break;
	case SS_REV_PARTITION_DELETE:
		e = apply_partition_delete(r, ev, msg, msglen);
		break;
	default:
		fmt_msg(msg, msglen, "unknown event type %d", (int)ev->type);
		e = reject(r, SEGSCAN_ESCHEMA, &r->counts.dropped_invalid);
		break;
	}
out:
	if (e == 0) {
		r->counts.applied++;
		struct ss_remote_part *p = part_lookup(r, ev->topic, ev->topic_len, ev->partition,
						       r->mode == SS_REMOTE_KAFKA ? ev->topic_id : NULL);
		if (p) {
			p->n_events++;
			p->last_seq = seq;
		}
	}
	return e;
}

/* ---- queries ---- */
const struct ss_remote_part *ss_remote_find(const struct ss_remote *r, const char *topic, int32_t partition,
					    const uint8_t *topic_id)
{
	if (!r || !topic)
		return NULL;
	size_t len = strlen(topic);
	if (r->mode == SS_REMOTE_STRICT)
		return part_lookup(r, topic, len, partition, NULL);
	if (topic_id)
		return part_lookup(r, topic, len, partition, topic_id);
	const struct ss_remote_part *best = NULL;
	for (uint32_t i = 0; i < r->n_parts; i++) {
		const struct ss_remote_part *p = r->parts[i];
		if (p->partition == partition && strcmp(p->topic, topic) == 0 && (!best || p->last_seq > best->last_seq))
			best = p;
	}
	return best;
}

uint32_t ss_remote_part_count(const struct ss_remote *r)
{
	return r ? r->n_parts : 0;
}

const struct ss_remote_part *ss_remote_part_at(const struct ss_remote *r, uint32_t i)
{
	return r && i < r->n_parts ? r->parts[i] : NULL;
}

const struct ss_rseg *ss_remote_seg(const struct ss_remote_part *p, uint32_t i)
{
	return i < p->n_segs ? SEG(p->store, p->segs[i]) : NULL;
}

bool ss_remote_has_metadata(const struct ss_remote_part *p)
{
	return p && (p->n_segs > 0 || p->n_epochs > 0);
}

bool ss_remote_highest_for_epoch(const struct ss_remote_part *p, int32_t epoch, int64_t *out)
{
	const struct ss_repoch *E = p ? epoch_find(p, epoch, NULL) : NULL;
	if (!E || !E->has_highest)
		return false;
	*out = E->highest;
	return true;
}

struct list_item {
	const struct ss_rseg *s;
	uint32_t pos;
};

static int cmp_list_item(const void *a, const void *b)
{
	const struct list_item *x = a, *y = b;
	if (x->s->start_offset != y->s->start_offset)
		return x->s->start_offset < y->s->start_offset ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;   /* stable, like List.sort */
}

int ss_remote_list_epoch(const struct ss_remote_part *p, int32_t epoch, bool kafka_unfixed,
			 const struct ss_rseg ***out, uint32_t *n)
{
	*out = NULL;
	*n = 0;
	const struct ss_repoch *E = p ? epoch_find(p, epoch, NULL) : NULL;
	if (!E)
		return 0;
	uint32_t n_unref = E->n_unref - (kafka_unfixed ? E->n_lost : 0);
	uint32_t total = E->n_o2i + n_unref;
	if (!total)
		return 0;
	struct list_item *items = malloc((size_t)total * sizeof(*items));
	const struct ss_rseg **res = malloc((size_t)total * sizeof(*res));
	if (!items || !res) {
		free(items);
		free(res);
		return -ENOMEM;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < E->n_o2i; i++, k++) {
		items[k].s = SEG(p->store, E->o2i[i].seg);
		items[k].pos = k;
	}
	if (n_unref) {
		for (uint32_t i = 0; i < p->n_segs && k < total; i++) {
			const struct ss_rseg *s = SEG(p->store, p->segs[i]);
			const struct ss_rseg_epoch *se = seg_epoch(s, epoch);
			if (!se || !(se->flags & SS_REPOCH_UNREF))
				continue;
			if (kafka_unfixed && (se->flags & SS_REPOCH_LOST))
				continue;
			items[k].s = s;
			items[k].pos = k;
			k++;
		}
		if (k)
			qsort(items, k, sizeof(*items), cmp_list_item);
	}
	for (uint32_t i = 0; i < k; i++)
		res[i] = items[i].s;
	free(items);
	*out = res;
	*n = k;
	return 0;
}

bool ss_remote_seg_lost(const struct ss_remote_part *p, const struct ss_rseg *s)
{
	if (!s || s->state != SS_RSEG_COPY_FINISHED || s->n_epochs == 0)
		return false;
	for (uint32_t k = 0; k < s->n_epochs; k++)
		if (!(s->epochs[k].flags & SS_REPOCH_LOST))
			return false;
	return true;
}
