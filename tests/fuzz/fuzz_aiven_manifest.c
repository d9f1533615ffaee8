/*
 * Aiven segment manifests (fmt/aiven_manifest.h) on arbitrary bytes: no crash, no leak,
 * no decompression past the deserializer's 10 MiB, and sizes that make sense.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/aiven_manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ss_aiven_manifest m;
	char err[256];
	if (ss_aiven_manifest_parse((const char *)data, size, &m, err, sizeof(err)))
		return 0;
	if (m.original_size < 0 || m.original_chunk <= 0 || m.stored_log_size < 0 || m.indexes_size < 0)
		abort();
	if (m.fixed && m.chunks != ((uint64_t)m.original_size + (uint64_t)m.original_chunk - 1) / (uint64_t)m.original_chunk)
		abort();
	return 0;
}
