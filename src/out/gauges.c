/*
 * --broker-metrics in the reports: each broker's own RemoteCopyLag* and RemoteDeleteLag* gauges,
 * per topic, beside segscan's reproduction of the copy-lag gauge's rule for the broker's
 * release (broker_copy_lag) summed over the same partitions the gauge covers: those of the
 * topic on that broker that it leads (a follower's row counts nowhere; a row whose role is
 * unknown counts, as the evaluator evaluates it from its own log).
 *
 * Listed once per broker and topic, never on a partition's row: Kafka publishes the gauge
 * per topic only (BrokerTopicAggregatedMetric over the partitions the broker leads), so a
 * value repeated on each of a topic's rows would be counted once per partition by anything
 * that sums the rows. Each broker's gauge covers the partitions it leads and no other
 * broker's, so the values may be summed over brokers, per topic.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "out/jw.h"
#include "out/out.h"

/* segscan's broker_copy_lag over the partitions of topic that g's broker leads in the view */
struct repro {
	int64_t  segments, bytes;
	uint32_t partitions;   /* led (or of unknown role), tiered */
	uint32_t rows;         /* any of the topic's rows on that broker */
	bool     unknown;
};

static bool on_broker(const struct ss_results *r, const struct ss_broker_gauges *g, const struct ss_part *p)
{
	return g->node_id < 0 || r->logdirs[p->logdir].node_id == g->node_id;
}

/* Over every partition of the scan, not only those a --partition, --topic or --findings-only
 * filter reports: the gauge covers them all. */
static struct repro reproduce(const struct ss_results *r, const struct ss_broker_gauges *g, const char *topic)
{
	struct repro x = { 0 };
	const struct ss_part *ps = r->all_parts ? r->all_parts : r->parts;
	uint32_t n = r->all_parts ? r->n_all_parts : r->n_parts;
	for (uint32_t i = 0; i < n; i++) {
		const struct ss_part *p = &ps[i];
		const struct ss_eval *ev = p->eval;
		if (strcmp(p->topic, topic) || !on_broker(r, g, p))
			continue;
		x.rows++;
		if (!ev) {
			x.unknown = true;   /* unevaluated: whether it is led, tiered, lagging is unknown */
			continue;
		}
		if (!ev->tiered || ev->role == SS_ROLE_FOLLOWER)
			continue;
		x.partitions++;
		if (ev->broker_copy_lag_null) {
			x.unknown = true;
			continue;
		}
		x.segments += ev->broker_copy_lag_segments;
		x.bytes += ev->broker_copy_lag_bytes;
	}
	return x;
}

static void gauge_pair(struct ss_jw *w, const char *k, const struct ss_gauge *segs, const struct ss_gauge *bytes)
{
	ss_jw_key(w, k);
	ss_jw_obj(w);
	ss_jw_ki64n(w, "segments", segs->present, segs->value);
	ss_jw_ki64n(w, "size_bytes", bytes->present, bytes->value);
	ss_jw_obj_end(w);
}

static void topic_json(struct ss_jw *w, const struct ss_results *r, const struct ss_broker_gauges *g,
		       const struct ss_topic_gauges *t)
{
	struct repro x = reproduce(r, g, t->topic);
	ss_jw_obj(w);
	ss_jw_kstr(w, "topic", t->topic);
	gauge_pair(w, "copy_lag", &t->copy_lag_segments, &t->copy_lag_bytes);
	gauge_pair(w, "delete_lag", &t->delete_lag_segments, &t->delete_lag_bytes);
	ss_jw_key(w, "segscan_copy_lag");
	if (x.unknown || !x.partitions) {
		ss_jw_null(w);
	} else {
		ss_jw_obj(w);
		ss_jw_ki64(w, "segments", x.segments);
		ss_jw_ki64(w, "size_bytes", x.bytes);
		ss_jw_obj_end(w);
	}
	ss_jw_ki64(w, "partitions", x.partitions);
	ss_jw_obj_end(w);
}

void ss_out_gauges_json(struct ss_jw *w, const struct ss_results *r)
{
	if (!r->n_gauges)
		return;
	ss_jw_key(w, "broker_metrics");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < r->n_gauges; i++) {
		const struct ss_broker_gauges *g = r->gauges[i];
		ss_jw_obj(w);
		ss_jw_ki64n(w, "node_id", g->node_id >= 0, g->node_id);
		ss_jw_kstr(w, "url", g->url);
		ss_jw_kbool(w, "ok", g->ok);
		ss_jw_kstr(w, "error", g->ok ? NULL : g->error);
		ss_jw_ki64(w, "read_at_ms", g->read_at_ms);
		ss_jw_key(w, "topics");
		ss_jw_arr(w);
		for (size_t k = 0; g->ok && k < g->n; k++)
			topic_json(w, r, g, &g->topics[k]);
		ss_jw_arr_end(w);
		ss_jw_obj_end(w);
	}
	ss_jw_arr_end(w);
}

