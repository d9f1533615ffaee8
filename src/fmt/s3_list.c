/* S3 ListObjectsV2 responses over expat: see s3_list.h. */
#include <errno.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/s3_list.h"

#define NS_SEP '|'
#define MAX_DEPTH 64

/* What the text being collected is for. */
enum field { F_NONE, F_KEY, F_SIZE, F_TRUNC, F_TOKEN, F_KEYCOUNT, F_CODE, F_MESSAGE };

struct ss_s3_list {
	XML_Parser      xp;
	ss_s3_object_fn fn;
	void           *arg;
	int             depth;       /* of the element being read; 1 = the root */
	enum { R_UNKNOWN, R_LIST, R_ERROR, R_OTHER } root;
	bool            in_contents; /* inside a <Contents> at depth 2 */
	enum field      field;       /* collecting text for it */
	char            text[SS_S3_TOKEN_MAX + 2];
	size_t          text_len, text_cap;
	bool            overflow;
	/* the <Contents> being read */
	char            key[SS_S3_KEY_MAX + 1];
	size_t          key_len;
	bool            has_key, has_size;
	int64_t         size;
	int             stop;        /* the callback's return, or -EPROTO */
	char            why[160];
	struct ss_s3_list_result res;
};

static const char *local(const XML_Char *name)
{
	const char *bar = strrchr(name, NS_SEP);
	return bar ? bar + 1 : name;
}

static void halt(struct ss_s3_list *p, int code, const char *why)
{
	if (p->stop)
		return;
	p->stop = code;
	if (why)
		snprintf(p->why, sizeof(p->why), "%s", why);
	XML_StopParser(p->xp, XML_FALSE);
}

static void collect(struct ss_s3_list *p, enum field f, size_t cap)
{
	p->field = f;
	p->text_len = 0;
	p->text_cap = cap;
	p->overflow = false;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
	struct ss_s3_list *p = ud;
	const char *n = local(name);
	(void)atts;
	if (++p->depth > MAX_DEPTH) {
		halt(p, -EPROTO, "elements nested too deep");
		return;
	}
	p->field = F_NONE;
	if (p->depth == 1) {
		p->root = !strcmp(n, "ListBucketResult") ? R_LIST : !strcmp(n, "Error") ? R_ERROR : R_OTHER;
		p->res.list = p->root == R_LIST;
		p->res.error = p->root == R_ERROR;
		return;
	}
	if (p->root == R_LIST && p->depth == 2) {
		if (!strcmp(n, "Contents")) {
			p->in_contents = true;
			p->has_key = p->has_size = false;
			p->key_len = 0;
		} else if (!strcmp(n, "IsTruncated")) {
			collect(p, F_TRUNC, 16);
		} else if (!strcmp(n, "NextContinuationToken")) {
			collect(p, F_TOKEN, SS_S3_TOKEN_MAX);
		} else if (!strcmp(n, "KeyCount")) {
			collect(p, F_KEYCOUNT, 24);
		}
	} else if (p->root == R_LIST && p->depth == 3 && p->in_contents) {
		if (!strcmp(n, "Key"))
			collect(p, F_KEY, SS_S3_KEY_MAX);
		else if (!strcmp(n, "Size"))
			collect(p, F_SIZE, 24);
	} else if (p->root == R_ERROR && p->depth == 2) {
		if (!strcmp(n, "Code"))
			collect(p, F_CODE, sizeof(p->res.code) - 1);
		else if (!strcmp(n, "Message"))
			collect(p, F_MESSAGE, sizeof(p->res.message) - 1);
	}
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	struct ss_s3_list *p = ud;
	if (p->field == F_NONE || len <= 0)
		return;
	size_t n = (size_t)len;
	if (p->text_len + n > p->text_cap) {
		/* a message is only said: cut it; anything else must be whole */
		if (p->field != F_MESSAGE) {
			halt(p, -EPROTO, p->field == F_KEY ? "a <Key> longer than S3's 1024 bytes"
							   : "an element's text is longer than it can be");
			return;
		}
		n = p->text_cap - p->text_len;
	}
	memcpy(p->text + p->text_len, s, n);
	p->text_len += n;
}

