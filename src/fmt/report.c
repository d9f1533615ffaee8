/* A scan's json report read back for `segscan merge`: see report.h. */
#include "fmt/report.h"

#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "segscan.h"

/* Where a field error is: the report, and the row (index and name) when inside one. */
struct rctx {
	const char *name;
	char       *err;
	size_t      errlen;
	long        row;            /* -1: the summary */
	const char *topic;
	int64_t     partition;
};

static int bad(struct rctx *c, const char *field, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->err || !c->errlen)
		return SEGSCAN_EJSON;
	if (c->row >= 0 && c->topic)
		/* the topic is the report's bytes: at most 120 of them; the caller escapes the
		 * message for a terminal */
		snprintf(c->err, c->errlen, "%s: partitions[%ld] (%.120s-%lld): %s: %s", c->name, c->row, c->topic,
			 (long long)c->partition, field, msg);
	else if (c->row >= 0)
		snprintf(c->err, c->errlen, "%s: partitions[%ld]: %s: %s", c->name, c->row, field, msg);
	else
		snprintf(c->err, c->errlen, "%s: %s: %s", c->name, field, msg);
	return SEGSCAN_EJSON;
}

/* An integer field in [lo, hi]; absent or null gives *has false (required: an error). */
static int get_int(struct rctx *c, json_t *o, const char *key, const char *path, bool required, int64_t lo,
		   int64_t hi, bool *has, int64_t *out)
{
	json_t *v = json_object_get(o, key);
	*has = false;
	if (!v || json_is_null(v)) {
		if (required)
			return bad(c, path, "missing (expected an integer)");
		return 0;
	}
	if (!json_is_integer(v))
		return bad(c, path, "expected an integer%s", required ? "" : " or null");
	json_int_t x = json_integer_value(v);
	if (x < lo || x > hi)
		return bad(c, path, "%lld is out of range [%lld, %lld]", (long long)x, (long long)lo, (long long)hi);
	*has = true;
	*out = (int64_t)x;
	return 0;
}

/* A string field (NUL bytes refused: names are C strings from here on). */
static int get_str(struct rctx *c, json_t *o, const char *key, const char *path, bool required, char **out)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v)) {
		if (required)
			return bad(c, path, "missing (expected a string)");
		return 0;
	}
	if (!json_is_string(v))
		return bad(c, path, "expected a string%s", required ? "" : " or null");
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (memchr(s, 0, n))
		return bad(c, path, "a NUL character in a string");
	if (!(*out = strndup(s, n)))
		return -ENOMEM;
	return 0;
}

/* A boolean or null: -1 null/absent, 0, 1. */
static int get_tri(struct rctx *c, json_t *o, const char *key, const char *path, int8_t *out)
{
	json_t *v = json_object_get(o, key);
	*out = -1;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return bad(c, path, "expected true, false or null");
	*out = json_is_true(v) ? 1 : 0;
	return 0;
}

/* An object, or null/absent (*obj NULL). */
static int get_obj(struct rctx *c, json_t *o, const char *key, const char *path, json_t **obj)
{
	json_t *v = json_object_get(o, key);
	*obj = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bad(c, path, "expected an object or null");
	*obj = v;
	return 0;
}

/* { segments, size_bytes } or null */
static int get_pair(struct rctx *c, json_t *o, const char *key, struct ss_rep_pair *p)
{
	json_t *v;
	char path[64];
	int r;
	bool hs, hb;
	p->known = false;
	if ((r = get_obj(c, o, key, key, &v)) || !v)
		return r;
	snprintf(path, sizeof(path), "%s.segments", key);
	if ((r = get_int(c, v, "segments", path, true, 0, INT64_MAX, &hs, &p->segments)))
		return r;
	snprintf(path, sizeof(path), "%s.size_bytes", key);
	if ((r = get_int(c, v, "size_bytes", path, true, 0, INT64_MAX, &hb, &p->bytes)))
		return r;
	p->known = true;
	return 0;
}

/* An array's length, or 0 for absent/null; anything else is an error. */
static int get_arr_len(struct rctx *c, json_t *o, const char *key, uint32_t *n)
{
	json_t *v = json_object_get(o, key);
	*n = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return bad(c, key, "expected an array");
	*n = (uint32_t)(json_array_size(v) > UINT32_MAX ? UINT32_MAX : json_array_size(v));
	return 0;
}

