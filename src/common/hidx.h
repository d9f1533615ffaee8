/*
 * The one hash index: open addressing (linear probing, at most 70% full counting removed
 * slots, or max_pct) over positions of elements that live in an array the caller owns. Each slot holds
 * position + 1 (0 empty, SS_HIDX_TOMB a removed one) and the key's 32-bit hash; the caller's
 * eq says whether the element at a position has the key, so one index serves any key (a
 * name, an id, a (dir, name) pair) without copying it. An element that moves in its array is
 * re-pointed (ss_hidx_move). Every probe can be counted (work: NULL for none), for callers
 * with a cost model (source/cluster_image.c). Not thread-safe: one owner.
 *
 *   struct ss_hidx ix = { 0 };
 *   ss_hidx_insert(&ix, ss_hash_str(e[i].name), i, NULL);
 *   int64_t s = ss_hidx_find(&ix, ss_hash_str(name), eq_name, e, name, NULL);
 *   if (s >= 0) use(&e[ss_hidx_pos(&ix, s)]);
 */
#ifndef SS_COMMON_HIDX_H
#define SS_COMMON_HIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SS_HIDX_EMPTY 0u
#define SS_HIDX_TOMB  UINT32_MAX

struct ss_hidx {
	uint32_t *pos;
	uint32_t *hash;
	uint32_t  cap, used, tombs;  /* cap: a power of two, or 0 */
	uint32_t  max_pct;           /* the most it is filled, in percent: 0 means 70; a hot
					lookup path sets 50 (fewer probes for a miss) */
};

typedef bool (*ss_hidx_eq)(const void *ctx, uint32_t pos, const void *key);

/* splitmix64's finalizer: keys that differ in one bit land far apart. */
static inline uint32_t ss_hash_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint32_t)x;
}

/* FNV-1a (64-bit) of n bytes, continuing from h (start: SS_HASH_INIT), not yet mixed. */
#define SS_HASH_INIT 0xcbf29ce484222325ull
static inline uint64_t ss_hash_add(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static inline uint32_t ss_hash_bytes(const void *p, size_t n) { return ss_hash_mix(ss_hash_add(SS_HASH_INIT, p, n)); }
static inline uint32_t ss_hash_str(const char *s) { return ss_hash_bytes(s, strlen(s)); }
static inline uint32_t ss_hash_u32(uint32_t v) { return ss_hash_mix(v); }

/* The slot holding an element with `key` (its position: ss_hidx_pos), or -1. */
static inline int64_t ss_hidx_find(const struct ss_hidx *x, uint32_t h, ss_hidx_eq eq, const void *ctx,
				   const void *key, uint64_t *work)
{
	if (!x->cap)
		return -1;
	uint32_t mask = x->cap - 1;
	for (uint32_t i = h & mask, n = 0; n < x->cap; i = (i + 1) & mask, n++) {
		if (work)
			(*work)++;
		uint32_t p = x->pos[i];
		if (p == SS_HIDX_EMPTY)
			return -1;
		if (p != SS_HIDX_TOMB && x->hash[i] == h && eq(ctx, p - 1, key))
			return i;
	}
	return -1;
}

static inline uint32_t ss_hidx_pos(const struct ss_hidx *x, int64_t slot) { return x->pos[slot] - 1; }

/* Index the element at `pos` (its key must not be indexed yet). 0 or -ENOMEM (unchanged). */
int  ss_hidx_insert(struct ss_hidx *x, uint32_t h, uint32_t pos, uint64_t *work);
/* Forget the element at a slot ss_hidx_find returned. */
void ss_hidx_del(struct ss_hidx *x, int64_t slot);
/* The element with hash h moved from position `from` to `to` in its array. */
void ss_hidx_move(struct ss_hidx *x, uint32_t h, uint32_t from, uint32_t to, uint64_t *work);
/* Empty again, its memory freed. */
void ss_hidx_free(struct ss_hidx *x);

#endif
