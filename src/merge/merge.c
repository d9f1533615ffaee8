/* The pure merge of `segscan merge`: see merge.h and model/cluster.h. */
#include "merge/merge.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/darray.h"
#include "common/esc.h"
#include "segscan.h"

/* One row of one report, for sorting. */
struct ref {
	uint32_t                 in;
	const struct ss_rep_row *row;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->row->topic, y->row->topic);
	if (c)
		return c;
	if (x->row->partition != y->row->partition)
		return x->row->partition < y->row->partition ? -1 : 1;
	if (x->row->node_id != y->row->node_id)
		return x->row->node_id < y->row->node_id ? -1 : 1;
	return x->in < y->in ? -1 : x->in > y->in;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* A message naming input bytes: the caller prints err as one line. */
static int mismatch(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return SEGSCAN_EMISMATCH;
}

static int add_finding(struct ss_cpart *p, uint32_t *cap, const char *code, const char *fmt, ...)
{
	struct ss_cfinding *f;
	char msg[1024];
	va_list ap;
	int r;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if ((r = SS_DA_PUSH(&p->findings, &p->n_findings, cap, &f)) < 0)
		return r;
	f->code = code;
	/* the message holds topic names and inputs from the reports: one line, escaped */
	if (!(f->message = ss_esc_line(msg)))
		return -ENOMEM;
	return 0;
}

static int add_why(struct ss_cluster *c, uint32_t *cap, const char *fmt, ...)
{
	char msg[1024], **slot;
	va_list ap;
	int r;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if ((r = SS_DA_PUSH(&c->why, &c->n_why, cap, &slot)) < 0)
		return r;
	if (!(*slot = ss_esc_line(msg)))
		return -ENOMEM;
	return 0;
}

/* The cluster's nodes that have a report: each report's broker and every row's node. */
struct nodeset {
	int64_t *v;
	uint32_t n, cap;
};

static int nodes_add(struct nodeset *s, int64_t id)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->v[i] == id)
			return 0;
	int64_t *slot;
	int r = SS_DA_PUSH(&s->v, &s->n, &s->cap, &slot);
	if (r < 0)
		return r;
	*slot = id;
	return 0;
}

static bool nodes_has(const struct nodeset *s, int64_t id)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->v[i] == id)
			return true;
	return false;
}

static bool same_assignment(const struct ss_rep_row *a, const struct ss_rep_row *b)
{
	return a->n_replicas == b->n_replicas && !memcmp(a->replicas, b->replicas, a->n_replicas * sizeof(int32_t)) &&
	       a->leader == b->leader;
}

static bool remote_row_known(const struct ss_rep_row *w)
{
	/* REMOTE_STATE_UNKNOWN rows have only_local null (the contract), and a row of unknown
	 * tiering says nothing of its remote tier */
	return w->has_remote && w->only_local.known && w->remote_storage >= 0;
}

static bool same_remote(const struct ss_rep_row *a, const struct ss_rep_row *b)
{
	return a->has_highest == b->has_highest && (!a->has_highest || a->highest_offset == b->highest_offset) &&
	       a->remote_segments == b->remote_segments && a->remote_bytes == b->remote_bytes &&
	       a->dangling_segments == b->dangling_segments && a->dangling_bytes == b->dangling_bytes;
}

static void remote_text(const struct ss_rep_row *w, char *buf, size_t len)
{
	char hi[32] = "none";
	if (w->has_highest)
		snprintf(hi, sizeof(hi), "%lld", (long long)w->highest_offset);
	snprintf(buf, len, "node %lld: highest offset %s, %lld segments, %lld bytes, %lld dangling", (long long)w->node_id,
		 hi, (long long)w->remote_segments, (long long)w->remote_bytes, (long long)w->dangling_segments);
}

/* Which input reports node id (its summary's broker), or -1. */
static int64_t input_of_node(const struct ss_cluster *c, int64_t node)
{
	for (uint32_t i = 0; i < c->n_brokers; i++)
		if (c->brokers[i].rep && c->brokers[i].node_id == node)
			return i;
	return -1;
}

