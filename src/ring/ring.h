/*
 * Lock-free single-producer single-consumer ring of uint64_t (a worker hands segment
 * indices to the evaluator). Shaped after rigtorp's SPSCQueue and ck_ring: free-running
 * 32-bit indices masked by a power-of-two capacity, each index on its own cache line, and
 * each side keeping a private copy of the other side's index so that the shared line is
 * only touched when the ring looks full (producer) or empty (consumer).
 *
 * The producer stages items with ss_ring_push() and makes them visible in one
 * store-release with ss_ring_publish(); the consumer takes a batch with ss_ring_pop().
 * Exactly one thread may call the producer functions (push, push_wait, publish) and
 * exactly one thread the consumer functions (pop, empty) at any time.
 *
 * Alignment: struct ss_ring is 64-byte aligned (alignas). Embedding it in a static,
 * automatic or aligned_alloc()'d object is fine; inside malloc()/calloc()'d memory it is
 * NOT (glibc only guarantees 16 bytes), so allocate such containers with
 * aligned_alloc(alignof(struct ss_ring), ...) (size rounded up to a multiple of 64).
 */
#ifndef SS_RING_H
#define SS_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define SS_CACHELINE 64

struct ss_ring_stats {
	uint64_t pushed;       /* items accepted by push/push_wait */
	uint64_t full_stalls;  /* pushes that found the ring full (push_wait: once per wait) */
	uint64_t publishes;    /* publish calls that made at least one item visible */
};

/* Treat as opaque; the layout is here only so the ring can be embedded. */
struct ss_ring {
	/* read-only after init, shared by both sides */
	alignas(SS_CACHELINE) uint64_t *slots;
	uint32_t mask;
	uint32_t capacity;

	/* published head: written by the producer once per publish, read by the consumer */
	alignas(SS_CACHELINE) _Atomic uint32_t head;

	/* producer-private: kept off head's line so staging does not bounce the line the
	 * consumer polls */
	alignas(SS_CACHELINE) uint32_t p_staged;     /* next slot to write */
	uint32_t p_published;                          /* last value stored to head */
	uint32_t p_tail_cache;                         /* stale copy of tail */
	struct ss_ring_stats p_stats;

	/* consumer's tail: written once per pop, read by the producer when it looks full */
	alignas(SS_CACHELINE) _Atomic uint32_t tail;

	/* consumer-private */
	alignas(SS_CACHELINE) uint32_t c_tail;       /* == tail, without an atomic load */
	uint32_t c_head_cache;                         /* stale copy of head */
};

/* capacity: a power of two, 1 .. 2^31. 0, -EINVAL, or -ENOMEM. */
int      ss_ring_init(struct ss_ring *r, uint32_t capacity);
/* Frees the slots. Safe on a zeroed or already destroyed ring. */
void     ss_ring_destroy(struct ss_ring *r);

/* Producer: stage one item (invisible to the consumer until publish). 0, or -EAGAIN
 * when full; staged items occupy space. */
int      ss_ring_push(struct ss_ring *r, uint64_t v);
/* Producer: makes every staged item visible; returns how many were staged. */
uint32_t ss_ring_publish(struct ss_ring *r);
/* Producer: push that waits for room. When the ring is full it publishes (so the
 * consumer can drain what is staged), then spins with sched_yield backoff. Adds 1 to
 * *stalls (if non-NULL) and to the ring's full_stalls each time it had to wait. The
 * item is staged, not published, on return. Always returns 0. It never gives up: a
 * consumer that stops popping blocks the producer forever. */
int      ss_ring_push_wait(struct ss_ring *r, uint64_t v, uint64_t *stalls);
/* Producer-side counters. Read them from the producer thread, or after it has been
 * joined: they are plain fields, not atomics. */
void     ss_ring_get_stats(const struct ss_ring *r, struct ss_ring_stats *out);

/* Consumer: copies up to max published items into out; returns how many (0..max). */
uint32_t ss_ring_pop(struct ss_ring *r, uint64_t *out, uint32_t max);
/* Consumer: true when nothing published is waiting. */
bool     ss_ring_empty(struct ss_ring *r);

#endif /* SS_RING_H */
