/* kafka-configs.sh --describe output. See kafka_configs.h. */
#include "fmt/kafka_configs.h"
#include "fmt/lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "segscan.h"

/* "All configs for topic NAME are:", "Dynamic configs for broker 1 are:",
 * "Default configs for brokers in the cluster are:". On a match, *type and *name point
 * into a writable copy of the line. */
static bool parse_header(char *l, const char **type, const char **name)
{
	static const char dflt[] = "Default configs for ";
	static const char tail_dflt[] = " in the cluster are:";
	size_t n = strlen(l);
	if (strncmp(l, dflt, sizeof(dflt) - 1) == 0 && n > sizeof(dflt) - 1 + sizeof(tail_dflt) - 1 &&
	    strcmp(l + n - (sizeof(tail_dflt) - 1), tail_dflt) == 0) {
		char *t = l + sizeof(dflt) - 1;
		l[n - (sizeof(tail_dflt) - 1)] = 0;
		size_t tl = strlen(t);
		if (tl > 1 && t[tl - 1] == 's')   /* "brokers" -> "broker" */
			t[tl - 1] = 0;
		*type = t;
		*name = "";
		return true;
	}
	const char *kinds[] = { "All configs for ", "Dynamic configs for " };
	for (size_t k = 0; k < 2; k++) {
		size_t kl = strlen(kinds[k]);
		if (strncmp(l, kinds[k], kl) != 0)
			continue;
		static const char tail[] = " are:";
		if (n < kl + sizeof(tail) || strcmp(l + n - (sizeof(tail) - 1), tail) != 0)
			return false;
		l[n - (sizeof(tail) - 1)] = 0;
		char *t = l + kl, *sp = strchr(t, ' ');
		if (!sp || sp == t || !sp[1])
			return false;
		*sp = 0;
		*type = t;
		*name = sp + 1;
		return true;
	}
	return false;
}

/* "  key=value sensitive=B synonyms={SRC:name=value, ...}": the value may hold '=', ','
 * and spaces, so it ends at the last " sensitive=" of the line. */
static bool parse_entry(char *l, const char **key, const char **value, const char **source)
{
	char *p = l;
	while (*p == ' ' || *p == '\t')
		p++;
	if (p == l)
		return false;
	char *eq = strchr(p, '=');
	if (!eq || eq == p)
		return false;
	char *sens = NULL;
	for (char *q = eq; (q = strstr(q, " sensitive=")) != NULL; q++)
		sens = q;
	if (!sens)
		return false;
	*eq = 0;
	*sens = 0;
	*key = p;
	char *v = eq + 1;
	char *flag = sens + strlen(" sensitive=");
	bool sensitive = strncmp(flag, "true", 4) == 0;
	*value = sensitive && strcmp(v, "null") == 0 ? NULL : v;
	*source = NULL;
	char *syn = strstr(flag, " synonyms={");
	if (syn) {
		char *s = syn + strlen(" synonyms={");
		char *colon = strchr(s, ':');
		if (colon && colon > s && *s != '}') {
			*colon = 0;
			*source = s;
		}
	}
	return true;
}

static bool blank(const char *l)
{
	for (; *l; l++)
		if (*l != ' ' && *l != '\t' && *l != '\r')
			return false;
	return true;
}

bool ss_kc_detect(const char *buf, size_t len)
{
	struct ss_lines l = ss_lines_init(buf, len, SS_LINES_LF);
	const char *ls;
	size_t n;
	while (ss_lines_next(&l, &ls, &n)) {
		char line[512];
		if (n > sizeof(line) - 1)
			n = sizeof(line) - 1;
		memcpy(line, ls, n);
		line[n] = 0;
		if (n && line[n - 1] == '\r')
			line[n - 1] = 0;
		if (!blank(line)) {
			const char *t, *nm;
			return parse_header(line, &t, &nm);
		}
	}
	return false;
}

int ss_kc_parse(const char *buf, size_t len, const char *fname, ss_kc_fn fn, void *arg, char *err, size_t errlen)
{
	char *line = NULL, *hdr = NULL;
	const char *type = NULL, *name = NULL;
	unsigned lineno = 0;
	int r = 0;

	struct ss_lines l = ss_lines_init(buf, len, SS_LINES_LF);
	const char *ls;
	size_t n;
	while (r == 0 && ss_lines_next(&l, &ls, &n)) {
		lineno = l.no;
		free(line);
		if (!(line = malloc(n + 1))) {
			r = -ENOMEM;
			break;
		}
		memcpy(line, ls, n);
		line[n] = 0;
		if (memchr(line, 0, n)) {
			snprintf(err, errlen, "%s:%u: NUL byte in line", fname, lineno);
			r = SEGSCAN_ECONFIG;
			break;
		}
		if (n && line[n - 1] == '\r')
			line[n - 1] = 0;
		if (blank(line))
			continue;
		if (line[0] != ' ' && line[0] != '\t') {
			free(hdr);
			if (!(hdr = strdup(line))) {
				r = -ENOMEM;
				break;
			}
			if (!parse_header(hdr, &type, &name)) {
				snprintf(err, errlen, "%s:%u: not a kafka-configs block header (\"All configs for topic NAME are:\")",
					 fname, lineno);
				r = SEGSCAN_ECONFIG;
			}
			continue;
		}
		struct ss_kc_entry e = { .entity_type = type, .entity = name, .line = lineno };
		if (!type) {
			snprintf(err, errlen, "%s:%u: config entry before any \"... configs for ... are:\" header", fname,
				 lineno);
			r = SEGSCAN_ECONFIG;
			break;
		}
		if (!parse_entry(line, &e.key, &e.value, &e.source)) {
			snprintf(err, errlen, "%s:%u: not a kafka-configs entry (\"  key=value sensitive=... synonyms={...}\")",
				 fname, lineno);
			r = SEGSCAN_ECONFIG;
			break;
		}
		r = fn(arg, &e);
	}
	free(line);
	free(hdr);
	return r;
}
