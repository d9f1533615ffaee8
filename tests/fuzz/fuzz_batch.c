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

static void walk(const uint8_t *data, size_t size, bool verify, size_t chunk, bool shrink, int64_t whole_max,
		 struct ss_walk *out)
{
	struct ss_walk w;
	/* a "shrinking" file claims more bytes than the reads will return */
	int64_t claimed = (int64_t)size + (shrink ? 100 : 0);
	ss_walk_init(&w, 0, claimed, 0, verify);
	if (whole_max)
		w.whole_max = whole_max;
	long feeds = 0;
	while (!ss_walk_done(&w)) {
		if (w.want_len <= 0 || w.want_pos < 0 || w.want_pos >= w.file_size)
			abort();
		/* never more than whole_max (the zero-tail check aside): a header's claim is
		 * never what a reader must hold */
		if (w.want_len > w.whole_max && w.want_len > SS_V2_HEADER_SIZE && !w.zero_tail)
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
	*out = w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t chunk = data[0] & 0x7f;
	bool shrink = data[0] & 0x80;
	data++;
	size--;
	struct ss_walk fast, whole, pieces;
	walk(data, size, false, chunk, shrink, 0, &fast);
	walk(data, size, true, chunk, shrink, INT64_MAX, &whole);
	/* batches over 61 + chunk bytes checked in pieces: the same verdicts (record counts
	 * aside: a legacy wrapper's becomes unknown). When the file shrinks under the walk,
	 * whether a walk notices depends on where its reads end, so how the walk ends (a
	 * truncated tail at the old or the new end, or corruption past the new end) may
	 * differ; what it walked before may not. */
	walk(data, size, true, chunk, shrink, SS_V2_HEADER_SIZE + (int64_t)chunk, &pieces);
	if (whole.pos != pieces.pos || whole.valid_bytes != pieces.valid_bytes || whole.crc_errors != pieces.crc_errors ||
	    whole.last_offset != pieces.last_offset || (!shrink && whole.truncated_bytes != pieces.truncated_bytes) ||
	    whole.batches != pieces.batches ||
	    /* pieces never decompress a legacy wrapper, so they may miss a payload error the
	     * whole walk reports first; they may never report one it does not, or earlier */
	    (!shrink && pieces.err != 0 && (whole.err == 0 || pieces.err_pos < whole.err_pos)))
		abort();

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
