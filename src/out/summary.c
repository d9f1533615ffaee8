/* Totals over a finished scan, shared by the table, json and prom writers. */
#include <inttypes.h>
#include <string.h>

#include "out/out.h"
#include "scan/scan_int.h"

void ss_out_summarize(const struct segscan_scan *s, struct ss_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	const char *prev = NULL;
	for (uint32_t i = 0; i < s->cat.n_parts; i++) {
		const struct ss_part *p = &s->cat.parts[i];
		const struct ss_eval *ev = p->eval;
		if (!prev || strcmp(prev, p->topic) != 0)
			sum->topics++;
		prev = p->topic;
		if (!ev)
			continue;
		sum->size_bytes += ev->size_bytes;
		if (ev->tiered)
			sum->tiered++;
		sum->remote_segments += ev->remote_segments;
		sum->remote_bytes += ev->remote_bytes;
		if (!ev->copy_lag_null) {
			sum->copy_lag_segments += ev->copy_lag_segments;
			sum->copy_lag_bytes += ev->copy_lag_bytes;
		}
		if (!ev->broker_copy_lag_null) {
			sum->broker_copy_lag_segments += ev->broker_copy_lag_segments;
			sum->broker_copy_lag_bytes += ev->broker_copy_lag_bytes;
		}
		if (!ev->only_local_null)
			sum->only_local_bytes += ev->only_local_bytes;
		sum->dangling_segments += ev->dangling_segments;
		sum->findings += ev->n_findings;
	}
	sum->errors = s->cat.n_problems;
	for (uint32_t i = 0; i < s->cat.n_segs; i++)
		if (s->cat.segs[i].err && !(s->cat.segs[i].flags & SS_SEG_VANISHED))
			sum->errors++;
}

const char *ss_human_bytes(int64_t b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int i = 0;
	if (b < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%" PRId64 " B", b);
	else
		snprintf(buf, len, v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, u[i]);
	return buf;
}

const char *ss_human_ms(int64_t ms, char *buf, size_t len)
{
	if (ms < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	int64_t s = ms / 1000, m = s / 60, h = m / 60, d = h / 24;
	if (d > 0)
		snprintf(buf, len, "%" PRId64 "d %" PRId64 "h", d, h % 24);
	else if (h > 0)
		snprintf(buf, len, "%" PRId64 "h %" PRId64 "m", h, m % 60);
	else if (m > 0)
		snprintf(buf, len, "%" PRId64 "m %" PRId64 "s", m, s % 60);
	else if (s > 0)
		snprintf(buf, len, "%" PRId64 ".%01" PRId64 "s", s, (ms % 1000) / 100);
	else
		snprintf(buf, len, "%" PRId64 "ms", ms);
	return buf;
}
