/* The .log batch reader: see logread.h. */
#include <errno.h>
#include <string.h>

#include "source/logread.h"

int ss_logrd_open(struct ss_logrd *r, int fd, int64_t size, const struct ss_logrd_opts *o)
{
	static const struct ss_logrd_opts none;
	if (!o)
		o = &none;
	memset(r, 0, sizeof(*r));
	r->size = size < 0 ? 0 : size;
	r->end = o->has_end && o->end < r->size ? (o->end > 0 ? o->end : 0) : r->size;
	r->max_batch = o->max_batch;
	r->pos = o->start > 0 ? o->start : 0;
	r->at = r->pos;
	r->nonzero_at = -1;
	/* closed by ss_logrd_close */
	return ss_fwin_open(&r->w, fd, r->size,
			    &(struct ss_fwin_opts){ .chunk = o->chunk, .map = o->map, .on_read = o->on_read, .arg = o->arg });
}

void ss_logrd_close(struct ss_logrd *r)
{
	ss_fwin_close(&r->w);   /* pairs with the ss_fwin_open in ss_logrd_open */
}

static int stop(struct ss_logrd *r, enum ss_lr_stop why)
{
	r->stop = why;
	return 0;
}

static int stop_err(struct ss_logrd *r, ssize_t err)
{
	if (err == -ENOMEM)
		return -ENOMEM;
	r->err = (int)err;
	return stop(r, SS_LR_IO);
}

/*
 * The entry at r->at cannot be read whole (hr: ss_batch_header's answer for the bytes there,
 * h its header when hr > 0): the end of the data, and why. A file's data ends with zeros
 * when it was preallocated (or crashed before its length was trimmed): every byte to the
 * end of the file is checked, holes without reading them.
 */
static int classify_end(struct ss_logrd *r, int hr, const struct ss_batch_hdr *h)
{
	int64_t pos = r->at, nz = -1;
	if (hr > 0) {
		r->hdr = *h;
		r->has_hdr = true;
	}
	/* a header or batch cut by the caller's limit, not by the file */
	if (r->end < r->size && hr >= 0)
		return stop(r, SS_LR_CUT);
	r->left = r->size - pos;
	int z = ss_fwin_nonzero(&r->w, pos, r->size, &nz);
	if (z == 0)
		return stop(r, SS_LR_ZEROS);
	if (z < 0) {
		if (z == -ENOMEM)
			return -ENOMEM;
		r->zero_err = z;   /* not known to be zeros: the verdict below stands */
		nz = -1;
	}
	if (hr < 0) {
		r->err = hr;
		/* a header of zeros (its size field 0), then data further on */
		r->nonzero_at = nz >= pos + SS_HEADER_TO_MAGIC ? nz : -1;
		return stop(r, SS_LR_CORRUPT);
	}
	return stop(r, hr == 0 ? SS_LR_TORN_HEADER : SS_LR_TORN_BATCH);
}

int ss_logrd_next(struct ss_logrd *r, struct ss_lr_batch *b)
{
	if (r->stop)
		return 0;
	int64_t pos = r->pos;
	r->at = pos;
	if (pos >= r->end)
		return stop(r, SS_LR_END);
	const uint8_t *p;
	ssize_t got = ss_fwin_get(&r->w, pos, SS_MAX_HEADER_SIZE, r->end, &p);
	if (got < 0)
		return stop_err(r, got);
	struct ss_batch_hdr h;
	int hr = ss_batch_header(p, (size_t)got, &h);
	if (hr <= 0 || h.size > r->end - pos)
		return classify_end(r, hr, &h);
	if (r->max_batch > 0 && h.size > r->max_batch) {
		r->hdr = h;
		r->has_hdr = true;
		return stop(r, SS_LR_TOO_BIG);
	}
	b->h = h;
	b->pos = pos;
	b->data = NULL;
	r->pos = pos + h.size;
	return 1;
}

int ss_logrd_body(struct ss_logrd *r, struct ss_lr_batch *b)
{
	const uint8_t *p;
	b->data = NULL;
	r->at = b->pos;
	ssize_t got = ss_fwin_get(&r->w, b->pos, (size_t)b->h.size, r->end, &p);
	if (got < 0)
		return stop_err(r, got);
	if (got < b->h.size) {
		/* next() saw room for it: the file shrank under us */
		r->left = got;
		r->hdr = b->h;
		r->has_hdr = true;
		return stop(r, SS_LR_SHRANK);
	}
	b->data = p;
	return 0;
}

int ss_logrd_guarded(struct ss_logrd *r, void (*fn)(void *), void *arg)
{
	return ss_fwin_guarded(&r->w, fn, arg);
}
