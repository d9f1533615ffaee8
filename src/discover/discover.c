/* Discovery: see discover.h. */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/darray.h"
#include "common/file.h"
#include "common/log.h"
#include "common/search.h"
#include "discover/discover.h"
#include "fmt/names.h"
#include "fmt/meta_properties.h"
#include "segscan.h"

#define SMALL_FILE_MAX (4u << 20) /* checkpoint files: 4 MiB holds ~100k partitions */

/* While partition directories are listed on several threads, every append to the
 * catalog takes cat->mu (NULL otherwise). */
static void cat_lock(struct ss_catalog *cat)
{
	if (cat->mu)
		pthread_mutex_lock(cat->mu);
}

static void cat_unlock(struct ss_catalog *cat)
{
	if (cat->mu)
		pthread_mutex_unlock(cat->mu);
}

/* Room for `need` segments, and their identities when the catalog keeps them (the same
 * indices; under cat_lock while listing on several threads). */
static int reserve_segs(struct ss_catalog *cat, uint64_t need)
{
	int r = ss_da_reserve((void **)&cat->segs, &cat->cap_segs, need, sizeof(*cat->segs));
	if (!r && cat->keep_ids)
		r = ss_da_reserve((void **)&cat->ids, &cat->cap_ids, need, sizeof(*cat->ids));
	return r;
}

static int problem_locked(struct ss_catalog *cat, const char *path, int err, int64_t where, bool data_loss,
			  const char *fmt, va_list ap);

int ss_catalog_problem(struct ss_catalog *cat, const char *path, int err, int64_t where,
		       bool data_loss, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cat_lock(cat);
	int r = problem_locked(cat, path, err, where, data_loss, fmt, ap);
	cat_unlock(cat);
	va_end(ap);
	return r;
}

static int problem_locked(struct ss_catalog *cat, const char *path, int err, int64_t where, bool data_loss,
			  const char *fmt, va_list ap)
{
	int r = ss_da_reserve((void **)&cat->problems, &cat->cap_problems, cat->n_problems + 1,
		     sizeof(*cat->problems));
	if (r)
		return r;
	struct ss_problem *p = &cat->problems[cat->n_problems];
	memset(p, 0, sizeof(*p));
	r = vasprintf(&p->what, fmt, ap);
	if (r < 0)
		return -ENOMEM;
	p->path = strdup(path ? path : "");
	if (!p->path) {
		free(p->what);
		return -ENOMEM;
	}
	p->err = err;
	p->where = where;
	p->data_loss = data_loss;
	cat->n_problems++;
	return 0;
}

static int add_note(struct ss_catalog *cat, const char *logdir, const char *rel1, const char *rel2,
		    const char *what)
{
	char *path = NULL, *w = strdup(what);
	if (!w || asprintf(&path, "%s/%s%s%s", logdir, rel1, rel2 ? "/" : "", rel2 ? rel2 : "") < 0) {
		free(w);
		return -ENOMEM;
	}
	cat_lock(cat);
	int r = ss_da_reserve((void **)&cat->notes, &cat->cap_notes, cat->n_notes + 1, sizeof(*cat->notes));
	if (!r) {
		cat->notes[cat->n_notes].path = path;
		cat->notes[cat->n_notes].what = w;
		cat->n_notes++;
	}
	cat_unlock(cat);
	if (r) {
		free(path);
		free(w);
	}
	return r;
}

/* A small text file whole (checkpoints, partition.metadata). -ENOENT if it does not
 * exist; -EFBIG past the cap; SEGSCAN_ENOTREG (nothing read: a FIFO would block) if it
 * is not a regular file. */
static int read_small(int dirfd, const char *name, char **out, size_t *len)
{
	return ss_read_file(dirfd, name, SMALL_FILE_MAX, out, len);
}

/* One file of a partition dir that belongs to a segment. */
struct segfile {
	int64_t offset;
	enum ss_file_kind kind;
};

/* The type of a directory entry, from d_type when the file system gives it, else from
 * fstatat (following a symbolic link, as the open will). 0 when it vanished. */
static mode_t entry_type(int dirfd, const struct dirent *e)
{
	switch (e->d_type) {
	case DT_REG:  return S_IFREG;
	case DT_DIR:  return S_IFDIR;
	case DT_FIFO: return S_IFIFO;
	case DT_CHR:  return S_IFCHR;
	case DT_BLK:  return S_IFBLK;
	case DT_SOCK: return S_IFSOCK;
	default: {
		struct stat st;
		return fstatat(dirfd, e->d_name, &st, 0) == 0 ? (st.st_mode & S_IFMT) : 0;
	}
	}
}

