/* Helpers over the results view: see model/results.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/results.h"

int ss_res_seg_errfile(const struct ss_results *r, const struct ss_seg *sg, char *buf, size_t len)
{
	const char *ext = ss_seg_x(sg)->err_file == SS_HAS_INDEX ? "index" :
			  ss_seg_x(sg)->err_file == SS_HAS_TIMEINDEX ? "timeindex" : "log";
	/* the same name discovery found (ss_seg_relpath): Kafka's 20-digit base offset */
	int n = snprintf(buf, len, "%s/%020lld.%s", ss_res_part_of_seg(r, sg)->dir, (long long)sg->base_offset, ext);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

int ss_results_exit_code(const struct ss_results *r)
{
	for (uint32_t i = 0; i < r->n_logdirs; i++)
		if (r->logdirs[i].err)
			return 3;
	for (uint32_t i = 0; i < r->n_problems; i++)
		if (r->problems[i].data_loss)
			return 1;
	for (uint32_t i = 0; i < r->n_segs; i++)
		if (ss_res_seg_failed(&r->segs[i]) || ss_seg_crc_errors(&r->segs[i]))
			return 1;
	return 0;
}

bool ss_res_problem_of(const struct ss_results *r, const struct ss_part *p, const char *path)
{
	if (!path)
		return false;
	const char *ld = ss_res_logdir_of(r, p);
	size_t ll = strlen(ld), dl = strlen(p->dir);
	if (strncmp(path, ld, ll) == 0 && path[ll] == '/')
		path += ll + 1;
	return strncmp(path, p->dir, dl) == 0 && (path[dl] == 0 || path[dl] == '/');
}
