/* Pipeline statistics (--stats): per-stage time, workers, bytes read, syscalls, stalls. */
#include <errno.h>
#include <inttypes.h>

#include "out/out.h"

int ss_out_stats(const struct ss_results *r, FILE *f)
{
	const struct ss_res_run *run = &r->run;
	const struct ss_res_times *tm = &run->times;
	const struct ss_res_pipeline *pl = &r->pipeline;
	double total = tm->total;
	uint64_t bytes = (uint64_t)run->bytes_read;
	fprintf(f, "segscan stats:\n");
	fprintf(f, "  discover      %9.3f s  %u log dirs, %u partitions, %u segments\n", tm->discover,
		r->n_logdirs, r->n_parts, r->n_segs);
	fprintf(f, "  remote state  %9.3f s  source %s, %" PRIu64 " events dropped or warned (a file: read beside discovery)\n", tm->remote,
		run->remote_source ? run->remote_source : "none", run->remote_warnings);
	fprintf(f, "  scan          %9.3f s  io=%s%s, %u workers, queue depth %u, peak %" PRIu64 " segments in flight per worker\n",
		tm->scan, run->io, run->io_fell_back ? " (fallback)" : "", run->threads,
		run->queue_depth, pl->tasks_peak);
	for (unsigned i = 0; i < pl->n_workers; i++) {
		const struct ss_res_worker *wi = &pl->workers[i];
		char node[16];
		snprintf(node, sizeof(node), "%d", wi->node);
		fprintf(f, "    worker %-3u node %-3s %s%-20s %" PRIu64 " segments\n", i, wi->node >= 0 ? node : "any",
			wi->pinned ? "pinned to cpus " : "not pinned", wi->pinned ? wi->cpus : "", wi->segments);
	}
	for (uint32_t i = 0; i < r->n_logdirs; i++)
		fprintf(f, "    log dir %s on NUMA node %d\n", r->logdirs[i].path, r->logdirs[i].node);
	fprintf(f, "  evaluate      %9.3f s  (on the evaluator thread, overlapping the scan)\n", tm->evaluate);
	fprintf(f, "  total         %9.3f s  %.0f segments/s\n", total, total > 0 ? r->n_segs / total : 0.0);
	fprintf(f, "  bytes read    %" PRIu64 " (%.1f per segment, %.1f MB/s)\n", bytes,
		r->n_segs ? (double)bytes / r->n_segs : 0.0,
		tm->scan > 0 ? bytes / tm->scan / 1e6 : 0.0);
	fprintf(f, "  syscalls      %" PRIu64 " for %" PRIu64 " submissions (%.2f per segment)\n", pl->syscalls,
		pl->submissions, r->n_segs ? (double)pl->syscalls / r->n_segs : 0.0);
	fprintf(f, "  ring stalls   %" PRIu64 " (a full ring made a worker wait for the evaluator)\n", pl->ring_stalls);
	if (pl->reuse)
		fprintf(f, "  reused        %" PRIu64 " unchanged closed segments from the previous scan\n", pl->reused);
	if (pl->evict)
		fprintf(f, "  evicted       %" PRIu64 " bytes of page cache this scan brought in\n", pl->evicted_bytes);
	return ferror(f) ? -EIO : 0;
}