/* " (or it is in a missing input: NAME, ...)" when some input could not be read */
static void missing_clause(const struct ss_cluster *c, char *buf, size_t len)
{
	buf[0] = 0;
	if (!c->n_missing)
		return;
	size_t o = (size_t)snprintf(buf, len, "; %u input%s could not be read (", c->n_missing,
				    c->n_missing == 1 ? "" : "s");
	bool first = true;
	for (uint32_t i = 0; i < c->n_brokers && o < len; i++) {
		if (c->brokers[i].rep)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", first ? "" : ", ", c->brokers[i].input);
		first = false;
	}
	if (o < len)
		snprintf(buf + o, len - o, ")");
}

/* A node's replica that no report has: why. */
static void replica_absent_text(const struct ss_cluster *c, int64_t node, char *buf, size_t len)
{
	int64_t in = input_of_node(c, node);
	char mc[512];
	if (in >= 0) {
		snprintf(buf, len, "node %lld's report (%s) has no row for it: the replica's directory is not in the "
			 "log dirs it scanned", (long long)node, c->brokers[in].input);
		return;
	}
	missing_clause(c, mc, sizeof(mc));
	snprintf(buf, len, "no report of node %lld is among the inputs%s", (long long)node, mc);
}

/* __cluster_metadata-0 is the KRaft log itself: every node keeps a replica (voters and
 * observers), its leader is the quorum's, and no assignment lists it. So it has no
 * leader to find and no assignment to check, and its replicas are what the reports hold. */
static bool is_raft(const char *topic) { return !strcmp(topic, "__cluster_metadata"); }

/* The partition's replicas, one a report's row, and its topic id (the first row that has one). */
static int part_replicas(struct ss_cpart *p, const struct ref *refs, uint32_t n)
{
	p->topic = refs[0].row->topic;
	p->partition = refs[0].row->partition;
	p->leader = -1;
	p->leader_replica = -1;
	p->remote_storage = -1;
	p->remote_node = -1;
	if (!(p->replicas = calloc(n, sizeof(*p->replicas))))
		return -ENOMEM;
	p->n_replicas = n;
	for (uint32_t i = 0; i < n; i++) {
		p->replicas[i].node_id = refs[i].row->node_id;
		p->replicas[i].broker = refs[i].in;
		p->replicas[i].row = refs[i].row;
		if (!p->topic_id && refs[i].row->topic_id)
			p->topic_id = refs[i].row->topic_id;
	}
	return 0;
}

/* The assignment every replica's metadata log should give the same, and the topic id the
 * same way: *as the agreed one (NULL: no report knows it), *conflict when they differ (then
 * ASSIGNMENT_DISAGREEMENT, and no leader is taken). */
static int part_assignment(struct ss_cpart *p, const struct ref *refs, uint32_t n, uint32_t *fcap,
			   const struct ss_rep_row **as_out, bool *conflict)
{
	char buf[1024], tmp[256];
	int r;

	/* the assignment: every replica's metadata log should say the same */
	const struct ss_rep_row *as = NULL;
	bool disagree = false;
	for (uint32_t i = 0; i < n; i++) {
		const struct ss_rep_row *w = refs[i].row;
		if (!w->has_assignment)
			continue;
		if (!as)
			as = w;
		else if (!same_assignment(as, w))
			disagree = true;
	}
	/* a topic deleted and created again has a new id: rows of two ids are two
	 * incarnations, not one partition's replicas */
	const char *tid = NULL;
	bool tid_disagree = false;
	for (uint32_t i = 0; i < n; i++) {
		const char *t = refs[i].row->topic_id;
		if (t && !tid)
			tid = t;
		else if (t && strcmp(t, tid))
			tid_disagree = true;
	}
	if (tid_disagree) {
		size_t o = 0;
		buf[0] = 0;
		for (uint32_t i = 0; i < n && o < sizeof(buf); i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%snode %lld: %s", o ? ", " : "",
					      (long long)refs[i].row->node_id,
					      refs[i].row->topic_id ? refs[i].row->topic_id : "unknown");
		if ((r = add_finding(p, fcap, "ASSIGNMENT_DISAGREEMENT",
				     "the replicas' reports give different topic ids (%s): different incarnations of the "
				     "topic (deleted and created again); the leader is not taken from either",
				     buf)))
			return r;
	}
	if (disagree) {
		size_t o = 0;
		buf[0] = 0;
		for (uint32_t i = 0; i < n && o < sizeof(buf); i++) {
			const struct ss_rep_row *w = refs[i].row;
			if (!w->has_assignment)
				continue;
			size_t t = 0;
			tmp[0] = 0;
			for (uint32_t k = 0; k < w->n_replicas && t < sizeof(tmp); k++)
				t += (size_t)snprintf(tmp + t, sizeof(tmp) - t, "%s%d", k ? "," : "", w->replicas[k]);
			char ld[24] = "none";
			if (w->leader >= 0)
				snprintf(ld, sizeof(ld), "%lld", (long long)w->leader);
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%snode %lld: replicas [%s] leader %s", o ? "; " : "",
					      (long long)w->node_id, tmp, ld);
		}
		if ((r = add_finding(p, fcap, "ASSIGNMENT_DISAGREEMENT",
				     "the replicas' reports give different assignments (%s): their metadata logs were "
				     "read at different points; the leader is not taken from either",
				     buf)))
			return r;
	} else if (as && !tid_disagree) {
		p->has_assignment = true;
		p->assigned = as->replicas;
		p->n_assigned = as->n_replicas;
		p->leader = as->leader;
	}
	*as_out = as;
	*conflict = disagree || tid_disagree;
	return 0;
}

