/*
 * --topic-config and server.properties parsers (src/fmt/config.c) on arbitrary bytes:
 * no crash, no leak, no read past the input; what they accept is well formed (topics
 * sorted and unique, every topic findable, every warning a non-empty string). The first
 * byte picks the parser: even = topic config, odd = server.properties; both are then
 * loaded into one config, as segscan does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t len = size - 1;
	char *buf = malloc(len ? len : 1); /* exact size: a read past the end is caught */
	if (!buf)
		abort();
	memcpy(buf, data + 1, len);
	struct ss_config *c;
	if (ss_config_new(&c))
		abort();
	char err[256];
	int r = (data[0] & 1) ? ss_config_load_server_buf(c, buf, len, "server.properties", err, sizeof(err))
			      : ss_config_load_topics_buf(c, buf, len, "topics.txt", err, sizeof(err));
	if (r != 0 && (!err[0] || memchr(err, 0, sizeof(err)) == NULL))
		abort();
	if (r == 0) {
		for (uint32_t i = 0; i < c->n_topics; i++) {
			const char *t = c->topics[i].topic;
			if (!t || !t[0])
				abort();
			if (i && strcmp(c->topics[i - 1].topic, t) >= 0)
				abort(); /* sorted, one entry per topic */
			if (ss_config_find(c, t, strlen(t)) != &c->topics[i])
				abort();
		}
		for (uint32_t i = 0; i < c->n_warnings; i++)
			if (!c->warnings[i] || !c->warnings[i][0])
				abort();
		for (uint32_t i = 0; i < c->n_log_dirs; i++)
			if (!c->log_dirs[i])
				abort();
	}
	ss_config_free(c);
	free(buf);
	return 0;
}