static int cmp_segfile(const void *a, const void *b)
{
	const struct segfile *x = a, *y = b;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static int read_partition_meta(struct ss_catalog *cat, struct ss_part *p, int dfd, const char *where)
{
	char *buf = NULL, path[4096 + 64];
	size_t len = 0;
	int line = 0, r;

	r = read_small(dfd, "partition.metadata", &buf, &len);
	if (r == 0) {
		r = ss_partition_metadata_parse(buf, len, p->topic_id, &line);
		if (r == 0)
			p->has_topic_id = true;
		else {
			snprintf(path, sizeof(path), "%s/partition.metadata", where);
			r = ss_catalog_problem(cat, path, r, line, false,
					       "line %d: %s; topic id unknown", line, segscan_strerror(r));
			if (r)
				goto out;
		}
	} else if (r != -ENOENT) {
		/* data that could not be read (exit 1), unlike a file read and found malformed */
		snprintf(path, sizeof(path), "%s/partition.metadata", where);
		if ((r = ss_catalog_problem(cat, path, r, -1, true, "cannot read: %s", segscan_strerror(r))))
			goto out;
	}
	free(buf);
	buf = NULL;

	r = read_small(dfd, "leader-epoch-checkpoint", &buf, &len);
	if (r == 0) {
		size_t n = 0;
		r = ss_ckpt_parse_epochs(buf, len, NULL, 0, &n, &line);
		if (r == 0 && n > 0) {
			p->epochs = calloc(n, sizeof(*p->epochs));
			if (!p->epochs) {
				r = -ENOMEM;
				goto out;
			}
			r = ss_ckpt_parse_epochs(buf, len, p->epochs, n, &n, &line);
		}
		if (r == 0) {
			p->n_epochs = (uint32_t)n;
			p->epochs_read = true;
		} else {
			free(p->epochs);
			p->epochs = NULL;
			snprintf(path, sizeof(path), "%s/leader-epoch-checkpoint", where);
			r = ss_catalog_problem(cat, path, r, line, true, "line %d: %s", line, segscan_strerror(r));
			if (r)
				goto out;
		}
	} else if (r != -ENOENT) {
		snprintf(path, sizeof(path), "%s/leader-epoch-checkpoint", where);
		if ((r = ss_catalog_problem(cat, path, r, -1, true, "cannot read: %s", segscan_strerror(r))))
			goto out;
	}
	r = 0;
out:
	free(buf);
	return r;
}

static const char *leftover_what(enum ss_file_kind k)
{
	switch (k) {
	case SS_FILE_DELETED: return "file renamed for asynchronous deletion (.deleted)";
	case SS_FILE_CLEANED: return "log cleaner output in progress (.cleaned)";
	case SS_FILE_SWAP:    return "cleaned segment waiting to replace the old ones (.swap)";
	case SS_FILE_TMP:     return "checkpoint being written (.tmp)";
	default:              return "unknown file";
	}
}

/* One partition directory being read (walk_partition): its files as listed, then its
 * segments; the partition itself is built beside it and appended in one locked step. */
struct pwalk {
	struct ss_catalog *cat;
	uint32_t           li;
	const char        *name;       /* the directory's name in the log dir */
	char               where[4096];/* log dir/name, for messages */
	int                dfd;
	DIR               *d;          /* NULL: the directory could not be opened or listed */
	struct segfile    *files;
	uint32_t           nf, capf;
	struct ss_seg     *segs;
	size_t             ns;
};

/* Open and list the directory. A partition whose directory cannot be read is still a
 * partition of the report (with its error and null values), never silently absent: absent
 * looks exactly like a deleted partition. *open_err: why it cannot be read (0: it can);
 * *gone: it vanished (Kafka deletes and renames partition dirs while we look: fine). */
static int open_partition(struct pwalk *W, int *open_err, bool *gone)
{
	struct ss_logdir *ld = &W->cat->logdirs[W->li];

	*open_err = 0;
	*gone = false;
	W->dfd = ss_open_ro(ld->fd, W->name, O_DIRECTORY);
	if (W->dfd < 0) {
		if (W->dfd == -ENOENT) {
			*gone = true;
			return 0;
		}
		*open_err = W->dfd;
		return ss_catalog_problem(W->cat, W->where, W->dfd, -1, true, "cannot open partition directory: %s",
					  segscan_strerror(W->dfd));
	}
	if (!(W->d = fdopendir(W->dfd))) {
		*open_err = -errno;
		close(W->dfd);
		return ss_catalog_problem(W->cat, W->where, *open_err, -1, true, "cannot list partition directory: %s",
					  segscan_strerror(*open_err));
	}
	return 0;
}

/* A segment file (.log and its indexes) by name: kept if it is a regular file. A FIFO
 * named like a segment file would block its reader forever, a directory would become the
 * active segment: refused here by name (the engines refuse one swapped in later,
 * io/engine.c). */
static int take_segment_file(struct pwalk *W, const struct dirent *e, int64_t off, enum ss_file_kind k)
{
	mode_t ty = entry_type(W->dfd, e);
	if (ty == 0)
		return 0; /* deleted meanwhile: Kafka's retention at work */
	if (ty != S_IFREG) {
		char path[4096 + 300];
		snprintf(path, sizeof(path), "%s/%s", W->where, e->d_name);
		return ss_catalog_problem(W->cat, path, SEGSCAN_ENOTREG, -1, true, "%s, not a regular file: not read",
					  ss_file_type_name(ty));
	}
	struct segfile *sf;
	int r = SS_DA_PUSH(&W->files, &W->nf, &W->capf, &sf);
	if (r < 0)
		return r;
	sf->offset = off;
	sf->kind = k;
	return 0;
}

/* One directory entry: a segment file, a snapshot, a file Kafka keeps beside them, a
 * leftover (counted and noted), or an unknown file (noted). */
static int take_entry(struct pwalk *W, struct ss_part *p, const struct dirent *e)
{
	const char *logdir = W->cat->logdirs[W->li].path;
	int64_t off;
	enum ss_file_kind inner, k = ss_file_classify(e->d_name, &off, &inner);

	switch (k) {
	case SS_FILE_LOG:
	case SS_FILE_INDEX:
	case SS_FILE_TIMEINDEX:
	case SS_FILE_TXNINDEX:
		return take_segment_file(W, e, off, k);
	case SS_FILE_SNAPSHOT:
		p->snapshot_files++;
		return 0;
	case SS_FILE_PARTITION_METADATA:
	case SS_FILE_LEADER_EPOCH:
		return 0;
	case SS_FILE_DELETED:
	case SS_FILE_CLEANED:
	case SS_FILE_SWAP:
	case SS_FILE_TMP:
		if (k == SS_FILE_DELETED) p->deleted_files++;
		if (k == SS_FILE_CLEANED) p->cleaned_files++;
		if (k == SS_FILE_SWAP) p->swap_files++;
		return add_note(W->cat, logdir, W->name, e->d_name, leftover_what(k));
	default:
		/* The Raft log keeps quorum-state and snapshots beside its segments. */
		if (strcmp(p->topic, "__cluster_metadata") == 0 &&
		    (strcmp(e->d_name, "quorum-state") == 0 || strstr(e->d_name, ".checkpoint")))
			return 0;
		p->unknown_files++;
		return add_note(W->cat, logdir, W->name, e->d_name, "unknown file");
	}
}

/* Every entry of the directory; a readdir that fails part way is a problem of the
 * partition, and what was listed until then stays. */
static int list_partition(struct pwalk *W, struct ss_part *p)
{
	struct dirent *e;
	int r;

	errno = 0;
	while ((e = readdir(W->d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if ((r = take_entry(W, p, e)))
			return r;
		errno = 0;
	}
	if (errno) {
		r = -errno;
		return ss_catalog_problem(W->cat, W->where, r, -1, true, "readdir failed: %s", segscan_strerror(r));
	}
	return 0;
}

/* The files grouped by base offset into segments, in offset order, the last one active;
 * index files without their .log are noted (Kafka deletes them at startup). */
static int group_segments(struct pwalk *W, struct ss_part *p)
{
	int r;

	if (W->nf) /* qsort(NULL, 0) is undefined */
		qsort(W->files, W->nf, sizeof(*W->files), cmp_segfile);
	W->segs = W->nf ? malloc(W->nf * sizeof(*W->segs)) : NULL;
	if (W->nf && !W->segs)
		return -ENOMEM;
	for (size_t i = 0; i < W->nf;) {
		int64_t off = W->files[i].offset;
		uint16_t have = 0;
		for (; i < W->nf && W->files[i].offset == off; i++) {
			switch (W->files[i].kind) {
			case SS_FILE_LOG: have |= SS_HAS_LOG; break;
			case SS_FILE_INDEX: have |= SS_HAS_INDEX; break;
			case SS_FILE_TIMEINDEX: have |= SS_HAS_TIMEINDEX; break;
			case SS_FILE_TXNINDEX: have |= SS_HAS_TXNINDEX; break;
			default: break;
			}
		}
		if (!(have & SS_HAS_LOG)) {
			char fname[64];
			snprintf(fname, sizeof(fname), "%020lld.*", (long long)off);
			if ((r = add_note(W->cat, W->cat->logdirs[W->li].path, W->name, fname,
					  "index files without a .log (orphaned)")))
				return r;
			continue;
		}
		ss_seg_init(&W->segs[W->ns++], off, (uint8_t)have);
	}
	p->seg_count = (uint32_t)W->ns;
	if (W->ns)
		W->segs[W->ns - 1].flags |= SS_SEG_ACTIVE;
	return 0;
}

/* The partition and its segments into the catalog, in one locked step (and the directory
 * to the metadata topic's list if it is a live __remote_log_metadata partition). On
 * success the catalog owns p's strings. */
static int append_partition(struct pwalk *W, struct ss_part *p)
{
	struct ss_catalog *cat = W->cat;
	char *rlmm = NULL;
	int r;

	if (strcmp(p->topic, "__remote_log_metadata") == 0 && p->kind == SS_DIR_LIVE && !(rlmm = strdup(W->where)))
		return -ENOMEM;
	cat_lock(cat);
	if ((r = ss_da_reserve((void **)&cat->parts, &cat->cap_parts, cat->n_parts + 1, sizeof(*cat->parts))) ||
	    (r = reserve_segs(cat, (uint64_t)cat->n_segs + W->ns)) ||
	    (rlmm && (r = ss_da_reserve((void **)&cat->rlmm_dirs, &cat->cap_rlmm, cat->n_rlmm_dirs + 1, sizeof(char *))))) {
		cat_unlock(cat);
		free(rlmm);
		return r;
	}
	p->seg_first = cat->n_segs;
	for (size_t i = 0; i < W->ns; i++)
		W->segs[i].part = cat->n_parts;
	if (W->ns)
		memcpy(cat->segs + cat->n_segs, W->segs, W->ns * sizeof(*W->segs));
	if (W->ns && cat->ids)
		memset(cat->ids + cat->n_segs, 0, W->ns * sizeof(*cat->ids));
	cat->n_segs += (uint32_t)W->ns;
	cat->parts[cat->n_parts++] = *p;
	if (rlmm)
		cat->rlmm_dirs[cat->n_rlmm_dirs++] = rlmm;
	cat_unlock(cat);
	return 0;
}

/* One partition directory into the catalog: open it, build the partition, list its files,
 * group them into segments, read its metadata files, append it. */
static int walk_partition(struct ss_catalog *cat, uint32_t li, const char *name, const struct ss_dirname *dn)
{
	struct ss_logdir *ld = &cat->logdirs[li];
	struct pwalk W = { .cat = cat, .li = li, .name = name, .dfd = -1 };
	struct ss_part part, *p = &part;
	int open_err;
	bool gone;
	int r;

	snprintf(W.where, sizeof(W.where), "%s/%s", ld->path, name);
	if ((r = open_partition(&W, &open_err, &gone)) || gone)
		return r;

	/* Built here, then appended to the catalog in one locked step. */
	memset(p, 0, sizeof(*p));
	p->topic = strndup(dn->topic, dn->topic_len);
	p->dir = strdup(name);
	if (!p->topic || !p->dir) {
		r = -ENOMEM;
		goto out;
	}
	p->logdir = li;
	p->logdir_path = ld->path;
	p->partition = dn->partition;
	p->kind = dn->kind;
	p->unreadable = open_err;
	if (!open_err && ((r = list_partition(&W, p)) || (r = group_segments(&W, p)) ||
			  (r = read_partition_meta(cat, p, W.dfd, W.where))))
		goto out;
	if ((r = append_partition(&W, p)))
		goto out;
	p = NULL; /* the catalog owns its strings now */
out:
	if (p) {
		free(p->topic);
		free(p->dir);
		free(p->epochs);
	}
	free(W.segs);
	free(W.files);
	if (W.d)
		closedir(W.d);
	return r;
}

/* ---- partition-level reuse (ss_dreuse) -------------------------------------------- */

struct part_key {
	const char *topic;
	size_t      tlen;
	int32_t     partition;
	uint32_t    logdir;
};

/* The catalog's order (topic bytewise, a prefix first; partition; log dir) against a key. */
static int cmp_part_key(const void *elem, const void *key)
{
	const struct ss_part *p = elem;
	const struct part_key *k = key;
	size_t pl = strlen(p->topic);
	int cmp = memcmp(p->topic, k->topic, pl < k->tlen ? pl : k->tlen);
	if (!cmp)
		cmp = pl < k->tlen ? -1 : pl > k->tlen;
	if (!cmp)
		cmp = p->partition < k->partition ? -1 : p->partition > k->partition;
	if (!cmp)
		cmp = p->logdir < k->logdir ? -1 : p->logdir > k->logdir;
	return cmp;
}

/* The partition (topic, partition) of log dir li in a sorted catalog, or -1: the reuse
 * lookups below and the log dir checkpoints' entries (ckpt_entry) both find theirs here. */
static int64_t find_part(const struct ss_catalog *c, const char *topic, size_t tlen, int32_t partition, uint32_t li)
{
	const struct part_key k = { topic, tlen, partition, li };
	size_t lo = ss_lower_bound(c->parts, c->n_parts, sizeof(*c->parts), cmp_part_key, &k, NULL);
	if (lo < c->n_parts && cmp_part_key(&c->parts[lo], &k) == 0)
		return (int64_t)lo;
	return -1;
}

/* The partition of a catalog whose directory holds `path` (a note's or a problem's:
 * "<log dir>/<partition dir>[/...]"), or -1. */
static int64_t part_of_path(const struct ss_catalog *c, const char *path)
{
	for (uint32_t li = 0; li < c->n_logdirs; li++) {
		const char *ld = c->logdirs[li].path;
		size_t n = strlen(ld);
		if (strncmp(path, ld, n) || path[n] != '/')
			continue;
		const char *name = path + n + 1, *end = strchr(name, '/');
		size_t len = end ? (size_t)(end - name) : strlen(name);
		char buf[256];
		struct ss_dirname dn;
		if (len == 0 || len >= sizeof(buf))
			continue;
		memcpy(buf, name, len);
		buf[len] = 0;
		if (ss_dirname_parse(buf, &dn) != 0)
			continue;
		int64_t k = find_part(c, dn.topic, dn.topic_len, dn.partition, li);
		if (k >= 0 && strcmp(c->parts[k].dir, buf) == 0)
			return k;
	}
	return -1;
}

/* Which of prev's partitions may be copied, and where their notes are. A partition prev
 * could not read completely (its directory, a segment, a metadata file: a problem under
 * its directory) is listed again, so a transient failure never sticks. The metadata
 * topics are read by other sources every scan and are always listed. */
static int dreuse_prepare(struct ss_catalog *cat, char *const *paths, uint32_t n)
{
	struct ss_dreuse *ru = cat->reuse;
	const struct ss_catalog *pc = ru->prev;
	uint32_t np = pc->n_parts;
	ru->ok = calloc(np ? np : 1, 1);
	ru->note_first = calloc(np ? np : 1, sizeof(uint32_t));
	ru->note_n = calloc(np ? np : 1, sizeof(uint32_t));
	ru->note_idx = calloc(pc->n_notes ? pc->n_notes : 1, sizeof(uint32_t));
	ru->prev_li = calloc(n ? n : 1, sizeof(int32_t));
	/* the catalog will be about prev's size: grown once, not by doubling copies */
	int r = ss_da_reserve((void **)&cat->parts, &cat->cap_parts, pc->n_parts, sizeof(*cat->parts));
	if (!r)
		r = reserve_segs(cat, pc->n_segs);
	if (r)
		return r;
	int64_t *note_part = calloc(pc->n_notes ? pc->n_notes : 1, sizeof(int64_t));
	if (!ru->ok || !ru->note_first || !ru->note_n || !ru->note_idx || !ru->prev_li || !note_part) {
		free(note_part);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		ru->prev_li[i] = -1;
		for (uint32_t k = 0; k < pc->n_logdirs; k++)
			if (strcmp(pc->logdirs[k].path, paths[i]) == 0 && pc->logdirs[k].fd >= 0)
				ru->prev_li[i] = (int32_t)k;
	}
	for (uint32_t i = 0; i < np; i++) {
		const struct ss_part *q = &pc->parts[i];
		bool ok = !q->unreadable && q->kind == SS_DIR_LIVE && strcmp(q->topic, "__remote_log_metadata") != 0 &&
			  strcmp(q->topic, "__cluster_metadata") != 0;
		for (uint32_t k = 0; ok && k < q->seg_count; k++) {
			const struct ss_seg *g = &pc->segs[q->seg_first + k];
			ok = !ss_seg_err(g) && !(g->flags & (SS_SEG_READ_ERROR | SS_SEG_VANISHED | SS_SEG_CHANGED));
		}
		ru->ok[i] = ok;
	}
	for (uint32_t i = 0; i < pc->n_problems; i++) {
		int64_t k = part_of_path(pc, pc->problems[i].path);
		if (k >= 0)
			ru->ok[k] = 0;
	}
	/* notes grouped by partition (counting sort), so a copy finds its own */
	for (uint32_t i = 0; i < pc->n_notes; i++)
		if ((note_part[i] = part_of_path(pc, pc->notes[i].path)) >= 0)
			ru->note_n[note_part[i]]++;
	uint32_t at = 0;
	for (uint32_t i = 0; i < np; i++) {
		ru->note_first[i] = at;
		at += ru->note_n[i];
		ru->note_n[i] = 0;
	}
	for (uint32_t i = 0; i < pc->n_notes; i++)
		if (note_part[i] >= 0) {
			uint32_t k = (uint32_t)note_part[i];
			ru->note_idx[ru->note_first[k] + ru->note_n[k]++] = i;
		}
	free(note_part);
	return 0;
}

void ss_dreuse_release(struct ss_dreuse *ru)
{
	free(ru->ok);
	free(ru->note_first);
	free(ru->note_n);
	free(ru->note_idx);
	free(ru->prev_li);
	ru->ok = NULL;
	ru->note_first = ru->note_n = ru->note_idx = NULL;
	ru->prev_li = NULL;
}

/* The previous catalog's partition to copy for directory `name` of log dir li, or -1:
 * prev read it completely and the caller knows it unchanged since. */
static int64_t dreuse_lookup(struct ss_catalog *cat, uint32_t li, const char *name, const struct ss_dirname *dn)
{
	struct ss_dreuse *ru = cat->reuse;
	if (!ru || !ru->ok || ru->prev_li[li] < 0)
		return -1;
	int64_t k = find_part(ru->prev, dn->topic, dn->topic_len, dn->partition, (uint32_t)ru->prev_li[li]);
	if (k < 0 || !ru->ok[k] || strcmp(ru->prev->parts[k].dir, name) != 0)
		return -1;
	if (!ru->unchanged(ru->arg, cat->logdirs[li].path, name))
		return -1;
	return k;
}

/* Appends a copy of prev's partition k (discovery's and the workers' facts; the
 * evaluation and the checkpoint values are made again) and its notes. */
static int copy_partition(struct ss_catalog *cat, uint32_t li, int64_t k)
{
	struct ss_dreuse *ru = cat->reuse;
	const struct ss_catalog *pc = ru->prev;
	const struct ss_part *q = &pc->parts[k];
	struct ss_part part = *q;
	char **npath = NULL, **nwhat = NULL;
	uint32_t nn = ru->note_n[k], done = 0;
	int r = -ENOMEM;

	part.topic = strdup(q->topic);
	part.dir = strdup(q->dir);
	part.epochs = q->n_epochs ? malloc(q->n_epochs * sizeof(*q->epochs)) : NULL;
	if (nn) { /* most partitions have no notes: no arrays */
		npath = calloc(nn, sizeof(char *));
		nwhat = calloc(nn, sizeof(char *));
	}
	if (!part.topic || !part.dir || (q->n_epochs && !part.epochs) || (nn && (!npath || !nwhat)))
		goto out;
	if (q->n_epochs)
		memcpy(part.epochs, q->epochs, q->n_epochs * sizeof(*q->epochs));
	for (; done < nn; done++) {
		const struct ss_note *no = &pc->notes[ru->note_idx[ru->note_first[k] + done]];
		if (!(npath[done] = strdup(no->path)) || !(nwhat[done] = strdup(no->what)))
			goto out;
	}
	part.logdir = li;
	part.logdir_path = cat->logdirs[li].path;
	part.has_log_start = part.has_recovery_point = part.has_high_watermark = false;
	part.eval = NULL;
	part.seg_pending = 0;
	part.reused = true;

	cat_lock(cat);
	if ((r = ss_da_reserve((void **)&cat->parts, &cat->cap_parts, cat->n_parts + 1, sizeof(*cat->parts))) ||
	    (r = reserve_segs(cat, (uint64_t)cat->n_segs + q->seg_count)) ||
	    (r = ss_da_reserve((void **)&cat->notes, &cat->cap_notes, cat->n_notes + nn, sizeof(*cat->notes)))) {
		cat_unlock(cat);
		goto out;
	}
	part.seg_first = cat->n_segs;
	for (uint32_t i = 0; i < q->seg_count; i++) {
		struct ss_seg *g = &cat->segs[cat->n_segs + i];
		g->x = NULL;
		if ((r = ss_seg_copy(g, &pc->segs[q->seg_first + i]))) {
			ss_segs_free_x(cat->segs + cat->n_segs, i);
			cat_unlock(cat);
			goto out;
		}
		g->part = cat->n_parts;
		g->flags &= (uint16_t)~SS_SEG_ONLY_LOCAL; /* the evaluator's, decided again */
		if (cat->ids)
			cat->ids[cat->n_segs + i] = pc->ids ? pc->ids[q->seg_first + i] : (struct ss_seg_id){ 0 };
	}
	cat->n_segs += q->seg_count;
	for (uint32_t i = 0; i < nn; i++) {
		cat->notes[cat->n_notes + i].path = npath[i];
		cat->notes[cat->n_notes + i].what = nwhat[i];
	}
	cat->n_notes += nn;
	cat->parts[cat->n_parts++] = part;
	ru->reused++;
	ru->reused_segs += q->seg_count;
	cat_unlock(cat);
	free(npath);
	free(nwhat);
	return 0;
out:
	free(part.topic);
	free(part.dir);
	free(part.epochs);
	for (uint32_t i = 0; npath && nwhat && i <= done && i < nn; i++) {
		free(npath[i]);
		free(nwhat[i]);
	}
	free(npath);
	free(nwhat);
	return r;
}

static bool known_top_file(const char *n)
{
	static const char *const known[] = {
		"meta.properties", ".lock", ".kafka_cleanshutdown", "recovery-point-offset-checkpoint",
		"log-start-offset-checkpoint", "replication-offset-checkpoint",
		"cleaner-offset-checkpoint", "bootstrap.checkpoint",
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(n, known[i]) == 0)
			return true;
	return false;
}

/* A partition directory to list: discovery lists them on several threads. */
struct pjob {
	uint32_t         li;
	char            *name;
	struct ss_dirname dn;   /* dn.topic points into name */
	int64_t          from_prev; /* ss_dreuse: the previous catalog's partition to copy, or -1 */
};

struct pjobs {
	struct pjob *v;
	uint32_t     n, cap;
};

/* A directory given as a log dir that is none: a partition directory (the operator
 * meant its parent), or anything else with neither meta.properties nor a partition
 * directory (`segscan scan /etc`). Either is exit 3 with a hint, never "2 partitions". */
static int check_logdir(struct ss_catalog *cat, uint32_t li)
{
	struct ss_logdir *ld = &cat->logdirs[li];
	struct stat st;
	if (ld->fd < 0 || fstatat(ld->fd, "meta.properties", &st, 0) == 0)
		return 0;
	/* Without meta.properties (a copied or restored log dir), one Kafka-looking partition
	 * suffices: a segment, a topic id or a leader-epoch checkpoint. "dbus-1" is not one. */
	for (uint32_t i = 0; i < cat->n_parts; i++) {
		const struct ss_part *p = &cat->parts[i];
		if (p->logdir == li && (p->seg_count > 0 || p->has_topic_id || p->epochs_read || p->unreadable))
			return 0;
	}
	/* None: what was taken for partitions are other programs' directories. They have no
	 * segments (else they would count), so dropping them leaves cat->segs as it is. */
	uint32_t w = 0;
	for (uint32_t i = 0; i < cat->n_parts; i++) {
		if (cat->parts[i].logdir == li) {
			free(cat->parts[i].topic);
			free(cat->parts[i].dir);
			free(cat->parts[i].epochs);
			continue;
		}
		cat->parts[w++] = cat->parts[i];
	}
	cat->n_parts = w;
	const char *base = strrchr(ld->path, '/');
	base = base && base[1] ? base + 1 : ld->path;
	struct ss_dirname dn;
	bool partition_like = ss_dirname_parse(base, &dn) == 0 &&
			      (fstatat(ld->fd, "partition.metadata", &st, 0) == 0 ||
			       fstatat(ld->fd, "leader-epoch-checkpoint", &st, 0) == 0 ||
			       fstatat(ld->fd, "00000000000000000000.log", &st, 0) == 0);
	ld->err = SEGSCAN_ENOTLOGDIR;
	close(ld->fd);
	ld->fd = -1;
	if (partition_like)
		return ss_catalog_problem(cat, ld->path, SEGSCAN_ENOTLOGDIR, -1, false,
					  "this is a partition directory, not a log dir: pass its parent");
	return ss_catalog_problem(cat, ld->path, SEGSCAN_ENOTLOGDIR, -1, false,
				  "not a Kafka log dir: no meta.properties and no <topic>-<partition> directory "
				  "(a broker's log.dirs entry holds both)");
}

static int walk_logdir(struct ss_catalog *cat, uint32_t li, struct pjobs *jobs)
{
	struct ss_logdir *ld = &cat->logdirs[li];
	int dfd = dup(ld->fd), r = 0;
	if (dfd < 0)
		return -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	struct dirent *e;
	errno = 0;
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
			continue;
		bool is_dir = e->d_type == DT_DIR;
		if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
			struct stat st;
			if (fstatat(ld->fd, n, &st, 0) == 0)
				is_dir = S_ISDIR(st.st_mode);
		}
		if (!is_dir) {
			int64_t off;
			enum ss_file_kind inner;
			if (!known_top_file(n)) {
				enum ss_file_kind k = ss_file_classify(n, &off, &inner);
				r = add_note(cat, ld->path, n, NULL, k == SS_FILE_TMP ? leftover_what(k) : "unknown file");
			}
		} else if (strcmp(n, "remote-log-index-cache") == 0) {
			/* Kafka's cache of remote indexes: not partition data. */
		} else {
			struct ss_dirname dn;
			if (ss_dirname_parse(n, &dn) != 0)
				r = add_note(cat, ld->path, n, NULL, "directory is not a <topic>-<partition> name");
			else if (!ss_topic_name_ok(dn.topic, dn.topic_len))
				/* Kafka never creates it (Topic.validate): not a partition, and its
				 * bytes are reported escaped, never copied into a report raw */
				r = add_note(cat, ld->path, n, NULL,
					     "directory name is not a legal Kafka topic name ([a-zA-Z0-9._-], 1 to 249 "
					     "characters): not a partition");
			else if (dn.kind != SS_DIR_LIVE)
				r = add_note(cat, ld->path, n, NULL,
					     dn.kind == SS_DIR_DELETE ? "partition scheduled for deletion (-delete), not counted" :
					     dn.kind == SS_DIR_FUTURE ? "future replica being moved here (-future), not counted" :
									"stray replica (-stray), not counted");
			else if (!(r = ss_da_reserve((void **)&jobs->v, &jobs->cap, jobs->n + 1, sizeof(*jobs->v)))) {
				struct pjob *j = &jobs->v[jobs->n];
				if (!(j->name = strdup(n))) {
					r = -ENOMEM;
				} else {
					j->li = li;
					j->dn = dn;
					j->dn.topic = j->name + (dn.topic - n);
					j->from_prev = dreuse_lookup(cat, li, n, &dn);
					jobs->n++;
				}
			}
		}
		if (r)
			break;
		errno = 0;
	}
	if (!r && errno)
		r = ss_catalog_problem(cat, ld->path, -errno, -1, true, "readdir failed: %s", strerror(errno));
	closedir(d);
	return r;
}

static int cmp_part(const void *a, const void *b)
{
	const struct ss_part *x = a, *y = b;
	int c = strcmp(x->topic, y->topic);
	if (c)
		return c;
	if (x->partition != y->partition)
		return x->partition < y->partition ? -1 : 1;
	return x->logdir < y->logdir ? -1 : x->logdir > y->logdir;
}

struct ckpt_ctx {
	struct ss_catalog *cat;
	uint32_t li;
	int which; /* 0 log start, 1 recovery point, 2 high watermark */
};

static int ckpt_entry(void *arg, const char *topic, size_t tlen, int32_t partition, int64_t offset)
{
	struct ckpt_ctx *c = arg;
	struct ss_catalog *cat = c->cat;
	/* parts are sorted by (topic, partition, logdir): find_part binary-searches them */
	int64_t k = find_part(cat, topic, tlen, partition, c->li);
	if (k < 0)
		return 0; /* an entry for a partition this log dir does not hold */
	struct ss_part *p = &cat->parts[k];
	if (c->which == 0 && offset < 0) {
		/* Kafka never checkpoints a negative log start offset: not a fact to
		 * report (issue 14 item 11); said in a note, and the first segment's
		 * base offset stands in, as when the entry is absent */
		char what[160], ent[300];
		snprintf(what, sizeof(what), "negative log start offset %lld for %s-%d: ignored",
			 (long long)offset, p->topic, partition);
		snprintf(ent, sizeof(ent), "log-start-offset-checkpoint");
		return add_note(cat, cat->logdirs[c->li].path, ent, NULL, what);
	}
	if (c->which == 0) { p->has_log_start = true; p->log_start_ckpt = offset; }
	if (c->which == 1) { p->has_recovery_point = true; p->recovery_point = offset; }
	if (c->which == 2) { p->has_high_watermark = true; p->high_watermark = offset; }
	return 0;
}

/* The log dir's meta.properties: which broker (node.id) of which cluster wrote it. None is
 * no problem (a copied log dir); one that cannot be read or parsed is, and leaves both
 * unknown, never guessed. */
static int read_logdir_meta(struct ss_catalog *cat, uint32_t li)
{
	struct ss_logdir *ld = &cat->logdirs[li];
	struct ss_meta_props m;
	char *buf = NULL, path[4096 + 64], err[512];
	size_t len;
	int r = read_small(ld->fd, "meta.properties", &buf, &len);
	if (r == -ENOENT)
		return 0;
	snprintf(path, sizeof(path), "%s/meta.properties", ld->path);
	if (r) {
		free(buf);
		return ss_catalog_problem(cat, path, r, -1, true, "cannot read: %s; the broker that owns the log "
					  "dir is unknown", segscan_strerror(r));
	}
	r = ss_meta_props_parse(buf, len, "meta.properties", &m, err, sizeof(err));
	free(buf);
	if (r == -ENOMEM)
		return r;
	if (r)
		return ss_catalog_problem(cat, path, r, -1, true, "%s; the broker that owns the log dir is unknown",
					  err);
	ld->node_id = m.node_id;
	ld->cluster_id = m.cluster_id;   /* taken over */
	return 0;
}

static int read_logdir_checkpoints(struct ss_catalog *cat, uint32_t li)
{
	static const char *const names[] = { "log-start-offset-checkpoint", "recovery-point-offset-checkpoint",
					     "replication-offset-checkpoint" };
	struct ss_logdir *ld = &cat->logdirs[li];
	for (int w = 0; w < 3; w++) {
		char *buf = NULL, path[4096 + 64];
		size_t len;
		int line = 0, r = read_small(ld->fd, names[w], &buf, &len);
		snprintf(path, sizeof(path), "%s/%s", ld->path, names[w]);
		if (r == -ENOENT)
			continue;
		if (r == 0) {
			struct ckpt_ctx c = { cat, li, w };
			r = ss_ckpt_parse_offsets(buf, len, ckpt_entry, &c, &line);
			free(buf);
			if (r && (r = ss_catalog_problem(cat, path, r, line, true, "line %d: %s", line,
							 segscan_strerror(r))))
				return r;
		} else if ((r = ss_catalog_problem(cat, path, r, -1, true, "cannot read: %s", segscan_strerror(r)))) {
			return r;
		}
	}
	return 0;
}

struct lister {
	struct ss_catalog *cat;
	struct pjobs      *jobs;
	atomic_uint       *next;     /* relaxed: a claim needs no ordering; pthread_join publishes */
	int                err;
	pthread_t          th;
	struct lister     *self0;    /* the calling thread's own lister keeps its name */
};

static void *lister_main(void *arg)
{
	struct lister *l = arg;
	if (l != l->self0)
		pthread_setname_np(pthread_self(), "segscan-list");
	for (;;) {
		unsigned i = atomic_fetch_add_explicit(l->next, 1, memory_order_relaxed);
		if (i >= l->jobs->n)
			break;
		struct pjob *j = &l->jobs->v[i];
		/* i: the directories claimed before this one (done, or in flight on another thread) */
		ss_progress(l->cat->log, SEGSCAN_PHASE_DISCOVERY, SEGSCAN_UNIT_ITEMS, "partition directories", i,
			    l->jobs->n);
		if (j->from_prev >= 0)
			l->err = copy_partition(l->cat, j->li, j->from_prev);
		else
			l->err = walk_partition(l->cat, j->li, j->name, &j->dn);
		if (l->err)
			break;
	}
	return NULL;
}

int ss_discover(struct ss_catalog *cat, char *const *paths, uint32_t n)
{
	return ss_discover_mt(cat, paths, n, 1);
}

/* Is log dir i the same directory as an earlier one (by another path, a symlink)? */
static bool logdir_seen_before(const struct ss_catalog *cat, uint32_t i)
{
	struct stat st_i;
	if (fstat(cat->logdirs[i].fd, &st_i) != 0)
		return false;
	for (uint32_t k = 0; k < i; k++) {
		struct stat st_k;
		if (cat->logdirs[k].fd >= 0 && fstat(cat->logdirs[k].fd, &st_k) == 0 &&
		    st_k.st_dev == st_i.st_dev && st_k.st_ino == st_i.st_ino)
			return true;
	}
	return false;
}

/* Open each log dir (a missing one is a problem, the same one twice a note) and walk its
 * top level into jobs: one per partition directory. */
static int open_logdirs(struct ss_catalog *cat, char *const *paths, uint32_t n, struct pjobs *jobs)
{
	int r;
	for (uint32_t i = 0; i < n; i++) {
		struct ss_logdir *ld = &cat->logdirs[i];
		ld->node = -1;
		ld->node_id = -1;
		ld->fd = -1;
		if (!(ld->path = strdup(paths[i])))
			return -ENOMEM;
		int fd = ss_open_ro(AT_FDCWD, paths[i], O_DIRECTORY);
		if (fd < 0) {
			ld->err = fd;
			if ((r = ss_catalog_problem(cat, paths[i], fd, -1, false, "log dir is missing or unreadable: %s",
						    segscan_strerror(fd))))
				return r;
			continue;
		}
		ld->fd = fd;
		if (logdir_seen_before(cat, i)) {
			close(fd);
			ld->fd = -1;
			if ((r = add_note(cat, paths[i], ".", NULL, "the same log dir was given twice: scanned once")))
				return r;
			continue;
		}
		if ((r = walk_logdir(cat, i, jobs)))
			return r;
	}
	return 0;
}

/* List the partition directories on several threads: a million segments means forty
 * thousand directories, and each is a few getdents plus two small files. */
static int list_partitions(struct ss_catalog *cat, struct pjobs *jobs, unsigned nthreads)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	atomic_uint next = 0;
	unsigned started = 0;
	int r = 0;
	if (nthreads < 1)
		nthreads = 1;
	/* partitions copied from a previous scan (ss_dreuse) cost no I/O: only the dirs to
	 * list count, so a rescan that lists few runs on this thread alone, without the lock */
	uint32_t to_list = 0;
	for (uint32_t i = 0; i < jobs->n; i++)
		to_list += jobs->v[i].from_prev < 0;
	if (nthreads > to_list / 64 + 1)
		nthreads = to_list / 64 + 1; /* a thread per few dozen dirs is plenty */
	struct lister *ls = calloc(nthreads, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	if (nthreads > 1)
		cat->mu = &mu;
	for (unsigned t = 0; t < nthreads; t++) {
		ls[t].cat = cat;
		ls[t].jobs = jobs;
		ls[t].next = &next;
		ls[t].self0 = &ls[0];
	}
	for (unsigned t = 1; t < nthreads; t++) {
		if (pthread_create(&ls[t].th, NULL, lister_main, &ls[t]) != 0)
			break;
		started++;
	}
	lister_main(&ls[0]); /* this thread lists too */
	for (unsigned t = 1; t <= started; t++)
		pthread_join(ls[t].th, NULL); /* joins the pthread_create above */
	cat->mu = NULL;
	for (unsigned t = 0; t < nthreads; t++)
		if (!r && ls[t].err)
			r = ls[t].err;
	free(ls);
	return r;
}

/* The segment arrays grew by doubling: give back the unused tail (up to half of a
 * million-segment scan's largest allocation). A shrink that fails leaves the block as it
 * was, which is still correct. */
static void shrink_segments(struct ss_catalog *cat)
{
	if (!cat->n_segs || cat->cap_segs <= cat->n_segs)
		return;
	struct ss_seg *t = realloc(cat->segs, (size_t)cat->n_segs * sizeof(*cat->segs));
	if (t) {
		cat->segs = t;
		cat->cap_segs = cat->n_segs;
	}
	struct ss_seg_id *ti = cat->ids ? realloc(cat->ids, (size_t)cat->n_segs * sizeof(*cat->ids)) : NULL;
	if (ti) {
		cat->ids = ti;
		cat->cap_ids = cat->n_segs;
	}
}

/* Sort partitions; then point every segment at its partition's new index. */
static void sort_partitions(struct ss_catalog *cat)
{
	if (cat->n_parts)
		qsort(cat->parts, cat->n_parts, sizeof(*cat->parts), cmp_part);
	for (uint32_t pi = 0; pi < cat->n_parts; pi++) {
		struct ss_part *p = &cat->parts[pi];
		for (uint32_t k = 0; k < p->seg_count; k++)
			cat->segs[p->seg_first + k].part = pi;
	}
}

int ss_discover_mt(struct ss_catalog *cat, char *const *paths, uint32_t n, unsigned nthreads)
{
	struct pjobs jobs = { 0 };
	int r;
	cat->logdirs = calloc(n ? n : 1, sizeof(*cat->logdirs));
	if (!cat->logdirs)
		return -ENOMEM;
	cat->n_logdirs = n;
	/* the total is known once the log dirs are listed; until then "unknown" */
	ss_progress(cat->log, SEGSCAN_PHASE_DISCOVERY, SEGSCAN_UNIT_ITEMS, "partition directories", 0, 0);
	if (cat->reuse && (r = dreuse_prepare(cat, paths, n)))
		goto out;
	if ((r = open_logdirs(cat, paths, n, &jobs)) || (r = list_partitions(cat, &jobs, nthreads)))
		goto out;
	ss_progress_end(cat->log, SEGSCAN_PHASE_DISCOVERY, SEGSCAN_UNIT_ITEMS, "partition directories", jobs.n, jobs.n);
	for (uint32_t i = 0; i < n; i++)
		if ((r = check_logdir(cat, i)))
			goto out;
	shrink_segments(cat);
	sort_partitions(cat);
	for (uint32_t i = 0; i < n; i++)
		if (cat->logdirs[i].fd >= 0 && ((r = read_logdir_meta(cat, i)) || (r = read_logdir_checkpoints(cat, i))))
			goto out;
	r = 0;
out:
	cat->mu = NULL;
	if (cat->reuse)
		ss_dreuse_release(cat->reuse);
	for (uint32_t i = 0; i < jobs.n; i++)
		free(jobs.v[i].name);
	free(jobs.v);
	return r;
}

int ss_seg_relpath(const struct ss_catalog *cat, const struct ss_seg *s, const char *ext, char *buf, size_t len)
{
	const struct ss_part *p = &cat->parts[s->part];
	int n = snprintf(buf, len, "%s/%020lld.%s", p->dir, (long long)s->base_offset, ext);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

void ss_catalog_free(struct ss_catalog *cat)
{
	for (uint32_t i = 0; i < cat->n_logdirs; i++) {
		free(cat->logdirs[i].path);
		free(cat->logdirs[i].cluster_id);
		if (cat->logdirs[i].fd >= 0)
			close(cat->logdirs[i].fd);
	}
	free(cat->logdirs);
	for (uint32_t i = 0; i < cat->n_parts; i++) {
		free(cat->parts[i].topic);
		free(cat->parts[i].dir);
		free(cat->parts[i].epochs);
	}
	free(cat->parts);
	ss_segs_free_x(cat->segs, cat->n_segs);
	free(cat->segs);
	free(cat->ids);
	for (uint32_t i = 0; i < cat->n_notes; i++) {
		free(cat->notes[i].path);
		free(cat->notes[i].what);
	}
	free(cat->notes);
	for (uint32_t i = 0; i < cat->n_problems; i++) {
		free(cat->problems[i].path);
		free(cat->problems[i].what);
	}
	free(cat->problems);
	for (uint32_t i = 0; i < cat->n_rlmm_dirs; i++)
		free(cat->rlmm_dirs[i]);
	free(cat->rlmm_dirs);
	memset(cat, 0, sizeof(*cat));
}
