/*
 * The /proc texts the running broker's discovery parses (src/fmt/procfs.c) and the
 * escaping of the names it prints (src/common/esc.c), on arbitrary bytes: no crash, no
 * read past the input; an argument handed back lies inside the command line; an escaped
 * name holds no control character and is well-formed UTF-8.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "common/utf8.h"
#include "fmt/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = 0;   /* as ss_read_file leaves it */
	uint32_t u[4];
	(void)ss_procfs_uids(buf, size, u);
	const char *a = ss_procfs_kafka_config(buf, size);
	if (a && (a < buf || a >= buf + size || a + strlen(a) > buf + size || !*a))
		abort();
	char *e = ss_esc_line(buf);
	if (!e)
		abort();
	const unsigned char *p = (const unsigned char *)e;
	for (size_t n = strlen(e), i = 0; i < n;) {
		uint32_t cp;
		size_t l = ss_utf8_seq(p + i, n - i, &cp);
		if (!l || ss_utf8_is_control(cp))
			abort();
		i += l;
	}
	free(e);
	free(buf);
	return 0;
}
