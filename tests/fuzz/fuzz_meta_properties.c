/*
 * meta.properties (src/fmt/meta_properties.c, over the one properties reader) on arbitrary
 * bytes: no crash, no leak, no read past the input; an error always names the file; what
 * is accepted is a node id >= 0 or -1, a version of 0 or 1, and a version 1 file with both
 * node.id and cluster.id.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/meta_properties.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1); /* exact size: a read past the end is caught */
	if (!buf)
		abort();
	memcpy(buf, data, size);
	char err[256];
	struct ss_meta_props m;
	int r = ss_meta_props_parse(buf, size, "meta.properties", &m, err, sizeof(err));
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
