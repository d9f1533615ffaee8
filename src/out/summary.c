/* Totals over a finished scan, shared by the table, json and prom writers. */
#include <inttypes.h>
#include <string.h>

#include "out/out.h"

void ss_out_summarize(const struct ss_results *r, struct ss_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	const char *prev = NULL;
	struct ss_once once = { 0 };   /* partition-wide figures: once per partition, not per replica */
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
			sum->delete_lag_unknown++;
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
		ss_once_row(&once, p);
		if (ev->remote_unknown) {
			/* every replica lacks the same remote state: one unknown partition */
			sum->remote_unknown += ss_once_add(&once, 7, 1);
		} else {
			sum->remote_segments += ss_once_add(&once, 0, ev->remote_segments);
			sum->remote_bytes += ss_once_add(&once, 1, ev->remote_bytes);
		}
		/* only the leader's replica has them: a follower's are null, the leader's to
		 * count, and no unknown member */
		if (!ev->copy_lag_null) {
			sum->copy_lag_segments += ss_once_add(&once, 2, ev->copy_lag_segments);
			sum->copy_lag_bytes += ss_once_add(&once, 3, ev->copy_lag_bytes);
		} else if ((ev->tiered || tier_unk) && ev->role != SS_ROLE_FOLLOWER) {
			sum->copy_lag_unknown++;   /* null for want of an input, not "not tiered" */
		}
		if (!ev->broker_copy_lag_null) {
			sum->broker_copy_lag_segments += ss_once_add(&once, 4, ev->broker_copy_lag_segments);
			sum->broker_copy_lag_bytes += ss_once_add(&once, 5, ev->broker_copy_lag_bytes);
		}
		/* the leader's row (or one whose role is unknown) has it, a follower's is null */
		if (!ev->delete_lag_null) {
			sum->delete_lag_segments += ss_once_add(&once, 8, ev->delete_lag_segments);
			sum->delete_lag_bytes += ss_once_add(&once, 9, ev->delete_lag_bytes);
		} else if (ev->delete_lag_unknown) {
			sum->delete_lag_unknown++;
		}
		if (!ev->only_local_null)
			sum->only_local_bytes += ev->only_local_bytes;   /* each replica's own disk */
		sum->dangling_segments += ss_once_add(&once, 6, ev->dangling_segments);
	}
	for (uint32_t i = 0; i < r->n_topic_dellag; i++)
		sum->findings += r->topic_dellag[i].n_findings;   /* a broker's, per topic */
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