/* The leader's row, or LEADER_NOT_REPORTED saying why none of the reports is the leader's. */
static int part_leader(struct ss_cluster *c, struct ss_cpart *p, uint32_t n, uint32_t *fcap,
		       const struct ss_rep_row *as, bool conflict)
{
	char tmp[256];
	int r;

	if (p->has_assignment && p->leader >= 0)
		for (uint32_t i = 0; i < n; i++)
			if (p->replicas[i].node_id == p->leader) {
				p->leader_replica = (int32_t)i;
				p->replicas[i].leader = true;
			}
	if (p->leader_replica < 0 && !conflict && !is_raft(p->topic)) {
		char why[768];
		if (!as)
			snprintf(why, sizeof(why), "no report knows its assignment (scanned without the cluster's "
				 "metadata log)");
		else if (p->leader < 0)
			snprintf(why, sizeof(why), "the metadata log names no leader (leader -1: offline, or every "
				 "replica was shut down)");
		else {
			replica_absent_text(c, p->leader, tmp, sizeof(tmp));
			snprintf(why, sizeof(why), "its leader is node %lld, and %s", (long long)p->leader, tmp);
		}
		if ((r = add_finding(p, fcap, "LEADER_NOT_REPORTED",
				     "no scanned broker leads %s-%d: %s; its copy lag and only-local set (the "
				     "leader's) are unknown",
				     p->topic, p->partition, why)))
			return r;
	}
	return 0;
}

/* REPLICA_NOT_REPORTED for each replica the assignment lists that no report has. */
static int part_unreported(struct ss_cluster *c, struct ss_cpart *p, uint32_t n, uint32_t *fcap)
{
	char buf[1024];
	int r;

	for (uint32_t k = 0; p->has_assignment && k < p->n_assigned; k++) {
		int64_t node = p->assigned[k];
		bool have = false;
		for (uint32_t i = 0; i < n; i++)
			have |= p->replicas[i].node_id == node;
		if (have)
			continue;
		replica_absent_text(c, node, buf, sizeof(buf));
		if ((r = add_finding(p, fcap, "REPLICA_NOT_REPORTED",
				     "the assignment lists a replica of %s-%d on node %lld, but %s", p->topic,
				     p->partition, (long long)node, buf)))
			return r;
	}
	return 0;
}

/* Tiering: the topic's remote.storage.enable, the same for every replica (*disagree: not). */
static int part_tiering(struct ss_cpart *p, const struct ref *refs, uint32_t n, uint32_t *fcap, bool *disagree)
{
	char buf[1024];
	int r;

	int8_t rs = -1;
	bool rs_disagree = false;
	for (uint32_t i = 0; i < n; i++) {
		int8_t v = refs[i].row->remote_storage;
		if (v < 0)
			continue;
		if (rs < 0)
			rs = v;
		else if (rs != v)
			rs_disagree = true;
	}
	if (rs_disagree) {
		size_t o = 0;
		for (uint32_t i = 0; i < n && o < sizeof(buf); i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%snode %lld: %s", i ? ", " : "",
					      (long long)refs[i].row->node_id,
					      refs[i].row->remote_storage < 0 ? "unknown" :
					      refs[i].row->remote_storage ? "tiered" : "not tiered");
		if ((r = add_finding(p, fcap, "REMOTE_STATE_DISAGREEMENT",
				     "the replicas disagree on whether %s-%d is tiered (%s)", p->topic, p->partition,
				     buf)))
			return r;
	} else {
		p->remote_storage = rs;
	}
	*disagree = rs_disagree;
	return 0;
}

