/*
 * --topic-config and --server-properties parsers. See config.h.
 *
 * Values are parsed the way Kafka's ConfigDef parses them (trimmed; Long.parseLong /
 * Integer.parseInt, so an optional sign; booleans "true"/"false" in any case) and
 * checked against the same validators (retention.ms >= -1, local.* >= -2,
 * segment.bytes >= 14, cleanup.policy a list of delete and compact). cleanup.policy is a
 * LIST, and ConfigDef parses an empty (or blank) value as the empty list, which every
 * release's validator accepts (ValidList.in checks each item; 4.2's, KAFKA-19112, says so
 * with isEmptyAllowed): no cleanup, documented from 4.2 as infinite retention. So
 * `cleanup.policy=` is a value here too, stored as the empty policy string.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/ascii.h"
#include "common/darray.h"
#include "common/hidx.h"
#include "common/search.h"
#include "fmt/config.h"
#include "fmt/kafka_configs.h"
#include "fmt/lines.h"
#include "fmt/properties.h"
#include "fmt/names.h"
#include "segscan.h"

int ss_config_new(struct ss_config **out)
{
	struct ss_config *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->node_id = -1;
	c->rlm_task_interval_ms = -1;
	c->min_isr = -1;
	*out = c;
	return 0;
}

void ss_config_free(struct ss_config *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n_topics; i++)
		free(c->topics[i].topic);
	free(c->topics);
	for (uint32_t i = 0; i < c->n_log_dirs; i++)
		free(c->log_dirs[i]);
	free(c->log_dirs);
	free(c->metadata_log_dir);
	for (uint32_t i = 0; i < c->n_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c);
}

/* ---- helpers ---- */
struct cctx {
	struct ss_config *c;
	const char       *fname;
	unsigned          line;
	char             *err;
	size_t            errlen;
	/* Topics new in this load are appended (c->topics[sorted..n_topics)) and found
	 * through a hash of their indices, then the array is sorted once at the end: one
	 * insertion per line kept the array sorted at the cost of a memmove each, quadratic
	 * (300k lines: 68 s; issue 14 item 11). */
	uint32_t          sorted;     /* the sorted prefix when the load began */
	struct ss_hidx    ht;         /* their names: positions in c->topics (common/hidx.h) */
	/* Warnings past SS_CONFIG_WARN_MAX are counted into one summary line instead (2M
	 * unknown keys printed 2M lines). */
	uint32_t          warn_slot;  /* the summary's index in c->warnings, valid if suppressed */
	uint64_t          suppressed;
};

#define SS_CONFIG_WARN_MAX 100

static int cfail(struct cctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfail(struct cctx *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ss_line_verror(x->err, x->errlen, x->fname, x->line, fmt, ap);
	va_end(ap);
	return SEGSCAN_ECONFIG;
}

static int cwarn(struct cctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cwarn(struct cctx *x, const char *fmt, ...)
{
	struct ss_config *c = x->c;
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	char *w;
	if (x->suppressed || c->n_warnings >= SS_CONFIG_WARN_MAX) {
		if (!x->suppressed++) {
			/* the summary line's place, filled in by warn_summary() */
			if (!(w = strdup("")))
				return -ENOMEM;
			char **slot;
			if (SS_DA_PUSH(&c->warnings, &c->n_warnings, &c->cap_warnings, &slot) < 0) {
				free(w);
				return -ENOMEM;
			}
			*slot = w;
			x->warn_slot = c->n_warnings - 1;
		}
		return 0;
	}
	if (asprintf(&w, "%s:%u: %s", x->fname, x->line, what) < 0)
		return -ENOMEM;
	char **slot;
	if (SS_DA_PUSH(&c->warnings, &c->n_warnings, &c->cap_warnings, &slot) < 0) {
		free(w);
		return -ENOMEM;
	}
	*slot = w;
	return 0;
}

static bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\f' || ch == '\r' || ch == '\n' || ch == '\v';
}

/* Long.parseLong / Integer.parseInt of a trimmed string. */
static bool parse_long(const char *s, size_t len, int64_t min, int64_t max, int64_t *out)
{
	while (len && is_ws(*s)) {
		s++;
		len--;
	}
	while (len && is_ws(s[len - 1]))
		len--;
	if (!len)
		return false;
	bool neg = false;
	size_t i = 0;
	if (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == len)
		return false;
	uint64_t v = 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > (uint64_t)INT64_MAX + 1)
			return false;
	}
	int64_t r;
	if (neg)
		r = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else if (v > (uint64_t)INT64_MAX)
		return false;
	else
		r = (int64_t)v;
	if (r < min || r > max)
		return false;
	*out = r;
	return true;
}

