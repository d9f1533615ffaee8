/* A topic's effective config from its sources: see config.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/config.h"

static const char *const SRC_FILE = "TOPIC_CONFIG_FILE";
static const char *const SRC_TOPIC = "DYNAMIC_TOPIC_CONFIG";
static const char *const SRC_BROKER = "DYNAMIC_BROKER_CONFIG";
static const char *const SRC_DEFAULT_BROKER = "DYNAMIC_DEFAULT_BROKER_CONFIG";
static const char *const SRC_STATIC = "STATIC_BROKER_CONFIG";
static const char *const SRC_DEFAULT = "DEFAULT_CONFIG";

/* The keys segscan reports and evaluates, with their broker synonym (NULL: topic-only,
 * ServerTopicConfigSynonyms has none) and Kafka's default as DescribeConfigs prints it. */
static const struct key {
	const char *topic_key;
	const char *broker_key;
	uint32_t    bit;
	const char *deflt;
} keys[] = {
	{ "retention.ms", "log.retention.ms", SS_CFG_RETENTION_MS, "604800000" },
	{ "retention.bytes", "log.retention.bytes", SS_CFG_RETENTION_BYTES, "-1" },
	{ "local.retention.ms", "log.local.retention.ms", SS_CFG_LOCAL_RETENTION_MS, "-2" },
	{ "local.retention.bytes", "log.local.retention.bytes", SS_CFG_LOCAL_RETENTION_BYTES, "-2" },
	{ "remote.storage.enable", NULL, SS_CFG_REMOTE_STORAGE, "false" },
	{ "cleanup.policy", "log.cleanup.policy", SS_CFG_CLEANUP_POLICY, "delete" },
	{ "segment.bytes", "log.segment.bytes", SS_CFG_SEGMENT_BYTES, "1073741824" },
	{ "preallocate", "log.preallocate", SS_CFG_PREALLOCATE, "false" },
	{ "remote.log.copy.disable", NULL, SS_CFG_REMOTE_COPY_DISABLE, "false" },
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))
_Static_assert(N_KEYS <= sizeof(((struct ss_topic_cfg *)0)->entries) / sizeof(struct ss_cfg_entry),
	       "ss_topic_cfg.entries holds every reported key");

/*
 * What Kafka sets on an internal topic when it creates it (CreateTopics with these configs:
 * topic-level values, DYNAMIC_TOPIC_CONFIG in the metadata log), so the broker levels did
 * not give them. Where the topic's own level was not read (no metadata log, or one that
 * lost the key) the broker levels are not consulted for these keys: the value is the one
 * Kafka sets (source null), or unknown (value null) where Kafka takes it from the creating
 * broker's config, which no source here gives. With the topic's level read and the key
 * not there (kafka-configs --delete-config), the broker levels apply, as in Kafka.
 *  - __remote_log_metadata: TopicBasedRemoteLogMetadataManager.createRemoteLogMetadataTopicRequest
 *    (3.6.0 on): retention.ms = remote.log.metadata.topic.retention.ms
 *    (TopicBasedRemoteLogMetadataManagerConfig, default -1: unlimited), cleanup.policy=delete;
 *  - __consumer_offsets (GroupCoordinator groupMetadataTopicConfigs), __transaction_state
 *    (TransactionStateManager transactionTopicConfigs): cleanup.policy=compact, segment.bytes
 *    from offsets.topic.segment.bytes / transaction.state.log.segment.bytes;
 *  - __share_group_state (ShareCoordinatorService shareGroupStateTopicConfigs):
 *    cleanup.policy=delete, segment.bytes from share.coordinator.state.topic.segment.bytes.
 */
static const struct created {
	const char *topic;
	uint32_t    bit;
	const char *value;   /* what Kafka sets; NULL: the creating broker's config (unknown) */
} created[] = {
	{ "__remote_log_metadata", SS_CFG_RETENTION_MS, NULL },
	{ "__remote_log_metadata", SS_CFG_CLEANUP_POLICY, "delete" },
	{ "__consumer_offsets", SS_CFG_CLEANUP_POLICY, "compact" },
	{ "__consumer_offsets", SS_CFG_SEGMENT_BYTES, NULL },
	{ "__transaction_state", SS_CFG_CLEANUP_POLICY, "compact" },
	{ "__transaction_state", SS_CFG_SEGMENT_BYTES, NULL },
	{ "__share_group_state", SS_CFG_CLEANUP_POLICY, "delete" },
	{ "__share_group_state", SS_CFG_SEGMENT_BYTES, NULL },
};

