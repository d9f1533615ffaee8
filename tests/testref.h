/*
 * Reference implementations for the tests, written from the definitions and sharing no
 * code or table with src/: what the code under test is checked against.
 */
#ifndef SS_TESTREF_H
#define SS_TESTREF_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C by the textbook definition: reflected 0x82F63B78, one bit at a time. */
static inline uint32_t ref_crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
	}
	return ~c;
}

#endif
