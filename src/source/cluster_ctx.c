/* The cluster context of a scan: see cluster_ctx.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "fmt/config.h"
#include "common/log.h"
#include "discover/discover.h"
#include "source/cluster_ctx.h"
#include "source/broker_process.h"
#include "source/cluster.h"
#include "source/cluster_image.h"
#include "source/cluster_describe.h"

/* Replace *dst with a formatted message. 0 or -ENOMEM (then *dst is NULL). */
static int set_msg(char **dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_msg(char **dst, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(*dst);
	int r = vasprintf(dst, fmt, ap);
	va_end(ap);
	if (r < 0) {
		*dst = NULL;
		return -ENOMEM;
	}
	return 0;
}
#define why_not(c, ...) set_msg(&(c)->mlog_why_not, __VA_ARGS__)
#define set_how(...) set_msg(how, __VA_ARGS__)

/* Where the metadata log is: the first of --metadata-dir, metadata.log.dir, a
 * __cluster_metadata-0 partition among the scanned log dirs. NULL: nowhere to look. */
static char *locate(const struct ss_cluster_ctx_opts *o, const struct ss_config *config,
		    const struct ss_catalog *cat, const char **how)
{
	char *p = NULL;
	if (o->metadata_dir) {
		*how = "--metadata-dir";
		return strdup(o->metadata_dir);
	}
	if (config && config->metadata_log_dir) {
		*how = "metadata.log.dir";
		return strdup(config->metadata_log_dir);
	}
	for (uint32_t i = 0; i < cat->n_parts; i++) {
		const struct ss_part *pt = &cat->parts[i];
		if (pt->kind == SS_DIR_LIVE && pt->partition == 0 && strcmp(pt->topic, "__cluster_metadata") == 0) {
			*how = "log dir";
			if (asprintf(&p, "%s/%s", pt->logdir_path, pt->dir) < 0)
				return NULL;
			return p;
		}
	}
	return NULL;
}

/* "IBP_4_4_IV3" -> "4.4-IV3", the way Kafka prints a metadata.version. */
static void mv_kafka_name(const char *ibp, char *buf, size_t n)
{
	int a, b;
	char iv[16];
	if (ibp && sscanf(ibp, "IBP_%d_%d_%15s", &a, &b, iv) == 3)
		snprintf(buf, n, "%d.%d-%s", a, b, iv);
	else
		buf[0] = 0;
}

static void release_from_image(struct ss_cluster_ctx *c)
{
	/* only what the replay knows is current (cluster_image.h, ss_cimage_*_known) */
	const struct ss_ci_broker *b = c->node_id >= 0 && ss_cimage_broker_known(c->img, c->node_id)
					       ? ss_cimage_broker(c->img, c->node_id) : NULL;
	int16_t lo, hi, lvl;
	if (ss_cimage_feature_known(c->img, "metadata.version") &&
	    ss_cimage_feature_level(c->img, "metadata.version", &lvl) == 0 && lvl > 0) {
		struct ss_mv_release r;
		c->mv_finalized = lvl;
		if (ss_release_from_mv(lvl, &r) == 0)
			mv_kafka_name(r.mv_name, c->mv_text, sizeof(c->mv_text));
	}
	if (!b || ss_ci_broker_feature(b, "metadata.version", &lo, &hi) != 0 || hi <= 0)
		return;
	c->mv_supported_max = hi;
	if (c->has_version)   /* --kafka-version wins */
		return;
	struct ss_mv_release r;
	if (ss_release_from_mv(hi, &r) != 0)
		return;
	/* A definite line only when the level cannot mean two lines (see releases.h). */
	if (r.kind == SS_MV_LINE && r.nlines == 1) {
		c->has_version = true;
		c->version = r.lines[0];
		c->version_source = "metadata log";
		ss_kver_format(&c->version, c->version_text, sizeof(c->version_text));
	} else if (r.kind == SS_MV_LINE) {
		/* Two readings (this line's production top is another's testing top): report
		 * the production one, keep the other in the note, and let the findings ask
		 * both (ss_ticket_affects_mv) */
		ss_kver_format(&r.lines[0], c->version_text, sizeof(c->version_text));
		ss_mv_release_describe(&r, c->version_note, sizeof(c->version_note));
		c->version_source = "metadata log";
	} else {
		/* Say what the level means even when it names no single release. */
		ss_mv_release_describe(&r, c->version_note, sizeof(c->version_note));
	}
}

int ss_cluster_find_static(const struct ss_static_opts *o, struct ss_config *config, char **path, char **how)
{
	struct ss_broker_config b;
	char err[512], *shown = NULL;
	int r;
	if (o->server_properties) {
		if (!(*path = strdup(o->server_properties)))
			return -ENOMEM;
		return set_how("--server-properties");
	}
	if (!o->broker_process)
		return set_how("not read (--broker-process=off; give --server-properties)");
	if ((r = ss_broker_config_find(o->proc_root, o->logdirs, o->n_logdirs, &b)))
		return r;
	if (!b.path) {
		/* nobody is named the broker who has not been shown to serve these dirs
		 * (broker_process.h); a process of their owner that could not be checked is
		 * counted, so that a scan without the rights to read its file says why */
		if (b.gave_up)
			r = set_how("not read (no running broker verified to serve these log dirs: the processes were "
				    "not all looked at within %.0f s; give --server-properties)",
				    SS_BROKER_FIND_SECONDS);
		else if (b.n_unverified)
			r = set_how("not read (no running broker verified to serve these log dirs: %u kafka.Kafka "
				    "process%s run by root or their owner could not be checked, the first because %s; "
				    "give --server-properties)",
				    b.n_unverified, b.n_unverified == 1 ? "" : "es", b.unverified);
		else
			r = set_how("not read (no running broker serves these log dirs; give --server-properties)");
		ss_broker_config_release(&b);
		return r;
	}
	/* The bytes broker_process read, parsed here: the file is never opened a second time
	 * (issue 21 item 1: a FIFO swapped in after the first read blocked the second open).
	 * Its name in messages is escaped: it came from a command line. */
	if (!(shown = ss_esc_line(b.path))) {
		ss_broker_config_release(&b);
		return -ENOMEM;
	}
	r = ss_config_load_server_buf(config, b.text, b.len, shown, err, sizeof(err));
	if (r == -ENOMEM)
		goto out;
	if (r) {
		r = set_how("not read (the running broker's %s: %s)", shown, err);
		goto out;
	}
	*path = b.path;   /* ownership moves */
	b.path = NULL;
	r = set_how("the running broker's (pid %d)", b.pid);
out:
	free(shown);
	ss_broker_config_release(&b);
	return r;
}

/* A ZooKeeper-mode cluster or an unreadable metadata.log.dir: the topics' configs from
 * DescribeConfigs over --bootstrap-server, as the dynamic levels. A failure is a note
 * (the configs are then unknown, which the report says), never the end of the scan. */
static int cfgs_from_cluster(const struct ss_cluster_opts *o, const struct ss_catalog *cat, struct ss_cluster_ctx *c)
{
	if (!o)
		return 0;
	const char **topics = calloc(cat->n_parts ? cat->n_parts : 1, sizeof(*topics));
	uint32_t n = 0;
	char err[512] = "";
	if (!topics)
		return -ENOMEM;
	for (uint32_t i = 0; i < cat->n_parts; i++)   /* the catalog is sorted by topic */
		if (!n || strcmp(topics[n - 1], cat->parts[i].topic) != 0)
			topics[n++] = cat->parts[i].topic;
	int r = ss_cluster_cfgs_fetch(o, topics, n, c->node_id, &c->cfgs, err, sizeof(err));
	free(topics);
	if (r == -ENOMEM)
		return r;
	if (r) {
		c->cfgs = NULL;
		return set_msg(&c->cfgs_error, "topic configs from %s: %s", o->bootstrap,
			       err[0] ? err : segscan_strerror(r));
	}
	return 0;
}

static int ctx_load(const struct ss_cluster_ctx_opts *o, const struct ss_config *config,
		    const struct ss_catalog *cat, struct ss_logsink *log, struct ss_cluster_ctx **out);

/* The node a replica in a log dir without a known meta.properties node.id is evaluated
 * for: the scan's one broker when only one is in view (no log dir names another node than
 * the context's), else unknown: with several brokers' log dirs in one scan, which one a
 * dir without meta.properties belongs to cannot be told. */
static int32_t dirs_node(const struct ss_catalog *cat, int32_t ctx_node)
{
	int32_t one = ctx_node;
	for (uint32_t i = 0; i < cat->n_logdirs; i++) {
		int32_t n = cat->logdirs[i].node_id;
		if (n < 0)
			continue;
		if (one >= 0 && n != one)
			return -1;
		one = n;
	}
	return one;
}

int ss_cluster_ctx_load(const struct ss_cluster_ctx_opts *o, const struct ss_config *config,
			const struct ss_catalog *cat, struct ss_logsink *log, struct ss_cluster_ctx **out)
{
	int r = ctx_load(o, config, cat, log, out);
	if (!r && *out)
		(*out)->dirs_node = dirs_node(cat, (*out)->node_id);
	return r;
}

int32_t ss_cluster_ctx_replica_node(const struct ss_cluster_ctx *c, const struct ss_part *p,
				    const struct ss_catalog *cat)
{
	int32_t n = p->logdir < cat->n_logdirs ? cat->logdirs[p->logdir].node_id : -1;
	return n >= 0 ? n : c ? c->dirs_node : -1;
}

static int ctx_load(const struct ss_cluster_ctx_opts *o, const struct ss_config *config,
		    const struct ss_catalog *cat, struct ss_logsink *log, struct ss_cluster_ctx **out)
{
	struct ss_cluster_ctx *c = calloc(1, sizeof(*c));
	int r = 0;
	*out = c;
	if (!c)
		return -ENOMEM;
	c->node_id = -1;
	c->dirs_node = -1;
	c->rlmm_partitions = -1;

	if (o->kafka_version && ss_kver_parse(o->kafka_version, &c->version) == 0) {
		c->has_version = true;
		c->version_source = "--kafka-version";
		snprintf(c->version_text, sizeof(c->version_text), "%s", o->kafka_version);
	}
	if (config && config->node_id >= 0) {
		c->node_id = config->node_id;
		c->node_id_source = "server.properties";
	}
	const char *how = NULL;
	char *where = o->cluster_metadata ? locate(o, config, cat, &how) : NULL;
	/* r: 1 when no metadata log is used (why_not says why), 0 replayed, or -ENOMEM */
	if (!o->cluster_metadata)
		r = why_not(c, "--cluster-metadata=off") ? -ENOMEM : 1;
	else if (!where)
		r = why_not(c, "no __cluster_metadata-0 in the scanned log dirs (give --metadata-dir or "
			       "--server-properties with metadata.log.dir)") ? -ENOMEM : 1;
	else if ((r = ss_mlog_replay_log(where, &c->img, &c->info, log)) && r != -ENOMEM) {
		/* metadata.log.dir comes from a file: its name is one line in the report */
		char *shown = ss_esc_line(where);
		r = !shown || why_not(c, "%s (%s): %s", shown, how, segscan_strerror(r)) ? -ENOMEM : 1;
		free(shown);
	}
	free(where);
	if (r < 0)
		return r;
	if (r)   /* no metadata log: the live cluster's configs, when there is one */
		return cfgs_from_cluster(o->cluster, cat, c);
	c->mlog_used = true;
	if (c->info.node_id >= 0) {
		c->node_id = c->info.node_id;
		c->node_id_source = "meta.properties";
	}
	if (c->info.cluster_id && !(c->cluster_id = strdup(c->info.cluster_id)))
		return -ENOMEM;
	release_from_image(c);
	size_t nw = ss_cimage_warning_count(c->img);
	if (nw && !(c->warnings = calloc(nw, sizeof(*c->warnings))))
		return -ENOMEM;
	for (size_t i = 0; i < nw; i++)
		c->warnings[c->n_warnings++] = ss_cimage_warning_at(c->img, i);
	const struct ss_ci_topic *t = ss_cimage_topic(c->img, "__remote_log_metadata");
	if (t && ss_cimage_topic_known(c->img, "__remote_log_metadata"))
		c->rlmm_partitions = (int32_t)t->n_parts;
	return 0;
}

void ss_cluster_ctx_free(struct ss_cluster_ctx *c)
{
	if (!c)
		return;
	if (c->mlog_used) {
		ss_cimage_free(c->img);
		ss_mlog_info_free(&c->info);
	}
	if (c->cfgs)
		ss_cluster_cfgs_free(c->cfgs);
	free(c->cfgs_error);
	free(c->mlog_why_not);
	free(c->cluster_id);
	free(c->warnings);
	free(c);
}

/* ---- dynamic configs ------------------------------------------------------------------ */

static const char *dyn_get(const void *arg, enum ss_cfg_level lvl, const char *topic, const char *key)
{
	const struct ss_cluster_ctx *c = arg;
	char node[16];
	switch (lvl) {
	case SS_CFGL_DYN_TOPIC:
		return topic ? ss_cimage_config(c->img, SS_CI_RES_TOPIC, topic, key) : NULL;
	case SS_CFGL_DYN_BROKER:
		if (c->node_id < 0)
			return NULL;
		snprintf(node, sizeof(node), "%d", c->node_id);
		return ss_cimage_config(c->img, SS_CI_RES_BROKER, node, key);
	case SS_CFGL_DYN_DEFAULT:
		return ss_cimage_config(c->img, SS_CI_RES_BROKER, SS_CI_DEFAULT_BROKER, key);
	}
	return NULL;
}

/* Whether dyn_get's answer is the current one (the replay may not have read it all). */
static bool dyn_known(const void *arg, enum ss_cfg_level lvl, const char *topic, const char *key)
{
	const struct ss_cluster_ctx *c = arg;
	char node[16];
	switch (lvl) {
	case SS_CFGL_DYN_TOPIC:
		return topic && ss_cimage_config_known(c->img, SS_CI_RES_TOPIC, topic, key);
	case SS_CFGL_DYN_BROKER:
		if (c->node_id < 0)
			return true; /* no such level to know */
		snprintf(node, sizeof(node), "%d", c->node_id);
		return ss_cimage_config_known(c->img, SS_CI_RES_BROKER, node, key);
	case SS_CFGL_DYN_DEFAULT:
		return ss_cimage_config_known(c->img, SS_CI_RES_BROKER, SS_CI_DEFAULT_BROKER, key);
	}
	return false;
}

bool ss_cluster_ctx_dynamic(const struct ss_cluster_ctx *c, struct ss_cfg_dynamic *out)
{
	*out = (struct ss_cfg_dynamic){ 0 }; /* its callers' struct is not zeroed (eval/config.h) */
	if (c && !c->mlog_used && c->cfgs) {
		ss_cluster_cfgs_dynamic(c->cfgs, out);
		return true;
	}
	if (!c || !c->mlog_used)
		return false;
	out->get = dyn_get;
	out->known = dyn_known;
	out->arg = c;
	return true;
}
