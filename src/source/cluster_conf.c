/* The live-cluster client's configuration file: see cluster_conf.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/darray.h"
#include "common/file.h"
#include "fmt/properties.h"
#include "source/cluster_conf.h"

void ss_client_conf_free(struct ss_client_conf *cc)
{
	for (uint32_t i = 0; i < cc->n; i++) {
		free(cc->kv[i].k);
		free(cc->kv[i].v);
	}
	free(cc->kv);
	memset(cc, 0, sizeof(*cc));
}

/* A JAAS line of Kafka's Java clients names what librdkafka calls sasl.username/password. */
static char *jaas_field(const char *jaas, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = jaas; (p = strstr(p, name)); p += nl) {
		if (p != jaas && p[-1] != ' ' && p[-1] != '\t')
			continue;
		const char *q = p + nl;
		while (*q == ' ')
			q++;
		if (*q++ != '=')
			continue;
		while (*q == ' ')
			q++;
		if (*q != '"')
			continue;
		const char *e = strchr(++q, '"');
		return e ? strndup(q, (size_t)(e - q)) : NULL;
	}
	return NULL;
}

static int conf_add(struct ss_client_conf *cc, const char *k, const char *v, uint32_t line)
{
	struct ss_client_kv *x;
	int e = SS_DA_PUSH(&cc->kv, &cc->n, &cc->cap, &x);
	if (e < 0)
		return e;
	x->k = strdup(k);
	x->v = strdup(v);
	x->line = line;
	if (!x->k || !x->v)
		return -ENOMEM;
	return 0;
}

struct read_ctx {
	struct ss_client_conf *cc;
	const char            *path;
	char                  *err;
	size_t                 errlen;
};

static int entry(void *arg, const struct ss_props_entry *en)
{
	struct read_ctx *x = arg;
	int e;
	if (en->bad) {
		snprintf(x->err, x->errlen, "--kafka-config=%s line %u: malformed \\uxxxx escape in %s", x->path,
			 en->line, en->bad == SS_PROPS_BAD_KEY ? "a key" : "a value");
		return -EINVAL;
	}
	if (!*en->key) {
		snprintf(x->err, x->errlen, "--kafka-config=%s line %u: empty key", x->path, en->line);
		return -EINVAL;
	}
	if (!strcmp(en->key, "sasl.jaas.config")) {
		char *u = jaas_field(en->val, "username"), *pw = jaas_field(en->val, "password");
		if (!u || !pw) {
			free(u);
			free(pw);
			snprintf(x->err, x->errlen,
				 "--kafka-config=%s line %u: sasl.jaas.config without username=\"...\" and "
				 "password=\"...\" (librdkafka takes sasl.username and sasl.password)",
				 x->path, en->line);
			return -EINVAL;
		}
		e = conf_add(x->cc, "sasl.username", u, en->line);
		if (!e)
			e = conf_add(x->cc, "sasl.password", pw, en->line);
		free(u);
		free(pw);
	} else if (!strcmp(en->key, "bootstrap.servers")) {
		e = 0;   /* --bootstrap-server names them */
	} else {
		e = conf_add(x->cc, en->key, en->val, en->line);
	}
	if (e)
		snprintf(x->err, x->errlen, "out of memory");
	return e;
}

int ss_client_conf_read(struct ss_client_conf *cc, const char *path, void (*warn)(void *, const char *),
			void *warn_arg, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	/* one open: the mode checked is the mode of the bytes read (common/file.h) */
	int e, fd = ss_open_reg(AT_FDCWD, path, 0, &st);   /* closed below */
	if (fd < 0) {
		snprintf(err, errlen, "--kafka-config=%s: %s", path, strerror(-fd));
		return fd;
	}
	e = ss_read_fd(fd, st.st_size > 0 ? (size_t)st.st_size : 0, 1u << 20, &buf, &len);
	close(fd);
	if (e) {
		snprintf(err, errlen, "--kafka-config=%s: %s", path, strerror(-e));
		return e;
	}
	if (st.st_mode & (S_IRGRP | S_IROTH)) {
		char m[512];
		snprintf(m, sizeof(m),
			 "--kafka-config=%s is readable by %s (mode %03o): it usually holds credentials; chmod 600 it",
			 path, (st.st_mode & S_IROTH) ? "others" : "its group", (unsigned)(st.st_mode & 0777));
		if (warn)   /* none: dropped (the library never writes to stderr) */
			warn(warn_arg, m);
	}
	struct read_ctx x = { .cc = cc, .path = path, .err = err, .errlen = errlen };
	e = ss_props_parse(buf, len, entry, &x);
	if (e == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(buf);
	return e;
}
