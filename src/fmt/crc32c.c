/*
 * CRC-32C: SSE4.2 crc32q with three interleaved streams, and a slice-by-8 fallback.
 *
 * The crc32 instruction has a latency of 3 cycles but a throughput of 1 per cycle, so
 * one dependent chain uses a third of the unit; three independent chains over adjacent
 * blocks fill it. The three partial CRCs are joined with the zero-extension operator:
 * crc(A || B) = shift_len(B)(crc(A)) ^ crc0(B), where crc0 starts from a zero state and
 * shift_n is the linear map "append n zero bytes", precomputed as 4 byte tables.
 *
 * Global state (documented, written once): the lookup tables and the CPU choice below
 * are filled by a pthread_once initializer and only read afterwards.
 */
#include <pthread.h>
#include <string.h>

#include "fmt/crc32c.h"

#define POLY 0x82F63B78u

#define LONG_BLOCK  8192
#define SHORT_BLOCK 256

static uint32_t sw_table[8][256];
static uint32_t long_shift[4][256];
static uint32_t short_shift[4][256];
static bool     have_hw;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* The table for "append n zero bytes" to a raw (unconditioned) CRC state. The map is
 * linear over GF(2), so its image of each of the 32 basis states determines it. */
static void build_shift(uint32_t t[4][256], size_t n)
{
	uint32_t basis[32];
	for (int bit = 0; bit < 32; bit++) {
		uint32_t v = 1u << bit;
		for (size_t i = 0; i < n; i++)
			v = (v >> 8) ^ sw_table[0][v & 0xff];
		basis[bit] = v;
	}
	for (int k = 0; k < 4; k++) {
		for (unsigned b = 0; b < 256; b++) {
			uint32_t v = 0;
			for (int j = 0; j < 8; j++)
				if (b & (1u << j))
					v ^= basis[8 * k + j];
			t[k][b] = v;
		}
	}
}

static void init_tables(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int j = 0; j < 8; j++)
			c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
		sw_table[0][i] = c;
	}
	for (unsigned i = 0; i < 256; i++)
		for (int k = 1; k < 8; k++)
			sw_table[k][i] = (sw_table[k - 1][i] >> 8) ^ sw_table[0][sw_table[k - 1][i] & 0xff];
	build_shift(long_shift, LONG_BLOCK);
	build_shift(short_shift, SHORT_BLOCK);
#if defined(__x86_64__)
	__builtin_cpu_init();
	have_hw = __builtin_cpu_supports("sse4.2");
#else
	have_hw = false;
#endif
}

static inline void ensure_tables(void)
{
	pthread_once(&tables_once, init_tables);
}

static inline uint64_t load64le(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

uint32_t ss_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ensure_tables();
	crc = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ sw_table[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint64_t w = load64le(p) ^ crc;
		uint32_t lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
		crc = sw_table[7][lo & 0xff] ^ sw_table[6][(lo >> 8) & 0xff] ^
		      sw_table[5][(lo >> 16) & 0xff] ^ sw_table[4][lo >> 24] ^
		      sw_table[3][hi & 0xff] ^ sw_table[2][(hi >> 8) & 0xff] ^
		      sw_table[1][(hi >> 16) & 0xff] ^ sw_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ sw_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

static inline uint32_t shift_crc(const uint32_t t[4][256], uint32_t crc)
{
	return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
}

#if defined(__x86_64__)
#include <nmmintrin.h>

/* Three streams over 3*blk bytes at p; returns the raw state after all of them. */
#define SS_CRC_3WAY(blk, table)                                                          \
	while (len >= 3 * (size_t)(blk)) {                                               \
		uint64_t c1 = 0, c2 = 0;                                                 \
		const uint8_t *end = p + (blk);                                          \
		do {                                                                     \
			c0 = _mm_crc32_u64(c0, load64le(p));                             \
			c1 = _mm_crc32_u64(c1, load64le(p + (blk)));                     \
			c2 = _mm_crc32_u64(c2, load64le(p + 2 * (blk)));                 \
			p += 8;                                                          \
		} while (p < end);                                                       \
		c0 = shift_crc(table, (uint32_t)c0) ^ (uint32_t)c1;                      \
		c0 = shift_crc(table, (uint32_t)c0) ^ (uint32_t)c2;                      \
		p += 2 * (size_t)(blk);                                                  \
		len -= 3 * (size_t)(blk);                                                \
	}

__attribute__((target("sse4.2")))
uint32_t ss_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t c0 = ~crc;
	/* Short buffers (a Kafka batch of one small record is ~150 bytes, verified one call
	 * each) take the single chain straight away: unaligned 8-byte loads cost x86 nothing
	 * here, and the tables are only for joining the long streams. */
	if (len >= 3 * (size_t)SHORT_BLOCK) {
		ensure_tables();
		while ((uintptr_t)p & 7) {  /* the streams' loads aligned */
			c0 = _mm_crc32_u8((uint32_t)c0, *p++);
			len--;
		}
		SS_CRC_3WAY(LONG_BLOCK, long_shift)
		SS_CRC_3WAY(SHORT_BLOCK, short_shift)
	}
	while (len >= 8) {
		c0 = _mm_crc32_u64(c0, load64le(p));
		p += 8;
		len -= 8;
	}
	if (len >= 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		c0 = _mm_crc32_u32((uint32_t)c0, v);
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		c0 = _mm_crc32_u16((uint32_t)c0, v);
		p += 2;
		len -= 2;
	}
	if (len)
		c0 = _mm_crc32_u8((uint32_t)c0, *p);
	return ~(uint32_t)c0;
}
#else
uint32_t ss_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
	return ss_crc32c_sw(crc, buf, len);
}
#endif

bool ss_crc32c_hw_available(void)
{
	ensure_tables();
	return have_hw;
}

uint32_t ss_crc32c(uint32_t crc, const void *buf, size_t len)
{
	ensure_tables();
	return have_hw ? ss_crc32c_hw(crc, buf, len) : ss_crc32c_sw(crc, buf, len);
}
