/* --web.config.file: see webconfig.h. */
#include "service/webconfig.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/darray.h"
#include "common/file.h"
#include "fmt/yamlkv.h"
#include "segscan.h"

static int set_str(char **dst, const char *v, size_t vn)
{
	char *s = strndup(v, vn);
	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* "$2b$NN$" + 22 characters of salt + 31 of hash, in bcrypt's base64 ("./A-Za-z0-9"),
 * of a cost crypt(3) accepts and we are willing to pay. */
static int check_bcrypt(const char *v, size_t vn, char *err, size_t errlen, const char *fname, unsigned line,
			const char *k, size_t kn)
{
	int un = (int)(kn > 60 ? 60 : kn);
	if (vn < 7 || v[0] != '$' || v[1] != '2' || (v[2] != 'a' && v[2] != 'b' && v[2] != 'y') || v[3] != '$' ||
	    v[4] < '0' || v[4] > '9' || v[5] < '0' || v[5] > '9' || v[6] != '$')
		return ss_yaml_bad(err, errlen, fname, line, "user \"%.*s\": expected a bcrypt hash ($2a$, $2b$ or $2y$, "
			   "then the cost: $2y$10$...)", un, k);
	int cost = (v[4] - '0') * 10 + (v[5] - '0');
	if (cost < SS_WEB_BCRYPT_MIN_COST)
		return ss_yaml_bad(err, errlen, fname, line, "user \"%.*s\": bcrypt cost %d is below bcrypt's minimum of %d", un,
			   k, cost, SS_WEB_BCRYPT_MIN_COST);
	if (cost > SS_WEB_BCRYPT_MAX_COST)
		return ss_yaml_bad(err, errlen, fname, line,
			   "user \"%.*s\": bcrypt cost %d is above the maximum of %d (a verification would take "
			   "about %.3g s; hash the password again, e.g. htpasswd -nBC 10 USER)",
			   un, k, cost, SS_WEB_BCRYPT_MAX_COST, ldexp(0.05, cost - 10) /* 50 ms at 10, x2 a step */);
	if (vn != 60)
		return ss_yaml_bad(err, errlen, fname, line, "user \"%.*s\": a bcrypt hash is 60 characters, this one %zu", un, k,
			   vn);
	for (size_t i = 7; i < vn; i++)
		if (!(v[i] == '.' || v[i] == '/' || (v[i] >= 'A' && v[i] <= 'Z') || (v[i] >= 'a' && v[i] <= 'z') ||
		      (v[i] >= '0' && v[i] <= '9')))
			return ss_yaml_bad(err, errlen, fname, line, "user \"%.*s\": a bcrypt hash holds only ./A-Za-z0-9 after "
				   "its cost", un, k);
	return 0;
}

int ss_web_config_parse(const char *buf, size_t len, const char *fname, struct ss_web_config *c, char *err,
			size_t errlen)
{
	enum { TOP, TLS, USERS } sect = TOP;
	struct ss_yaml_lines it = ss_yaml_lines_init(buf, len);
	struct ss_yaml_kv kv;
	const char *why;
	int r, more;
	if (!fname)
		fname = "web config";
	if (memchr(buf, 0, len))
		return ss_yaml_bad(err, errlen, fname, 1, "a NUL byte: not a text file");
	while ((more = ss_yaml_next(&it, &kv, &why)) > 0) {
		unsigned line = it.l.no;
		const char *k = kv.k, *v = kv.v;
		size_t kn = kv.kn, vn = kv.vn;
		if (kv.indent == 0) {
			if (vn == 2 && !memcmp(v, "{}", 2))
				vn = 0; /* an empty mapping written inline */
			if (vn)
				return ss_yaml_bad(err, errlen, fname, line, "\"%.*s\" must be a mapping", (int)(kn > 60 ? 60 : kn), k);
			if (kn == 17 && !memcmp(k, "tls_server_config", 17))
				sect = TLS;
			else if (kn == 16 && !memcmp(k, "basic_auth_users", 16))
				sect = USERS;
			else
				return ss_yaml_bad(err, errlen, fname, line, "unknown or unsupported key \"%.*s\"",
					   (int)(kn > 60 ? 60 : kn), k);
			continue;
		}
		if (sect == TOP)
			return ss_yaml_bad(err, errlen, fname, line, "indented line outside a section");
		if (sect == TLS) {
			char **dst = kn == 9 && !memcmp(k, "cert_file", 9) ? &c->cert_file :
				     kn == 8 && !memcmp(k, "key_file", 8) ? &c->key_file : NULL;
			if (!dst)
				return ss_yaml_bad(err, errlen, fname, line, "tls_server_config: unsupported key \"%.*s\" "
					   "(cert_file and key_file only)", (int)(kn > 60 ? 60 : kn), k);
			if (!vn || memchr(v, 0, vn))
				return ss_yaml_bad(err, errlen, fname, line, "%.*s: expected a file name", (int)kn, k);
			if ((r = set_str(dst, v, vn)))
				return r;
			continue;
		}
		/* basic_auth_users: NAME: BCRYPT */
		if ((r = check_bcrypt(v, vn, err, errlen, fname, line, k, kn)))
			return r;
		for (uint32_t i = 0; i < c->n_users; i++)
			if (strlen(c->users[i].name) == kn && !memcmp(c->users[i].name, k, kn))
				return ss_yaml_bad(err, errlen, fname, line, "user \"%.*s\" given twice", (int)(kn > 60 ? 60 : kn), k);
		struct ss_web_user *u;
		if ((r = SS_DA_PUSH(&c->users, &c->n_users, &c->cap_users, &u)) < 0)
			return r;
		u->name = strndup(k, kn);
		u->hash = strndup(v, vn);
		if (!u->name || !u->hash)
			return -ENOMEM; /* freed by ss_web_config_free */
	}
	if (more < 0)
		return ss_yaml_bad(err, errlen, fname, it.l.no, "%s", why);
	if (!c->cert_file != !c->key_file)
		return ss_yaml_bad(err, errlen, fname, it.l.no ? it.l.no : 1, "tls_server_config needs both cert_file and key_file");
	return 0;
}

void ss_web_config_free(struct ss_web_config *c)
{
	if (!c)
		return;
	free(c->cert_file);
	free(c->key_file);
	free(c->cert_pem);
	free(c->key_pem);
	for (uint32_t i = 0; i < c->n_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
		free(c->users[i].ok_pass);
	}
	free(c->users);
	memset(c, 0, sizeof(*c));
}

/* A file named in the config: relative to the config file's directory. */
static int read_rel(const char *cfg, const char *name, char **out, char *err, size_t errlen)
{
	char *d = strdup(cfg), *path = NULL;
	size_t len;
	int r;
	if (!d)
		return -ENOMEM;
	if (name[0] == '/')
		path = strdup(name);
	else if (asprintf(&path, "%s/%s", dirname(d), name) < 0)
		path = NULL;
	free(d);
	if (!path)
		return -ENOMEM;
	r = ss_read_file(AT_FDCWD, path, SS_WEB_CONFIG_MAX, out, &len);
	if (r)
		snprintf(err, errlen, "%s: %s: %s", cfg, path, segscan_strerror(r));
	free(path);
	return r;
}

int ss_web_config_load(const char *path, struct ss_web_config *c, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len;
	int r = ss_read_file(AT_FDCWD, path, SS_WEB_CONFIG_MAX, &buf, &len);
	if (r) {
		snprintf(err, errlen, "--web.config.file=%s: %s", path, segscan_strerror(r));
		return r;
	}
	r = ss_web_config_parse(buf, len, path, c, err, errlen);
	free(buf);
	if (r)
		return r;
	if (c->cert_file && ((r = read_rel(path, c->cert_file, &c->cert_pem, err, errlen)) ||
			     (r = read_rel(path, c->key_file, &c->key_pem, err, errlen))))
		return r;
	return 0;
}

/* Equal strings, in a time that does not depend on where they differ. */
static bool same(const char *x, const char *y)
{
	size_t a = strlen(x), b = strlen(y);
	unsigned char d = a != b;
	for (size_t k = 0; k < a && k < b; k++)
		d |= (unsigned char)(x[k] ^ y[k]);
	return d == 0;
}

/* The budget of the client with this key: its slot, or a free one (never used, or idle
 * since an earlier second: its budget would have been renewed anyway), or NULL when all
 * SS_WEB_CLIENTS are in use this second. */
static int client_slot(struct ss_web_config *c, const void *key, size_t keylen, long sec)
{
	int free_slot = -1;
	for (int i = 0; i < SS_WEB_CLIENTS; i++) {
		struct ss_web_client *cl = &c->clients[i];
		if (cl->used && cl->keylen == keylen && !memcmp(cl->key, key, keylen))
			return i;
		if (free_slot < 0 && (!cl->used || (!cl->busy && cl->sec != sec)))
			free_slot = i;
	}
	if (free_slot >= 0) {
		struct ss_web_client *cl = &c->clients[free_slot];
		memset(cl, 0, sizeof(*cl));
		memcpy(cl->key, key, keylen);
		cl->keylen = (uint8_t)keylen;
		cl->used = true;
		cl->sec = sec;
	}
	return free_slot;
}

enum ss_web_auth ss_web_auth_begin(struct ss_web_config *c, const char *user, const char *pass, const void *key,
				   size_t keylen, long sec, struct ss_web_verify *v)
{
	if (!c || !c->n_users || !user || !pass || keylen > sizeof(c->clients[0].key))
		return SS_WEB_DENY; /* no credentials: not even a guess */
	v->user = -1;
	v->hash = c->users[0].hash; /* an unknown name costs what a wrong password costs */
	for (uint32_t i = 0; i < c->n_users; i++) {
		struct ss_web_user *u = &c->users[i];
		if (strcmp(u->name, user))
			continue;
		if (u->ok_pass && same(u->ok_pass, pass))
			return SS_WEB_OK;
		v->user = (int)i;
		v->hash = u->hash;
		break;
	}
	int k = client_slot(c, key, keylen, sec);
	if (k < 0)
		return SS_WEB_DENY; /* every slot busy this second: a flood from many addresses */
	struct ss_web_client *cl = &c->clients[k];
	if (cl->busy)
		return SS_WEB_DENY; /* one verification at a time per client */
	if (cl->sec != sec) {
		cl->sec = sec;
		cl->n = 0;
	}
	if (cl->n >= SS_WEB_BCRYPT_PER_SEC)
		return SS_WEB_DENY; /* its budget is spent: refused without the cost */
	cl->n++;
	cl->busy = true;
	v->client = k;
	return SS_WEB_VERIFY;
}

bool ss_web_bcrypt(const char *hash, const char *pass)
{
	struct crypt_data cd;
	memset(&cd, 0, sizeof(cd));
	const char *h = crypt_r(pass, hash, &cd);
	return h && h[0] != '*' && same(h, hash); /* "*": crypt(3)'s failure token */
}

bool ss_web_auth_end(struct ss_web_config *c, const struct ss_web_verify *v, const char *pass, bool ok)
{
	c->clients[v->client].busy = false;
	if (!ok || v->user < 0 || !pass)
		return false;
	struct ss_web_user *u = &c->users[v->user];
	char *keep = strdup(pass);
	if (keep) { /* without it, the next request just pays the bcrypt again */
		free(u->ok_pass);
		u->ok_pass = keep;
	}
	return true;
}

bool ss_web_auth_ok(struct ss_web_config *c, const char *user, const char *pass)
{
	struct ss_web_verify v;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	switch (ss_web_auth_begin(c, user, pass, "", 0, (long)now.tv_sec, &v)) {
	case SS_WEB_OK:
		return true;
	case SS_WEB_DENY:
		return false;
	case SS_WEB_VERIFY:
		break;
	}
	return ss_web_auth_end(c, &v, pass, ss_web_bcrypt(v.hash, pass));
}
