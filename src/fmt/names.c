/*
 * Names and small text files of a log dir (docs/kafka-format.md §1), parsed the way the
 * broker's Java code parses them, so that segscan accepts and rejects what Kafka does.
 */
#include <errno.h>
#include <string.h>

#include "fmt/lines.h"
#include "fmt/names.h"
#include "segscan.h"

/* java.util.regex \s: [ \t\n\x0B\f\r] */
static inline bool jspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' || c == '\r';
}

/* Integer.parseInt / Long.parseLong over s[0..n): optional sign, then ASCII digits. */
static bool parse_java_int(const char *s, size_t n, int64_t min, int64_t max, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (n == 0)
		return false;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		i = 1;
		if (n == 1)
			return false;
	}
	/* accumulate negatively so that the minimum value parses without overflow */
	int64_t v = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_sub_overflow(v, s[i] - '0', &v) || v < min)
			return false;
	}
	if (!neg) {
		if (v < -max)
			return false;
		v = -v;
	}
	*out = v;
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);
	return n >= m && memcmp(s + n - m, suf, m) == 0;
}

/* ---- partition directory names ----------------------------------------------------- */

/*
 * ^(\S+)-(\S+)\.(\S+)-<suffix>$ over s[0..n) without the suffix: every char non-space,
 * and a '-' at j >= 1 and a '.' at k with j + 2 <= k <= n - 2. The first such '-' and
 * the last such '.' are the best candidates, so one pass decides.
 */
static bool matches_suffixed(const char *s, size_t n)
{
	size_t j = 0, k = 0;
	for (size_t i = 0; i < n; i++) {
		if (jspace(s[i]))
			return false;
		if (s[i] == '-' && i >= 1 && j == 0)
			j = i;
		if (s[i] == '.' && i + 2 <= n)
			k = i;
	}
	return j >= 1 && k >= j + 2;
}

int ss_dirname_parse(const char *name, struct ss_dirname *out)
{
	static const struct { const char *suf; enum ss_dir_kind kind; } sufs[] = {
		{ "-delete", SS_DIR_DELETE }, { "-future", SS_DIR_FUTURE }, { "-stray", SS_DIR_STRAY },
	};
	if (!name || !out)
		return -EINVAL;
	size_t n = strlen(name);
	if (n == 0 || !memchr(name, '-', n))
		return SEGSCAN_EDIRNAME;
	enum ss_dir_kind kind = SS_DIR_LIVE;
	size_t len = n;
	for (size_t i = 0; i < sizeof sufs / sizeof sufs[0]; i++) {
		if (!ends_with(name, n, sufs[i].suf))
			continue;
		if (!matches_suffixed(name, n - strlen(sufs[i].suf)))
			return SEGSCAN_EDIRNAME;
		kind = sufs[i].kind;
		/* LocalLog cuts at the last '.' of the whole name, dropping ".<uid>-<suffix>" */
		const char *dot = memrchr(name, '.', n);
		len = (size_t)(dot - name);
		break;
	}
	const char *dash = memrchr(name, '-', len);
	if (!dash)
		return SEGSCAN_EDIRNAME;
	size_t tlen = (size_t)(dash - name);
	size_t plen = len - tlen - 1;
	int64_t part;
	if (tlen == 0 || plen == 0 || !parse_java_int(dash + 1, plen, INT32_MIN, INT32_MAX, &part))
		return SEGSCAN_EDIRNAME;
	out->topic = name;
	out->topic_len = tlen;
	out->partition = (int32_t)part;
	out->kind = kind;
	return 0;
}

