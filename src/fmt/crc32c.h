/*
 * CRC-32C (Castagnoli), as Kafka's v2 record batches use it (docs/kafka-format.md §2.3):
 * reflected polynomial 0x82F63B78, init 0xFFFFFFFF, xorout 0xFFFFFFFF.
 *
 * Chaining convention (the same as zlib's crc32): pass 0 to start and the previous
 * result to continue; the init and final xor are applied inside, so
 *   ss_crc32c(ss_crc32c(0, a, n), b, m) == ss_crc32c(0, a||b, n + m)
 * and ss_crc32c(0, "123456789", 9) == 0xE3069283.
 *
 * ss_crc32c picks the SSE4.2 implementation at run time when the CPU has it, else the
 * portable slice-by-8 one. Thread-safe; the tables are built once on first use.
 */
#ifndef SS_FMT_CRC32C_H
#define SS_FMT_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint32_t ss_crc32c(uint32_t crc, const void *buf, size_t len);

/* The two implementations, for tests and benchmarks. ss_crc32c_hw must only be called
 * when ss_crc32c_hw_available() is true. */
uint32_t ss_crc32c_sw(uint32_t crc, const void *buf, size_t len);
uint32_t ss_crc32c_hw(uint32_t crc, const void *buf, size_t len);
bool     ss_crc32c_hw_available(void);

#endif
