/* SPSC ring: init errors, staging/publish visibility, full, wrap-around (slot index and
 * the 32-bit counters), stats, and a two-thread stress run that must also pass under
 * TSan. Env: SS_RING_STRESS_ITEMS (default 10^7), SS_RING_SEED. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ring/ring.h"

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (errno || *end)
		return dflt;
	return x;
}

/* FNV-1a style mix over whole words: order-sensitive, so producer and consumer agree
 * only if they saw the same sequence */
static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * UINT64_C(0x100000001b3);
}

static void test_init_errors(void **state)
{
	struct ss_ring r;
	static const uint32_t bad[] = { 0, 3, 6, 12, 1000, 1025, (UINT32_C(1) << 31) + 1,
					 UINT32_MAX, UINT32_C(3) << 30 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ss_ring_init(&r, bad[i]), -EINVAL);
		ss_ring_destroy(&r); /* safe after a failed init */
	}
	static const uint32_t good[] = { 1, 2, 4, 64, 1024, 65536 };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(ss_ring_init(&r, good[i]), 0);
		assert_non_null(r.slots);
		assert_true(((uintptr_t)r.slots % SS_CACHELINE) == 0);
		/* capacity really is good[i]: exactly that many pushes fit */
		for (uint32_t k = 0; k < good[i]; k++)
			assert_int_equal(ss_ring_push(&r, k), 0);
		assert_int_equal(ss_ring_push(&r, 0), -EAGAIN);
		ss_ring_destroy(&r);
		ss_ring_destroy(&r); /* idempotent */
	}
}

static void test_layout(void **state)
{
	/* the false-sharing requirement, checked on the real object rather than trusted */
	struct ss_ring r;
	uintptr_t head = (uintptr_t)&r.head, tail = (uintptr_t)&r.tail;
	uintptr_t pst = (uintptr_t)&r.p_tail_cache, cst = (uintptr_t)&r.c_head_cache;
	assert_int_equal((uintptr_t)&r % SS_CACHELINE, 0);
	assert_true(head / SS_CACHELINE != tail / SS_CACHELINE);
	assert_true(pst / SS_CACHELINE != tail / SS_CACHELINE);
	assert_true(pst / SS_CACHELINE != head / SS_CACHELINE);
	assert_true(cst / SS_CACHELINE != head / SS_CACHELINE);
	assert_true(cst / SS_CACHELINE != tail / SS_CACHELINE);
	assert_true(cst / SS_CACHELINE != pst / SS_CACHELINE);
}

static void test_unpublished_invisible(void **state)
{
	struct ss_ring r;
	uint64_t out[8] = { 0 };
	assert_int_equal(ss_ring_init(&r, 8), 0);
	assert_true(ss_ring_empty(&r));
	assert_int_equal(ss_ring_push(&r, 11), 0);
	assert_int_equal(ss_ring_push(&r, 22), 0);
	assert_int_equal(ss_ring_push(&r, 33), 0);
	assert_true(ss_ring_empty(&r));
	assert_int_equal(ss_ring_pop(&r, out, 8), 0);
	assert_int_equal(ss_ring_publish(&r), 3);
	assert_int_equal(ss_ring_publish(&r), 0); /* nothing new staged */
	assert_false(ss_ring_empty(&r));
	/* stage more after the publish: the consumer must stop at the published mark */
	assert_int_equal(ss_ring_push(&r, 44), 0);
	assert_int_equal(ss_ring_pop(&r, out, 8), 3);
	assert_int_equal(out[0], 11);
	assert_int_equal(out[1], 22);
	assert_int_equal(out[2], 33);
	assert_true(ss_ring_empty(&r));
	assert_int_equal(ss_ring_pop(&r, out, 8), 0);
	assert_int_equal(ss_ring_publish(&r), 1);
	assert_int_equal(ss_ring_pop(&r, out, 8), 1);
	assert_int_equal(out[0], 44);
	ss_ring_destroy(&r);
}

