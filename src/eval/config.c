/* A topic's effective config from the parsed configs: see config.h. */
#include <string.h>

#include "eval/config.h"

void ss_config_resolve(const struct ss_config *c, const char *topic, struct ss_topic_cfg *out)
{
	struct ss_cfg_vals v;

	memset(&v, 0, sizeof(v));
	v.retention_ms = SS_DEFAULT_RETENTION_MS;
	v.retention_bytes = SS_DEFAULT_RETENTION_BYTES;
	v.local_retention_ms = SS_DEFAULT_LOCAL_RETENTION;
	v.local_retention_bytes = SS_DEFAULT_LOCAL_RETENTION;
	v.segment_bytes = SS_DEFAULT_SEGMENT_BYTES;
	if (c) {
		if (c->has_server)
			ss_cfg_vals_merge(&v, &c->server);
		ss_cfg_vals_merge(&v, &c->deflt);
		const struct ss_config_topic *t = topic ? ss_config_find(c, topic, strlen(topic)) : NULL;
		if (t)
			ss_cfg_vals_merge(&v, &t->v);
	}
	memset(out, 0, sizeof(*out));
	out->retention_ms = v.retention_ms;
	out->retention_bytes = v.retention_bytes;
	out->local_retention_ms = v.local_retention_ms;
	out->local_retention_bytes = v.local_retention_bytes;
	out->segment_bytes = v.segment_bytes;
	out->remote_storage = (v.set & SS_CFG_REMOTE_STORAGE) ? (v.remote_storage ? 1 : 0) : -1;
	out->remote_copy_disable = (v.set & SS_CFG_REMOTE_COPY_DISABLE) && v.remote_copy_disable ? 1 : 0;
	out->compact = (v.set & SS_CFG_CLEANUP_POLICY) && v.compact ? 1 : 0;
	out->remote_system_enable = !c || !c->has_server ? 0 : c->remote_system_enable ? 1 : -1;
}