static const struct created *created_find(const char *topic, uint32_t bit)
{
	for (size_t i = 0; topic && i < sizeof(created) / sizeof(created[0]); i++)
		if (created[i].bit == bit && !strcmp(created[i].topic, topic))
			return &created[i];
	return NULL;
}

/* One value as DescribeConfigs prints it, from typed values that have `bit` set. */
static void format_value(const struct ss_cfg_vals *v, uint32_t bit, char *buf, size_t n)
{
	switch (bit) {
	case SS_CFG_RETENTION_MS: snprintf(buf, n, "%" PRId64, v->retention_ms); break;
	case SS_CFG_RETENTION_BYTES: snprintf(buf, n, "%" PRId64, v->retention_bytes); break;
	case SS_CFG_LOCAL_RETENTION_MS: snprintf(buf, n, "%" PRId64, v->local_retention_ms); break;
	case SS_CFG_LOCAL_RETENTION_BYTES: snprintf(buf, n, "%" PRId64, v->local_retention_bytes); break;
	case SS_CFG_SEGMENT_BYTES: snprintf(buf, n, "%" PRId64, v->segment_bytes); break;
	case SS_CFG_REMOTE_STORAGE: snprintf(buf, n, "%s", v->remote_storage ? "true" : "false"); break;
	case SS_CFG_REMOTE_COPY_DISABLE: snprintf(buf, n, "%s", v->remote_copy_disable ? "true" : "false"); break;
	case SS_CFG_PREALLOCATE: snprintf(buf, n, "%s", v->preallocate ? "true" : "false"); break;
	/* the parser always gives the list ("" is the empty list, fmt/config.c) */
	case SS_CFG_CLEANUP_POLICY: snprintf(buf, n, "%s", v->policy[0] ? v->policy : v->compact ? "compact" : ""); break;
	default: snprintf(buf, n, "?"); break;
	}
}

/*
 * What the dynamic levels said of one key: `unsure` when a level consulted is not known
 * for it (a loss in the metadata log: its NULL may hide a value, its value may be
 * stale), and the first value found that does not parse, with the source it has
 * (issue 21 item 12: reported as what it is, not replaced by the default).
 */
struct dyn_note {
	bool        unsure;
	const char *bad_raw;
	const char *bad_src;
};

/* A dynamic value parsed as the topic key it stands for; false when unset or invalid. */
static bool dyn_value(const struct ss_cfg_dynamic *dyn, enum ss_cfg_level lvl, const char *topic,
		      const char *name, const char *as_topic_key, const char *src, struct ss_cfg_vals *v,
		      struct dyn_note *dn)
{
	if (!dyn || !dyn->get || !name)
		return false;
	if (dyn->known && !dyn->known(dyn->arg, lvl, topic, name))
		dn->unsure = true;
	const char *raw = dyn->get(dyn->arg, lvl, topic, name);
	if (!raw)
		return false;
	struct ss_cfg_vals one;
	memset(&one, 0, sizeof(one));
	if (!ss_cfg_parse_value(as_topic_key, raw, strlen(raw), &one)) {
		if (!dn->bad_raw) {
			dn->bad_raw = raw;
			dn->bad_src = src;
		}
		return false;
	}
	ss_cfg_vals_merge(v, &one);
	return true;
}

/* retention.ms from the broker levels: log.retention.ms, else .minutes, else .hours,
 * each looked up over the merged levels (dynamic broker over dynamic default over
 * static), as KafkaConfig.logRetentionTimeMillis computes it. *src_out is what
 * DescribeConfigs names: the first level holding log.retention.ms itself. */
