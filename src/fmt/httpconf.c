/* --http.config.file: see httpconf.h. */
#include "fmt/httpconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/yamlkv.h"
#include "segscan.h"

static bool is(const char *k, size_t kn, const char *name) { return kn == strlen(name) && !memcmp(k, name, kn); }

int ss_httpconf_parse(const char *buf, size_t len, const char *fname, struct ss_httpconf *c, char *err,
		      size_t errlen)
{
	enum { TOP, AUTH, TLS } sect = TOP;
	struct ss_yaml_lines it = ss_yaml_lines_init(buf, len);
	struct ss_yaml_kv kv;
	const char *why;
	int r;
	if (!fname)
		fname = "http config";
	if (memchr(buf, 0, len))
		return ss_yaml_bad(err, errlen, fname, 1, "a NUL byte: not a text file");
	while ((r = ss_yaml_next(&it, &kv, &why)) > 0) {
		unsigned line = it.l.no;
		const char *k = kv.k, *v = kv.v;
		size_t kn = kv.kn, vn = kv.vn;
		int kw = (int)(kn > 60 ? 60 : kn);
		if (kv.indent == 0) {
			if (is(k, kn, "basic_auth"))
				sect = AUTH;
			else if (is(k, kn, "tls_config"))
				sect = TLS;
			else
				return ss_yaml_bad(err, errlen, fname, line, "unknown or unsupported key \"%.*s\" (basic_auth and "
					   "tls_config only)", kw, k);
			if (vn == 2 && !memcmp(v, "{}", 2))
				vn = 0;
			if (vn)
				return ss_yaml_bad(err, errlen, fname, line, "\"%.*s\" must be a mapping", kw, k);
			continue;
		}
		if (sect == TOP)
			return ss_yaml_bad(err, errlen, fname, line, "indented line outside a section");
		char **dst = NULL;
		if (sect == AUTH)
			dst = is(k, kn, "username") ? &c->username : is(k, kn, "password") ? &c->password :
			      is(k, kn, "password_file") ? &c->password_file : NULL;
		else if (is(k, kn, "insecure_skip_verify")) {
			if (is(v, vn, "true"))
				c->insecure_skip_verify = true;
			else if (is(v, vn, "false"))
				c->insecure_skip_verify = false;
			else
				return ss_yaml_bad(err, errlen, fname, line, "insecure_skip_verify: expected true or false");
			continue;
		} else
			dst = is(k, kn, "ca_file") ? &c->ca_file : is(k, kn, "cert_file") ? &c->cert_file :
			      is(k, kn, "key_file") ? &c->key_file : is(k, kn, "server_name") ? &c->server_name : NULL;
		if (!dst)
			return ss_yaml_bad(err, errlen, fname, line, "%s: unsupported key \"%.*s\" (%s)",
				   sect == AUTH ? "basic_auth" : "tls_config", kw, k,
				   sect == AUTH ? "username, password, password_file" :
				   "ca_file, cert_file, key_file, server_name, insecure_skip_verify");
		if (*dst)
			return ss_yaml_bad(err, errlen, fname, line, "\"%.*s\" given twice", kw, k);
		if (!vn)
			return ss_yaml_bad(err, errlen, fname, line, "\"%.*s\": empty value", kw, k);
		if (!(*dst = strndup(v, vn)))
			return -ENOMEM;
	}
	unsigned line = it.l.no ? it.l.no : 1;
	if (r < 0)
		return ss_yaml_bad(err, errlen, fname, line, "%s", why);
	if (c->password && c->password_file)
		return ss_yaml_bad(err, errlen, fname, line, "basic_auth: password and password_file are exclusive");
	if ((c->password || c->password_file) && !c->username)
		return ss_yaml_bad(err, errlen, fname, line, "basic_auth: a password without a username");
	if (!c->cert_file != !c->key_file)
		return ss_yaml_bad(err, errlen, fname, line, "tls_config needs both cert_file and key_file, or neither");
	return 0;
}

void ss_httpconf_free(struct ss_httpconf *c)
{
	if (!c)
		return;
	free(c->username);
	free(c->password);
	free(c->password_file);
	free(c->ca_file);
	free(c->cert_file);
	free(c->key_file);
	free(c->server_name);
	memset(c, 0, sizeof(*c));
}
