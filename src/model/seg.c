/* The segment record's rare facts (model.h, struct ss_segx). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

const struct ss_segx ss_segx_none = { .err_pos = -1, .first_batch_base = -1, .crc_first_base = -1,
				      .crc_first_pos = -1 };

_Static_assert(sizeof(struct ss_seg) <= 72, "the per-segment budget (model.h)");

struct ss_segx *ss_seg_xget(struct ss_seg *s)
{
	if (!s->x && (s->x = malloc(sizeof(*s->x))))
		*s->x = ss_segx_none;
	return s->x;
}

void ss_seg_set_error(struct ss_seg *s, int err, uint32_t file, int64_t pos)
{
	struct ss_segx *x;
	/* The first error *recorded* wins. Not ss_seg_err(): its callers set
	 * SS_SEG_READ_ERROR before they call this, and without a record that flag reads as
	 * -ENOMEM, so every open that failed with EACCES was reported as "Cannot allocate
	 * memory" (issue 20 item 4). */
	if ((s->x && s->x->err) || !(x = ss_seg_xget(s)))
		return;
	x->err = err;
	x->err_file = file;
	x->err_pos = pos;
}

void ss_seg_init(struct ss_seg *s, int64_t base_offset, uint8_t files)
{
	memset(s, 0, sizeof(*s));
	s->base_offset = base_offset;
	s->files = files;
	s->last_offset = -1;
	s->max_timestamp_ms = -1;
	s->batches = s->records = SS_SEG_COUNT_UNKNOWN;
}

int ss_seg_copy(struct ss_seg *dst, const struct ss_seg *src)
{
	struct ss_segx *x = NULL;
	if (src->x) {
		if (!(x = malloc(sizeof(*x))))
			return -ENOMEM;
		*x = *src->x;
	}
	free(dst->x);
	*dst = *src;
	dst->x = x;
	return 0;
}

void ss_segs_free_x(struct ss_seg *segs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(segs[i].x);
		segs[i].x = NULL;
	}
}