static bool broker_retention_ms(const struct ss_config *c, const struct ss_cfg_dynamic *dyn, int64_t *ms,
				const char **src_out, struct dyn_note *dn)
{
	static const char *const names[3] = { "log.retention.ms", "log.retention.minutes", "log.retention.hours" };
	static const int64_t unit[3] = { 1, 60000, 3600000 };
	static const enum ss_cfg_level lv[2] = { SS_CFGL_DYN_BROKER, SS_CFGL_DYN_DEFAULT };
	static const char *const lsrc[2] = { SRC_BROKER, SRC_DEFAULT_BROKER };
	bool found = false;
	*src_out = NULL;
	for (int i = 0; i < 3 && !found; i++) {
		for (int l = 0; l < 2 && !found; l++) {
			struct ss_cfg_vals one;
			memset(&one, 0, sizeof(one));
			/* parse as retention.ms (a long >= -1 after scaling; minutes/hours are ints) */
			if (dyn_value(dyn, lv[l], NULL, names[i], "retention.bytes", lsrc[l], &one, dn)) {
				__int128 x = (__int128)one.retention_bytes * unit[i];
				*ms = x < 0 ? -1 : x > INT64_MAX ? INT64_MAX : (int64_t)x;
				found = true;
				if (i == 0)
					*src_out = lsrc[l];
			}
		}
		if (!found && c && c->has_server && (c->server_retention_set & (1u << i))) {
			__int128 x = (__int128)c->server_retention[i] * unit[i];
			*ms = x < 0 ? -1 : x > INT64_MAX ? INT64_MAX : (int64_t)x;
			found = true;
			if (i == 0)
				*src_out = SRC_STATIC;
		}
	}
	/* DescribeConfigs' source also names a level holding log.retention.ms when a later
	 * synonym gave the value (it never does here: ms wins over the others). */
	return found;
}

static void set_typed(struct ss_cfg_vals *dst, const struct ss_cfg_vals *src, uint32_t bit)
{
	struct ss_cfg_vals one = *src;
	one.set = src->set & bit;
	ss_cfg_vals_merge(dst, &one);
}

/* Where a key's value comes from, level by level as Kafka resolves it: --topic-config's
 * topic line, then its '*' line, the topic's dynamic level, what Kafka set at the topic's
 * creation, the broker's dynamic and default levels, server.properties. *got holds the
 * value found (nothing set: the default), the return is its source (NULL: unknown or the
 * default), dn what the dynamic levels said of it, *value_unknown a creation value nobody
 * gives. */
static const char *key_source(const struct ss_config *c, const struct ss_cfg_dynamic *dyn, const char *topic,
			      const struct ss_config_topic *ft, const struct key *K, struct ss_cfg_vals *got,
			      struct dyn_note *dn, bool *value_unknown)
{
	const struct created *cr = NULL;
	const char *src = NULL;

	/* --topic-config: the topic's line, then the '*' line */
	if (ft && (ft->v.set & K->bit)) {
		*got = ft->v;
		src = SRC_FILE;
	} else if (c && (c->deflt.set & K->bit)) {
		*got = c->deflt;
		src = SRC_FILE;
	} else if (dyn_value(dyn, SS_CFGL_DYN_TOPIC, topic, K->topic_key, K->topic_key, SRC_TOPIC, got, dn)) {
		src = SRC_TOPIC;
	} else if ((cr = created_find(topic, K->bit)) && !(dyn && dyn->get && !dn->unsure)) {
		/* Kafka set it on the topic at creation and the topic's level was not read:
		 * never the broker's default (src stays NULL) */
		if (cr->value)
			ss_cfg_parse_value(K->topic_key, cr->value, strlen(cr->value), got);
		else
			*value_unknown = true;
	} else if (K->bit == SS_CFG_RETENTION_MS) {
		int64_t ms;
		const char *rs;
		if (broker_retention_ms(c, dyn, &ms, &rs, dn)) {
			got->retention_ms = ms;
			got->set = SS_CFG_RETENTION_MS;
			/* the value is right; the source is what Kafka names (see config.h) */
			src = rs ? rs : dyn && c && c->has_server ? SRC_DEFAULT : NULL;
		}
	} else if (K->broker_key && dyn_value(dyn, SS_CFGL_DYN_BROKER, NULL, K->broker_key, K->topic_key,
					      SRC_BROKER, got, dn)) {
		src = SRC_BROKER;
	} else if (K->broker_key && dyn_value(dyn, SS_CFGL_DYN_DEFAULT, NULL, K->broker_key, K->topic_key,
					      SRC_DEFAULT_BROKER, got, dn)) {
		src = SRC_DEFAULT_BROKER;
	} else if (K->broker_key && c && c->has_server && (c->server.set & K->bit)) {
		*got = c->server;
		src = SRC_STATIC;
	}
	return src;
}

/* The entry a key shows (value and source) from what key_source found; true when the
 * value shown is one that does not parse (its source is then its level's, the evaluation
 * keeps the level below). */
