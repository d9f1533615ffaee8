/*
 * Checkpoint files (src/fmt/names.c): leader-epoch-checkpoint arrays and the offset
 * checkpoints (log-start-offset-checkpoint, recovery-point-offset-checkpoint, ...) on
 * arbitrary bytes. The epoch parser is called with a cap taken from the input, then
 * again with the count it reported, and both calls must agree entry by entry; the offset
 * parser's topics must be non-empty and point inside the input (a negative partition or
 * offset parses, as Kafka's Integer.parseInt does; its use is checked downstream).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/names.h"

struct span { const char *lo, *hi; unsigned n; };

static int off_cb(void *arg, const char *topic, size_t topic_len, int32_t partition, int64_t offset)
{
	struct span *s = arg;
	if (topic < s->lo || topic + topic_len > s->hi || !topic_len)
		abort();
	s->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t cap = data[0] % 8;
	size_t len = size - 1;
	char *text = malloc(len ? len : 1);
	if (!text)
		abort();
	memcpy(text, data + 1, len);

	struct ss_epoch_entry small[8];
	size_t n = 0;
	int line = -1;
	int r = ss_ckpt_parse_epochs(text, len, small, cap, &n, &line);
	if (r != 0 && line < 1)
		abort(); /* a format error names its line */
	if (r == 0 && n) {
		struct ss_epoch_entry *all = malloc(n * sizeof(*all));
		size_t n2 = 0;
		if (!all || ss_ckpt_parse_epochs(text, len, all, n, &n2, &line) != 0 || n2 != n)
			abort();
		for (size_t i = 0; i < n && i < cap; i++)
			if (all[i].epoch != small[i].epoch || all[i].start_offset != small[i].start_offset)
				abort();
		free(all);
	}

	struct span s = { text, text + len, 0 };
	line = -1;
	r = ss_ckpt_parse_offsets(text, len, off_cb, &s, &line);
	if (r != 0 && line < 1)
		abort();
	free(text);
	return 0;
}
