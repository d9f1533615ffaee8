/* The live cluster's DescribeConfigs, and the configs it returns: see cluster.h and
 * cluster_describe.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "common/clock.h"
#include "common/darray.h"
#include "eval/config.h"
#include "source/cluster.h"
#include "source/cluster_describe.h"
#include "source/cluster_int.h"

/* ---- DescribeConfigs ------------------------------------------------------------------ */

static const char *source_name(rd_kafka_ConfigSource_t s)
{
	switch (s) {
	case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG: return "DYNAMIC_TOPIC_CONFIG";
	case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG: return "DYNAMIC_BROKER_CONFIG";
	case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
	case RD_KAFKA_CONFIG_SOURCE_STATIC_BROKER_CONFIG: return "STATIC_BROKER_CONFIG";
	case RD_KAFKA_CONFIG_SOURCE_DEFAULT_CONFIG: return "DEFAULT_CONFIG";
	default: return "UNKNOWN";
	}
}

int ss_cluster_describe_configs(struct ss_cluster *c, const char *const *topics, uint32_t n, int32_t broker_id,
				ss_cluster_config_fn fn, void *arg, char *err, size_t errlen)
{
	uint32_t nr = n + (broker_id >= 0 ? 1 : 0);
	rd_kafka_ConfigResource_t **rs = NULL;
	rd_kafka_AdminOptions_t *ao = NULL;
	rd_kafka_queue_t *q = NULL;
	rd_kafka_event_t *ev = NULL;
	char es[256], bid[16];
	int r = 0;

	if (!nr)
		return 0;
	if (!(rs = calloc(nr, sizeof(*rs))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		rs[i] = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topics[i]);
	if (broker_id >= 0) {
		snprintf(bid, sizeof(bid), "%d", broker_id);
		rs[n] = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_BROKER, bid);
	}
	q = rd_kafka_queue_new(c->rk);                                            /* destroyed below */
	ao = rd_kafka_AdminOptions_new(c->rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);  /* destroyed below */
	rd_kafka_AdminOptions_set_request_timeout(ao, (int)c->timeout_ms, es, sizeof(es));
	rd_kafka_DescribeConfigs(c->rk, rs, nr, ao, q);
	double end = ss_mono() + (double)(c->timeout_ms + 1000) / 1000.0;
	while (!(ev = rd_kafka_queue_poll(q, ss_cluster_slice_ms(c, end))) && ss_mono() < end) {   /* destroyed below */
		if ((r = ss_cluster_check_stop(c, err, errlen, "waiting for DescribeConfigs")))
			goto out;
	}
	if (!ev && (r = ss_cluster_check_stop(c, err, errlen, "waiting for DescribeConfigs")))
		goto out;
	if (!ev) {
		r = ss_cluster_fail(c, RD_KAFKA_RESP_ERR__TIMED_OUT, err, errlen, "DescribeConfigs not answered");
		goto out;
	}
	if (rd_kafka_event_error(ev)) {
		r = ss_cluster_fail(c, rd_kafka_event_error(ev), err, errlen, "DescribeConfigs failed (%s)",
			 rd_kafka_event_error_string(ev));
		goto out;
	}
	const rd_kafka_DescribeConfigs_result_t *res = rd_kafka_event_DescribeConfigs_result(ev);
	size_t cnt = 0;
	const rd_kafka_ConfigResource_t **rr = rd_kafka_DescribeConfigs_result_resources(res, &cnt);
	uint32_t ok = 0;
	for (size_t i = 0; i < cnt && !r; i++) {
		const char *name = rd_kafka_ConfigResource_name(rr[i]);
		bool broker = rd_kafka_ConfigResource_type(rr[i]) == RD_KAFKA_RESOURCE_BROKER;
		if (rd_kafka_ConfigResource_error(rr[i])) {
			snprintf(err, errlen, "cluster %s: DescribeConfigs %s %s: %s", c->bootstrap,
				 broker ? "broker" : "topic", name, rd_kafka_ConfigResource_error_string(rr[i]));
			continue;
		}
		ok++;
		size_t ne = 0;
		const rd_kafka_ConfigEntry_t **es2 = rd_kafka_ConfigResource_configs(rr[i], &ne);
		for (size_t j = 0; j < ne && !r; j++) {
			const char *v = rd_kafka_ConfigEntry_value(es2[j]);
			r = fn(arg, broker ? NULL : name, rd_kafka_ConfigEntry_name(es2[j]), v,
			       source_name(rd_kafka_ConfigEntry_source(es2[j])));
		}
	}
	if (!r && ok == 0)
		r = -ENOENT;
	else if (!r)
		err[0] = 0;
out:
	if (ev)
		rd_kafka_event_destroy(ev);
	rd_kafka_AdminOptions_destroy(ao);
	rd_kafka_queue_destroy(q);
	for (uint32_t i = 0; i < nr; i++)
		rd_kafka_ConfigResource_destroy(rs[i]);
	free(rs);
	return r;
}