/* The remote state: one __remote_log_metadata for every replica, so the replicas that know
 * it must agree; then it is counted once. */
static int part_remote(struct ss_cpart *p, const struct ref *refs, uint32_t n, uint32_t *fcap, bool rs_disagree)
{
	char buf[1024], tmp[256];
	int r;

	const struct ss_rep_row *rk = NULL;
	bool rdis = false;
	for (uint32_t i = 0; i < n; i++) {
		const struct ss_rep_row *w = refs[i].row;
		if (!remote_row_known(w))
			continue;
		if (!rk)
			rk = w;
		else if (!same_remote(rk, w))
			rdis = true;
	}
	if (rdis) {
		size_t o = 0;
		for (uint32_t i = 0; i < n && o < sizeof(buf); i++) {
			if (!remote_row_known(refs[i].row))
				continue;
			remote_text(refs[i].row, tmp, sizeof(tmp));
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? "; " : "", tmp);
		}
		const struct ss_rep_row *lw = p->leader_replica >= 0 ? p->replicas[p->leader_replica].row : NULL;
		bool settled = lw && remote_row_known(lw);
		if ((r = add_finding(p, fcap, "REMOTE_STATE_DISAGREEMENT",
				     "the replicas of %s-%d report different remote state (%s): their "
				     "__remote_log_metadata was read at different points, or one of them is stale; %s",
				     p->topic, p->partition, buf,
				     settled ? "the leader's is counted" : "no leader's row settles it: counted as unknown")))
			return r;
		rk = settled ? lw : NULL;
	} else if (rk && p->leader_replica >= 0 && remote_row_known(p->replicas[p->leader_replica].row)) {
		rk = p->replicas[p->leader_replica].row; /* the same numbers; named after the leader */
	}
	if (rk && !rs_disagree) {
		p->remote_known = true;
		p->remote_node = rk->node_id;
		p->has_highest = rk->has_highest;
		p->highest_offset = rk->highest_offset;
		p->remote_segments = rk->remote_segments;
		p->remote_bytes = rk->remote_bytes;
		p->dangling_segments = rk->dangling_segments;
		p->dangling_bytes = rk->dangling_bytes;
	}
	return 0;
}

static int merge_part(struct ss_cluster *c, struct ss_cpart *p, const struct ref *refs, uint32_t n)
{
	uint32_t fcap = 0;
	const struct ss_rep_row *as;
	bool conflict, rs_disagree;
	int r;

	if ((r = part_replicas(p, refs, n)) || (r = part_assignment(p, refs, n, &fcap, &as, &conflict)) ||
	    (r = part_leader(c, p, n, &fcap, as, conflict)) || (r = part_unreported(c, p, n, &fcap)) ||
	    (r = part_tiering(p, refs, n, &fcap, &rs_disagree)) || (r = part_remote(p, refs, n, &fcap, rs_disagree)))
		return r;

	/* copy lag and the only-local set: the leader copies, so they are its */
	if (p->leader_replica >= 0) {
		const struct ss_rep_row *lw = p->replicas[p->leader_replica].row;
		p->copy_lag = lw->copy_lag;
		p->broker_copy_lag = lw->broker_copy_lag;
		p->only_local = lw->only_local;
		p->delete_lag = lw->delete_lag;   /* the leader runs the expiration task */
	}
	return 0;
}

static void val_add(struct ss_cval *t, bool known, int64_t v)
{
	if (!known)
		t->known = false;
	else if (t->known)
		t->v += v;
}

static void total_init(struct ss_ctotal *t, const char *topic)
{
	memset(t, 0, sizeof(*t));
	t->topic = topic;
	struct ss_cval *v[] = { &t->remote_segments, &t->remote_bytes, &t->dangling_segments, &t->dangling_bytes,
				&t->copy_lag_segments, &t->copy_lag_bytes, &t->only_local_bytes,
				&t->delete_lag_segments, &t->delete_lag_bytes, &t->replica_size_bytes };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i]->known = true;
}