static int get_assignment(struct rctx *c, json_t *o, struct ss_rep_row *w)
{
	json_t *a, *v;
	bool has;
	int r;
	w->leader = -1;
	w->leader_epoch = -1;
	if ((r = get_obj(c, o, "assignment", "assignment", &a)) || !a)
		return r;
	v = json_object_get(a, "replicas");
	if (!json_is_array(v))
		return bad(c, "assignment.replicas", "expected an array of node ids");
	size_t n = json_array_size(v);
	if (n > 4096) /* Kafka's replication factor is a 16-bit number; no real one is this big */
		return bad(c, "assignment.replicas", "%zu replicas: more than 4096", n);
	if (n && !(w->replicas = calloc(n, sizeof(*w->replicas))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_t *x = json_array_get(v, i);
		if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > INT32_MAX)
			return bad(c, "assignment.replicas", "element %zu: expected a node id (0..2147483647)", i);
		for (size_t k = 0; k < i; k++)
			if (w->replicas[k] == (int32_t)json_integer_value(x))
				return bad(c, "assignment.replicas", "node %lld listed twice",
					   (long long)json_integer_value(x));
		w->replicas[i] = (int32_t)json_integer_value(x);
	}
	w->n_replicas = (uint32_t)n;
	if ((r = get_int(c, a, "leader", "assignment.leader", false, 0, INT32_MAX, &has, &w->leader)))
		return r;
	if (!has)
		w->leader = -1;
	if ((r = get_int(c, a, "leader_epoch", "assignment.leader_epoch", false, -1, INT32_MAX, &has,
			 &w->leader_epoch)))
		return r;
	if (!has)
		w->leader_epoch = -1;
	w->has_assignment = true;
	return 0;
}

static int get_remote(struct rctx *c, json_t *o, struct ss_rep_row *w)
{
	json_t *rm, *v;
	bool has;
	int r;
	if ((r = get_obj(c, o, "remote", "remote", &rm)) || !rm)
		return r;
	v = json_object_get(rm, "seeded");
	if (!json_is_boolean(v))
		return bad(c, "remote.seeded", "expected true or false");
	w->seeded = json_is_true(v);
	if ((r = get_int(c, rm, "highest_offset", "remote.highest_offset", false, -1, INT64_MAX, &w->has_highest,
			 &w->highest_offset)))
		return r;
	if ((r = get_str(c, rm, "source", "remote.source", false, &w->remote_source)))
		return r;
	static const struct { const char *key, *path; size_t off; } f[] = {
		{ "segments", "remote.segments", offsetof(struct ss_rep_row, remote_segments) },
		{ "size_bytes", "remote.size_bytes", offsetof(struct ss_rep_row, remote_bytes) },
		{ "dangling_segments", "remote.dangling_segments", offsetof(struct ss_rep_row, dangling_segments) },
		{ "dangling_bytes", "remote.dangling_bytes", offsetof(struct ss_rep_row, dangling_bytes) },
	};
	/* all four null: what no source gives (REMOTE_STATE_UNKNOWN, a partition whose tiering
	 * the metadata does not settle), unknown, never 0; a scan writes them together */
	size_t known = 0;
	const char *null_path = NULL;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if ((r = get_int(c, rm, f[i].key, f[i].path, false, 0, INT64_MAX, &has,
				 (int64_t *)((char *)w + f[i].off))))
			return r;
		known += has;
		if (!has && !null_path)
			null_path = f[i].path;
	}
	if (known && known < sizeof(f) / sizeof(f[0]))
		return bad(c, null_path, "null while the other remote counts are integers");
	w->has_remote = known > 0;
	return 0;
}

static int parse_row(struct rctx *c, json_t *o, int64_t summary_node, struct ss_rep_row *w)
{
	bool has;
	int64_t x;
	int r;
	if (!json_is_object(o))
		return bad(c, "partition", "expected an object");
	if ((r = get_str(c, o, "topic", "topic", true, &w->topic)))
		return r;
	if (!w->topic[0] || strlen(w->topic) > 249) /* Kafka's longest topic name */
		return bad(c, "topic", "expected a topic name of 1 to 249 bytes");
	c->topic = w->topic;
	if ((r = get_int(c, o, "partition", "partition", true, 0, INT32_MAX, &has, &x)))
		return r;
	w->partition = (int32_t)x;
	c->partition = x;
	if ((r = get_str(c, o, "topic_id", "topic_id", false, &w->topic_id)))
		return r;
	/* the row's own node (a scan of several brokers' dirs), else the broker's */
	if ((r = get_int(c, o, "node_id", "node_id", false, 0, INT32_MAX, &has, &w->node_id)))
		return r;
	if (!has)
		w->node_id = summary_node;
	if ((r = get_tri(c, o, "remote_storage", "remote_storage", &w->remote_storage)))
		return r;
	if ((r = get_int(c, o, "size_bytes", "size_bytes", false, 0, INT64_MAX, &w->has_size, &w->size_bytes)) ||
	    (r = get_int(c, o, "log_end_offset", "log_end_offset", false, 0, INT64_MAX, &w->has_leo,
			 &w->log_end_offset)))
		return r;
	if ((r = get_remote(c, o, w)) || (r = get_pair(c, o, "only_local", &w->only_local)) ||
	    (r = get_pair(c, o, "copy_lag", &w->copy_lag)) ||
	    (r = get_pair(c, o, "broker_copy_lag", &w->broker_copy_lag)) ||
	    (r = get_pair(c, o, "delete_lag", &w->delete_lag)) || (r = get_assignment(c, o, w)) ||
	    (r = get_arr_len(c, o, "findings", &w->n_findings)) || (r = get_arr_len(c, o, "errors", &w->n_errors)))
		return r;
	return 0;
}

