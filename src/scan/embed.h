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

#endif
