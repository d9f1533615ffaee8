/*
 * segscan merge's --http.config.file parser (src/fmt/httpconf.c) on arbitrary bytes: no
 * crash, no leak, no read past the input; an accepted file names both client
 * certificate files or neither, and a password only with a username.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/httpconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	struct ss_httpconf c;
	memset(&c, 0, sizeof(c));
	char err[256];
	err[0] = 0;
	int r = ss_httpconf_parse(buf, size, "http.yml", &c, err, sizeof(err));
	if (r == 0) {
		if (!c.cert_file != !c.key_file)
			abort();
		if ((c.password || c.password_file) && !c.username)
			abort();
	} else if (r != -12 /* -ENOMEM */ && !err[0]) {
		abort();
	}
	ss_httpconf_free(&c);
	free(buf);
	return 0;
}