static bool parse_bool(const char *s, size_t len, bool *out)
{
	while (len && is_ws(*s)) {
		s++;
		len--;
	}
	while (len && is_ws(s[len - 1]))
		len--;
	if (len == 4 && strncasecmp(s, "true", 4) == 0) {
		*out = true;
		return true;
	}
	if (len == 5 && strncasecmp(s, "false", 5) == 0) {
		*out = false;
		return true;
	}
	return false;
}

/* cleanup.policy: a comma-separated list of delete / compact. norm gets the list as
 * Kafka prints it (ConfigDef's LIST type: the items joined by ',', no spaces); a blank
 * value is the empty list (norm ""). An empty item ("delete,") is refused, as Kafka's
 * ValidString refuses "". */
static bool parse_policy(const char *s, size_t len, bool *compact, char *norm, size_t normlen)
{
	bool any = false, comp = false;
	size_t nn = 0;
	if (normlen)
		norm[0] = 0;
	size_t blank = 0;
	while (blank < len && is_ws(s[blank]))
		blank++;
	if (blank == len) {
		*compact = false;
		return true;
	}
	size_t i = 0;
	while (i <= len) {
		size_t j = i;
		while (j < len && s[j] != ',')
			j++;
		size_t a = i, b = j;
		while (a < b && is_ws(s[a]))
			a++;
		while (b > a && is_ws(s[b - 1]))
			b--;
		if (b - a == 7 && memcmp(s + a, "compact", 7) == 0)
			comp = true;
		else if (!(b - a == 6 && memcmp(s + a, "delete", 6) == 0))
			return false;
		if (nn + (b - a) + 2 <= normlen) {
			if (nn)
				norm[nn++] = ',';
			memcpy(norm + nn, s + a, b - a);
			nn += b - a;
			norm[nn] = 0;
		}
		any = true;
		i = j + 1;
	}
	if (!any)
		return false;
	*compact = comp;
	return true;
}

/* Kafka config names: dotted lowercase words ("segment.ms", "min.insync.replicas"). */
static bool dotted_lower(const char *k, size_t len)
{
	bool dot = false, prev_dot = true;
	for (size_t i = 0; i < len; i++) {
		char ch = k[i];
		if (ch == '.') {
			if (prev_dot)
				return false;
			dot = prev_dot = true;
		} else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
			prev_dot = false;
		} else {
			return false;
		}
	}
	return dot && !prev_dot;
}

enum vkind { VK_LONG, VK_INT, VK_BOOL, VK_POLICY };
struct keydef {
	const char *name;
	enum vkind  kind;
	int64_t     min;
	uint32_t    bit;
};

static const struct keydef topic_keys[] = {
	{ "retention.ms", VK_LONG, -1, SS_CFG_RETENTION_MS },
	{ "retention.bytes", VK_LONG, INT64_MIN, SS_CFG_RETENTION_BYTES },
	{ "local.retention.ms", VK_LONG, -2, SS_CFG_LOCAL_RETENTION_MS },
	{ "local.retention.bytes", VK_LONG, -2, SS_CFG_LOCAL_RETENTION_BYTES },
	{ "segment.bytes", VK_INT, 14, SS_CFG_SEGMENT_BYTES },
	{ "remote.storage.enable", VK_BOOL, 0, SS_CFG_REMOTE_STORAGE },
	{ "remote.log.copy.disable", VK_BOOL, 0, SS_CFG_REMOTE_COPY_DISABLE },
	{ "cleanup.policy", VK_POLICY, 0, SS_CFG_CLEANUP_POLICY },
	{ "preallocate", VK_BOOL, 0, SS_CFG_PREALLOCATE },
};

