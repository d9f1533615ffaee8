/*
 * The cpulist syntax of sysfs and cpuset(7) (sched/cpulist.h): what a node's cpulist file,
 * /sys/devices/system/cpu/online and --avoid-cpus hold, and how --stats prints a worker's
 * CPUs.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sched/cpulist.h"

/* Decimal CPU id at *pp. 0, -EINVAL (no digit), -ERANGE (>= CPU_SETSIZE). */
static int parse_cpu_id(const char **pp, unsigned *out)
{
	const char *p = *pp;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	unsigned long v = 0;
	bool big = false;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v >= CPU_SETSIZE) {
			big = true;
			v = CPU_SETSIZE; /* keep scanning digits without overflowing */
		}
	}
	*pp = p;
	*out = (unsigned)v;
	return big ? -ERANGE : 0;
}

int ss_cpulist_parse(const char *s, cpu_set_t *out)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	const char *p = s, *end = s + strlen(s);
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	/* an empty list is a CPU-less (memory-only) node, not an error */
	while (p < end) {
		unsigned a, b;
		int err = parse_cpu_id(&p, &a);
		if (err)
			return err;
		b = a;
		if (p < end && *p == '-') {
			p++;
			err = parse_cpu_id(&p, &b);
			if (err)
				return err;
			if (b < a)
				return -EINVAL;
		}
		for (unsigned c = a; c <= b; c++)
			CPU_SET(c, &set);
		if (p == end)
			break;
		if (*p != ',')
			return -EINVAL; /* includes the "a-b:stride" form */
		p++;
		if (p == end)
			return -EINVAL; /* trailing comma */
	}
	*out = set;
	return 0;
}

int ss_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;
	bool trunc = false;
	if (len)
		buf[0] = '\0';
	for (unsigned c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		unsigned e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		char item[32];
		int n = e > c ? snprintf(item, sizeof(item), "%s%u-%u", used ? "," : "", c, e)
			      : snprintf(item, sizeof(item), "%s%u", used ? "," : "", c);
		if (trunc || used + (size_t)n + 1 > len) {
			trunc = true;
		} else {
			memcpy(buf + used, item, (size_t)n + 1);
		}
		used += (size_t)n;
		c = e;
	}
	return trunc || used + 1 > len ? -ENOSPC : 0;
}
