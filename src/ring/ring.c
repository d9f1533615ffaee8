/*
 * SPSC ring. Indices are free-running uint32_t: the occupancy is always head - tail in
 * modular arithmetic, which stays exact as long as the capacity is at most 2^31, so the
 * counters can wrap around 2^32 without a special case.
 *
 * Memory ordering, the two pairs:
 *   (A) publish: store-release of head  <->  pop/empty: load-acquire of head.
 *       The consumer sees every slot (and, through model.h's contract, every segment
 *       field) the producer wrote before publishing.
 *   (B) pop: store-release of tail  <->  push: load-acquire of tail.
 *       The producer does not overwrite a slot until the consumer has finished copying
 *       it out.
 *
 * Invariants (ss_assert, debug and sanitizer builds): tail <= published head <= staged
 * <= tail + capacity, in modular arithmetic; only the producer stores head and only the
 * consumer stores tail, so each side's private copy equals the shared index it owns.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/assert.h"
#include "ring/ring.h"

_Static_assert(offsetof(struct ss_ring, head) % SS_CACHELINE == 0, "head line");
_Static_assert(offsetof(struct ss_ring, tail) - offsetof(struct ss_ring, head) >= SS_CACHELINE,
	       "head and tail share a line");
_Static_assert(offsetof(struct ss_ring, p_staged) - offsetof(struct ss_ring, head) >= SS_CACHELINE,
	       "producer-private state shares head's line");
_Static_assert(offsetof(struct ss_ring, c_tail) - offsetof(struct ss_ring, tail) >= SS_CACHELINE,
	       "consumer-private state shares tail's line");

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

int ss_ring_init(struct ss_ring *r, uint32_t capacity)
{
	memset(r, 0, sizeof(*r));
	/* > 2^31 would make head - tail ambiguous between "full" and "empty" */
	if (capacity == 0 || (capacity & (capacity - 1)) || capacity > (UINT32_C(1) << 31))
		return -EINVAL;
	size_t bytes = (size_t)capacity * sizeof(uint64_t);
	/* C11 aligned_alloc wants the size to be a multiple of the alignment */
	bytes = (bytes + SS_CACHELINE - 1) & ~(size_t)(SS_CACHELINE - 1);
	uint64_t *slots = aligned_alloc(SS_CACHELINE, bytes);
	if (!slots)
		return -ENOMEM;
	r->slots = slots;
	r->mask = capacity - 1;
	r->capacity = capacity;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	return 0;
}

void ss_ring_destroy(struct ss_ring *r)
{
	free(r->slots);
	r->slots = NULL;
	r->capacity = 0;
	r->mask = 0;
}

/* true when there is room for one more staged item, refreshing the tail copy only when
 * the stale copy says full */
static inline bool ring_has_room(struct ss_ring *r)
{
	if (r->p_staged - r->p_tail_cache < r->capacity)
		return true;
	/* acquire: pairs with the store-release of tail in ss_ring_pop (B) */
	r->p_tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
	return r->p_staged - r->p_tail_cache < r->capacity;
}

static inline void ring_stage(struct ss_ring *r, uint64_t v)
{
	/* the caller saw room: a slot the consumer may still copy out is never written */
	ss_assert(r->slots && r->p_staged - r->p_tail_cache < r->capacity);
	r->slots[r->p_staged & r->mask] = v;
	r->p_staged++;
	r->p_stats.pushed++;
}

int ss_ring_push(struct ss_ring *r, uint64_t v)
{
	if (!ring_has_room(r)) {
		r->p_stats.full_stalls++;
		return -EAGAIN;
	}
	ring_stage(r, v);
	return 0;
}

uint32_t ss_ring_publish(struct ss_ring *r)
{
	uint32_t n = r->p_staged - r->p_published;
	/* one producer: nobody else stored head since our last publish */
	ss_assert(atomic_load_explicit(&r->head, memory_order_relaxed) == r->p_published);
	ss_assert(n <= r->capacity);
	if (n == 0)
		return 0;
	/* release: pairs with the load-acquire of head in ss_ring_pop / ss_ring_empty (A) */
	atomic_store_explicit(&r->head, r->p_staged, memory_order_release);
	r->p_published = r->p_staged;
	r->p_stats.publishes++;
	return n;
}

int ss_ring_push_wait(struct ss_ring *r, uint64_t v, uint64_t *stalls)
{
	if (!ring_has_room(r)) {
		r->p_stats.full_stalls++;
		if (stalls)
			(*stalls)++;
		/* the consumer can only free space by popping what we have staged */
		ss_ring_publish(r);
		/* spin briefly first: a consumer on another CPU usually frees a slot within
		 * microseconds; yield after that so a consumer sharing our CPU can run */
		unsigned spins = 0;
		while (!ring_has_room(r)) {
			if (++spins < 64)
				cpu_relax();
			else
				sched_yield();
		}
	}
	ring_stage(r, v);
	return 0;
}

void ss_ring_get_stats(const struct ss_ring *r, struct ss_ring_stats *out)
{
	*out = r->p_stats;
}

uint32_t ss_ring_pop(struct ss_ring *r, uint64_t *out, uint32_t max)
{
	if (max == 0)
		return 0;
	uint32_t tail = r->c_tail;
	uint32_t avail = r->c_head_cache - tail;
	if (avail == 0) {
		/* acquire: pairs with the store-release of head in ss_ring_publish (A) */
		r->c_head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
		avail = r->c_head_cache - tail;
		if (avail == 0)
			return 0;
	}
	/* the producer never publishes more than a ring ahead of what we popped, and we are
	 * the one consumer: nobody else stored tail */
	ss_assert(avail <= r->capacity);
	ss_assert(atomic_load_explicit(&r->tail, memory_order_relaxed) == tail);
	uint32_t n = avail < max ? avail : max;
	uint32_t first = tail & r->mask;
	uint32_t chunk = r->capacity - first;
	if (chunk > n)
		chunk = n;
	memcpy(out, r->slots + first, (size_t)chunk * sizeof(uint64_t));
	if (n > chunk)
		memcpy(out + chunk, r->slots, (size_t)(n - chunk) * sizeof(uint64_t));
	r->c_tail = tail + n;
	/* release: pairs with the load-acquire of tail in ring_has_room (B) */
	atomic_store_explicit(&r->tail, r->c_tail, memory_order_release);
	return n;
}

bool ss_ring_empty(struct ss_ring *r)
{
	if (r->c_head_cache != r->c_tail)
		return false;
	/* acquire: pairs with the store-release of head in ss_ring_publish (A) */
	r->c_head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
	return r->c_head_cache == r->c_tail;
}