/* Parse `val` as key `d` into v. false when the value does not parse or validate. */
static bool set_value(const struct keydef *d, const char *val, size_t vlen, struct ss_cfg_vals *v)
{
	int64_t n = 0;
	bool b = false;
	switch (d->kind) {
	case VK_LONG:
		if (!parse_long(val, vlen, d->min, INT64_MAX, &n))
			return false;
		break;
	case VK_INT:
		if (!parse_long(val, vlen, d->min, INT32_MAX, &n))
			return false;
		break;
	case VK_BOOL:
		if (!parse_bool(val, vlen, &b))
			return false;
		break;
	case VK_POLICY:
		if (!parse_policy(val, vlen, &b, v->policy, sizeof(v->policy)))
			return false;
		break;
	}
	switch (d->bit) {
	case SS_CFG_RETENTION_MS: v->retention_ms = n; break;
	case SS_CFG_RETENTION_BYTES: v->retention_bytes = n; break;
	case SS_CFG_LOCAL_RETENTION_MS: v->local_retention_ms = n; break;
	case SS_CFG_LOCAL_RETENTION_BYTES: v->local_retention_bytes = n; break;
	case SS_CFG_SEGMENT_BYTES: v->segment_bytes = n; break;
	case SS_CFG_REMOTE_STORAGE: v->remote_storage = b; break;
	case SS_CFG_REMOTE_COPY_DISABLE: v->remote_copy_disable = b; break;
	case SS_CFG_CLEANUP_POLICY: v->compact = b; break;
	case SS_CFG_PREALLOCATE: v->preallocate = b; break;
	default: return false;
	}
	v->set |= d->bit;
	return true;
}

static const char *kind_text(enum vkind k, int64_t min)
{
	switch (k) {
	case VK_LONG: return min == -1 ? "an integer >= -1" : min == -2 ? "an integer >= -2" : "an integer";
	case VK_INT: return "an integer from 14 to 2147483647";
	case VK_BOOL: return "true or false";
	case VK_POLICY: return "delete, compact, delete,compact or empty";
	}
	return "?";
}

/* ---- --topic-config ---- */
int ss_cfg_vals_merge(struct ss_cfg_vals *dst, const struct ss_cfg_vals *src)
{
	if (src->set & SS_CFG_RETENTION_MS) dst->retention_ms = src->retention_ms;
	if (src->set & SS_CFG_RETENTION_BYTES) dst->retention_bytes = src->retention_bytes;
	if (src->set & SS_CFG_LOCAL_RETENTION_MS) dst->local_retention_ms = src->local_retention_ms;
	if (src->set & SS_CFG_LOCAL_RETENTION_BYTES) dst->local_retention_bytes = src->local_retention_bytes;
	if (src->set & SS_CFG_SEGMENT_BYTES) dst->segment_bytes = src->segment_bytes;
	if (src->set & SS_CFG_REMOTE_STORAGE) dst->remote_storage = src->remote_storage;
	if (src->set & SS_CFG_REMOTE_COPY_DISABLE) dst->remote_copy_disable = src->remote_copy_disable;
	if (src->set & SS_CFG_CLEANUP_POLICY) {
		dst->compact = src->compact;
		memcpy(dst->policy, src->policy, sizeof(dst->policy));
	}
	if (src->set & SS_CFG_PREALLOCATE) dst->preallocate = src->preallocate;
	dst->set |= src->set;
	return 0;
}

bool ss_cfg_parse_value(const char *key, const char *val, size_t vlen, struct ss_cfg_vals *v)
{
	for (size_t k = 0; k < sizeof(topic_keys) / sizeof(topic_keys[0]); k++)
		if (strcmp(topic_keys[k].name, key) == 0)
			return set_value(&topic_keys[k], val, vlen, v);
	return false;
}

struct topic_key {
	const char *t;
	size_t      len;
};

/* c->topics' order (bytewise, a prefix first) against a (name, length) key */
static int cmp_topic_key(const void *elem, const void *key)
{
	const char *m = ((const struct ss_config_topic *)elem)->topic;
	const struct topic_key *k = key;
	size_t ml = strlen(m);
	int r = memcmp(m, k->t, ml < k->len ? ml : k->len);
	if (r == 0)
		r = ml < k->len ? -1 : ml > k->len ? 1 : 0;
	return r;
}

struct ss_config_topic *ss_config_find(const struct ss_config *c, const char *t, size_t len)
{
	const struct topic_key k = { t, len };
	int64_t i = ss_sorted_find(c->topics, c->n_topics, sizeof(*c->topics), cmp_topic_key, &k, NULL);
	return i < 0 ? NULL : &c->topics[i];
}

struct name_key {
	const char *t;
	size_t      len;
};

static bool topic_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct ss_config_topic *e = &((const struct ss_config_topic *)ctx)[pos];
	const struct name_key *k = key;
	return strlen(e->topic) == k->len && memcmp(e->topic, k->t, k->len) == 0;
}

