/* Index tails on arbitrary bytes; the first 8 bytes pick the first slot number. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t first = 0;
	if (size >= 8) {
		uint64_t v;
		memcpy(&v, data, 8);
		first = (int64_t)(v >> 34); /* large but far from overflow */
		data += 8;
		size -= 8;
	}
	uint8_t *b = malloc(size ? size : 1);
	if (!b)
		abort();
	memcpy(b, data, size);
	struct ss_offset_entry oe;
	struct ss_time_entry te;
	int64_t s = ss_offset_index_last(b, size, first, &oe);
	if (s != -1 && (s < first || s >= first + (int64_t)(size / SS_OFFSET_ENTRY) || !ss_offset_slot_used(oe)))
		abort();
	s = ss_time_index_last(b, size, first, &te);
	if (s != -1 && (s < first || s >= first + (int64_t)(size / SS_TIME_ENTRY) || !ss_time_slot_used(te)))
		abort();
	free(b);
	return 0;
}
