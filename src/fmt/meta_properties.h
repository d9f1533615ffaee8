/*
 * A log dir's meta.properties as Kafka's MetaProperties reads it, over the one properties
 * reader (fmt/properties.h). Pure: the caller reads the file (common/file.h).
 *
 * ss_meta_props_parse: `version` (0 when absent; 0 or 1), the node id from `node.id`
 *   (version 1, required) or `broker.id` (version 0, optional), `cluster.id` (required by
 *   version 1), `directory.id`. Integers as Integer.parseInt reads them (a sign and digits,
 *   nothing else), a node id 0 or more. A malformed \uXXXX escape anywhere refuses the file,
 *   as Java does. 0 (out filled; node_id -1 when the file gives none), SEGSCAN_ECONFIG (err =
 *   "FILE:LINE: problem", or "FILE: problem" for a key the file lacks), -ENOMEM.
 *   out->cluster_id is malloc'd (ss_meta_props_free).
 */
#ifndef SS_FMT_META_PROPERTIES_H
#define SS_FMT_META_PROPERTIES_H

#include <stddef.h>
#include <stdint.h>

struct ss_meta_props {
	int      version;        /* 0 or 1 */
	int32_t  node_id;        /* -1: not given (a version 0 file without broker.id) */
	char    *cluster_id;     /* NULL: not given */
	char     directory_id[32]; /* as written (base64 of a UUID); "" not given */
};

int  ss_meta_props_parse(const char *buf, size_t len, const char *fname, struct ss_meta_props *out, char *err,
			 size_t errlen);
void ss_meta_props_free(struct ss_meta_props *m);

#endif
