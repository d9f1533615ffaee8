/* Totals over a finished scan, shared by the table, json and prom writers. */
#include <inttypes.h>
#include <string.h>

#include "out/out.h"

void ss_out_summarize(const struct ss_results *r, struct ss_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	const char *prev = NULL;
	for (uint32_t i = 0; i < r->n_parts; i++) {
		const struct ss_part *p = &r->parts[i];
		const struct ss_eval *ev = p->eval;
		if (!prev || strcmp(prev, p->topic) != 0)
			sum->topics++;
		prev = p->topic;
		sum->segments += p->seg_count;
		if (ev)
			sum->findings += ev->n_findings;
		if (!ev || p->unreadable) {
			/* nothing of its sizes, tiering or remote tier is known */
			sum->size_unknown++;
			sum->tiered_unknown++;
			sum->remote_unknown++;
			sum->copy_lag_unknown++;
			continue;
		}
		if (ev->size_unknown)
			sum->size_unknown++;
		else
			sum->size_bytes += ev->size_bytes;
		bool tier_unk = ev->remote_storage < 0 && !ev->tiered;
		if (tier_unk)
			sum->tiered_unknown++;
		else if (ev->tiered)
			sum->tiered++;
		if (ev->remote_unknown) {
			sum->remote_unknown++;
		} else {
			sum->remote_segments += ev->remote_segments;
			sum->remote_bytes += ev->remote_bytes;
		}
		if (!ev->copy_lag_null) {
			sum->copy_lag_segments += ev->copy_lag_segments;
			sum->copy_lag_bytes += ev->copy_lag_bytes;
		} else if (ev->tiered || tier_unk) {
			sum->copy_lag_unknown++;   /* null for want of an input, not "not tiered" */
		}
		if (!ev->broker_copy_lag_null) {
			sum->broker_copy_lag_segments += ev->broker_copy_lag_segments;
			sum->broker_copy_lag_bytes += ev->broker_copy_lag_bytes;
		}
		if (!ev->only_local_null)
			sum->only_local_bytes += ev->only_local_bytes;
		sum->dangling_segments += ev->dangling_segments;
	}
	sum->errors = r->n_problems;
	for (uint32_t i = 0; i < r->n_segs; i++)
		if (ss_res_seg_failed(&r->segs[i]))
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