static void total_add(struct ss_ctotal *t, const struct ss_cpart *p)
{
	bool tiered_off = p->remote_storage == 0;
	t->partitions++;
	t->replicas += p->n_replicas;
	t->findings += p->n_findings;
	val_add(&t->remote_segments, p->remote_known, p->remote_segments);
	val_add(&t->remote_bytes, p->remote_known, p->remote_bytes);
	val_add(&t->dangling_segments, p->remote_known, p->dangling_segments);
	val_add(&t->dangling_bytes, p->remote_known, p->dangling_bytes);
	/* a partition of a topic that is not tiered has no copy lag (null in its row: never
	 * evaluated), which adds nothing; one that is tiered, or may be, needs its leader's */
	if (!tiered_off || p->copy_lag.known) {
		val_add(&t->copy_lag_segments, p->copy_lag.known, p->copy_lag.segments);
		val_add(&t->copy_lag_bytes, p->copy_lag.known, p->copy_lag.bytes);
	}
	/* the same for the delete lag: a tiered partition (or one that may be) needs its
	 * leader's row's; each partition once, whatever its replication factor */
	if (!tiered_off || p->delete_lag.known) {
		val_add(&t->delete_lag_segments, p->delete_lag.known, p->delete_lag.segments);
		val_add(&t->delete_lag_bytes, p->delete_lag.known, p->delete_lag.bytes);
	}
	val_add(&t->only_local_bytes, p->only_local.known, p->only_local.bytes);
	/* the disk: every assigned replica's size, so every one must be in a report (the
	 * KRaft log: every node's, and whether every node is in is the cluster's completeness) */
	bool all = p->has_assignment || is_raft(p->topic);
	for (uint32_t k = 0; all && k < p->n_assigned; k++) {
		bool have = false;
		for (uint32_t i = 0; i < p->n_replicas; i++)
			have |= p->replicas[i].node_id == p->assigned[k];
		all &= have;
	}
	for (uint32_t i = 0; i < p->n_replicas; i++)
		val_add(&t->replica_size_bytes, all && p->replicas[i].row->has_size, p->replicas[i].row->size_bytes);
	if (!all)
		t->replica_size_bytes.known = false;
}

/* An incomplete merge has no totals: a sum that leaves a broker out is not shown as whole. */
static void total_unknown(struct ss_ctotal *t)
{
	struct ss_cval *v[] = { &t->remote_segments, &t->remote_bytes, &t->dangling_segments, &t->dangling_bytes,
				&t->copy_lag_segments, &t->copy_lag_bytes, &t->only_local_bytes,
				&t->delete_lag_segments, &t->delete_lag_bytes, &t->replica_size_bytes };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		*v[i] = (struct ss_cval){ 0 };
}

/* One cluster, one segscan release: each input's broker, the reports' release and cluster
 * id, which must be the same in all of them. */
static int merge_brokers(const struct ss_merge_input *in, uint32_t n, struct ss_cluster *c, char *err, size_t errlen)
{
	const struct ss_merge_input *first = NULL;

	for (uint32_t i = 0; i < n; i++) {
		struct ss_cbroker *b = &c->brokers[i];
		b->input = in[i].name;
		b->rep = in[i].rep;
		b->error = in[i].error;
		b->node_id = in[i].rep ? in[i].rep->node_id : -1;
		if (!in[i].rep) {
			c->n_missing++;
			continue;
		}
		if (!first) {
			first = &in[i];
			continue;
		}
		const struct ss_report *a = first->rep, *b2 = in[i].rep;
		if (!same_str(a->version, b2->version)) {
			return mismatch(err, errlen, "reports of different segscan versions: %s (segscan %s) and %s (segscan %s): "
				        "scan every broker with the same release before merging",
				        first->name, a->version, in[i].name, b2->version);
		}
		if (!same_str(a->cluster_id, b2->cluster_id)) {
			if (a->cluster_id && b2->cluster_id)
				return mismatch(err, errlen, "reports of different clusters: %s (cluster %s) and %s (cluster %s)",
					        first->name, a->cluster_id, in[i].name, b2->cluster_id);
			return mismatch(err, errlen, "cannot tell whether %s and %s are one cluster's: %s has no cluster "
				        "id (scanned without its meta.properties or metadata log)",
				        first->name, in[i].name, a->cluster_id ? in[i].name : first->name);
		}
	}
	if (first) {
		c->cluster_id = first->rep->cluster_id;
		c->version = first->rep->version;
	}
	return 0;
}