static bool key_entry(struct ss_topic_cfg *out, struct ss_cfg_entry *e, const struct ss_config *c,
		      const struct ss_cfg_dynamic *dyn, const struct key *K, const struct ss_cfg_vals *got,
		      const char *src, const struct dyn_note *dn, bool value_unknown, struct ss_cfg_vals *v)
{
	bool bad = false;

	if (dn->bad_raw) {
		/* A value that does not parse, above the one evaluated: shown as it is, with
		 * its level as the source (Kafka's broker would refuse to apply it); the
		 * evaluation keeps the lower level's value. The metadata log's replay warns
		 * about it by topic, key and value (ss_config_dynamic_valid). */
		snprintf(e->value, sizeof(e->value), "%s", dn->bad_raw);
		e->source = dn->unsure ? NULL : dn->bad_src;
		bad = true;
	} else if (got->set & K->bit) {
		format_value(got, K->bit, e->value, sizeof(e->value));
		/* a value found below a level that is not known may not be the one in force */
		e->source = dn->unsure && src != SRC_FILE ? NULL : src;
	} else if (value_unknown) {
		/* no value at all (json null), and nothing is evaluated with the typed
		 * field (value_unknown makes what reads it unknown); retention.ms -1 so
		 * that no limit is printed beside that */
		e->value[0] = 0;
		e->source = NULL;
		out->value_unknown |= 1u << (out->n_entries - 1);
		if (K->bit == SS_CFG_RETENTION_MS)
			v->retention_ms = -1;
	} else {
		snprintf(e->value, sizeof(e->value), "%s", K->deflt);
		/* Kafka's default is a fact only when every level that could override it
		 * was read: the dynamic ones come from the metadata log (whole, for this
		 * key), the static one from server.properties (a topic-only key has no
		 * broker level) */
		bool known = dyn && !dn->unsure && (!K->broker_key || (c && c->has_server));
		e->source = known ? SRC_DEFAULT : NULL;
	}
	return bad;
}

void ss_config_resolve_ctx(const struct ss_config *c, const struct ss_cfg_dynamic *dyn, const char *topic,
			   struct ss_topic_cfg *out)
{
	struct ss_cfg_vals v;   /* the effective typed values, filled key by key */
	memset(&v, 0, sizeof(v));
	v.retention_ms = SS_DEFAULT_RETENTION_MS;
	v.retention_bytes = SS_DEFAULT_RETENTION_BYTES;
	v.local_retention_ms = SS_DEFAULT_LOCAL_RETENTION;
	v.local_retention_bytes = SS_DEFAULT_LOCAL_RETENTION;
	v.segment_bytes = SS_DEFAULT_SEGMENT_BYTES;

	const struct ss_config_topic *ft = c && topic ? ss_config_find(c, topic, strlen(topic)) : NULL;
	memset(out, 0, sizeof(*out));
	bool policy_known = false;

	bool policy_bad = false, remote_bad = false;
	const char *remote_src = NULL;
	for (size_t k = 0; k < N_KEYS; k++) {
		const struct key *K = &keys[k];
		struct ss_cfg_entry *e = &out->entries[out->n_entries++];
		struct ss_cfg_vals got;
		const char *src;
		struct dyn_note dn = { false, NULL, NULL };
		bool value_unknown = false;
		memset(&got, 0, sizeof(got));
		e->key = K->topic_key;

		src = key_source(c, dyn, topic, ft, K, &got, &dn, &value_unknown);

		if (got.set & K->bit)
			set_typed(&v, &got, K->bit);   /* what segscan evaluates with */
		bool bad = key_entry(out, e, c, dyn, K, &got, src, &dn, value_unknown, &v);
		policy_bad |= bad && K->bit == SS_CFG_CLEANUP_POLICY;
		remote_bad |= bad && K->bit == SS_CFG_REMOTE_STORAGE;
		/* a level consulted is not known (a loss in the metadata log): whatever value
		 * is shown may not be the one in force, and nothing is predicted from it */
		if (dn.unsure)
			out->value_unsure |= 1u << (out->n_entries - 1);
		if (K->bit == SS_CFG_CLEANUP_POLICY)
			policy_known = e->source && !policy_bad;
		if (K->bit == SS_CFG_REMOTE_STORAGE)
			remote_src = remote_bad ? NULL : e->source;
	}