/* The topics new in this load, by name (common/hidx.h): index idx of c->topics. */
static int ht_put(struct cctx *x, uint32_t idx)
{
	const char *t = x->c->topics[idx].topic;
	return ss_hidx_insert(&x->ht, ss_hash_str(t), idx, NULL);
}

static struct ss_config_topic *ht_find(struct cctx *x, const char *t, size_t len)
{
	const struct name_key k = { t, len };
	int64_t s = ss_hidx_find(&x->ht, ss_hash_bytes(t, len), topic_is, x->c->topics, &k, NULL);
	return s < 0 ? NULL : &x->c->topics[ss_hidx_pos(&x->ht, s)];
}

static int topic_get(struct cctx *x, const char *t, size_t len, unsigned line, struct ss_cfg_vals **out)
{
	struct ss_config *c = x->c;
	/* the sorted prefix (earlier loads), then this load's own topics */
	uint32_t n = c->n_topics;
	c->n_topics = x->sorted;
	struct ss_config_topic *e = ss_config_find(c, t, len);
	c->n_topics = n;
	if (e || (e = ht_find(x, t, len))) {
		*out = &e->v;
		return 0;
	}
	if (SS_DA_RESERVE(&c->topics, &c->cap_topics, (uint64_t)c->n_topics + 1) < 0)
		return -ENOMEM;
	char *name = strndup(t, len);
	if (!name)
		return -ENOMEM;
	e = &c->topics[c->n_topics];
	memset(e, 0, sizeof(*e));
	e->topic = name;
	e->line = line;
	c->n_topics++;
	int r = ht_put(x, c->n_topics - 1);
	if (r)
		return r; /* the entry stays: freed with the config */
	*out = &e->v;
	return 0;
}

static int cmp_topic(const void *a, const void *b)
{
	return strcmp(((const struct ss_config_topic *)a)->topic, ((const struct ss_config_topic *)b)->topic);
}

/* The end of a load: one sort (the names are unique), the warning summary. */
static int load_done(struct cctx *x, int r)
{
	struct ss_config *c = x->c;
	if (c->n_topics > x->sorted)
		qsort(c->topics, c->n_topics, sizeof(*c->topics), cmp_topic);
	ss_hidx_free(&x->ht);
	if (x->suppressed) {
		char *w;
		if (asprintf(&w, "%s: %llu more warnings like the ones above not shown", x->fname,
			     (unsigned long long)x->suppressed) < 0)
			return r ? r : -ENOMEM;
		free(c->warnings[x->warn_slot]);
		c->warnings[x->warn_slot] = w;
	}
	return r;
}

static int topic_line(struct cctx *x, const char *s, size_t len)
{
	/* '#' starts a comment: it cannot occur in a topic name, a key or a value we read */
	const char *hash = memchr(s, '#', len);
	if (hash)
		len = (size_t)(hash - s);
	size_t i = 0;
	while (i < len && is_ws(s[i]))
		i++;
	if (i == len)
		return 0;
	size_t t0 = i;
	while (i < len && !is_ws(s[i]))
		i++;
	const char *topic = s + t0;
	size_t tlen = i - t0;
	bool star = tlen == 1 && topic[0] == '*';
	if (!star && !ss_topic_name_ok(topic, tlen))
		return cfail(x, "\"%.*s\" is not a topic name or '*'", (int)(tlen > 80 ? 80 : tlen), topic);

	struct ss_cfg_vals line_vals;
	memset(&line_vals, 0, sizeof(line_vals));
	int e;
	for (;;) {
		while (i < len && is_ws(s[i]))
			i++;
		if (i == len)
			break;
		size_t k0 = i;
		while (i < len && !is_ws(s[i]))
			i++;
		const char *tok = s + k0;
		size_t tl = i - k0;
		const char *eq = memchr(tok, '=', tl);
		int shown = (int)(tl > 80 ? 80 : tl);
		/* an empty value is a key=value only for cleanup.policy, the empty list */
		bool empty_ok = eq && (size_t)(eq - tok) == 14 && memcmp(tok, "cleanup.policy", 14) == 0;
		if (!eq || eq == tok || (eq + 1 == tok + tl && !empty_ok))
			return cfail(x, "malformed token \"%.*s\" (expected key=value)", shown, tok);
		size_t kl = (size_t)(eq - tok);
		const char *val = eq + 1;
		size_t vl = tl - kl - 1;
		const struct keydef *d = NULL;
		for (size_t k = 0; k < sizeof(topic_keys) / sizeof(topic_keys[0]); k++)
			if (strlen(topic_keys[k].name) == kl && memcmp(topic_keys[k].name, tok, kl) == 0)
				d = &topic_keys[k];
		if (!d) {
			if (!dotted_lower(tok, kl))
				return cfail(x, "\"%.*s\" is not a topic config name", (int)kl, tok);
			if ((e = cwarn(x, "ignoring topic config %.*s (segscan does not use it)", (int)kl, tok)))
				return e;
			continue;
		}
		if (!set_value(d, val, vl, &line_vals))
			return cfail(x, "%s=%.*s: the value must be %s", d->name, (int)(vl > 80 ? 80 : vl), val,
				     kind_text(d->kind, d->min));
	}
	struct ss_cfg_vals *dst;
	if (star) {
		dst = &x->c->deflt;
	} else if ((e = topic_get(x, topic, tlen, x->line, &dst))) {
		return e;
	}
	return ss_cfg_vals_merge(dst, &line_vals);
}

