/* Directory names, file names, checkpoint files and partition.metadata on arbitrary
 * bytes. Names get a NUL-terminated copy; file contents an exact-size one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/names.h"

static int off_cb(void *arg, const char *topic, size_t topic_len, int32_t partition, int64_t offset)
{
	unsigned *sum = arg;
	for (size_t i = 0; i < topic_len; i++)
		*sum += (unsigned char)topic[i];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1);
	char *text = malloc(size ? size : 1);
	if (!name || !text)
		abort();
	memcpy(name, data, size);
	name[size] = 0;
	memcpy(text, data, size);

	struct ss_dirname d;
	if (ss_dirname_parse(name, &d) == 0) {
		size_t n = strlen(name);
		if (d.topic != name || d.topic_len == 0 || d.topic_len >= n || d.partition < 0)
			abort();
	}
	int64_t off;
	enum ss_file_kind inner;
	(void)ss_file_classify(name, &off, &inner);

	int line;
	unsigned sum = 0;
	(void)ss_ckpt_parse_offsets(text, size, off_cb, &sum, &line);
	struct ss_epoch_entry ep[4];
	size_t n;
	(void)ss_ckpt_parse_epochs(text, size, ep, 4, &n, &line);
	uint8_t id[16];
	(void)ss_partition_metadata_parse(text, size, id, &line);
	free(name);
	free(text);
	return 0;
}