static void test_full_eagain(void **state)
{
	struct ss_ring r;
	uint64_t out[8];
	struct ss_ring_stats st;
	assert_int_equal(ss_ring_init(&r, 8), 0);
	for (uint64_t i = 0; i < 8; i++)
		assert_int_equal(ss_ring_push(&r, 100 + i), 0);
	/* full of staged, unpublished items */
	assert_int_equal(ss_ring_push(&r, 999), -EAGAIN);
	assert_int_equal(ss_ring_publish(&r), 8);
	assert_int_equal(ss_ring_push(&r, 999), -EAGAIN);
	assert_int_equal(ss_ring_pop(&r, out, 3), 3);
	for (uint64_t i = 0; i < 3; i++)
		assert_int_equal(out[i], 100 + i);
	for (uint64_t i = 8; i < 11; i++)
		assert_int_equal(ss_ring_push(&r, 100 + i), 0);
	assert_int_equal(ss_ring_push(&r, 999), -EAGAIN);
	ss_ring_get_stats(&r, &st);
	assert_int_equal(st.pushed, 11);
	assert_int_equal(st.full_stalls, 3);
	assert_int_equal(st.publishes, 1);
	assert_int_equal(ss_ring_publish(&r), 3);
	/* The consumer's copy of head still says 8, so the first pop returns the 5 it
	 * already knew of without touching the producer's line; the next one refreshes and
	 * gets the 3 just published, wrapping the slot array. */
	assert_int_equal(ss_ring_pop(&r, out, 8), 5);
	assert_int_equal(ss_ring_pop(&r, out + 5, 8), 3);
	for (uint64_t i = 0; i < 8; i++)
		assert_int_equal(out[i], 103 + i);
	assert_int_equal(ss_ring_pop(&r, out, 8), 0);
	assert_true(ss_ring_empty(&r));
	ss_ring_get_stats(&r, &st);
	assert_int_equal(st.publishes, 2);
	ss_ring_destroy(&r);
}

static void test_pop_limits(void **state)
{
	struct ss_ring r;
	uint64_t out[4] = { 7, 7, 7, 7 };
	assert_int_equal(ss_ring_init(&r, 4), 0);
	assert_int_equal(ss_ring_push(&r, 1), 0);
	assert_int_equal(ss_ring_push(&r, 2), 0);
	ss_ring_publish(&r);
	assert_int_equal(ss_ring_pop(&r, out, 0), 0); /* max 0 consumes nothing */
	assert_int_equal(out[0], 7);
	assert_int_equal(ss_ring_pop(&r, out, 1), 1);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 7); /* wrote only max items */
	assert_int_equal(ss_ring_pop(&r, out, 4), 1);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 7);
	ss_ring_destroy(&r);
}

/* Many laps around a 4-slot ring with random batch sizes. */
static void test_wraparound_many(void **state)
{
	struct ss_ring r;
	uint64_t seed = 0x9e3779b97f4a7c15u, out[4];
	uint64_t next_in = 1, next_out = 1;
	assert_int_equal(ss_ring_init(&r, 4), 0);
	for (int round = 0; round < 20000; round++) {
		unsigned burst = 1 + (unsigned)(xorshift64(&seed) % 4);
		unsigned pushed = 0;
		for (unsigned k = 0; k < burst; k++) {
			if (ss_ring_push(&r, next_in) == 0) {
				next_in++;
				pushed++;
			}
		}
		assert_int_equal(ss_ring_publish(&r), pushed);
		uint32_t want = 1 + (uint32_t)(xorshift64(&seed) % 4);
		uint32_t got = ss_ring_pop(&r, out, want);
		assert_true(got <= want);
		for (uint32_t k = 0; k < got; k++)
			assert_int_equal(out[k], next_out++);
		/* exact occupancy: the ring holds what was pushed and not popped */
		assert_true(next_in - next_out <= 4);
	}
	uint32_t got;
	while ((got = ss_ring_pop(&r, out, 4)) > 0)
		for (uint32_t k = 0; k < got; k++)
			assert_int_equal(out[k], next_out++);
	assert_int_equal(next_in, next_out);
	assert_true(next_in > 20000); /* really went round many times */
	ss_ring_destroy(&r);
}