/* Every row of every report, sorted by partition then node; the nodes that report. A row
 * without a node id, or one replica in two reports, is refused. */
static int merge_rows(const struct ss_merge_input *in, uint32_t n, struct ss_cluster *c, struct ref **refs_out,
		      uint32_t *nrefs_out, struct nodeset *reported, char *err, size_t errlen)
{
	uint32_t wcap = 0;
	int r;

	for (uint32_t i = 0; i < n; i++) {
		const struct ss_report *rep = in[i].rep;
		if (!rep)
			continue;
		if (rep->node_id >= 0 && (r = nodes_add(reported, rep->node_id)))
			return r;
		if (rep->exit_code > 0)
			c->exit_code = 1;
		for (uint32_t k = 0; k < rep->n_rows; k++) {
			const struct ss_rep_row *w = &rep->rows[k];
			if (w->node_id < 0) {
				return mismatch(err, errlen, "%s: partition %s-%d has no node id (neither the row nor "
					        "summary.broker says which broker it is): scan each broker with its metadata log "
					        "or --server-properties",
					        in[i].name, w->topic, w->partition);
			}
			if ((r = nodes_add(reported, w->node_id)))
				return r;
			struct ref *slot;
			if ((r = SS_DA_PUSH(refs_out, nrefs_out, &wcap, &slot)) < 0)
				return r;
			slot->in = i;
			slot->row = w;
		}
	}
	if (*nrefs_out)
		qsort(*refs_out, *nrefs_out, sizeof(**refs_out), cmp_ref);
	for (uint32_t i = 1; i < *nrefs_out; i++) {
		const struct ref *a = &(*refs_out)[i - 1], *b = &(*refs_out)[i];
		if (a->row->node_id == b->row->node_id && a->row->partition == b->row->partition &&
		    !strcmp(a->row->topic, b->row->topic)) {
			return mismatch(err, errlen, "node %lld's replica of %s-%d is in %s and in %s: merging both would count it "
				        "twice (the same broker given twice?)",
				        (long long)a->row->node_id, a->row->topic, a->row->partition, in[a->in].name,
				        in[b->in].name);
		}
	}
	return 0;
}

/* The partitions, each merged from its replicas' rows (refs sorted by merge_rows); the nodes
 * their assignments name. */
static int merge_parts(struct ss_cluster *c, const struct ref *refs, uint32_t nrefs, struct nodeset *named)
{
	uint32_t pcap = 0;
	int r;

	for (uint32_t i = 0; i < nrefs;) {
		uint32_t j = i + 1;
		while (j < nrefs && refs[j].row->partition == refs[i].row->partition &&
		       !strcmp(refs[j].row->topic, refs[i].row->topic))
			j++;
		struct ss_cpart *p;
		if ((r = SS_DA_PUSH(&c->parts, &c->n_parts, &pcap, &p)) < 0)
			return r;
		if ((r = merge_part(c, p, refs + i, j - i)))
			return r;
		c->n_findings += p->n_findings;
		for (uint32_t k = 0; p->has_assignment && k < p->n_assigned; k++)
			if ((r = nodes_add(named, p->assigned[k])))
				return r;
		i = j;
	}
	return 0;
}

/* The nodes the assignments name that nothing reports, sorted. */
static int merge_unreported(struct ss_cluster *c, const struct nodeset *reported, const struct nodeset *named)
{
	int r;

	for (uint32_t i = 0; i < named->n; i++) {
		if (nodes_has(reported, named->v[i]))
			continue;
		int64_t *slot;
		uint32_t ucap = c->n_unreported;
		if ((r = SS_DA_PUSH(&c->unreported, &c->n_unreported, &ucap, &slot)) < 0)
			return r;
		*slot = named->v[i];
	}
	if (c->n_unreported)
		qsort(c->unreported, c->n_unreported, sizeof(int64_t), cmp_i64);
	return 0;
}

