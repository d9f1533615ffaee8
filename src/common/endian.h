/*
 * Big-endian loads and stores: Kafka's wire and on-disk formats are big-endian
 * throughout. One copy for the parsers, the encoders and the tests. memcpy-free byte
 * assembly compiles to a single bswap'd load on x86-64.
 */
#ifndef SS_COMMON_ENDIAN_H
#define SS_COMMON_ENDIAN_H

#include <stdint.h>

static inline uint16_t ss_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}
static inline uint32_t ss_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t ss_be64(const uint8_t *p)
{
	return (uint64_t)ss_be32(p) << 32 | ss_be32(p + 4);
}
/* Signed faces: the conversion of an out-of-range unsigned value is implementation-
 * defined in C11 and two's complement on every compiler this builds with (gcc, clang). */
static inline int16_t ss_be16s(const uint8_t *p) { return (int16_t)ss_be16(p); }
static inline int32_t ss_be32s(const uint8_t *p) { return (int32_t)ss_be32(p); }
static inline int64_t ss_be64s(const uint8_t *p) { return (int64_t)ss_be64(p); }

static inline void ss_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void ss_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}
static inline void ss_put_be64(uint8_t *p, uint64_t v)
{
	ss_put_be32(p, (uint32_t)(v >> 32));
	ss_put_be32(p + 4, (uint32_t)v);
}

#endif
