/*
 * Index tails (docs/kafka-format.md §3.4). The scanner needs only the last written slot
 * (where to start walking the log). Going backward over the zero tail finds it without
 * interpreting any slot before it; whether it agrees with the log is checked against the
 * log itself by the caller.
 */
#include "fmt/index.h"

static inline int64_t rd64s(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (int64_t)v;
}

static inline int32_t rd32s(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

int64_t ss_offset_index_last(const uint8_t *buf, size_t len, int64_t first_slot, struct ss_offset_entry *entry)
{
	if (!buf)
		return -1;
	for (size_t i = len / SS_OFFSET_ENTRY; i-- > 0;) {
		struct ss_offset_entry e = ss_offset_entry_at(buf + i * SS_OFFSET_ENTRY);
		if (ss_offset_slot_used(e)) {
			if (entry)
				*entry = e;
			return first_slot + (int64_t)i;
		}
	}
	return -1;
}

int64_t ss_time_index_last(const uint8_t *buf, size_t len, int64_t first_slot, struct ss_time_entry *entry)
{
	if (!buf)
		return -1;
	for (size_t i = len / SS_TIME_ENTRY; i-- > 0;) {
		const uint8_t *p = buf + i * SS_TIME_ENTRY;
		struct ss_time_entry e = { rd64s(p), rd32s(p + 8) };
		if (ss_time_slot_used(e)) {
			if (entry)
				*entry = e;
			return first_slot + (int64_t)i;
		}
	}
	return -1;
}