bool ss_topic_name_ok(const char *s, size_t len)
{
	if (!s || len == 0 || len > 249)
		return false;
	if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* ---- file classification ----------------------------------------------------------- */

/* The base offset prefix: ASCII digits up to the first '.', as Long.parseLong reads it
 * (without a sign: a sign is never written and would make no sense for an offset). */
static bool offset_prefix(const char *s, size_t n, int64_t *off, size_t *plen)
{
	const char *dot = memchr(s, '.', n);
	if (!dot || dot == s)
		return false;
	size_t p = (size_t)(dot - s);
	if (s[0] < '0' || s[0] > '9')
		return false;
	if (!parse_java_int(s, p, INT64_MIN, INT64_MAX, off))
		return false;
	*plen = p;
	return true;
}

static enum ss_file_kind classify(const char *s, size_t n, int64_t *offset, enum ss_file_kind *inner)
{
	static const struct { const char *suf; enum ss_file_kind kind; } wrap[] = {
		{ ".deleted", SS_FILE_DELETED }, { ".cleaned", SS_FILE_CLEANED },
		{ ".swap", SS_FILE_SWAP }, { ".tmp", SS_FILE_TMP },
	};
	static const struct { const char *ext; enum ss_file_kind kind; } seg[] = {
		{ "log", SS_FILE_LOG }, { "index", SS_FILE_INDEX }, { "timeindex", SS_FILE_TIMEINDEX },
		{ "txnindex", SS_FILE_TXNINDEX }, { "snapshot", SS_FILE_SNAPSHOT },
	};
	*offset = -1;
	*inner = SS_FILE_UNKNOWN;
	for (size_t i = 0; i < sizeof wrap / sizeof wrap[0]; i++) {
		size_t m = strlen(wrap[i].suf);
		if (n > m && ends_with(s, n, wrap[i].suf)) {
			enum ss_file_kind dummy;
			*inner = classify(s, n - m, offset, &dummy);
			return wrap[i].kind;
		}
	}
	if (n == strlen("partition.metadata") && memcmp(s, "partition.metadata", n) == 0)
		return SS_FILE_PARTITION_METADATA;
	if (n == strlen("leader-epoch-checkpoint") && memcmp(s, "leader-epoch-checkpoint", n) == 0)
		return SS_FILE_LEADER_EPOCH;
	int64_t off;
	size_t p;
	if (!offset_prefix(s, n, &off, &p))
		return SS_FILE_UNKNOWN;
	for (size_t i = 0; i < sizeof seg / sizeof seg[0]; i++) {
		size_t m = strlen(seg[i].ext);
		if (n - p - 1 == m && memcmp(s + p + 1, seg[i].ext, m) == 0) {
			*offset = off;
			return seg[i].kind;
		}
	}
	return SS_FILE_UNKNOWN;
}

enum ss_file_kind ss_file_classify(const char *name, int64_t *offset, enum ss_file_kind *inner)
{
	int64_t off_dummy;
	enum ss_file_kind in_dummy;
	if (!offset)
		offset = &off_dummy;
	if (!inner)
		inner = &in_dummy;
	if (!name) {
		*offset = -1;
		*inner = SS_FILE_UNKNOWN;
		return SS_FILE_UNKNOWN;
	}
	return classify(name, strlen(name), offset, inner);
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Digits to a value, held at max: a 20-digit offset can exceed INT64_MAX. */
static int64_t digits_value(const char *s, size_t n, int64_t max)
{
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		int d = s[i] - '0';
		if (v > (max - d) / 10)
			return max;
		v = v * 10 + d;
	}
	return v;
}

bool ss_snapshot_name_parse(const char *name, int64_t *offset, int32_t *epoch)
{
	if (!name || strlen(name) != 42 || !all_digits(name, 20) || name[20] != '-' || !all_digits(name + 21, 10) ||
	    strcmp(name + 31, ".checkpoint"))
		return false;
	*offset = digits_value(name, 20, INT64_MAX);
	*epoch = (int32_t)digits_value(name + 21, 10, INT32_MAX);
	return true;
}

/* ---- checkpoint files ---------------------------------------------------------------- */

/*
 * String.split("\\s+") into at most max tokens: a leading separator yields an empty first
 * token, trailing separators yield nothing. Returns the token count (max + 1 if more).
 */
static int split_ws(const char *s, size_t n, const char **tok, size_t *tlen, int max)
{
	int k = 0;
	size_t i = 0;
	for (;;) {
		size_t b = i;
		while (i < n && !jspace(s[i]))
			i++;
		size_t e = i;
		while (i < n && jspace(s[i]))
			i++;
		if (i == n && e == b && k > 0)
			return k; /* trailing separators */
		if (k == max)
			return max + 1;
		tok[k] = s + b;
		tlen[k] = e - b;
		k++;
		if (i == n)
			return k;
	}
}

/*
 * CheckpointFile.CheckpointReadBuffer.read: the version line, the count line, then every
 * remaining line is an entry. fn parses one entry line (0 ok, < 0 malformed).
 */
typedef int (*entry_fn)(void *ctx, const char *s, size_t n);

static int ckpt_read(const char *buf, size_t len, int version, entry_fn fn, void *ctx, int *err_line)
{
	struct ss_lines l = ss_lines_init(buf, len, SS_LINES_JAVA);   /* BufferedReader.readLine */
	const char *s;
	size_t n;
	int64_t v, count;
	int dummy;
	if (!err_line)
		err_line = &dummy;
	*err_line = 0;
	if (!ss_lines_next(&l, &s, &n))
		return 0; /* an empty file has no entries */
	if (!parse_java_int(s, n, INT32_MIN, INT32_MAX, &v) || v != version)
		goto bad;
	if (!ss_lines_next(&l, &s, &n))
		return 0;
	if (!parse_java_int(s, n, INT32_MIN, INT32_MAX, &count))
		goto bad;
	int64_t found = 0;
	while (ss_lines_next(&l, &s, &n)) {
		if (fn(ctx, s, n) < 0)
			goto bad;
		found++;
	}
	if (found != count) {
		*err_line = 2; /* the count line disagrees with the entries */
		return SEGSCAN_ECHECKPOINT;
	}
	return 0;
bad:
	*err_line = l.no;
	return SEGSCAN_ECHECKPOINT;
}

struct off_ctx {
	ss_ckpt_offset_cb cb;
	void *arg;
	int   cb_rc;
};

static int off_entry(void *ctx, const char *s, size_t n)
{
	struct off_ctx *c = ctx;
	const char *tok[3];
	size_t tl[3];
	int64_t part, off;
	if (split_ws(s, n, tok, tl, 3) != 3 || tl[0] == 0 ||
	    !parse_java_int(tok[1], tl[1], INT32_MIN, INT32_MAX, &part) ||
	    !parse_java_int(tok[2], tl[2], INT64_MIN, INT64_MAX, &off))
		return -1;
	/* after the callback asked to stop, lines are still checked, not reported */
	if (c->cb_rc == 0 && c->cb)
		c->cb_rc = c->cb(c->arg, tok[0], tl[0], (int32_t)part, off);
	return 0;
}

int ss_ckpt_parse_offsets(const char *buf, size_t len, ss_ckpt_offset_cb cb, void *arg, int *err_line)
{
	struct off_ctx c = { cb, arg, 0 };
	/* The whole file is checked even after the callback stops: a stop is the caller's
	 * choice, a malformed file is still malformed. */
	int rc = ckpt_read(buf, len, 0, off_entry, &c, err_line);
	return rc ? rc : c.cb_rc;
}

struct ep_ctx {
	struct ss_epoch_entry *out;
	size_t cap, n;
};

static int ep_entry(void *ctx, const char *s, size_t n)
{
	struct ep_ctx *c = ctx;
	const char *tok[2];
	size_t tl[2];
	int64_t epoch, off;
	if (split_ws(s, n, tok, tl, 2) != 2 ||
	    !parse_java_int(tok[0], tl[0], INT32_MIN, INT32_MAX, &epoch) ||
	    !parse_java_int(tok[1], tl[1], INT64_MIN, INT64_MAX, &off))
		return -1;
	if (c->n < c->cap) {
		c->out[c->n].epoch = (int32_t)epoch;
		c->out[c->n].start_offset = off;
	}
	c->n++;
	return 0;
}

int ss_ckpt_parse_epochs(const char *buf, size_t len, struct ss_epoch_entry *out, size_t cap, size_t *n, int *err_line)
{
	struct ep_ctx c = { out, out ? cap : 0, 0 };
	int rc = ckpt_read(buf, len, 0, ep_entry, &c, err_line);
	if (n)
		*n = rc ? 0 : c.n;
	return rc;
}

/* ---- partition.metadata ----------------------------------------------------------------- */

/*
 * line.split(":\\s+") must give exactly 2 parts (after Java drops trailing empty parts);
 * returns the second.
 */
static bool split_colon(const char *s, size_t n, const char **v, size_t *vn)
{
	size_t k = 0;       /* index of the current part */
	size_t b = 0;       /* its start */
	bool later_nonempty = false;
	for (size_t i = 0;; ) {
		bool sep = i < n && s[i] == ':' && i + 1 < n && jspace(s[i + 1]);
		if (i == n || sep) {
			if (k == 1) {
				*v = s + b;
				*vn = i - b;
			} else if (k >= 2 && i > b) {
				later_nonempty = true;
			}
			if (i == n)
				break;
			k++;
			i++;
			while (i < n && jspace(s[i]))
				i++;
			b = i;
			continue;
		}
		i++;
	}
	return k >= 1 && *vn > 0 && !later_nonempty;
}

int ss_partition_metadata_parse(const char *buf, size_t len, uint8_t topic_id[16], int *err_line)
{
	struct ss_lines l = ss_lines_init(buf, len, SS_LINES_JAVA);   /* BufferedReader.readLine */
	const char *s, *v;
	size_t n, vn;
	int64_t version;
	uint8_t id[16];
	int dummy;
	if (!err_line)
		err_line = &dummy;
	*err_line = 0;
	int line = 1;
	if (!ss_lines_next(&l, &s, &n) || !split_colon(s, n, &v, &vn) ||
	    !parse_java_int(v, vn, INT32_MIN, INT32_MAX, &version) || version < 0)
		goto bad;
	line = 2;
	if (!ss_lines_next(&l, &s, &n) || !split_colon(s, n, &v, &vn) || ss_uuid_parse(v, vn, id) != 0)
		goto bad;
	static const uint8_t zero[16];
	if (memcmp(id, zero, 16) == 0)
		goto bad; /* Kafka rejects the all-zero topic id */
	memcpy(topic_id, id, 16);
	return 0;
bad:
	*err_line = line;
	return SEGSCAN_EPARTMETA; /* not a checkpoint file: its own message (issue 14 item 11) */
}
