/* The running broker's server.properties, found through /proc: see broker_process.h. */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "fmt/config.h"
#include "source/broker_process.h"

#define CMDLINE_MAX (256u << 10)   /* a JVM's command line with a long class path */

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The properties file a broker command line names: the first argument after the main
 * class kafka.Kafka (Kafka's kafka-server-start.sh runs `kafka.Kafka server.properties
 * [--override k=v ...]`). NULL when the process is not a broker. */
static const char *broker_config_arg(const char *cmd, size_t len)
{
	bool after_main = false;
	for (size_t i = 0; i < len;) {
		const char *a = cmd + i;
		size_t al = strnlen(a, len - i);
		if (after_main)
			return al ? a : NULL;
		if (strcmp(a, "kafka.Kafka") == 0)
			after_main = true;
		i += al + 1;
	}
	return NULL;
}

/* realpath(p), or a copy of p when it cannot be resolved. */
static char *canon(const char *p)
{
	char *r = realpath(p, NULL);
	return r ? r : strdup(p);
}

/* Does the config list one of the scanned log dirs in log.dirs / log.dir? */
static bool serves(const struct ss_config *c, char *const *canon_dirs, uint32_t n)
{
	for (uint32_t i = 0; i < c->n_log_dirs; i++) {
		char *d = canon(c->log_dirs[i]);
		if (!d)
			return false;
		for (uint32_t k = 0; k < n; k++) {
			if (strcmp(d, canon_dirs[k]) == 0) {
				free(d);
				return true;
			}
		}
		free(d);
	}
	return false;
}

int ss_broker_config_find(const char *proc_root, char *const *logdirs, uint32_t n_logdirs,
			  struct ss_broker_config *out)
{
	char **cd = NULL;
	DIR *d = NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->pid = -1;
	if (!proc_root)
		proc_root = "/proc";
	if (!n_logdirs)
		return 0;
	if (!(cd = calloc(n_logdirs, sizeof(*cd))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n_logdirs; i++)
		if (!(cd[i] = canon(logdirs[i]))) {
			r = -ENOMEM;
			goto out;
		}
	if (!(d = opendir(proc_root)))
		goto out;   /* no /proc (a container without it): nothing to find */
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_pid(e->d_name))
			continue;
		char path[PATH_MAX], *cmd = NULL, *file = NULL, *text = NULL;
		size_t clen, tlen;
		snprintf(path, sizeof(path), "%s/%s/cmdline", proc_root, e->d_name);
		if (ss_read_file(AT_FDCWD, path, CMDLINE_MAX, &cmd, &clen) < 0)
			continue;   /* gone, or hidden by hidepid */
		const char *arg = broker_config_arg(cmd, clen);
		if (!arg) {
			free(cmd);
			continue;
		}
		/* a relative path is relative to the broker's working directory */
		if (arg[0] == '/') {
			file = strdup(arg);
		} else {
			char cwd[PATH_MAX], link[PATH_MAX];
			snprintf(link, sizeof(link), "%s/%s/cwd", proc_root, e->d_name);
			ssize_t l = readlink(link, cwd, sizeof(cwd) - 1);
			if (l > 0) {
				cwd[l] = 0;
				if (asprintf(&file, "%s/%s", cwd, arg) < 0)
					file = NULL;
			}
		}
		free(cmd);
		if (!file)
			continue;
		struct ss_config *c = NULL;
		char err[256];
		int rr = ss_read_file(AT_FDCWD, file, 64u << 20, &text, &tlen);
		if (rr < 0) {
			/* a broker that serves these dirs, but its config is not readable by us:
			 * say so rather than pretending there is none */
			if (!out->path) {
				out->path = file;
				out->pid = atoi(e->d_name);
				out->err = rr;
				file = NULL;
			}
			free(file);
			continue;
		}
		if (ss_config_new(&c) == 0 && ss_config_load_server_buf(c, text, tlen, file, err, sizeof(err)) == 0 &&
		    serves(c, cd, n_logdirs)) {
			free(out->path);
			out->path = file;
			out->pid = atoi(e->d_name);
			out->err = 0;
			file = NULL;
			ss_config_free(c);
			free(text);
			break;
		}
		ss_config_free(c);
		free(text);
		free(file);
	}
out:
	if (d)
		closedir(d);
	for (uint32_t i = 0; cd && i < n_logdirs; i++)
		free(cd[i]);
	free(cd);
	return r;
}

void ss_broker_config_release(struct ss_broker_config *b)
{
	free(b->path);
	b->path = NULL;
}