static int topic_line_at(void *arg, unsigned no, const char *s, size_t n)
{
	struct cctx *x = arg;
	x->line = no;
	if (memchr(s, '\0', n))
		return cfail(x, "NUL byte in the line");
	return topic_line(x, s, n);
}

/* kafka-configs.sh --describe output (fmt/kafka_configs.h): each topic block's entries of
 * the keys segscan reads are that topic's line; the other keys (describe --all lists every
 * one) are not warned about one by one, and broker blocks are left to the metadata log. */
struct kc_ctx {
	struct cctx *x;
	uint64_t     broker_entries;
};

static int kc_entry(void *arg, const struct ss_kc_entry *e)
{
	struct kc_ctx *k = arg;
	struct cctx *x = k->x;
	x->line = e->line;
	if (strcmp(e->entity_type, "topic") != 0) {
		k->broker_entries++;
		return 0;
	}
	if (!ss_topic_name_ok(e->entity, strlen(e->entity)))
		return cfail(x, "\"%.80s\" is not a topic name", e->entity);
	const struct keydef *d = NULL;
	for (size_t i = 0; i < sizeof(topic_keys) / sizeof(topic_keys[0]); i++)
		if (strcmp(topic_keys[i].name, e->key) == 0)
			d = &topic_keys[i];
	if (!d || !e->value)
		return 0;
	struct ss_cfg_vals one, *dst;
	memset(&one, 0, sizeof(one));
	if (!set_value(d, e->value, strlen(e->value), &one))
		return cfail(x, "%s=%.80s: the value must be %s", d->name, e->value, kind_text(d->kind, d->min));
	int r = topic_get(x, e->entity, strlen(e->entity), e->line, &dst);
	return r ? r : ss_cfg_vals_merge(dst, &one);
}

int ss_config_load_topics_buf(struct ss_config *c, const char *buf, size_t len, const char *fname, char *err,
			      size_t errlen)
{
	struct cctx x = { .c = c, .fname = fname ? fname : "-", .err = err, .errlen = errlen,
			  .sorted = c->n_topics };

	if (err && errlen)
		err[0] = '\0';
	if (ss_kc_detect(buf, len)) {
		struct kc_ctx k = { .x = &x };
		char kerr[256] = "";
		int r = ss_kc_parse(buf, len, x.fname, kc_entry, &k, kerr, sizeof(kerr));
		if (r == SEGSCAN_ECONFIG && kerr[0] && err && errlen)
			snprintf(err, errlen, "%s", kerr);
		if (r)
			return load_done(&x, r);
		c->kafka_configs_format = true;
		if (k.broker_entries) {
			x.line = 0;
			return load_done(&x, cwarn(&x, "%llu broker config entries ignored: broker-level configs come "
						  "from the metadata log and --server-properties",
						  (unsigned long long)k.broker_entries));
		}
		return load_done(&x, 0);
	}
	return load_done(&x, ss_lines_each(buf, len, SS_LINES_LF, topic_line_at, &x));
}

/* ---- server.properties (java.util.Properties.load) ---- */
struct prop {
	const char *key;
	char       *val;
	unsigned    line;
};

