/*
 * The Java properties parser and meta.properties (src/fmt/props.c) on arbitrary bytes: no
 * crash, no leak, no read past the input; an error always says FILE:LINE or FILE; what is
 * accepted is a node id >= 0 or -1 and a version of 0 or 1. Every entry the generic parser
 * yields has a NUL-terminated key and value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/props.h"

static int count(void *arg, const char *key, const char *val, unsigned line)
{
	if (!key || !val || line == 0)
		abort();
	(*(size_t *)arg) += strlen(key) + strlen(val);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1); /* exact size: a read past the end is caught */
	if (!buf)
		abort();
	memcpy(buf, data, size);
	char err[256];
	size_t n = 0;
	int r = ss_props_parse(buf, size, "x.properties", count, &n, err, sizeof(err));
	if (r != 0 && (!err[0] || strncmp(err, "x.properties:", 13) != 0))
		abort();
	struct ss_meta_props m;
	r = ss_meta_props_parse(buf, size, "meta.properties", &m, err, sizeof(err));
	if (r == 0) {
		if (m.node_id < -1 || (m.version != 0 && m.version != 1))
			abort();
		if (m.version == 1 && (m.node_id < 0 || !m.cluster_id))
			abort();
		ss_meta_props_free(&m);
	} else if (!err[0] || strncmp(err, "meta.properties", 15) != 0) {
		abort();
	} else if (m.cluster_id) {
		abort();
	}
	free(buf);
	return 0;
}
