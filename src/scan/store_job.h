/*
 * --remote-store in the pipeline: the listing of the store (source/store.h) joined with
 * the remote metadata by the audit (eval/audit.h), on its own thread ("segscan-store")
 * while the workers read the segments; then, on the calling thread once everything is
 * joined, a second replay of the metadata to confirm what looked wrong, and the results
 * attached to every partition's evaluation (ss_eval.remote_store and its findings).
 *
 *   run_pipeline: ss_store_job_prepare (before any disk: a bad URI is a usage error)
 *                 ... ss_load_remote ... ss_store_job_start ... ss_workers_run ...
 *   segscan_run:  ss_store_job_finish (joins on every path; attaches only after a run
 *                 that succeeded)
 *   ss_scan_publish_results: ss_store_job_results (the view's `store`)
 *   segscan_scan_free: ss_store_job_free
 */
#ifndef SS_SCAN_STORE_JOB_H
#define SS_SCAN_STORE_JOB_H

#include <stdbool.h>

struct segscan_scan;
struct ss_res_store;

int  ss_store_job_prepare(struct segscan_scan *s);
int  ss_store_job_start(struct segscan_scan *s);
/* ok: the pipeline ran to its end (else the listing is stopped and nothing attached). */
int  ss_store_job_finish(struct segscan_scan *s, bool ok);
const struct ss_res_store *ss_store_job_results(const struct segscan_scan *s);
void ss_store_job_free(struct segscan_scan *s);

#endif
