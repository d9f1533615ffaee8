/*
 * The evaluator thread: drains every worker's ring, counts each partition's segments in,
 * and evaluates a partition as soon as its last segment has arrived. It never touches the
 * filesystem; everything it reads was written by a worker before the ring publish.
 *
 * Invariants (ss_assert): every segment comes off a ring once, and only segments of
 * partitions that wait for them (not a reused one, not one already evaluated); a partition
 * is evaluated once, after all its segments are back; no more segments and partitions are
 * counted in than the catalog holds.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/assert.h"
#include "common/clock.h"
#include "common/probes.h"
#include "common/strtab.h"
#include "eval/config.h"
#include "eval/health.h"
#include "eval/remote.h"
#include "fmt/names.h"
#include "fmt/rlmm.h"
#include "scan/scan_int.h"
#include "source/broker_metrics.h"
#include "source/cluster.h"
#include "source/cluster_ctx.h"
#include "source/cluster_image.h"
#include "source/context.h"
#include "source/remote_topic.h"

#define POP_BURST 256

/* Progress through the scan's log sink (common/log.h throttles it): segments as they come
 * off the rings (reused ones too, so the count ends at the catalog's), partitions as they
 * are evaluated. */
static void progress(struct segscan_scan *s, uint64_t segs_in, uint64_t evaluated, bool end)
{
	void (*fn)(struct ss_logsink *, enum segscan_phase, enum segscan_unit, const char *, uint64_t, uint64_t) =
		end ? ss_progress_end : ss_progress;
	fn(&s->log, SEGSCAN_PHASE_SCAN, SEGSCAN_UNIT_ITEMS, "segments", segs_in, s->cat.n_segs);
	fn(&s->log, SEGSCAN_PHASE_EVALUATION, SEGSCAN_UNIT_ITEMS, "partitions", evaluated, s->cat.n_parts);
}

