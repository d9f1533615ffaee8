/*
 * Record batch parsing on arbitrary bytes: the segment walker in both modes (the first
 * input byte picks the read size and whether the file "shrinks" under the walker), then
 * header / verify / count / foreach on every entry the framing yields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/batch.h"

static int touch_cb(void *arg, const struct ss_batch_hdr *h, const struct ss_record *r)
{
	unsigned *sum = arg;
	/* read every byte the parser hands out, so ASan checks the ranges */
	for (int32_t i = 0; i < r->key_len; i++)
		*sum += r->key[i];
	for (int32_t i = 0; i < r->value_len; i++)
		*sum += r->value[i];
	return 0;
}

static void walk(const uint8_t *data, size_t size, bool verify, size_t chunk, bool shrink)
{
	struct ss_walk w;
	/* a "shrinking" file claims more bytes than the reads will return */
	int64_t claimed = (int64_t)size + (shrink ? 100 : 0);
	ss_walk_init(&w, 0, claimed, 0, verify);
	long feeds = 0;
	while (!ss_walk_done(&w)) {
		if (w.want_len <= 0 || w.want_pos < 0 || w.want_pos >= w.file_size)
			abort();
		int64_t n = w.want_len > (int64_t)chunk ? w.want_len : (int64_t)chunk;
		int64_t avail = (int64_t)size - w.want_pos;
		if (avail < 0)
			avail = 0;
		if (n > avail)
			n = avail;
		uint8_t *b = malloc(n ? (size_t)n : 1); /* exact size: overreads are caught */
		if (!b)
			abort();
		if (n)
			memcpy(b, data + w.want_pos, (size_t)n);
		int64_t op = w.pos, owp = w.want_pos, owl = w.want_len;
		if (ss_walk_feed(&w, w.want_pos, b, (size_t)n) != 0)
			abort();
		free(b);
		if (!w.done && w.pos == op && w.want_pos == owp && w.want_len == owl)
			abort(); /* no progress: an infinite loop */
		if (++feeds > 10 * (long)size + 100)
			abort();
	}
	if (w.valid_bytes > w.file_size || w.truncated_bytes < 0 || w.valid_bytes + w.truncated_bytes > w.file_size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t chunk = data[0] & 0x7f;
	bool shrink = data[0] & 0x80;
	data++;
	size--;
	walk(data, size, false, chunk, shrink);
	walk(data, size, true, chunk, shrink);

	for (size_t pos = 0; pos < size;) {
		struct ss_batch_hdr h;
		uint8_t *e;
		int rc = ss_batch_header(data + pos, size - pos, &h);
		if (rc <= 0 || h.size > (int64_t)(size - pos))
			break;
		e = malloc((size_t)h.size);
		if (!e)
			abort();
		memcpy(e, data + pos, (size_t)h.size);
		(void)ss_batch_verify(e, &h);
		int64_t base;
		(void)ss_batch_count_records(e, &h, &base);
		unsigned sum = 0;
		(void)ss_batch_foreach_record(e, &h, touch_cb, &sum);
		free(e);
		pos += (size_t)h.size;
	}
	return 0;
}
