/*
 * serve's --web.config.file parser (src/service/webconfig.c, the exporter-toolkit subset)
 * on arbitrary bytes: no crash, no leak, no read past the input; an accepted file names
 * both TLS files or neither, and every user has a name and a bcrypt-shaped hash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "service/webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	struct ss_web_config c;
	memset(&c, 0, sizeof(c));
	char err[256];
	err[0] = 0;
	int r = ss_web_config_parse(buf, size, "web.yml", &c, err, sizeof(err));
	if (r == 0) {
		if (!c.cert_file != !c.key_file)
			abort();
		for (uint32_t i = 0; i < c.n_users; i++)
			if (!c.users[i].name || !c.users[i].name[0] || strncmp(c.users[i].hash, "$2", 2))
				abort();
	} else if (r != -12 /* -ENOMEM */ && !err[0]) {
		abort(); /* a refusal says why */
	}
	ss_web_config_free(&c);
	free(buf);
	return 0;
}