/* Is every broker in? Each reason it may not be is a line of why; an incomplete cluster
 * report is not a clean one, whatever the reason. */
static int merge_complete(const struct ss_merge_input *in, uint32_t n, struct ss_cluster *c)
{
	uint32_t tcap = 0;
	int r;

	for (uint32_t i = 0; i < n; i++)
		if (!in[i].rep && (r = add_why(c, &tcap, "%s is missing: %s", in[i].name,
					       in[i].error ? in[i].error : "no report")))
			return r;
	for (uint32_t i = 0; i < c->n_unreported; i++)
		if ((r = add_why(c, &tcap, "node %lld is a replica in the assignment, but no report of it is among the "
				 "inputs", (long long)c->unreported[i])))
			return r;
	uint32_t no_asg = 0;
	const struct ss_cpart *no_asg_first = NULL;
	for (uint32_t i = 0; i < c->n_parts; i++)
		if (!c->parts[i].has_assignment && !is_raft(c->parts[i].topic) && !no_asg++)
			no_asg_first = &c->parts[i];
	if (no_asg && (r = add_why(c, &tcap, "%u partition%s (%s-%d%s) %s no agreed assignment, so whether every "
				   "broker holding %s is in cannot be told", no_asg, no_asg == 1 ? "" : "s",
				   no_asg_first->topic, no_asg_first->partition, no_asg > 1 ? ", ..." : "",
				   no_asg == 1 ? "has" : "have", no_asg == 1 ? "it" : "them")))
		return r;
	c->complete = c->n_why == 0;
	/* an incomplete cluster report is not a clean one, whatever the reason */
	if (!c->complete)
		c->exit_code = 1;
	return 0;
}

/* The totals, per topic and for the cluster, each partition once; unknown where the cluster
 * is not all in. */
static int merge_totals(struct ss_cluster *c)
{
	int r;

	total_init(&c->total, NULL);
	uint32_t tc = 0;
	for (uint32_t i = 0; i < c->n_parts; i++) {
		const struct ss_cpart *p = &c->parts[i];
		if (!c->n_topics || strcmp(c->topics[c->n_topics - 1].topic, p->topic)) {
			struct ss_ctotal *t;
			if ((r = SS_DA_PUSH(&c->topics, &c->n_topics, &tc, &t)) < 0)
				return r;
			total_init(t, p->topic);
		}
		total_add(&c->topics[c->n_topics - 1], p);
		total_add(&c->total, p);
	}
	if (!c->complete) {
		total_unknown(&c->total);
		for (uint32_t i = 0; i < c->n_topics; i++)
			total_unknown(&c->topics[i]);
	}
	return 0;
}

int ss_merge(const struct ss_merge_input *in, uint32_t n, struct ss_cluster *c, char *err, size_t errlen)
{
	struct ref *refs = NULL;
	struct nodeset reported = { 0 }, named = { 0 };
	uint32_t nrefs = 0;
	int r;

	if (err && errlen)
		err[0] = 0;
	if (!in || !n) {
		mismatch(err, errlen, "no report to merge");
		return -EINVAL;
	}
	if (!(c->brokers = calloc(n, sizeof(*c->brokers))))
		return -ENOMEM;
	c->n_brokers = n;

	if ((r = merge_brokers(in, n, c, err, errlen)) ||
	    (r = merge_rows(in, n, c, &refs, &nrefs, &reported, err, errlen)) ||
	    (r = merge_parts(c, refs, nrefs, &named)) || (r = merge_unreported(c, &reported, &named)) ||
	    (r = merge_complete(in, n, c)) || (r = merge_totals(c)))
		goto out;
out:
	free(refs);
	free(reported.v);
	free(named.v);
	return r;
}

void ss_cluster_free(struct ss_cluster *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n_parts; i++) {
		for (uint32_t k = 0; k < c->parts[i].n_findings; k++)
			free(c->parts[i].findings[k].message);
		free(c->parts[i].findings);
		free(c->parts[i].replicas);
	}
	for (uint32_t i = 0; i < c->n_why; i++)
		free(c->why[i]);
	free(c->why);
	free(c->parts);
	free(c->topics);
	free(c->unreported);
	free(c->brokers);
	memset(c, 0, sizeof(*c));
}