	out->retention_ms = v.retention_ms;
	out->retention_bytes = v.retention_bytes;
	out->local_retention_ms = v.local_retention_ms;
	out->local_retention_bytes = v.local_retention_bytes;
	out->segment_bytes = v.segment_bytes;
	/* remote.storage.enable: -1 when no source says it for sure (no file line, and no
	 * metadata log, or one that does not know it, or a value that does not parse) */
	out->remote_storage = !remote_src ? -1 : (v.set & SS_CFG_REMOTE_STORAGE) && v.remote_storage ? 1 : 0;
	out->remote_copy_disable = (v.set & SS_CFG_REMOTE_COPY_DISABLE) && v.remote_copy_disable ? 1 : 0;
	out->compact = (v.set & SS_CFG_CLEANUP_POLICY) && v.compact ? 1 : 0;
	/* v.policy is normalized ("compact,delete"); "" is the empty list: no delete either */
	out->no_delete = (v.set & SS_CFG_CLEANUP_POLICY) && (v.policy[0] ? !strstr(v.policy, "delete") : true) ? 1 : 0;
	out->preallocate = (v.set & SS_CFG_PREALLOCATE) && v.preallocate;
	out->policy_known = policy_known;
	out->remote_system_enable = !c || !c->has_server ? 0 : c->remote_system_enable ? 1 : -1;
}

bool ss_config_dynamic_valid(bool broker, const char *key, const char *raw)
{
	static const char *const retention[] = { "log.retention.ms", "log.retention.minutes", "log.retention.hours" };
	struct ss_cfg_vals one;
	memset(&one, 0, sizeof(one));
	if (!key || !raw)
		return true;
	/* the broker's retention time keys are read as broker_retention_ms reads them */
	for (size_t i = 0; broker && i < sizeof(retention) / sizeof(retention[0]); i++)
		if (!strcmp(retention[i], key))
			return ss_cfg_parse_value("retention.bytes", raw, strlen(raw), &one);
	for (size_t k = 0; k < N_KEYS; k++) {
		const struct key *K = &keys[k];
		if (broker ? K->broker_key && !strcmp(K->broker_key, key) : !strcmp(K->topic_key, key))
			return ss_cfg_parse_value(K->topic_key, raw, strlen(raw), &one);
	}
	return true;
}

bool ss_config_resolve_long(const struct ss_config *c, const struct ss_cfg_dynamic *dyn, const char *topic,
			    const char *topic_key, const char *broker_key, int64_t static_value, int64_t deflt,
			    int64_t *value, const char **src)
{
	static const enum ss_cfg_level lv[3] = { SS_CFGL_DYN_TOPIC, SS_CFGL_DYN_BROKER, SS_CFGL_DYN_DEFAULT };
	static const char *const lsrc[3] = { SRC_TOPIC, SRC_BROKER, SRC_DEFAULT_BROKER };
	bool unsure = false;
	*value = deflt;
	*src = NULL;
	for (int l = 0; l < 3 && dyn && dyn->get; l++) {
		const char *key = l == 0 ? topic_key : broker_key;
		const char *t = l == 0 ? topic : NULL;
		if (!key)
			continue;
		if (dyn->known && !dyn->known(dyn->arg, lv[l], t, key))
			unsure = true;
		const char *raw = dyn->get(dyn->arg, lv[l], t, key);
		if (!raw)
			continue;
		char *end;
		errno = 0;
		long long x = strtoll(raw, &end, 10);
		/* a value Kafka would not have applied: the level's value is not known */
		if (errno || end == raw || *end)
			return false;
		*value = x;
		*src = unsure ? NULL : lsrc[l];
		return *src != NULL;
	}
	if (broker_key && static_value >= 0 && c && c->has_server) {
		*value = static_value;
		*src = unsure || !dyn ? NULL : SRC_STATIC;
		return *src != NULL;
	}
	/* Kafka's default is a fact only when every level above it was read */
	if (dyn && !unsure && (!broker_key || (c && c->has_server))) {
		*src = SRC_DEFAULT;
		return true;
	}
	return false;
}

void ss_config_resolve(const struct ss_config *c, const char *topic, struct ss_topic_cfg *out)
{
	ss_config_resolve_ctx(c, NULL, topic, out);
}

const struct ss_cfg_entry *ss_cfg_entry_find(const struct ss_topic_cfg *t, const char *key)
{
	for (uint32_t i = 0; i < t->n_entries; i++)
		if (strcmp(t->entries[i].key, key) == 0)
			return &t->entries[i];
	return NULL;
}
