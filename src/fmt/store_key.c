/* Remote-store object keys under a layout: see store_key.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fmt/names.h"
#include "common/ascii.h"
#include "fmt/store_key.h"

#define LTS_ROOT "kafka-tiered-storage/"
#define LTS_ROOT_LEN (sizeof(LTS_ROOT) - 1)
#define ID_LEN 22
#define OFF_LEN 20

const char *ss_store_layout_name(enum ss_store_layout l)
{
	return l == SS_LAYOUT_AIVEN ? "aiven" : "local-tiered-storage";
}

int ss_store_layout_parse(const char *word, size_t len)
{
	if (len == 20 && !memcmp(word, "local-tiered-storage", 20))
		return SS_LAYOUT_LTS;
	if (len == 5 && !memcmp(word, "aiven", 5))
		return SS_LAYOUT_AIVEN;
	return -1;
}

static const char *const suffixes[SS_OBJ_KINDS] = {
	[SS_OBJ_LOG] = ".log",
	[SS_OBJ_INDEX] = ".index",
	[SS_OBJ_TIMEINDEX] = ".timeindex",
	[SS_OBJ_TXNINDEX] = ".txnindex",
	[SS_OBJ_EPOCH] = ".leader_epoch_checkpoint",
	[SS_OBJ_SNAPSHOT] = ".snapshot",
	[SS_OBJ_INDEXES] = ".indexes",
	[SS_OBJ_MANIFEST] = ".rsm-manifest",
};

const char *ss_obj_suffix(enum ss_obj_kind k)
{
	return (unsigned)k < SS_OBJ_KINDS ? suffixes[k] : "?";
}

#define BIT(k) (1u << (k))

uint32_t ss_store_required(enum ss_store_layout l)
{
	/* LTS: RemoteLogSegmentFileType's non-optional types (openExistingFileset's check);
	 * Aiven: fetchLogSegment and fetchIndex read the manifest first, then the ranges of
	 * .log or .indexes it names (KafkaRemoteStorageManager) */
	if (l == SS_LAYOUT_AIVEN)
		return BIT(SS_OBJ_LOG) | BIT(SS_OBJ_INDEXES) | BIT(SS_OBJ_MANIFEST);
	return BIT(SS_OBJ_LOG) | BIT(SS_OBJ_INDEX) | BIT(SS_OBJ_TIMEINDEX) | BIT(SS_OBJ_EPOCH) | BIT(SS_OBJ_SNAPSHOT);
}

uint32_t ss_store_kinds(enum ss_store_layout l)
{
	return l == SS_LAYOUT_AIVEN ? ss_store_required(l) : ss_store_required(l) | BIT(SS_OBJ_TXNINDEX);
}

static bool id_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* A Kafka Uuid exactly as Uuid.toString() writes it: 22 characters that format back to
 * themselves (the decoder also takes non-zero unused bits and "==" padding, which no
 * writer produces: such a name is not the one the RSM opens). */
static bool canonical_id(const char *s, uint8_t out[16])
{
	char back[23];
	for (size_t i = 0; i < ID_LEN; i++)
		if (!id_char((unsigned char)s[i]))
			return false;
	if (ss_uuid_parse(s, ID_LEN, out))
		return false;
	ss_uuid_format(out, back);
	return memcmp(back, s, ID_LEN) == 0;
}

/* A partition number as Integer.toString writes it: no sign, no leading zero. */
static bool canonical_partition(const char *s, size_t n, int32_t *out)
{
	return n > 0 && n <= 10 && !(n > 1 && s[0] == '0') && ss_dec_u31(s, n, out);
}

/* "<20 digits>-<id>.<suffix>" (the whole of s[0..n)) */
static bool parse_file(enum ss_store_layout l, const char *s, size_t n, struct ss_store_key *k, const char **why)
{
	if (n < OFF_LEN + 1 + ID_LEN + 2) {
		*why = "not a segment object name (<20-digit offset>-<segment id>.<suffix>)";
		return false;
	}
	int64_t off = 0;
	for (size_t i = 0; i < OFF_LEN; i++) {
		if (s[i] < '0' || s[i] > '9') {
			*why = "the segment object's name does not start with a 20-digit offset";
			return false;
		}
		if (off > (INT64_MAX - (s[i] - '0')) / 10) {
			*why = "the segment object's offset is out of range";
			return false;
		}
		off = off * 10 + (s[i] - '0');
	}
	if (s[OFF_LEN] != '-') {
		*why = "the segment object's name does not start with a 20-digit offset";
		return false;
	}
	if (!canonical_id(s + OFF_LEN + 1, k->seg_id)) {
		*why = "the segment id is not a Kafka Uuid in its canonical form";
		return false;
	}
	size_t at = OFF_LEN + 1 + ID_LEN;
	const char *suf = s + at;
	size_t sl = n - at;
	uint32_t kinds = ss_store_kinds(l);
	for (int kind = 0; kind < SS_OBJ_KINDS; kind++) {
		if (!(kinds & BIT(kind)))
			continue;
		if (strlen(suffixes[kind]) == sl && !memcmp(suffixes[kind], suf, sl)) {
			k->start_offset = off;
			k->kind = (enum ss_obj_kind)kind;
			k->seg_len = at;
			return true;
		}
	}
	*why = l == SS_LAYOUT_AIVEN ? "not one of the layout's suffixes (.log, .indexes, .rsm-manifest)"
				    : "not one of the layout's suffixes (.log, .index, .timeindex, .txnindex, "
				      ".leader_epoch_checkpoint, .snapshot)";
	return false;
}