/* The 32-bit indices wrap after 2^32 items; start them just below to cross it now. */
static void test_index_counter_wrap(void **state)
{
	struct ss_ring r;
	uint64_t out[8];
	assert_int_equal(ss_ring_init(&r, 8), 0);
	const uint32_t start = UINT32_MAX - 4;
	atomic_store(&r.head, start);
	atomic_store(&r.tail, start);
	r.p_staged = r.p_published = r.p_tail_cache = start;
	r.c_tail = r.c_head_cache = start;

	uint64_t v = 0;
	for (int lap = 0; lap < 5; lap++) {
		for (int i = 0; i < 8; i++)
			assert_int_equal(ss_ring_push(&r, v + (uint64_t)i), 0);
		assert_int_equal(ss_ring_push(&r, 12345), -EAGAIN);
		assert_true(ss_ring_empty(&r));
		assert_int_equal(ss_ring_publish(&r), 8);
		assert_false(ss_ring_empty(&r));
		assert_int_equal(ss_ring_pop(&r, out, 5), 5);
		assert_int_equal(ss_ring_pop(&r, out + 5, 8), 3);
		for (int i = 0; i < 8; i++)
			assert_int_equal(out[i], v + (uint64_t)i);
		assert_true(ss_ring_empty(&r));
		v += 8;
	}
	/* the counters did cross zero */
	assert_true(r.p_staged < start);
	ss_ring_destroy(&r);
}

/* ---- two threads ----------------------------------------------------------------------- */

struct stress {
	struct ss_ring ring;   /* first, so the aligned_alloc'd struct aligns it */
	uint64_t n, base, seed;
	unsigned max_burst, max_pop;
	bool use_wait;         /* producer uses push_wait instead of push + retry */
	unsigned consumer_delay_every; /* consumer sleeps 50 us every this many pops (0 never) */
	/* producer results */
	uint64_t prod_hash, prod_retries, wait_stalls;
	/* consumer results */
	uint64_t cons_hash, cons_count, cons_sum, bad_at, bad_val, bad_prev;
	bool bad;
	_Atomic bool producer_done;
};

static void *producer(void *arg)
{
	struct stress *s = arg;
	uint64_t seed = s->seed, h = 0xcbf29ce484222325u, i = 0;
	while (i < s->n) {
		/* mostly small bursts (many publishes: the racy part), one in eight large
		 * enough to fill the ring */
		uint64_t r = xorshift64(&seed);
		uint64_t burst = 1 + (r >> 3) % ((r & 7) == 0 ? s->max_burst : 16);
		if (burst > s->n - i)
			burst = s->n - i;
		for (uint64_t k = 0; k < burst; k++, i++) {
			uint64_t v = s->base + i;
			if (s->use_wait) {
				ss_ring_push_wait(&s->ring, v, &s->wait_stalls);
			} else {
				while (ss_ring_push(&s->ring, v) == -EAGAIN) {
					ss_ring_publish(&s->ring);
					s->prod_retries++;
					sched_yield();
				}
			}
			h = mix(h, v);
		}
		ss_ring_publish(&s->ring);
	}
	s->prod_hash = h;
	/* release: pairs with the acquire load of producer_done in consumer() */
	atomic_store_explicit(&s->producer_done, true, memory_order_release);
	return NULL;
}

static void *consumer(void *arg)
{
	struct stress *s = arg;
	uint64_t seed = s->seed ^ 0xdeadbeefcafef00du, h = 0xcbf29ce484222325u;
	uint64_t prev = s->base - 1, count = 0, sum = 0, pops = 0;
	uint64_t *buf = malloc(sizeof(uint64_t) * (s->max_pop > 8 ? s->max_pop : 8));
	if (!buf) {
		s->bad = true;
		return NULL;
	}
	while (count < s->n) {
		uint64_t r = xorshift64(&seed);
		uint32_t want = 1 + (uint32_t)((r >> 1) % ((r & 1) ? s->max_pop : 8));
		uint32_t got = ss_ring_pop(&s->ring, buf, want);
		if (got > want) {
			s->bad = true;
			s->bad_at = count;
			break;
		}
		if (got == 0) {
			/* acquire: pairs with the release store of producer_done in producer();
			 * once done is seen, everything it published is visible to a final pop */
			if (atomic_load_explicit(&s->producer_done, memory_order_acquire) &&
			    ss_ring_empty(&s->ring))
				break; /* items were lost: count < n is reported below */
			sched_yield();
			continue;
		}
		for (uint32_t k = 0; k < got; k++) {
			uint64_t v = buf[k];
			if (v != prev + 1 && !s->bad) {
				s->bad = true;
				s->bad_at = count + k;
				s->bad_val = v;
				s->bad_prev = prev;
			}
			prev = v;
			h = mix(h, v);
			sum += v;
		}
		count += got;
		if (s->consumer_delay_every && ++pops % s->consumer_delay_every == 0)
			usleep(50);
	}
	free(buf);
	s->cons_hash = h;
	s->cons_count = count;
	s->cons_sum = sum;
	return NULL;
}

