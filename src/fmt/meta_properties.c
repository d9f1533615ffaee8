/* meta.properties as Kafka reads it: see meta_properties.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/lines.h"
#include "fmt/meta_properties.h"
#include "fmt/properties.h"
#include "segscan.h"

static int pfail(char *err, size_t errlen, const char *fname, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int pfail(char *err, size_t errlen, const char *fname, unsigned line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (line) {
		ss_line_verror(err, errlen, fname, line, fmt, ap);
	} else if (err && errlen) {   /* about the whole file (a key it lacks) */
		char what[512];
		vsnprintf(what, sizeof(what), fmt, ap);
		snprintf(err, errlen, "%s: %s", fname, what);
	}
	va_end(ap);
	return SEGSCAN_ECONFIG;
}

/* ---- meta.properties ------------------------------------------------------------------ */

enum { MK_VERSION, MK_NODE, MK_BROKER, MK_CLUSTER, MK_DIRECTORY, MK_N };
static const char *const meta_keys[MK_N] = { "version", "node.id", "broker.id", "cluster.id", "directory.id" };

struct meta_ctx {
	char    *val[MK_N];
	unsigned line[MK_N];
	unsigned bad_line;   /* the first malformed \uXXXX escape; 0 none */
};

/* A nonzero return stops the read: 1 for a malformed escape (Java refuses the file). */
static int meta_cb(void *arg, const struct ss_props_entry *e)
{
	struct meta_ctx *m = arg;
	if (e->bad != SS_PROPS_OK) {
		m->bad_line = e->line;
		return 1;
	}
	for (int k = 0; k < MK_N; k++) {
		if (strcmp(e->key, meta_keys[k]) != 0)
			continue;
		char *v = strdup(e->val);
		if (!v)
			return -ENOMEM;
		free(m->val[k]);   /* the last occurrence wins, as in Properties */
		m->val[k] = v;
		m->line[k] = e->line;
	}
	return 0;
}

/* Integer.parseInt: an optional sign and decimal digits, nothing else (no whitespace). */
static bool parse_int(const char *s, int64_t *out)
{
	const char *p = s;
	bool neg = false;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (!*p)
		return false;
	int64_t v = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
		if (v > (int64_t)INT32_MAX + 1)
			return false;
	}
	v = neg ? -v : v;
	if (v > INT32_MAX || v < INT32_MIN)
		return false;
	*out = v;
	return true;
}

int ss_meta_props_parse(const char *buf, size_t len, const char *fname, struct ss_meta_props *out, char *err,
			size_t errlen)
{
	struct meta_ctx m;
	int64_t v;
	int e;

	memset(&m, 0, sizeof(m));
	memset(out, 0, sizeof(*out));
	out->node_id = -1;
	if (!fname)
		fname = "meta.properties";
	if (err && errlen)
		err[0] = 0;
	e = ss_props_parse(buf, len, meta_cb, &m);
	if (e == 1) {
		e = pfail(err, errlen, fname, m.bad_line, "malformed \\uxxxx escape");
		goto out;
	}
	if (e)
		goto out;
	/* MetaPropertiesVersion.fromNumberString: 0 when absent, else 0 or 1 */
	if (m.val[MK_VERSION]) {
		if (!parse_int(m.val[MK_VERSION], &v) || (v != 0 && v != 1)) {
			e = pfail(err, errlen, fname, m.line[MK_VERSION], "version: not a meta.properties version "
				  "Kafka knows (0 or 1)");
			goto out;
		}
		out->version = (int)v;
	}
	/* version 1 always has node.id; version 0 may have broker.id */
	int k = out->version == 1 ? MK_NODE : MK_BROKER;
	if (m.val[k]) {
		if (!parse_int(m.val[k], &v) || v < 0) {
			e = pfail(err, errlen, fname, m.line[k], "%s: not a node id (a base-10 number, 0 or more)",
				  meta_keys[k]);
			goto out;
		}
		out->node_id = (int32_t)v;
	} else if (out->version == 1) {
		e = pfail(err, errlen, fname, 0, "version 1 without node.id (Kafka requires it)");
		goto out;
	}
	if (m.val[MK_CLUSTER]) {
		out->cluster_id = m.val[MK_CLUSTER];
		m.val[MK_CLUSTER] = NULL;
	} else if (out->version == 1) {
		e = pfail(err, errlen, fname, 0, "version 1 without cluster.id (Kafka requires it)");
		goto out;
	}
	if (m.val[MK_DIRECTORY])
		snprintf(out->directory_id, sizeof(out->directory_id), "%s", m.val[MK_DIRECTORY]);
	e = 0;
out:
	for (int i = 0; i < MK_N; i++)
		free(m.val[i]);
	if (e)
		ss_meta_props_free(out);
	return e;
}

void ss_meta_props_free(struct ss_meta_props *m)
{
	if (!m)
		return;
	free(m->cluster_id);
	m->cluster_id = NULL;
	m->node_id = -1;
}