static void futex_wait(atomic_uint *addr, unsigned val, long ns)
{
	struct timespec ts = { 0, ns };
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

void ss_evaluator_kick(struct segscan_scan *s)
{
	/* seq_cst on both sides (here and in the evaluator's sleep path): either the
	 * evaluator sees our ev_seq bump before it sleeps, or we see ev_sleeping set and
	 * wake it. Partner: the ev_sleeping store / ev_seq load in ss_evaluator_main. */
	atomic_fetch_add(&s->ev_seq, 1);
	if (atomic_load(&s->ev_sleeping))
		syscall(SYS_futex, &s->ev_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static const char *cfg_key(const void *e);
static const char *msg_key(const void *e);

void *ss_evaluator_main(void *arg)
{
	struct segscan_scan *s = arg;
	struct ss_catalog *cat = &s->cat;
	uint64_t items[POP_BURST];
	unsigned idle_rounds = 0;
	unsigned seen = atomic_load(&s->ev_seq);
	double eval_time = 0;
	uint64_t segs_in = 0, evaluated = 0;   /* progress counts (this thread's own) */
	bool show = ss_progress_on(&s->log);

	pthread_setname_np(pthread_self(), "segscan-eval");
	s->cfgs.key = cfg_key; /* this thread's caches (ss_evaluate_partition) */
	s->msgs.key = msg_key;

	/* Partitions without segments, or taken whole from the previous scan, are complete
	 * before any worker reports. */
	for (uint32_t pi = 0; pi < cat->n_parts; pi++)
		if (cat->parts[pi].seg_count == 0 || cat->parts[pi].reused) {
			/* ss_workers_run queued none of its segments */
			ss_assert(cat->parts[pi].seg_pending == 0);
			double t0 = ss_mono();
			ss_evaluate_partition(s, pi);
			eval_time += ss_mono() - t0;
			evaluated++;
			segs_in += cat->parts[pi].seg_count;   /* none come through the rings */
		}

	for (;;) {
		/* acquire: pairs with the release increment at the end of worker_main; once
		 * every worker is done, their final publishes are visible to the pops below */
		bool all_done = atomic_load_explicit(&s->workers_done, memory_order_acquire) >= s->n_rings;
		uint64_t got = 0;
		for (unsigned i = 0; i < s->n_rings; i++) {
			uint32_t n;
			/* ss_ring_pop acquires the producer's published head (partner:
			 * ss_ring_publish in the worker) before we read the segments */
			while ((n = ss_ring_pop(&s->rings[i], items, POP_BURST)) > 0) {
				got += n;
				segs_in += n;
				for (uint32_t k = 0; k < n; k++) {
					ss_assert(items[k] < cat->n_segs);
					struct ss_seg *sg = &cat->segs[items[k]];
					struct ss_part *p = &cat->parts[sg->part];
					/* a segment twice, or one of a partition evaluated already (or
					 * never waiting: reused), would make the count wrap or evaluate
					 * the partition before its last segment is back */
					ss_assert(p->seg_pending > 0 && !p->reused);
					if (--p->seg_pending == 0) {
						double t0 = ss_mono();
						ss_evaluate_partition(s, sg->part);
						eval_time += ss_mono() - t0;
						evaluated++;
					}
				}
			}
		}
		if (show)
			progress(s, segs_in, evaluated, false);
		if (got) {
			idle_rounds = 0;
			continue;
		}
		if (all_done)
			break;
		/* Idle: spin a little (a publish is often imminent), then sleep until a worker
		 * publishes. The timeout only bounds progress-line latency and a worker that
		 * finished without a kick. */
		if (++idle_rounds < 16) {
			sched_yield();
			continue;
		}
		atomic_store(&s->ev_sleeping, 1);
		unsigned now_seq = atomic_load(&s->ev_seq);
		if (now_seq == seen)
			futex_wait(&s->ev_seq, now_seq, 20 * 1000 * 1000);
		atomic_store(&s->ev_sleeping, 0);
		seen = atomic_load(&s->ev_seq);
	}
	/* each partition evaluated at most once, each segment counted in at most once */
	ss_assert(evaluated <= cat->n_parts && segs_in <= cat->n_segs);
	if (show)
		progress(s, segs_in, evaluated, true);
	s->times.evaluate = eval_time;
	return NULL;
}

/* Is __remote_log_metadata-<m> among the scanned log dirs' partitions? (Discovery keeps
 * their paths; the directory name is parsed as it parsed it.) */
static bool rlmm_here(const struct segscan_scan *s, int32_t m)
{
	for (uint32_t i = 0; i < s->cat.n_rlmm_dirs; i++) {
		const char *d = s->cat.rlmm_dirs[i], *slash = strrchr(d, '/');
		struct ss_dirname dn;
		if (ss_dirname_parse(slash ? slash + 1 : d, &dn) == 0 && dn.partition == m)
			return true;
	}
	return false;
}

/* What the metadata log says about this partition (cluster_ctx.h). */
static void cluster_facts(const struct segscan_scan *s, const struct ss_part *p, struct ss_eval_cluster *ec)
{
	const struct ss_cluster_ctx *c = s->cluster;
	memset(ec, 0, sizeof(*ec));
	ec->node_id = ss_cluster_ctx_replica_node(c, p, &s->cat);
	/* a topic the replay does not know for sure (the metadata log was not read whole) is
	 * as if there were no metadata log: no assignment, no STRAY_PARTITION */
	if (!c || !c->mlog_used || !ss_cimage_topic_known(c->img, p->topic))
		return;
	ec->image = true;
	const struct ss_ci_topic *t = ss_cimage_topic(c->img, p->topic);
	if (!t)
		return;
	ec->topic_known = true;
	memcpy(ec->topic_id, t->id, 16);
	ec->topic_id_mismatch = p->has_topic_id && memcmp(p->topic_id, t->id, 16) != 0;
	const struct ss_ci_partition *cp = ss_ci_topic_partition(t, p->partition);
	if (!cp)
		return;
	ec->partition_known = true;
	ec->a = (struct ss_assignment){ .replicas = cp->replicas, .isr = cp->isr, .n_replicas = cp->n_replicas,
					.n_isr = cp->n_isr, .leader = cp->leader, .leader_epoch = cp->leader_epoch };
}

/* Where remote state for this partition could come from, when no source gave any:
 * known to be empty (its metadata partition is here, read whole), or why unknown. */
static void remote_coverage(const struct segscan_scan *s, const struct ss_part *p, const struct ss_eval_cluster *ec,
			    struct ss_eval_input *in, char *why, size_t n)
{
	const struct ss_cluster_ctx *c = s->cluster;
	if (s->remote_source && strcmp(s->remote_source, SS_SOURCE_REMOTE_STATE) == 0) {
		snprintf(why, n, "the --remote-state file has no event for it");
		in->remote_unknown_why = why;
		return;
	}
	if (s->remote_source && strcmp(s->remote_source, SS_SOURCE_CLUSTER) == 0 && p->has_topic_id) {
		/* the live cluster's metadata partition for this partition (placed by its
		 * partition.metadata topic id) was read to its high watermark: none of its
		 * events means nothing copied yet */
		in->remote_known_empty = true;
		in->remote_empty_source = SS_SOURCE_CLUSTER;
		return;
	}
	if (s->remote_source && strcmp(s->remote_source, SS_SOURCE_METADATA_TOPIC) == 0) {
		const uint8_t *id = p->has_topic_id ? p->topic_id : ec->topic_known ? ec->topic_id : NULL;
		int32_t np = c ? c->rlmm_partitions : -1;
		int32_t m = id && np > 0 ? ss_rlmm_metadata_partition(id, p->partition, np) : -1;
		if (m >= 0 && rlmm_here(s, m)) {
			in->remote_known_empty = true;
			in->remote_empty_source = SS_SOURCE_METADATA_TOPIC;
			return;
		}
		if (m >= 0)
			snprintf(why, n, "its metadata is in __remote_log_metadata-%d, which is not in the scanned log dirs "
				 "(another broker hosts it; --bootstrap-server reads it from the cluster)", m);
		else if (!id)
			snprintf(why, n, "its topic id is unknown, so the __remote_log_metadata partition that holds its "
				 "metadata cannot be told, and the local ones have no event for it");
		else
			snprintf(why, n, "the partition count of __remote_log_metadata is unknown without the metadata "
				 "log, and the local metadata partitions have no event for it");
		in->remote_unknown_why = why;
		return;
	}
	if (s->opts.bootstrap_server && strcmp(s->opts.remote_metadata, "off") != 0 &&
	    strcmp(s->opts.remote_metadata, "local") != 0)
		snprintf(why, n, "the remote metadata could not be read from the cluster (%s): the report's "
			 "errors say why", s->opts.bootstrap_server);
	else if (s->cat.n_rlmm_dirs == 0)
		snprintf(why, n, "no __remote_log_metadata partition is in the scanned log dirs and no "
			 "--remote-state or --bootstrap-server was given");
	else
		snprintf(why, n, "remote metadata was not read (--remote-metadata=%s)", s->opts.remote_metadata);
	in->remote_unknown_why = why;
}

struct ss_cfg_slot {
	struct ss_topic_cfg cfg;
	char                topic[]; /* the key */
};

static const char *cfg_key(const void *e) { return ((const struct ss_cfg_slot *)e)->topic; }
static const char *msg_key(const void *e) { return e; }

void ss_cfg_cache_free(struct segscan_scan *s)
{
	ss_strtab_free(&s->msgs, true);
	ss_strtab_free(&s->cfgs, true);
}

/*
 * The topic's effective config, resolved once per scan: every partition of a topic has
 * the same one (the levels are topic, broker and default; the dynamic ones are fixed for
 * the scan), and its evaluation keeps pointing at it (ss_eval.config), so a million
 * partitions hold one copy per topic, not one each. NULL on allocation failure.
 */
static const struct ss_topic_cfg *topic_cfg(struct segscan_scan *s, const char *topic)
{
	struct ss_cfg_slot *c;
	if ((c = ss_strtab_get(&s->cfgs, topic)))
		return &c->cfg;
	size_t tl = strlen(topic) + 1;
	if (!(c = malloc(sizeof(*c) + tl)))
		return NULL;
	memcpy(c->topic, topic, tl);
	struct ss_cfg_dynamic dyn;
	bool have_dyn = ss_cluster_ctx_dynamic(s->cluster, &dyn);
	ss_config_resolve_ctx(s->config, have_dyn ? &dyn : NULL, topic, &c->cfg);
	if (ss_strtab_add(&s->cfgs, c)) {
		free(c);
		return NULL;
	}
	return &c->cfg;
}

/*
 * Hold each distinct finding message once per scan: a finding that is not about a
 * partition's own segments reads the same on every partition it is raised on
 * (REMOTE_STATE_UNKNOWN on 40,000 partitions is 17 MB of copies otherwise). The scan
 * takes the message over; on allocation failure the finding keeps its own.
 */
static void share_messages(struct segscan_scan *s, struct ss_eval *ev)
{
	for (uint32_t i = 0; i < ev->n_findings; i++) {
		struct ss_finding *f = &ev->findings[i];
		if (!f->message || f->message_shared)
			continue;
		char *held = ss_strtab_get(&s->msgs, f->message);
		if (held) {
			free(f->message);
			f->message = held;
		} else if (ss_strtab_add(&s->msgs, f->message)) {
			return;
		}
		f->message_shared = true;
	}
}

/*
 * What the metadata log says of __remote_log_metadata and the tiered topics (eval/health.h),
 * once per scan, on the evaluator thread (the only one that calls it). Nothing is known
 * without a metadata log, or for a topic the replay does not know for sure.
 */
static const struct ss_health_rlmm *rlmm_facts(struct segscan_scan *s)
{
	static const char RLMM[] = "__remote_log_metadata";
	struct ss_health_rlmm *m = &s->rlmm;
	const struct ss_cluster_ctx *c = s->cluster;
	if (s->rlmm_ready)
		return m->exists ? m : NULL;
	s->rlmm_ready = true;
	memset(m, 0, sizeof(*m));
	if (!c || !c->mlog_used || !ss_cimage_topic_known(c->img, RLMM))
		return NULL;
	const struct ss_ci_topic *t = ss_cimage_topic(c->img, RLMM);
	const struct ss_topic_cfg *cfg = topic_cfg(s, RLMM);
	if (!t || !cfg)
		return NULL;
	m->exists = true;
	m->retention_ms = cfg->retention_ms;
	m->retention_bytes = cfg->retention_bytes;
	const struct ss_cfg_entry *en = ss_cfg_entry_find(cfg, "retention.ms");
	m->retention_ms_src = en ? en->source : NULL;
	en = ss_cfg_entry_find(cfg, "retention.bytes");
	m->retention_bytes_src = en ? en->source : NULL;
	struct ss_cfg_dynamic dyn;
	bool have_dyn = ss_cluster_ctx_dynamic(c, &dyn);
	int64_t v;
	const char *src;
	if (ss_config_resolve_long(s->config, have_dyn ? &dyn : NULL, RLMM, "min.insync.replicas", "min.insync.replicas",
				   s->config ? s->config->min_isr : -1, 1, &v, &src)) {
		m->min_isr = v;
		m->min_isr_src = src;
	}
	m->rf = -1;
	m->partitions = (int32_t)t->n_parts;
	for (uint32_t i = 0; i < t->n_parts; i++)
		if (m->rf < 0 || (int32_t)t->parts[i].n_replicas < m->rf)
			m->rf = (int32_t)t->parts[i].n_replicas;
	m->brokers = (ss_cimage_lost(c->img) & SS_CI_LOST_BROKERS) ? -1 : (int32_t)ss_cimage_broker_count(c->img);
	/* the tiered topics and the longest retention among them */
	m->max_tiered_known = true;
	for (size_t i = 0, n = ss_cimage_topic_count(c->img); i < n; i++) {
		const struct ss_ci_topic *u = ss_cimage_topic_at(c->img, i);
		const struct ss_topic_cfg *uc = u ? topic_cfg(s, u->name) : NULL;
		if (!uc || uc->remote_storage != 1 || uc->compact)
			continue;
		m->tiered_topics++;
		const struct ss_cfg_entry *ue = ss_cfg_entry_find(uc, "retention.ms");
		if (!ue || !ue->source) {
			m->max_tiered_known = false;
			continue;
		}
		bool longer = !m->max_tiered_topic ||
			      (m->max_tiered_retention_ms >= 0 &&
			       (uc->retention_ms < 0 || uc->retention_ms > m->max_tiered_retention_ms));
		if (longer) {
			m->max_tiered_retention_ms = uc->retention_ms;
			m->max_tiered_topic = u->name;
		}
	}
	return m;
}

const struct ss_eval_release *ss_scan_release(const struct segscan_scan *s, struct ss_eval_release *rel)
{
	if (!s->cluster || (!s->cluster->has_version && s->cluster->mv_supported_max <= 0))
		return NULL;
	memset(rel, 0, sizeof(*rel));
	rel->known = s->cluster->has_version;
	rel->v = s->cluster->version;
	rel->mv_level = s->cluster->mv_supported_max;
	rel->text = s->cluster->version_text[0] ? s->cluster->version_text : NULL;
	return rel;
}

int ss_evaluate_partition(struct segscan_scan *s, uint32_t pi)
{
	struct ss_part *p = &s->cat.parts[pi];
	const struct ss_topic_cfg *cfg;
	struct ss_eval_input in;
	struct ss_eval_cluster ec;
	struct ss_eval_release rel;
	char why[320];
	int r;

	/* every segment of the partition is back from the workers (or none was read) */
	ss_assert(pi < s->cat.n_parts && p->seg_pending == 0);
	if (!(cfg = topic_cfg(s, p->topic))) {
		p->eval = NULL;
		return -ENOMEM;
	}
	memset(&in, 0, sizeof(in));
	cluster_facts(s, p, &ec);
	in.cluster = &ec;
	in.release = ss_scan_release(s, &rel);
	in.metadata_log = strcmp(p->topic, "__cluster_metadata") == 0 && p->partition == 0;
	in.rlmm = rlmm_facts(s);
	in.horizon_ms = s->opts.horizon_ms;
	in.disable_tiering = s->opts.disable_tiering && strcmp(s->opts.disable_tiering, p->topic) == 0;
	in.broker_gauges = ss_scan_gauges_of(s, p);
	in.topic_gauges = ss_bm_topic(in.broker_gauges, p->topic);
	in.part = p;
	in.segs = &s->cat.segs[p->seg_first];
	in.cfg = cfg;
	in.remote = s->remote ? ss_remote_find(s->remote, p->topic, p->partition,
					       p->has_topic_id ? p->topic_id : NULL) : NULL;
	in.remote_source = s->remote_source;
	/* the last --seed for a partition wins, as with any repeated option */
	for (uint32_t i = 0; i < s->opts.n_seeds; i++)
		if (s->opts.seeds[i].partition == p->partition && strcmp(s->opts.seeds[i].topic, p->topic) == 0) {
			in.has_seed = true;
			in.seed = s->opts.seeds[i].offset;
		}
	in.now_ms = s->opts.now_ms;
	in.dangling_after_ms = s->opts.dangling_after_ms;
	char swhy[160];
	if (s->opts.has_stuck_after) {
		in.stuck_after_ms = s->opts.stuck_after_ms;
		in.stuck_after_why = "--stuck-after";
	} else {
		int64_t iv = s->config ? s->config->rlm_task_interval_ms : -1;
		in.stuck_after_ms = ss_health_default_stuck_after(iv);
		snprintf(swhy, sizeof(swhy), "--stuck-after's default: 10 x remote.log.manager.task.interval.ms %lld%s, "
			 "at least 5 minutes", (long long)(iv > 0 ? iv : SS_RLM_TASK_INTERVAL_DEFAULT_MS),
			 iv > 0 ? " (server.properties)" : " (Kafka's default; the broker's own is not known)");
		in.stuck_after_why = swhy;
	}
	char twhy[1024];
	const uint8_t *tid = p->has_topic_id ? p->topic_id : ec.topic_known ? ec.topic_id : NULL;
	if (!in.has_seed && s->remote_taint && ss_remote_taint_concerns(s->remote_taint, tid, p->partition, twhy,
									 sizeof(twhy))) {
		/* a corrupt metadata batch could hold its events: unknown, not replayed without them */
		in.remote = NULL;
		in.remote_unknown_why = twhy;
		in.remote_tainted = true;
	} else if (!in.has_seed && !(in.remote && ss_remote_has_metadata(in.remote))) {
		remote_coverage(s, p, &ec, &in, why, sizeof(why));
	}
	r = ss_eval_partition(&in, &p->eval);
	if (r)
		p->eval = NULL;
	else
		share_messages(s, p->eval);
	SS_PROBE_PARTITION_EVALUATED(pi, p->seg_count);
	return r;
}
