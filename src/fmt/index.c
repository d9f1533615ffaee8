/*
 * Index tails (docs/kafka-format.md §3.4). The scanner needs only the last written slot
 * (where to start walking the log). Going backward over the zero tail finds it without
 * interpreting any slot before it; whether it agrees with the log is checked against the
 * log itself by the caller.
 */
#include "common/endian.h"
#include "fmt/index.h"

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
		struct ss_time_entry e = { ss_be64s(p), ss_be32s(p + 8) };
		if (ss_time_slot_used(e)) {
			if (entry)
				*entry = e;
			return first_slot + (int64_t)i;
		}
	}
	return -1;
}

void ss_index_tail_init(struct ss_index_tail *t, int64_t esz, int64_t file_size, size_t window_bytes)
{
	*t = (struct ss_index_tail){ .esz = esz, .best = -1 };
	t->nslots = file_size > 0 ? file_size / esz : 0;
	t->win = (int64_t)window_bytes / esz;
	if (t->win < 1)
		t->win = 1;
	if (t->nslots == 0) {
		t->done = true;
		return;
	}
	/* the last window first; a search, if needed, covers the windows before it */
	int64_t nwin = (t->nslots + t->win - 1) / t->win;
	t->probe = nwin - 1;
	t->lo = 0;
	t->hi = nwin - 1;
}

void ss_index_tail_window(const struct ss_index_tail *t, int64_t *off, size_t *len)
{
	int64_t first = t->probe * t->win;
	int64_t n = t->nslots - first < t->win ? t->nslots - first : t->win;
	*off = first * t->esz;
	*len = (size_t)(n * t->esz);
}

/* The last used slot in buf (relative, -1 none), its entry stored in t if `keep`. */
static int64_t last_in(struct ss_index_tail *t, const uint8_t *buf, size_t len, bool keep)
{
	struct ss_offset_entry oe;
	struct ss_time_entry te;
	int64_t i = t->esz == SS_OFFSET_ENTRY ? ss_offset_index_last(buf, len, 0, &oe)
					      : ss_time_index_last(buf, len, 0, &te);
	if (i >= 0 && keep) {
		if (t->esz == SS_OFFSET_ENTRY)
			t->offset = oe;
		else
			t->time = te;
	}
	return i;
}

void ss_index_tail_feed(struct ss_index_tail *t, const uint8_t *buf, int64_t got)
{
	size_t len = got > 0 ? (size_t)got : 0;
	int64_t first = t->probe * t->win;
	bool tail_probe = t->probe == t->hi; /* the initial look at the last window */
	bool first_used = len >= (size_t)t->esz && last_in(t, buf, (size_t)t->esz, false) == 0;
	/* a searched window counts only if it starts inside the written prefix */
	int64_t last = tail_probe || first_used ? last_in(t, buf, len, true) : -1;
	if (last >= 0)
		t->best = first + last;
	if (tail_probe) {
		if (last >= 0) {
			t->done = true;
			return;
		}
	} else if (first_used) {
		t->lo = t->probe + 1;
	} else {
		t->hi = t->probe;
	}
	if (t->lo >= t->hi) {
		t->done = true;
		return;
	}
	t->probe = t->lo + (t->hi - t->lo) / 2;
}
