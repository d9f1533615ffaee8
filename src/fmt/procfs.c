/* /proc/PID/status and cmdline: see procfs.h. */
#include "fmt/procfs.h"

#include <string.h>

bool ss_procfs_uids(const char *st, size_t len, uint32_t u[4])
{
	const char *end = st + len, *p = NULL;
	/* the line that starts with "Uid:" (not "Uid:" inside another line's value) */
	for (const char *l = st; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		if ((size_t)(end - l) >= 4 && memcmp(l, "Uid:", 4) == 0) {
			p = l + 4;
			end = nl ? nl : end;
			break;
		}
		l = nl ? nl + 1 : end;
	}
	if (!p)
		return false;
	for (int i = 0; i < 4; i++) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p < '0' || *p > '9')
			return false;
		uint64_t v = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			v = v * 10 + (uint64_t)(*p - '0');
			if (v > UINT32_MAX)
				return false;
		}
		u[i] = (uint32_t)v;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p == end;
}

const char *ss_procfs_kafka_config(const char *cmd, size_t len)
{
	bool after_main = false;
	for (size_t i = 0; i < len;) {
		const char *a = cmd + i;
		size_t al = strnlen(a, len - i);
		if (after_main)
			return al ? a : NULL;
		if (al == 11 && memcmp(a, "kafka.Kafka", 11) == 0)
			after_main = true;
		i += al + 1;
	}
	return NULL;
}
