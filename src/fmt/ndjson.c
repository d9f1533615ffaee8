/*
 * --remote-state parser: one json_loadb per line, fields per the contract, into the same
 * struct ss_remote_event the metadata-topic decoder produces. Pure: bytes in, events out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/ascii.h"
#include "common/darray.h"
#include "fmt/lines.h"
#include "fmt/ndjson.h"
#include "segscan.h"

struct ndj {
	ss_remote_event_fn     fn;
	void                  *arg;
	const char            *fname;
	unsigned long          line;
	char                  *err;
	size_t                 errlen;
	struct ss_epoch_entry *epochs;
	uint32_t               cap_epochs;
};

static int fail(struct ndj *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct ndj *c, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ss_line_verror(c->err, c->errlen, c->fname, c->line, fmt, ap);
	va_end(ap);
	return code;
}

static int get_str(struct ndj *c, json_t *o, const char *key, bool required, const char **s, size_t *len)
{
	json_t *v = json_object_get(o, key);
	*s = NULL;
	*len = 0;
	if (!v || (json_is_null(v) && !required)) {
		if (required)
			return fail(c, SEGSCAN_EJSON, "field \"%s\" is missing", key);
		return 0;
	}
	if (!json_is_string(v))
		return fail(c, SEGSCAN_EJSON, "field \"%s\" must be a string", key);
	*s = json_string_value(v);
	*len = json_string_length(v);
	return 0;
}

static int get_int(struct ndj *c, json_t *o, const char *key, int64_t min, int64_t max, int64_t *out)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return fail(c, SEGSCAN_EJSON, "field \"%s\" is missing", key);
	if (!json_is_integer(v))
		return fail(c, SEGSCAN_EJSON, "field \"%s\" must be an integer", key);
	json_int_t x = json_integer_value(v);
	if (x < min || x > max)
		return fail(c, SEGSCAN_EJSON, "field \"%s\" is out of range: %lld", key, (long long)x);
	*out = (int64_t)x;
	return 0;
}

/* Epoch keys are decimal strings ("0", "15"), as JSON objects only have string keys.
 * Canonical form only: with "00" or "+1" accepted, "0" and "00" would be two keys for
 * one epoch that JSON_REJECT_DUPLICATES cannot see (issue 14 item 11). */
static bool parse_epoch_key(const char *k, int32_t *out)
{
	size_t n = strlen(k);
	if (n > 1 && k[0] == '0')
		return false;
	return ss_dec_u31(k, n, out);
}

static int get_epochs(struct ndj *c, json_t *o, struct ss_remote_event *ev)
{
	json_t *v = json_object_get(o, "leader_epochs");
	if (!v)
		return fail(c, SEGSCAN_EJSON, "field \"leader_epochs\" is missing");
	if (!json_is_object(v))
		return fail(c, SEGSCAN_EJSON, "field \"leader_epochs\" must be an object of epoch -> start offset");
	size_t n = json_object_size(v);
	if (SS_DA_RESERVE(&c->epochs, &c->cap_epochs, n) < 0)
		return fail(c, -ENOMEM, "out of memory");
	size_t i = 0;
	const char *key;
	json_t *val;
	json_object_foreach(v, key, val) {
		int32_t epoch;
		if (!parse_epoch_key(key, &epoch))
			return fail(c, SEGSCAN_EJSON, "leader_epochs key \"%.40s\" is not a leader epoch (decimal without leading zeros, 0..2147483647)",
				    key);
		if (!json_is_integer(val))
			return fail(c, SEGSCAN_EJSON, "leader_epochs[\"%s\"] must be an integer offset", key);
		c->epochs[i].epoch = epoch;
		c->epochs[i].start_offset = (int64_t)json_integer_value(val);
		i++;
	}
	ev->epochs = c->epochs;
	ev->n_epochs = (uint32_t)i;
	return 0;
}

