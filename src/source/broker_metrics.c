/*
 * --broker-metrics: a broker's tiering gauges from its JMX-exporter endpoint (see
 * broker_metrics.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "common/search.h"
#include "fmt/promtext.h"
#include "source/broker_metrics.h"
#include "source/http.h"

const struct ss_bm_names ss_bm_default_names = {
	.copy_segments = "kafka_server_brokertopicmetrics_remotecopylagsegments",
	.copy_bytes = "kafka_server_brokertopicmetrics_remotecopylagbytes",
	.delete_segments = "kafka_server_brokertopicmetrics_remotedeletelagsegments",
	.delete_bytes = "kafka_server_brokertopicmetrics_remotedeletelagbytes",
	.topic_label = "topic",
};

/* the object behind a struct ss_broker_gauges: what its const pointers point into */
struct bm_obj {
	struct ss_broker_gauges g;   /* first: ss_bm_free finds the object from it */
	char                   *url, *error;
	struct ss_topic_gauges *topics;
	char                  **names;
	size_t                  n_names;
};

void ss_bm_free(struct ss_broker_gauges *g)
{
	struct bm_obj *o = (struct bm_obj *)g;
	if (!o)
		return;
	for (size_t i = 0; i < o->n_names; i++)
		free(o->names[i]);
	free(o->names);
	free(o->topics);
	free(o->url);
	free(o->error);
	free(o);
}

static bool metric_name(const char *s, size_t n, bool colon)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':') ||
			  (i && c >= '0' && c <= '9');
		if (!ok)
			return false;
	}
	return true;
}

int ss_bm_names_parse(const char *spec, struct ss_bm_names *out, char **store, char *err, size_t errlen)
{
	*store = NULL;
	char *s = strdup(spec ? spec : "");
	if (!s)
		return -ENOMEM;
	const char **dst[5] = { &out->copy_segments, &out->copy_bytes, &out->delete_segments, &out->delete_bytes,
				&out->topic_label };
	*out = ss_bm_default_names;
	size_t n = 0;
	for (char *p = s, *comma; p; p = comma ? comma + 1 : NULL) {
		if ((comma = strchr(p, ',')))
			*comma = 0;
		if (n == 5 || !metric_name(p, strlen(p), n < 4)) {
			char *e = ss_esc_line(p);
			snprintf(err, errlen, n == 5 ? "more than five names" : "'%s' is not a %s name", e ? e : "?",
				 n < 4 ? "metric" : "label");
			free(e);
			free(s);
			return -EINVAL;
		}
		*dst[n++] = p;
	}
	if (n < 4) {
		snprintf(err, errlen, "four metric names expected (copy segments, copy bytes, delete segments, "
			 "delete bytes), and optionally the topic label");
		free(s);
		return -EINVAL;
	}
	*store = s;
	return 0;
}

/* ---- from the exposition text ---- */

struct ent {
	char   *topic;
	int     which;     /* 0..3: copy segments, copy bytes, delete segments, delete bytes */
	bool    present;
	int64_t v;
};

struct collect {
	const struct ss_bm_names *names;
	struct ent               *v;
	size_t                    n, cap;
};

static bool is_name(const struct ss_prom_sample *s, const char *name)
{
	return strlen(name) == s->name_len && !memcmp(s->name, name, s->name_len);
}

/* a gauge's value as Kafka's long: integral and in range, else not a value at all */
static bool integral(double d, int64_t *v)
{
	if (!(d >= -9.2e18 && d <= 9.2e18))   /* NaN fails both */
		return false;
	*v = (int64_t)d;
	return (double)*v == d;
}

static int on_sample(void *arg, const struct ss_prom_sample *s)
{
	struct collect *c = arg;
	const char *n4[4] = { c->names->copy_segments, c->names->copy_bytes, c->names->delete_segments,
			      c->names->delete_bytes };
	int which = -1;
	for (int i = 0; i < 4 && which < 0; i++)
		if (is_name(s, n4[i]))
			which = i;
	if (which < 0)
		return 0;
	const struct ss_prom_label *t = ss_prom_label_find(s, c->names->topic_label);
	if (!t)
		return 0;   /* the broker-wide aggregate: no topic's */
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 64;
		struct ent *nv = realloc(c->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = nc;
	}
	struct ent *e = &c->v[c->n];
	if (!(e->topic = strdup(t->value)))
		return -ENOMEM;
	e->which = which;
	e->present = integral(s->value, &e->v);
	c->n++;
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	int c = strcmp(x->topic, y->topic);
	return c ? c : x->which - y->which;
}

static struct ss_gauge *slot(struct ss_topic_gauges *t, int which)
{
	struct ss_gauge *s[4] = { &t->copy_lag_segments, &t->copy_lag_bytes, &t->delete_lag_segments,
				  &t->delete_lag_bytes };
	return s[which];
}