int ss_report_parse(const char *buf, size_t len, const char *name, struct ss_report *rep, char *err,
		    size_t errlen)
{
	struct rctx c = { .name = name ? name : "report", .err = err, .errlen = errlen, .row = -1 };
	json_error_t jerr;
	json_t *root = NULL, *sum, *broker, *parts;
	bool has;
	int r;

	if (err && errlen)
		err[0] = 0;
	rep->node_id = -1;
	rep->exit_code = -1;
	if (!(rep->name = strdup(c.name)))
		return -ENOMEM;
	if (!buf || !len) {
		r = bad(&c, "report", "empty (expected the JSON of segscan scan -f json)");
		goto out;
	}
	/* JSON_REJECT_DUPLICATES: two "size_bytes" in one object would let a report say two
	 * things, and which one a reader believes would be an accident of its parser */
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (err && errlen)
			snprintf(err, errlen, "%s: line %d, column %d, byte %d: %s", c.name, jerr.line, jerr.column,
				 jerr.position, jerr.text);
		r = SEGSCAN_EJSON;
		goto out;
	}
	if (!json_is_object(root)) {
		r = bad(&c, "report", "expected an object {\"partitions\": [...], \"summary\": {...}} "
			"(the json format of segscan scan; ndjson has no summary)");
		goto out;
	}
	if ((r = get_obj(&c, root, "summary", "summary", &sum)))
		goto out;
	if (!sum) {
		r = bad(&c, "summary", "missing (expected the json format of segscan scan, not ndjson)");
		goto out;
	}
	if ((r = get_str(&c, sum, "version", "summary.version", true, &rep->version)) ||
	    (r = get_int(&c, sum, "exit_code", "summary.exit_code", false, 0, 255, &has, &rep->exit_code)))
		goto out;
	if (!has)
		rep->exit_code = -1;
	if ((r = get_obj(&c, sum, "broker", "summary.broker", &broker)))
		goto out;
	if (broker) {
		if ((r = get_int(&c, broker, "node_id", "summary.broker.node_id", false, 0, INT32_MAX, &has,
				 &rep->node_id)) ||
		    (r = get_str(&c, broker, "cluster_id", "summary.broker.cluster_id", false, &rep->cluster_id)) ||
		    (r = get_str(&c, broker, "kafka_version", "summary.broker.kafka_version", false,
				 &rep->kafka_version)))
			goto out;
		if (!has)
			rep->node_id = -1;
	}
	if ((r = get_arr_len(&c, root, "errors", &rep->n_errors)))
		goto out;
	parts = json_object_get(root, "partitions");
	if (!json_is_array(parts)) {
		r = bad(&c, "partitions", "missing or not an array");
		goto out;
	}
	size_t n = json_array_size(parts);
	if (n > UINT32_MAX / 2) {
		r = bad(&c, "partitions", "too many rows");
		goto out;
	}
	if (n && !(rep->rows = calloc(n, sizeof(*rep->rows)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		c.row = (long)i;
		c.topic = NULL;
		rep->n_rows = (uint32_t)i + 1; /* what ss_report_free frees */
		if ((r = parse_row(&c, json_array_get(parts, i), rep->node_id, &rep->rows[i])))
			goto out;
	}
	r = 0;
out:
	json_decref(root);
	return r;
}

void ss_report_free(struct ss_report *rep)
{
	if (!rep)
		return;
	for (uint32_t i = 0; i < rep->n_rows; i++) {
		struct ss_rep_row *w = &rep->rows[i];
		free(w->topic);
		free(w->topic_id);
		free(w->remote_source);
		free(w->replicas);
	}
	free(rep->rows);
	free(rep->name);
	free(rep->version);
	free(rep->cluster_id);
	free(rep->kafka_version);
	memset(rep, 0, sizeof(*rep));
}