/* The fields of one event object, into *ev (its strings point into o). */
static int parse_event(struct ndj *c, json_t *o, struct ss_remote_event *ev)
{
	const char *s;
	size_t sl;
	int64_t v;
	int e;

	if ((e = get_str(c, o, "type", true, &s, &sl)))
		return e;
	if (strcmp(s, "segment") == 0) {
		ev->type = SS_REV_SEGMENT;
	} else if (strcmp(s, "update") == 0) {
		ev->type = SS_REV_UPDATE;
	} else if (strcmp(s, "partition_delete") == 0) {
		ev->type = SS_REV_PARTITION_DELETE;
	} else {
		return fail(c, SEGSCAN_EJSON, "unknown type \"%.40s\" (segment, update or partition_delete)", s);
	}

	if ((e = get_str(c, o, "topic", true, &ev->topic, &ev->topic_len)))
		return e;
	if (!ss_topic_name_ok(ev->topic, ev->topic_len)) {
		return fail(c, SEGSCAN_EJSON, "\"%.60s\" is not a Kafka topic name", ev->topic);
	}
	if ((e = get_int(c, o, "partition", 0, INT32_MAX, &v)))
		return e;
	ev->partition = (int32_t)v;

	if ((e = get_str(c, o, "topic_id", false, &s, &sl)))
		return e;
	if (s) {
		if (ss_uuid_parse(s, sl, ev->topic_id)) {
			return fail(c, SEGSCAN_EJSON, "topic_id \"%.40s\" is not a Kafka Uuid (22 base64url characters)", s);
		}
		ev->has_topic_id = true;
	}

	if ((e = get_int(c, o, "broker_id", INT32_MIN, INT32_MAX, &v)))
		return e;
	ev->broker_id = (int32_t)v;
	if ((e = get_int(c, o, "event_timestamp_ms", INT64_MIN, INT64_MAX, &ev->event_timestamp_ms)))
		return e;

	if ((e = get_str(c, o, "state", true, &s, &sl)))
		return e;
	if (ev->type == SS_REV_PARTITION_DELETE) {
		if ((ev->state = ss_rpart_state_parse(s, sl)) < 0) {
			return fail(c, SEGSCAN_EJSON, "unknown partition delete state \"%.40s\"", s);
		}
	} else {
		if ((ev->state = ss_rseg_state_parse(s, sl)) < 0) {
			return fail(c, SEGSCAN_EJSON, "unknown segment state \"%.40s\"", s);
		}
		if ((e = get_str(c, o, "segment_id", true, &ev->segment_id, &ev->segment_id_len)))
			return e;
	}

	if (ev->type == SS_REV_SEGMENT) {
		if ((e = get_int(c, o, "start_offset", INT64_MIN, INT64_MAX, &ev->start_offset)) ||
		    (e = get_int(c, o, "end_offset", INT64_MIN, INT64_MAX, &ev->end_offset)) ||
		    (e = get_int(c, o, "size_bytes", 0, INT32_MAX, &ev->size_bytes)) ||
		    (e = get_int(c, o, "max_timestamp_ms", INT64_MIN, INT64_MAX, &ev->max_timestamp_ms)) ||
		    (e = get_epochs(c, o, ev)))
			return e;
	}

	return 0;
}

static int do_line(struct ndj *c, const char *line, size_t len)
{
	json_error_t jerr;
	struct ss_remote_event ev;
	int e;

	size_t k = 0;
	while (k < len && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r' || line[k] == '\n'))
		k++;
	if (k == len)
		return 0;   /* blank line */

	if (len > SS_NDJSON_LINE_MAX)
		return fail(c, SEGSCAN_EJSON, "line of %zu bytes is over the %zu MiB cap for a remote-state line", len,
			    SS_NDJSON_LINE_MAX >> 20);
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	/* jansson's own allocation failure is not a malformed line: an error of its own
	 * (never a line taken as the end of the file) */
	if (!o && json_error_code(&jerr) == json_error_out_of_memory)
		return fail(c, -ENOMEM, "out of memory parsing the line (%zu bytes)", len);
	if (!o)
		return fail(c, SEGSCAN_EJSON, "malformed JSON at column %d: %s", jerr.column, jerr.text);
	if (!json_is_object(o)) {
		e = fail(c, SEGSCAN_EJSON, "expected a JSON object");
		goto out;
	}
	memset(&ev, 0, sizeof(ev));

	if ((e = parse_event(c, o, &ev)))
		goto out;

	char msg[512];
	msg[0] = '\0';
	e = c->fn(c->arg, &ev, msg, sizeof(msg));
	if (e > 0)
		e = 0;   /* cannot happen in STRICT mode; a KAFKA store just counted it */
	else if (e < 0)
		fail(c, e, "%s", msg[0] ? msg : segscan_strerror(e));
out:
	json_decref(o);
	return e;
}

static int line_at(void *arg, unsigned no, const char *s, size_t n)
{
	struct ndj *c = arg;
	c->line = no;
	return do_line(c, s, n);
}

int ss_ndjson_parse(const char *buf, size_t len, const char *fname, ss_remote_event_fn fn, void *arg, char *err,
		    size_t errlen)
{
	struct ndj c = { .fn = fn, .arg = arg, .fname = fname ? fname : "-", .err = err, .errlen = errlen };

	if (err && errlen)
		err[0] = '\0';
	int e = ss_lines_each(buf, len, SS_LINES_LF, line_at, &c);
	free(c.epochs);   /* the epoch scratch array, grown by get_epochs */
	return e;
}
