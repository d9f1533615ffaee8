/*
 * Which Kafka release a broker runs, and which releases have the broker bugs segscan explains.
 * The one table of the project (docs/kafka-releases.md says where every entry comes from).
 * Pure data and lookups: no I/O, no allocation, no global state; safe from any thread.
 *
 * Two inputs name a release:
 *  - --kafka-version=X.Y[.Z]: exact ("4.3.1") or a line ("4.3");
 *  - the highest metadata.version feature level this broker registered as supported
 *    (RegisterBrokerRecord features, "metadata.version" max). It gives a release *line* only:
 *    every patch release of a line supports the same levels (4.3.0, 4.3.1 and 4.3.2 all top out
 *    at 30), and it is the line's MetadataVersion.latestProduction(), or latestTesting() on a
 *    broker with unstable.metadata.versions.enable=true, so a few levels fit two lines.
 */
#ifndef SS_EVAL_RELEASES_H
#define SS_EVAL_RELEASES_H

#include <stddef.h>
#include <stdint.h>

/* A release "4.3.1", or a release line "4.3" (patch == SS_KVER_LINE). */
#define SS_KVER_LINE (-1)
struct ss_kver {
	int16_t major, minor, patch;
};

/* "4.3.1", "4.1", "3.9.0": digits and dots only, 2 or 3 parts, each 0..999.
 * 0, or -EINVAL for anything else (empty, "4", "4.x", "4.3.1.2", "4.3-rc1", " 4.3").
 * *out is written only on success. */
int ss_kver_parse(const char *s, struct ss_kver *out);

/* Orders by major, minor, then patch; a line (patch -1) sorts before its .0 release. */
int ss_kver_cmp(const struct ss_kver *a, const struct ss_kver *b);

/* "4.3.1" or "4.3" into buf (always NUL-terminated when n > 0); returns snprintf's length. */
int ss_kver_format(const struct ss_kver *v, char *buf, size_t n);

/* ---- metadata.version ---------------------------------------------------------------- */

enum ss_mv_kind {
	SS_MV_LINE,       /* the level is the top of lines[0] (production; or testing, see nlines) */
	SS_MV_UNRELEASED, /* a known level no release tops out at (a development build): no line */
	SS_MV_NEWER,      /* above every level the table knows, or only 4.4's testing top: newer than 4.4 */
	SS_MV_OLDER,      /* below 3.3's top (7), or < 1: a release older than the table (no tiered storage) */
};

struct ss_mv_release {
	enum ss_mv_kind kind;
	/* Candidate lines, the production reading first. 2 when the level is one line's
	 * latestProduction() and another's latestTesting() (29: 4.2, or 4.1 with unstable versions);
	 * 1 for SS_MV_LINE otherwise, and for SS_MV_NEWER when the level is the newest line's
	 * testing top (34: 4.4 with unstable versions, or a newer release). */
	int           nlines;
	struct ss_kver lines[2];
	int           testing[2];  /* lines[i] fits only with unstable.metadata.versions.enable */
	const char   *mv_name;     /* "IBP_4_1_IV1"; NULL for a level the table does not know */
	const char   *mv_release;  /* the release the level was introduced for ("4.1"); NULL likewise */
};

/* Which release line a broker whose highest supported metadata.version is `level` runs.
 * Always fills *out; returns 0, or -EINVAL for a level outside 1..32767. */
int ss_release_from_mv(int level, struct ss_mv_release *out);

/* "4.1", "4.2 (or 4.1 with unstable metadata versions)", "newer than 4.4",
 * "unreleased (IBP_4_2_IV0)", "older than 3.3"; returns snprintf's length. */
int ss_mv_release_describe(const struct ss_mv_release *r, char *buf, size_t n);

/* The newest line the table knows ({4,4,-1}). */
struct ss_kver ss_release_newest_line(void);

/* Facts of one release line from the table: 0, or -ENOENT for a line it does not know. Any
 * argument but `line` may be NULL. latest_patch: the newest patch release the table was built
 * from (4.3 -> 2). */
int ss_release_line_info(const struct ss_kver *line, int *prod_max, int *test_max, int *latest_patch);

/* ---- tickets ------------------------------------------------------------------------- */

enum ss_affect {
	SS_NOT_AFFECTED = 0,
	SS_AFFECTED = 1,
	SS_AFFECT_UNKNOWN = 2,
};

/* "AFFECTED", "NOT_AFFECTED", "UNKNOWN". */
const char *ss_affect_name(enum ss_affect a);

/* What one release line has of one ticket. Patch numbers; -1 when none. */
struct ss_ticket_line {
	struct ss_kver line;
	int16_t        last_affected;  /* newest patch known to have the bug (-1: none checked) */
	int16_t        first_fixed;    /* oldest patch known to have the fix (-1: none known) */
	const char    *evidence;       /* how we know */
	const char    *source;         /* URL of the source */
};

struct ss_ticket {
	const char *id;           /* "KAFKA-20977" */
	const char *finding;      /* segscan's finding code, "PHANTOM_COPY_LAG" */
	const char *title;
	struct ss_kver introduced;  /* first release with the bug */
	/* First line whose .0 release has the fix; every later line has it. {0,0,0} (major 0): no
	 * line is known to be fixed from its start. */
	struct ss_kver fixed_line;
	const char *fix_url;      /* the fix's pull request, or the ticket when no fix is merged */
	const char *intro_source; /* what introduced the code */
	const struct ss_ticket_line *lines;  /* lines between introduced and fixed_line */
	size_t      nlines;
};

/* By id ("KAFKA-20977", case-insensitive) or finding code ("PHANTOM_COPY_LAG"); NULL if unknown. */
const struct ss_ticket *ss_ticket_find(const char *id);

/* Every ticket of the table, in a fixed order; *n set to their count. */
const struct ss_ticket *ss_tickets(size_t *n);

/* Does release v have the bug? v NULL: release unknown -> UNKNOWN. A line-only v is AFFECTED
 * when every release of that line the table knows is affected, NOT_AFFECTED when all are
 * fixed or predate the bug, UNKNOWN when some are fixed and others not (or not checked). An
 * exact v newer than the newest patch the table knows of its line is UNKNOWN unless the
 * line is fixed from its start; a line newer than the table is NOT_AFFECTED when an older
 * line is fixed from its start, else UNKNOWN. */
enum ss_affect ss_ticket_affects(const struct ss_ticket *t, const struct ss_kver *v);

/* The same from the broker's highest supported metadata.version: AFFECTED / NOT_AFFECTED only
 * when every line the level can mean agrees. */
enum ss_affect ss_ticket_affects_mv(const struct ss_ticket *t, int mv_level);

/* Is the release older than line major.minor (a behaviour that changed there, not a bug:
 * Kafka 4.2's local retention of an empty cleanup.policy)? v: the release (exact or a line),
 * NULL unknown; else mv_level, the highest supported metadata.version (0 unknown), read as
 * its lines. AFFECTED: older; NOT_AFFECTED: that line or newer; UNKNOWN: cannot tell. */
enum ss_affect ss_release_before(const struct ss_kver *v, int mv_level, int major, int minor);

/* For finding messages: "Kafka 3.6.0 to 4.3.1 (fixed in 4.3.2, 4.4.0)",
 * "Kafka 3.7.0 to 4.3.1 (fixed in 4.4.0; 4.3.2 not checked)",
 * "Kafka 3.6.0 to 4.4.0 (no fixed release known)". Returns snprintf's length. */
int ss_ticket_describe(const struct ss_ticket *t, char *buf, size_t n);

#endif
