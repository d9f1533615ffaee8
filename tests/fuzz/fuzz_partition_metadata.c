/*
 * partition.metadata (src/fmt/names.c, Kafka's PartitionMetadataFile) on arbitrary bytes.
 * An accepted file's topic id formats back to 22 base64url characters that parse to the
 * same id; a refused one names its line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	uint8_t id[16], back[16];
	int line = -1;
	int r = ss_partition_metadata_parse(text, size, id, &line);
	if (r == 0) {
		char s[23];
		ss_uuid_format(id, s);
		if (strlen(s) != 22 || ss_uuid_parse(s, 22, back) != 0 || memcmp(back, id, 16) != 0)
			abort();
	} else if (line < 1 || line > 2) {
		abort();
	}
	if (size <= 64)
		(void)ss_uuid_parse(text, size, back);
	free(text);
	return 0;
}