/* "<topic>-<22-char id>" (all of s[0..n)), the id parsed from the right */
static bool topic_and_id(const char *s, size_t n, size_t *topic_len, uint8_t id[16])
{
	if (n < ID_LEN + 2 || s[n - ID_LEN - 1] != '-' || !canonical_id(s + n - ID_LEN, id))
		return false;
	*topic_len = n - ID_LEN - 1;
	return true;
}

static enum ss_key_parse parse_lts(const char *key, size_t len, struct ss_store_key *k, const char **why)
{
	const char *s = key;
	size_t n = len;
	if (n >= LTS_ROOT_LEN && !memcmp(s, LTS_ROOT, LTS_ROOT_LEN)) {
		k->lts_root = true;
		s += LTS_ROOT_LEN;
		n -= LTS_ROOT_LEN;
	}
	const char *slash = memchr(s, '/', n);
	if (!slash) {
		*why = "not inside a <topic>-<partition>-<topic id> directory";
		return SS_KEY_NONE;
	}
	size_t dl = (size_t)(slash - s);
	/* <topic>-<partition>-<id>: the id is the last 22 characters, then the digits
	 * before it up to a '-' (Kafka's greedy topic group gives the same split) */
	size_t tl;
	if (dl < ID_LEN + 4 || s[dl - ID_LEN - 1] != '-' || !canonical_id(s + dl - ID_LEN, k->topic_id)) {
		*why = "the directory is not <topic>-<partition>-<topic id>";
		return SS_KEY_NONE;
	}
	size_t pend = dl - ID_LEN - 1, pstart = pend;
	while (pstart > 0 && s[pstart - 1] >= '0' && s[pstart - 1] <= '9')
		pstart--;
	if (pstart < 2 || s[pstart - 1] != '-' || !canonical_partition(s + pstart, pend - pstart, &k->partition)) {
		*why = "the directory is not <topic>-<partition>-<topic id>";
		return SS_KEY_NONE;
	}
	tl = pstart - 1;
	if (!ss_topic_name_ok(s, tl)) {
		*why = "the directory's topic is not a legal Kafka topic name";
		return SS_KEY_NONE;
	}
	k->topic = s;
	k->topic_len = tl;
	k->part_len = (size_t)(s - key) + dl + 1;
	const char *file = slash + 1;
	size_t fl = n - dl - 1;
	if (memchr(file, '/', fl)) {
		*why = "a key below a segment file's level (LocalTieredStorage writes none)";
		return SS_KEY_PARTITION;
	}
	if (!parse_file(SS_LAYOUT_LTS, file, fl, k, why))
		return SS_KEY_PARTITION;
	k->seg_len += k->part_len;
	return SS_KEY_OBJECT;
}

static enum ss_key_parse parse_aiven(const char *key, size_t len, struct ss_store_key *k, const char **why)
{
	const char *s1 = memchr(key, '/', len);
	if (!s1) {
		*why = "not inside a <topic>-<topic id>/<partition> prefix";
		return SS_KEY_NONE;
	}
	size_t c1 = (size_t)(s1 - key), tl;
	if (!topic_and_id(key, c1, &tl, k->topic_id) || !ss_topic_name_ok(key, tl)) {
		*why = "the first component is not <topic>-<topic id>";
		return SS_KEY_NONE;
	}
	const char *p = s1 + 1;
	size_t rest = len - c1 - 1;
	const char *s2 = memchr(p, '/', rest);
	if (!s2 || !canonical_partition(p, (size_t)(s2 - p), &k->partition)) {
		*why = "the second component is not a partition number";
		return SS_KEY_NONE;
	}
	k->topic = key;
	k->topic_len = tl;
	k->part_len = (size_t)(s2 - key) + 1;
	const char *file = s2 + 1;
	size_t fl = len - k->part_len;
	if (memchr(file, '/', fl)) {
		*why = "a key below a segment object's level (the layout writes none)";
		return SS_KEY_PARTITION;
	}
	if (!parse_file(SS_LAYOUT_AIVEN, file, fl, k, why))
		return SS_KEY_PARTITION;
	k->seg_len += k->part_len;
	return SS_KEY_OBJECT;
}

enum ss_key_parse ss_store_key_parse(enum ss_store_layout l, const char *key, size_t len, struct ss_store_key *out,
				     const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (!key || !len) {
		*why = "an empty key";
		return SS_KEY_NONE;
	}
	return l == SS_LAYOUT_AIVEN ? parse_aiven(key, len, out, why) : parse_lts(key, len, out, why);
}

int ss_store_part_prefix(enum ss_store_layout l, bool lts_root, const char *topic, size_t topic_len, int32_t partition,
			 const uint8_t topic_id[16], char *buf, size_t len)
{
	char id[23];
	if (!ss_topic_name_ok(topic, topic_len) || partition < 0)
		return -EINVAL;
	ss_uuid_format(topic_id, id);
	int n;
	if (l == SS_LAYOUT_AIVEN)
		n = snprintf(buf, len, "%.*s-%s/%d/", (int)topic_len, topic, id, partition);
	else
		n = snprintf(buf, len, "%s%.*s-%d-%s/", lts_root ? LTS_ROOT : "", (int)topic_len, topic, partition, id);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

void ss_store_seg_name(int64_t start_offset, const uint8_t seg_id[16], char out[SS_STORE_SEG_NAME_LEN])
{
	/* LogFileUtils.filenamePrefixFromOffset: 20 digits, zero-padded, no grouping */
	uint64_t v = start_offset < 0 ? 0 : (uint64_t)start_offset;
	for (int i = OFF_LEN - 1; i >= 0; i--, v /= 10)
		out[i] = (char)('0' + v % 10);
	out[OFF_LEN] = '-';
	ss_uuid_format(seg_id, out + OFF_LEN + 1);   /* 22 characters and the NUL */
}