/* The sorted samples into one entry per topic; the object takes every name. */
static int fold(struct collect *c, struct bm_obj *o)
{
	qsort(c->v, c->n, sizeof(*c->v), ent_cmp);
	if (c->n && (!(o->topics = calloc(c->n, sizeof(*o->topics))) || !(o->names = calloc(c->n, sizeof(char *)))))
		return -ENOMEM;
	size_t nt = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct ent *e = &c->v[i];
		o->names[o->n_names++] = e->topic;
		if (!nt || strcmp(o->topics[nt - 1].topic, e->topic))
			o->topics[nt++].topic = e->topic;
		struct ss_gauge *g = slot(&o->topics[nt - 1], e->which);
		if (i && ent_cmp(&c->v[i - 1], e) == 0) {
			/* the same topic's series twice (other labels): a value only if they agree */
			if (!e->present || !g->present || g->value != e->v)
				*g = (struct ss_gauge){ .present = false };
		} else {
			*g = (struct ss_gauge){ .present = e->present, .value = e->present ? e->v : 0 };
		}
	}
	c->n = 0;   /* the names are the object's now */
	o->g.n = nt;
	o->g.topics = o->topics;
	return 0;
}

static void collect_free(struct collect *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].topic);
	free(c->v);
}

static struct bm_obj *obj_new(int32_t node_id, const char *url, int64_t now_ms)
{
	struct bm_obj *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->g.node_id = node_id;
	o->g.read_at_ms = now_ms;
	if (url && !(o->url = ss_http_display(url))) {
		free(o);
		return NULL;
	}
	o->g.url = o->url;
	return o;
}

int ss_bm_from_text(const char *buf, size_t len, const char *fname, const struct ss_bm_names *names,
		    struct ss_broker_gauges **out, char *err, size_t errlen)
{
	struct collect c = { .names = names ? names : &ss_bm_default_names };
	struct bm_obj *o = obj_new(-1, NULL, 0);
	int r = -ENOMEM;
	*out = NULL;
	if (!o)
		goto out;
	if ((r = ss_promtext_parse(buf, len, fname, NULL, on_sample, &c, err, errlen)))
		goto out;
	if ((r = fold(&c, o)))
		goto out;
	o->g.ok = true;
	*out = &o->g;
	o = NULL;
out:
	collect_free(&c);
	ss_bm_free(o ? &o->g : NULL);
	return r;
}

int ss_bm_failed(int32_t node_id, const char *url, int64_t now_ms, const char *why, struct ss_broker_gauges **out)
{
	struct bm_obj *o = obj_new(node_id, url, now_ms);
	*out = NULL;
	if (!o || !(o->error = ss_esc_line(why ? why : "unknown"))) {
		ss_bm_free(o ? &o->g : NULL);
		return -ENOMEM;
	}
	o->g.error = o->error;
	*out = &o->g;
	return 0;
}

int ss_bm_load(const struct ss_bm_opts *o, struct ss_broker_gauges **out)
{
	static const char *const accept[] = { "Accept: text/plain;version=0.0.4", NULL };
	struct ss_http_req q = {
		.url = o->url,
		.timeout_ms = o->timeout_ms,
		.connect_timeout_ms = o->timeout_ms,
		.max_bytes = o->max_bytes,
		.accept_encoding = true,   /* the exporter gzips when asked: the bound is on the decoded text */
		.headers = accept,
		.conf = o->http_conf,
		.cancelled = o->cancelled,
		.cancel_arg = o->cancel_arg,
	};
	struct ss_http_resp resp = { .content_length = -1 };
	char err[768], *shown = ss_http_display(o->url);
	int r = shown ? ss_http_get1(&q, &resp, err, sizeof(err)) : -ENOMEM;
	*out = NULL;
	if (r == -ENOMEM || r == -ECANCELED)
		goto out;
	if (!r && resp.status != 200) {
		snprintf(err, sizeof(err), "%s: HTTP %ld%s", shown, resp.status,
			 resp.status == 401 ? " (unauthorized: basic_auth in --http.config.file)" : "");
		r = -EIO;
	}
	if (!r && (r = ss_bm_from_text(resp.body ? resp.body : "", resp.len, shown, o->names, out, err, sizeof(err))) ==
			  -ENOMEM)
		goto out;
	if (!r) {
		struct bm_obj *b = (struct bm_obj *)*out;
		b->g.node_id = o->node_id;
		b->g.read_at_ms = o->now_ms;
		if (!(b->url = strdup(shown))) {
			r = -ENOMEM;
			goto out;
		}
		b->g.url = b->url;
		goto out;
	}
	r = ss_bm_failed(o->node_id, o->url, o->now_ms, err, out);
out:
	if (r && *out) {
		ss_bm_free(*out);
		*out = NULL;
	}
	ss_http_resp_free(&resp);
	free(shown);
	return r;
}

static int topic_cmp(const void *elem, const void *key)
{
	return strcmp(((const struct ss_topic_gauges *)elem)->topic, key);
}

const struct ss_topic_gauges *ss_bm_topic(const struct ss_broker_gauges *g, const char *topic)
{
	if (!g || !g->ok || !topic)
		return NULL;
	int64_t i = ss_sorted_find(g->topics, g->n, sizeof(*g->topics), topic_cmp, topic, NULL);
	return i >= 0 ? &g->topics[i] : NULL;
}
