/*
 * The scan options as the CLI sees them: the getopt table and the "Scan options" help
 * of `scan` and `serve`, both built from the library's option table (lib/options.h) plus
 * the CLI's own --format and --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/esc.h"
#include "lib/options.h"
#include "segscan.h"

static const char format_help[] =
"  -f, --format=table|json|ndjson|prom\n"
"                         report format (default table). ndjson: one partition per line,\n"
"                         sorted by topic then partition number; json: {partitions,\n"
"                         summary, errors}; prom: Prometheus text exposition 0.0.4\n";

void ss_cli_help(const char *usage, const char *tail)
{
	ss_cli_help_except(usage, tail, NULL);
}

bool ss_cli_skipped(const char *const *skip, const char *name)
{
	for (; skip && *skip; skip++)
		if (!strcmp(*skip, name))
			return true;
	return false;
}

void ss_cli_help_except(const char *usage, const char *tail, const char *const *skip)
{
	fputs(usage, stdout);
	fputs("Scan options:\n", stdout);
	if (!ss_cli_skipped(skip, "format"))
		fputs(format_help, stdout);
	for (size_t i = 0; i < ss_n_optdefs; i++)
		if (!ss_cli_skipped(skip, ss_optdefs[i].name))
			ss_optdef_write_help(stdout, &ss_optdefs[i]);
	fputs(tail, stdout);
}

struct option *ss_cli_longopts(const struct option *head, size_t n_head)
{
	/* head, --format, every table row, --help, the terminator */
	struct option *o = calloc(n_head + ss_n_optdefs + 3, sizeof(*o));
	if (!o)
		return NULL;
	size_t n = n_head;
	if (n_head)
		memcpy(o, head, n_head * sizeof(*o));
	o[n++] = (struct option){ "format", required_argument, NULL, 'f' };
	for (size_t i = 0; i < ss_n_optdefs; i++) {
		const struct ss_optdef *d = &ss_optdefs[i];
		o[n++] = (struct option){ d->name, ss_optdef_has_arg(d) ? required_argument : no_argument, NULL,
					  d->short_name };
	}
	o[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	return o;
}

const char *ss_cli_shortopts(char *buf, size_t len)
{
	size_t n = 0;
	buf[n++] = 'f';
	buf[n++] = ':';
	for (size_t i = 0; i < ss_n_optdefs && n + 4 < len; i++) {
		if (!ss_optdefs[i].short_name)
			continue;
		buf[n++] = ss_optdefs[i].short_name;
		if (ss_optdef_has_arg(&ss_optdefs[i]))
			buf[n++] = ':';
	}
	buf[n++] = 'h';
	buf[n] = 0;
	return buf;
}

/* The table row getopt_long matched (c == 0: longopts[idx]; else a short option), or NULL. */
static const struct ss_optdef *optrow(const struct option *longopts, int c, int idx)
{
	if (c == 0)
		return ss_optdef_find(longopts[idx].name);
	for (size_t i = 0; i < ss_n_optdefs; i++)
		if (ss_optdefs[i].short_name && ss_optdefs[i].short_name == c)
			return &ss_optdefs[i];
	return NULL;
}

const struct ss_optdef *ss_cli_scan_option(const char *cmd, const struct option *longopts, int c, int idx)
{
	const struct ss_optdef *d = optrow(longopts, c, idx);
	if (!d)
		fprintf(stderr, "Try 'segscan %s --help'.\n", cmd);
	return d;
}

/* A URL's userinfo never reaches a message (it is refused: basic_auth belongs in
 * --http.config.file), and no value's control bytes reach the terminal. */
static char *shown_value(const char *v)
{
	const char *sep = strstr(v, "://");
	if (sep && memchr(sep + 3, '@', strcspn(sep + 3, "/?#")))
		return strdup("(a URL with credentials)");
	return ss_esc_line(v);
}

int ss_cli_apply(segscan_scan *s, const char *name, const char *value)
{
	int r = segscan_set(s, name, value);
	if (r) {
		char *v = value ? shown_value(value) : NULL;
		fprintf(stderr, "segscan: --%s%s%s: %s\n", name, value ? "=" : "", v ? v : "", segscan_last_error(s));
		free(v);
		return 2;
	}
	return 0;
}