static const char *const prop_keys[] = {
	"log.dirs", "log.dir", "log.retention.ms", "log.retention.minutes", "log.retention.hours",
	"log.retention.bytes", "log.local.retention.ms", "log.local.retention.bytes", "log.segment.bytes",
	"remote.log.storage.system.enable", "log.cleanup.policy", "log.preallocate", "metadata.log.dir",
	"node.id", "broker.id", "remote.log.manager.task.interval.ms", "min.insync.replicas",
};
#define N_PROP_KEYS (sizeof(prop_keys) / sizeof(prop_keys[0]))

struct prop_ctx {
	struct cctx *x;
	struct prop *props;
};

/* One entry of fmt/properties.h: a key segscan reads is kept (the last occurrence wins, as
 * in Properties); a malformed escape anywhere refuses the file, as Java does. */
static int prop_entry(void *arg, const struct ss_props_entry *e)
{
	struct prop_ctx *pc = arg;
	struct cctx *x = pc->x;
	x->line = e->line;
	if (e->bad == SS_PROPS_BAD_KEY)
		return cfail(x, "malformed \\uxxxx escape in a key");
	size_t k;
	for (k = 0; k < N_PROP_KEYS; k++)
		if (strcmp(e->key, prop_keys[k]) == 0)
			break;
	if (e->bad == SS_PROPS_BAD_VALUE)
		return k == N_PROP_KEYS ? cfail(x, "malformed \\uxxxx escape in a value")
					: cfail(x, "malformed \\uxxxx escape in the value of %s", prop_keys[k]);
	if (k == N_PROP_KEYS)
		return 0;
	char *val = strdup(e->val);
	if (!val)
		return -ENOMEM;
	free(pc->props[k].val);
	pc->props[k].key = prop_keys[k];
	pc->props[k].val = val;
	pc->props[k].line = e->line;
	return 0;
}

