/*
 * What the in-tree service (src/service/, `segscan serve`) hands a scan beyond the public
 * API: objects that live longer than one scan and that an embedder has no use for. Each is
 * a setter with the public setters' state rule (0 while the scan has not started, -EINVAL
 * for NULL, -EBUSY while it runs, -EALREADY after), so a scan never reads a process-wide
 * registry: what it uses is passed to it.
 */
#ifndef SS_SCAN_EMBED_H
#define SS_SCAN_EMBED_H

#include "segscan.h"

struct ss_cluster_tail;   /* source/cluster.h */

/* serve's live tail of __remote_log_metadata: a scan whose remote state comes from the
 * cluster (and whose --bootstrap-server is the tail's) takes a consistent snapshot of it
 * instead of opening its own connection. t must outlive the scan's segscan_run; NULL: none. */
int ss_scan_use_cluster_tail(segscan_scan *s, struct ss_cluster_tail *t);

/* --server-properties as bytes serve read once at its start: the scan parses text (len
 * bytes, which must outlive segscan_run) under the file's name instead of opening it again,
 * so a FIFO or pipe the user named serves every rescan. Sets the option to name too.
 * 0, -ENOMEM, or the state errors above. */
int ss_scan_use_server_properties(segscan_scan *s, const char *name, const char *text, size_t len);

#endif