/* A decimal integer >= 0, the whole text (surrounding blanks allowed). */
static bool parse_u63(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
		i++;
	while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	if (i == n)
		return false;
	int64_t v = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - (s[i] - '0')) / 10)
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	struct ss_s3_list *p = ud;
	const char *n = local(name);
	enum field f = p->field;
	p->field = F_NONE;
	p->text[p->text_len] = 0;
	int64_t v;
	switch (f) {
	case F_KEY:
		memcpy(p->key, p->text, p->text_len + 1);
		p->key_len = p->text_len;
		p->has_key = true;
		break;
	case F_SIZE:
		if (!parse_u63(p->text, p->text_len, &p->size)) {
			halt(p, -EPROTO, "a <Size> that is not a byte count");
			return;
		}
		p->has_size = true;
		break;
	case F_TRUNC:
		p->res.truncated = !strcmp(p->text, "true");
		break;
	case F_TOKEN:
		memcpy(p->res.token, p->text, p->text_len + 1);
		p->res.has_token = p->text_len > 0;
		break;
	case F_KEYCOUNT:
		if (parse_u63(p->text, p->text_len, &v)) {
			p->res.has_key_count = true;
			p->res.key_count = (uint64_t)v;
		}
		break;
	case F_CODE:
		memcpy(p->res.code, p->text, p->text_len + 1);
		break;
	case F_MESSAGE:
		memcpy(p->res.message, p->text, p->text_len + 1);
		break;
	case F_NONE:
		break;
	}
	if (p->root == R_LIST && p->depth == 2 && p->in_contents && !strcmp(n, "Contents")) {
		p->in_contents = false;
		if (!p->has_key) {
			halt(p, -EPROTO, "a <Contents> without a <Key>");
			return;
		}
		p->res.objects++;
		struct ss_s3_object o = { .key = p->key, .key_len = p->key_len, .size = p->size,
					  .has_size = p->has_size };
		int r = p->fn ? p->fn(p->arg, &o) : 0;
		if (r)
			halt(p, r, NULL);
	}
	p->depth--;
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid, const XML_Char *pubid,
			       int has_internal)
{
	(void)name; (void)sysid; (void)pubid; (void)has_internal;
	halt(ud, -EPROTO, "a document type declaration (no S3 response has one)");
}

int ss_s3_list_new(ss_s3_object_fn fn, void *arg, struct ss_s3_list **out)
{
	struct ss_s3_list *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (!(p->xp = XML_ParserCreateNS(NULL, NS_SEP))) {
		free(p);
		return -ENOMEM;
	}
	p->fn = fn;
	p->arg = arg;
	XML_SetUserData(p->xp, p);
	XML_SetElementHandler(p->xp, on_start, on_end);
	XML_SetCharacterDataHandler(p->xp, on_text);
	XML_SetStartDoctypeDeclHandler(p->xp, on_doctype);
	XML_SetParamEntityParsing(p->xp, XML_PARAM_ENTITY_PARSING_NEVER);
	*out = p;
	return 0;
}

void ss_s3_list_free(struct ss_s3_list *p)
{
	if (!p)
		return;
	XML_ParserFree(p->xp);
	free(p);
}

int ss_s3_list_feed(struct ss_s3_list *p, const char *buf, size_t len, bool final, char *err, size_t errlen)
{
	if (p->stop)
		return p->stop;
	/* expat takes an int length: feed big buffers in slices */
	do {
		size_t n = len > (1u << 30) ? (1u << 30) : len;
		if (XML_Parse(p->xp, buf, (int)n, final && n == len) == XML_STATUS_ERROR) {
			if (!p->stop) {
				enum XML_Error e = XML_GetErrorCode(p->xp);
				p->stop = e == XML_ERROR_NO_MEMORY ? -ENOMEM : -EPROTO;
				snprintf(p->why, sizeof(p->why), "%s", XML_ErrorString(e));
			}
			break;
		}
		buf += n;
		len -= n;
	} while (len);
	if (!p->stop && final && p->root != R_LIST && p->root != R_ERROR)
		halt(p, -EPROTO, "neither a ListBucketResult nor an Error document");
	if (p->stop == -EPROTO && err && errlen)
		snprintf(err, errlen, "line %lu, column %lu: %s", (unsigned long)XML_GetCurrentLineNumber(p->xp),
			 (unsigned long)XML_GetCurrentColumnNumber(p->xp), p->why);
	return p->stop;
}

const struct ss_s3_list_result *ss_s3_list_result(const struct ss_s3_list *p)
{
	return &p->res;
}