static int split_dirs(struct ss_config *c, const char *v)
{
	const char *p = v;
	while (*p) {
		const char *q = strchr(p, ',');
		size_t l = q ? (size_t)(q - p) : strlen(p);
		const char *a = p, *b = p + l;
		while (a < b && is_ws(*a))
			a++;
		while (b > a && is_ws(b[-1]))
			b--;
		if (b > a) {
			char *d = strndup(a, (size_t)(b - a)), **slot;
			if (!d)
				return -ENOMEM;
			if (SS_DA_PUSH(&c->log_dirs, &c->n_log_dirs, &c->cap_log_dirs, &slot) < 0) {
				free(d);
				return -ENOMEM;
			}
			*slot = d;
		}
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* KafkaConfig.logRetentionTimeMillis: ms, else minutes, else hours (168); the first one
 * present decides. Every one given is kept for the sources. */
static int server_retention(struct cctx *x, struct prop *props, struct ss_cfg_vals *v)
{
	static const struct { int idx; const char *name; int64_t min, max, unit; } rt[] = {
		{ 2, "log.retention.ms", INT64_MIN, INT64_MAX, 1 },
		{ 3, "log.retention.minutes", INT32_MIN, INT32_MAX, 60000 },
		{ 4, "log.retention.hours", INT32_MIN, INT32_MAX, 3600000 },
	};
	struct ss_config *c = x->c;
	int64_t n;
	for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		struct prop *p = &props[rt[i].idx];
		if (!p->val)
			continue;
		x->line = p->line;
		if (!parse_long(p->val, strlen(p->val), rt[i].min, rt[i].max, &n))
			return cfail(x, "%s=%.80s: not an integer", rt[i].name, p->val);
		c->server_retention[i] = n;
		c->server_retention_set |= (uint8_t)(1u << i);
		if (v->set & SS_CFG_RETENTION_MS)
			continue;   /* a later synonym is kept for the sources, not for the value */
		n *= rt[i].unit;
		v->retention_ms = n < 0 ? -1 : n;
		v->set |= SS_CFG_RETENTION_MS;
	}
	return 0;
}

/* An integer property in [min, max] into *out; absent leaves *out alone. */
static int server_long(struct cctx *x, const struct prop *p, const char *what, int64_t min, int64_t max,
		       int64_t *out)
{
	int64_t n;
	if (!p->val)
		return 0;
	x->line = p->line;
	if (!parse_long(p->val, strlen(p->val), min, max, &n))
		return cfail(x, "%s=%.80s: the value must be %s", what, p->val,
			     min == 1 ? "an integer >= 1" : "an integer");
	*out = n;
	return 0;
}

/* The broker's own keys: its id, metadata.log.dir, and what the tiering health rules read
 * (eval/health.h: -1 when absent). */
static int server_broker_keys(struct cctx *x, struct prop *props)
{
	struct ss_config *c = x->c;
	int64_t n = -1;
	int e;
	if (props[12].val && props[12].val[0] && !(c->metadata_log_dir = strdup(props[12].val)))
		return -ENOMEM;
	/* node.id, else broker.id (KafkaConfig: the two must agree when both are set) */
	for (int k = 13; k <= 14 && n == -1; k++) {
		if (!props[k].val)
			continue;
		x->line = props[k].line;
		if (!parse_long(props[k].val, strlen(props[k].val), -1, INT32_MAX, &n))
			return cfail(x, "%s=%.80s: not an integer", prop_keys[k], props[k].val);
		break;
	}
	c->node_id = (int32_t)n;
	/* RemoteLogManagerConfig: a long, at least 1 */
	c->rlm_task_interval_ms = -1;
	if ((e = server_long(x, &props[15], "remote.log.manager.task.interval.ms", 1, INT64_MAX, &c->rlm_task_interval_ms)))
		return e;
	/* ServerLogConfigs: an int, at least 1 */
	n = -1;
	if ((e = server_long(x, &props[16], "min.insync.replicas", 1, INT32_MAX, &n)))
		return e;
	c->min_isr = (int32_t)n;
	return 0;
}

static int server_apply(struct cctx *x, struct prop *props)
{
	struct ss_config *c = x->c;
	struct ss_cfg_vals v;
	bool b;
	int e;

	memset(&v, 0, sizeof(v));
	if ((e = server_retention(x, props, &v)))
		return e;
	static const struct { int idx; struct keydef d; } simple[] = {
		{ 5, { "log.retention.bytes", VK_LONG, INT64_MIN, SS_CFG_RETENTION_BYTES } },
		{ 6, { "log.local.retention.ms", VK_LONG, -2, SS_CFG_LOCAL_RETENTION_MS } },
		{ 7, { "log.local.retention.bytes", VK_LONG, -2, SS_CFG_LOCAL_RETENTION_BYTES } },
		{ 8, { "log.segment.bytes", VK_INT, 14, SS_CFG_SEGMENT_BYTES } },
		{ 10, { "log.cleanup.policy", VK_POLICY, 0, SS_CFG_CLEANUP_POLICY } },
		{ 11, { "log.preallocate", VK_BOOL, 0, SS_CFG_PREALLOCATE } },
	};
	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
		struct prop *p = &props[simple[i].idx];
		if (!p->val)
			continue;
		x->line = p->line;
		if (!set_value(&simple[i].d, p->val, strlen(p->val), &v))
			return cfail(x, "%s=%.80s: the value must be %s", simple[i].d.name, p->val,
				     kind_text(simple[i].d.kind, simple[i].d.min));
	}
	bool sys = false;   /* RemoteLogManagerConfig default */
	if (props[9].val) {
		x->line = props[9].line;
		if (!parse_bool(props[9].val, strlen(props[9].val), &b))
			return cfail(x, "remote.log.storage.system.enable=%.80s: the value must be true or false",
				     props[9].val);
		sys = b;
	}
	if ((e = server_broker_keys(x, props)))
		return e;
	/* log.dirs wins over log.dir (KafkaConfig.logDirs) */
	struct prop *dirs = props[0].val ? &props[0] : props[1].val ? &props[1] : NULL;
	if (dirs && (e = split_dirs(c, dirs->val)))
		return e;
	c->server = v;
	c->has_server = true;
	c->remote_system_enable = sys;
	return 0;
}

int ss_config_load_server_buf(struct ss_config *c, const char *buf, size_t len, const char *fname, char *err,
			      size_t errlen)
{
	struct cctx x = { .c = c, .fname = fname ? fname : "-", .err = err, .errlen = errlen };
	struct prop props[N_PROP_KEYS];
	struct prop_ctx pc = { .x = &x, .props = props };

	memset(props, 0, sizeof(props));
	if (err && errlen)
		err[0] = '\0';
	int e = ss_props_parse(buf, len, prop_entry, &pc);
	if (!e)
		e = server_apply(&x, props);
	for (size_t i = 0; i < N_PROP_KEYS; i++)
		free(props[i].val);
	return e;
}