static void run_stress(struct stress *s)
{
	pthread_t pt, ct;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(pthread_create(&ct, NULL, consumer, s), 0);
	assert_int_equal(pthread_create(&pt, NULL, producer, s), 0);
	assert_int_equal(pthread_join(pt, NULL), 0);
	assert_int_equal(pthread_join(ct, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct ss_ring_stats st;
	ss_ring_get_stats(&s->ring, &st);
	printf("# stress: %" PRIu64 " items cap %u seed %#" PRIx64 " %.2fs, publishes %" PRIu64
	       " full_stalls %" PRIu64 " wait_stalls %" PRIu64 "\n",
	       s->n, s->ring.capacity, s->seed,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       st.publishes, st.full_stalls, s->wait_stalls);
	if (s->bad)
		printf("# first bad item at #%" PRIu64 ": %#" PRIx64 " after %#" PRIx64 "\n",
		       s->bad_at, s->bad_val, s->bad_prev);
	assert_false(s->bad);
	assert_int_equal(s->cons_count, s->n);
	assert_int_equal(s->cons_hash, s->prod_hash);
	/* sum of base .. base+n-1, mod 2^64, computed in closed form */
	uint64_t n = s->n;
	uint64_t tri = (n % 2 == 0) ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
	assert_int_equal(s->cons_sum, s->base * n + tri);
	assert_int_equal(st.pushed, s->n);
	assert_true(ss_ring_empty(&s->ring));
}

static struct stress *stress_new(uint32_t cap, uint64_t n)
{
	struct stress *s = aligned_alloc(alignof(struct stress),
					 (sizeof(*s) + SS_CACHELINE - 1) & ~(size_t)(SS_CACHELINE - 1));
	assert_non_null(s);
	memset(s, 0, sizeof(*s));
	assert_int_equal(ss_ring_init(&s->ring, cap), 0);
	s->n = n;
	s->seed = env_u64("SS_RING_SEED", 0x5eed5eed1234abcdu);
	if (s->seed == 0)
		s->seed = 1; /* xorshift's fixed point */
	/* values cross 2^32 half-way, so a slot that kept only 32 bits would break order */
	s->base = (UINT64_C(0xa5a5) << 48) + UINT32_MAX - n / 2;
	atomic_init(&s->producer_done, false);
	return s;
}

static void stress_free(struct stress *s)
{
	ss_ring_destroy(&s->ring);
	free(s);
}

static void test_stress_two_threads(void **state)
{
	uint64_t n = env_u64("SS_RING_STRESS_ITEMS", 10000000);
	struct stress *s = stress_new(1024, n);
	s->max_burst = 3000; /* bigger than the ring: the producer meets a full ring */
	s->max_pop = 700;
	run_stress(s);
	stress_free(s);
}

/* push_wait against a deliberately slow consumer: back-pressure must be felt (stalls)
 * and nothing lost or reordered. */
static void test_push_wait_backpressure(void **state)
{
	uint64_t n = env_u64("SS_RING_STRESS_ITEMS", 10000000) / 50;
	if (n < 20000)
		n = 20000;
	struct stress *s = stress_new(8, n);
	s->max_burst = 40;
	s->max_pop = 5;
	s->use_wait = true;
	s->consumer_delay_every = 256;
	run_stress(s);
	struct ss_ring_stats st;
	ss_ring_get_stats(&s->ring, &st);
	assert_true(s->wait_stalls > 0);
	assert_int_equal(st.full_stalls, s->wait_stalls);
	stress_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_unpublished_invisible),
		cmocka_unit_test(test_full_eagain),
		cmocka_unit_test(test_pop_limits),
		cmocka_unit_test(test_wraparound_many),
		cmocka_unit_test(test_index_counter_wrap),
		cmocka_unit_test(test_stress_two_threads),
		cmocka_unit_test(test_push_wait_backpressure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
