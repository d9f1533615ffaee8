/*
 * Java properties files (java.util.Properties.load), the one parser of the tree: the
 * broker's server.properties (fmt/config.c reads its keys) and a log dir's meta.properties
 * (below). Pure functions over bytes; the caller reads the file (common/file.h).
 *
 * ss_props_parse: natural lines end at '\n', '\r' or "\r\n"; '#' or '!' first on a line
 *   makes it a comment; an odd number of trailing backslashes continues a line (leading
 *   whitespace of the continuation dropped); the key ends at the first unescaped '=', ':'
 *   or whitespace; escapes \uXXXX (to UTF-8), \t \n \r \f and \x -> x in keys and values.
 *   Calls cb(arg, key, value, line) for each entry, in file order (a later entry of the
 *   same key wins, as in Properties: the callback keeps the last). 0, SEGSCAN_ECONFIG (err
 *   = "FILE:LINE: problem": a malformed \uXXXX escape, which Java rejects anywhere), -ENOMEM,
 *   or what cb returned (non-zero stops the parse).
 *
 * ss_meta_props_parse: a log dir's meta.properties as Kafka's MetaProperties reads it:
 *   `version` (0 when absent; 0 or 1), the node id from `node.id` (version 1, required) or
 *   `broker.id` (version 0, optional), `cluster.id` (required by version 1), `directory.id`.
 *   0 (out filled; node_id -1 when the file does not give one), SEGSCAN_ECONFIG (err names
 *   FILE:LINE and the key), -ENOMEM. out->cluster_id is malloc'd (ss_meta_props_free).
 */
#ifndef SS_FMT_PROPS_H
#define SS_FMT_PROPS_H

#include <stddef.h>
#include <stdint.h>

typedef int (*ss_props_cb)(void *arg, const char *key, const char *val, unsigned line);

int ss_props_parse(const char *buf, size_t len, const char *fname, ss_props_cb cb, void *arg, char *err,
		   size_t errlen);

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