static const char *gauge_text(const struct ss_gauge *s, const struct ss_gauge *b, char *buf, size_t len)
{
	char hb[32];
	if (!s->present && !b->present)
		return "?";
	if (s->present)
		snprintf(buf, len, "%" PRId64 " seg/", s->value);
	else
		snprintf(buf, len, "? seg/");
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, "%s", b->present ? ss_human_bytes(b->value, hb, sizeof(hb)) : "?");
	return buf;
}

static void topic_line(FILE *f, const struct ss_results *r, const struct ss_broker_gauges *g,
		       const struct ss_topic_gauges *t)
{
	char a[64], b[64], c[96], hb[32];
	struct repro x = reproduce(r, g, t->topic);
	if (!x.partitions && !x.unknown)
		snprintf(c, sizeof(c), "0 seg/0 B: it leads none of the %u scanned here", x.rows);
	else if (x.unknown)
		snprintf(c, sizeof(c), "? over %u partition%s", x.partitions, x.partitions == 1 ? "" : "s");
	else
		snprintf(c, sizeof(c), "%" PRId64 " seg/%s over %u partition%s", x.segments,
			 ss_human_bytes(x.bytes, hb, sizeof(hb)), x.partitions, x.partitions == 1 ? "" : "s");
	fputs("  ", f);
	ss_out_table_text(f, t->topic);
	fprintf(f, "  copy lag %s (segscan's reproduction: %s), delete lag %s\n",
		gauge_text(&t->copy_lag_segments, &t->copy_lag_bytes, a, sizeof(a)), c,
		gauge_text(&t->delete_lag_segments, &t->delete_lag_bytes, b, sizeof(b)));
}

/* The scanned tiered topics on g's broker the endpoint has no gauge for: unknown, not 0
 * (the view's partitions are sorted by topic: each topic is looked up once) */
static size_t absent_topics(const struct ss_results *r, const struct ss_broker_gauges *g, FILE *f)
{
	size_t n = 0;
	for (uint32_t i = 0; i < r->n_parts; i++) {
		const struct ss_part *p = &r->parts[i];
		if (i && !strcmp(r->parts[i - 1].topic, p->topic))
			continue;
		bool tiered = false;
		for (uint32_t k = i; k < r->n_parts && !strcmp(r->parts[k].topic, p->topic) && !tiered; k++)
			tiered = on_broker(r, g, &r->parts[k]) && r->parts[k].eval && r->parts[k].eval->tiered;
		bool listed = false;
		for (size_t k = 0; k < g->n && !listed; k++)
			listed = !strcmp(g->topics[k].topic, p->topic);
		if (!tiered || listed)
			continue;
		fputs("  ", f);
		ss_out_table_text(f, p->topic);
		fputs("  ? (the endpoint has none of the four series for this topic)\n", f);
		n++;
	}
	return n;
}

void ss_out_gauges_table(const struct ss_results *r, FILE *f)
{
	for (uint32_t i = 0; i < r->n_gauges; i++) {
		const struct ss_broker_gauges *g = r->gauges[i];
		char node[32] = "";
		if (g->node_id >= 0)
			snprintf(node, sizeof(node), "node %d, ", g->node_id);
		fprintf(f, "\nBroker metrics (%s", node);
		ss_out_table_text(f, g->url ? g->url : "?");
		if (!g->ok) {
			fputs("): unknown: ", f);
			ss_out_table_text(f, g->error ? g->error : "?");
			fputc('\n', f);
			continue;
		}
		fputs("), per topic, what the broker reports (RemoteCopyLag*, RemoteDeleteLag*: the partitions it "
		      "leads):\n", f);
		size_t shown = 0;
		for (size_t k = 0; k < g->n; k++) {
			struct repro x = reproduce(r, g, g->topics[k].topic);
			/* the topics of this scan (the endpoint lists every topic the broker has) */
			if (!x.rows)
				continue;
			topic_line(f, r, g, &g->topics[k]);
			shown++;
		}
		shown += absent_topics(r, g, f);
		if (!shown)
			fputs("  (none of the scanned topics)\n", f);
	}
}