/* ---- topic configs from the cluster ------------------------------------------------------ */

struct cfg_ent {
	char *topic;    /* NULL: the broker resource */
	char *key, *value, *source;
};

struct ss_cluster_cfgs {
	struct cfg_ent *e;
	uint32_t        n, cap;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int cfg_cb(void *arg, const char *topic, const char *key, const char *value, const char *source)
{
	struct ss_cluster_cfgs *c = arg;
	struct cfg_ent *x;
	int e = SS_DA_PUSH(&c->e, &c->n, &c->cap, &x);
	if (e < 0)
		return e;
	memset(x, 0, sizeof(*x));
	x->topic = dup_or_null(topic);
	x->key = strdup(key);
	x->value = dup_or_null(value);
	x->source = strdup(source);
	if ((topic && !x->topic) || !x->key || (value && !x->value) || !x->source)
		return -ENOMEM;
	return 0;
}

int ss_cluster_cfgs_fetch(const struct ss_cluster_opts *o, const char *const *topics, uint32_t n, int32_t broker_id,
			  struct ss_cluster_cfgs **out, char *err, size_t errlen)
{
	struct ss_cluster *c = NULL;
	struct ss_cluster_cfgs *cf = calloc(1, sizeof(*cf));
	int r;
	if (!cf)
		return -ENOMEM;
	if ((r = ss_cluster_open(&c, o, err, errlen)) == 0)   /* closed below */
		r = ss_cluster_describe_configs(c, topics, n, broker_id, cfg_cb, cf, err, errlen);
	ss_cluster_close(c);
	if (r) {
		ss_cluster_cfgs_free(cf);
		return r;
	}
	*out = cf;
	return 0;
}

static const char *dyn_get(const void *arg, enum ss_cfg_level level, const char *topic, const char *key)
{
	const struct ss_cluster_cfgs *c = arg;
	const char *want = level == SS_CFGL_DYN_TOPIC    ? "DYNAMIC_TOPIC_CONFIG"
			   : level == SS_CFGL_DYN_BROKER ? "DYNAMIC_BROKER_CONFIG"
							 : "DYNAMIC_DEFAULT_BROKER_CONFIG";
	for (uint32_t i = 0; i < c->n; i++) {
		const struct cfg_ent *x = &c->e[i];
		if (strcmp(x->key, key) || strcmp(x->source, want))
			continue;
		if (level == SS_CFGL_DYN_TOPIC ? (x->topic && topic && !strcmp(x->topic, topic)) : !x->topic)
			return x->value;
	}
	return NULL;
}

void ss_cluster_cfgs_dynamic(const struct ss_cluster_cfgs *c, struct ss_cfg_dynamic *out)
{
	out->get = dyn_get;
	out->arg = c;
}

void ss_cluster_cfgs_each(const struct ss_cluster_cfgs *c,
			  void (*fn)(void *arg, const char *topic, const char *key, const char *value, const char *source),
			  void *arg)
{
	for (uint32_t i = 0; i < c->n; i++)
		fn(arg, c->e[i].topic, c->e[i].key, c->e[i].value, c->e[i].source);
}

void ss_cluster_cfgs_free(struct ss_cluster_cfgs *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		free(c->e[i].topic);
		free(c->e[i].key);
		free(c->e[i].value);
		free(c->e[i].source);
	}
	free(c->e);
	free(c);
}
