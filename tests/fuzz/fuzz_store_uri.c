/*
 * --remote-store URIs and the AWS credentials file (fmt/store_uri.h) on arbitrary bytes:
 * the first byte picks the parser. No crash; what parses is NUL-terminated and in range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/store_uri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	char *s = malloc(size);
	if (!s)
		abort();
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	char err[256];
	if (data[0] & 1) {
		struct ss_store_uri u;
		if (!ss_store_uri_parse(s, &u, err, sizeof(err))) {
			if (u.max_keys < 1 || u.max_keys > 1000 || u.timeout_ms < 1)
				abort();
			if (strlen(u.bucket) >= sizeof(u.bucket) || strlen(u.prefix) >= sizeof(u.prefix))
				abort();
			if (u.kind == SS_STORE_FILE && u.path[0] != '/')
				abort();
		}
	} else {
		struct ss_aws_creds c;
		if (!ss_aws_creds_parse(s, size - 1, "default", &c, err, sizeof(err)) && (!c.access_key[0] || !c.secret_key[0]))
			abort();
	}
	free(s);
	return 0;
}
