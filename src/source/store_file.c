/*
 * file:///DIR: a directory tree as a remote store (Kafka's LocalTieredStorage writes one;
 * so does Aiven's filesystem backend). Every regular file is an object whose key is its
 * path below DIR; the walk goes in S3's key order (bytewise over the whole key, so a
 * directory "a" sorts as "a/"), one directory's names in memory at a time. Symbolic links
 * are not followed (an object is what the directory holds, not what a link points at):
 * one is listed with its own size, and never read. Files and directories that vanish
 * while they are listed (the RSM deleting) are simply not there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "segscan.h"
#include "source/store_int.h"

#define MAX_DEPTH 32
#define PAGE 1000

struct fent {
	char   *name;
	bool    dir;
	int64_t size;
};

struct walk {
	struct ss_store *st;
	ss_store_obj_fn  fn;
	ss_store_page_fn page;
	void            *arg;
	uint64_t         listed, since_page;
	char             key[PATH_MAX + 2];
	char            *err;
	size_t           errlen;
};

static int file_open(struct ss_store *st, char *err, size_t errlen)
{
	int fd = ss_open_ro(AT_FDCWD, st->uri.path, O_DIRECTORY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", st->uri.path, fd == -ENOTDIR ? "not a directory" : segscan_strerror(fd));
		return fd;
	}
	st->impl = (void *)(intptr_t)(fd + 1);   /* closed by file_close */
	return 0;
}

static int root_fd(const struct ss_store *st)
{
	return (int)(intptr_t)st->impl - 1;
}

static void file_close(struct ss_store *st)
{
	if (st->impl)
		close(root_fd(st));   /* opened by file_open */
}

/* S3's order: bytewise over the key, a directory's name followed by its '/' */
static int cmp_fent(const void *x, const void *y)
{
	const struct fent *a = x, *b = y;
	const unsigned char *p = (const unsigned char *)a->name, *q = (const unsigned char *)b->name;
	for (;; p++, q++) {
		int c1 = *p ? *p : a->dir ? '/' : -1;
		int c2 = *q ? *q : b->dir ? '/' : -1;
		if (c1 != c2)
			return c1 < c2 ? -1 : 1;
		if (!*p || !*q)
			return 0;
	}
}

static void free_ents(struct fent *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* One directory's entries with their kinds and sizes (an entry deleted while listed is
 * left out), in S3's order; *v is the caller's to free (free_ents) whatever is returned. */
static int read_entries(struct walk *w, int dfd, size_t klen, struct fent **v, size_t *n)
{
	size_t cap = 0;
	int r = 0;
	int lfd = dup(dfd);
	if (lfd < 0)
		return -errno;
	DIR *d = fdopendir(lfd);   /* closedir below closes lfd */
	if (!d) {
		r = -errno;
		close(lfd);
		return r;
	}
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat sb;
		if (fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT)
				continue;   /* deleted while listed */
			r = -errno;
			snprintf(w->err, w->errlen, "%.*s%s: %s", (int)klen, w->key, de->d_name, strerror(errno));
			goto out;
		}
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct fent *nv = realloc(*v, nc * sizeof(*nv));
			if (!nv) {
				r = -ENOMEM;
				goto out;
			}
			*v = nv;
			cap = nc;
		}
		if (!((*v)[*n].name = strdup(de->d_name))) {
			r = -ENOMEM;
			goto out;
		}
		(*v)[*n].dir = S_ISDIR(sb.st_mode);
		(*v)[*n].size = (*v)[*n].dir ? 0 : (int64_t)sb.st_size;
		(*n)++;
		errno = 0;
	}
	if (errno) {
		r = -errno;
		snprintf(w->err, w->errlen, "%.*s: reading the directory: %s", (int)klen, w->key, strerror(errno));
	}
out:
	closedir(d);
	if (!r && *n > 1)
		qsort(*v, *n, sizeof(**v), cmp_fent);
	return r;
}

static int walk_dir(struct walk *w, int dfd, size_t klen, int depth);

/* A subdirectory (its key, with the '/', already in w->key up to klen): walked, unless it
 * went away meanwhile. */
static int walk_subdir(struct walk *w, int dfd, const char *name, size_t klen, int depth)
{
	if (depth >= MAX_DEPTH) {
		snprintf(w->err, w->errlen, "%.*s: more than %d directory levels", (int)(klen - 1), w->key, MAX_DEPTH);
		return -ELOOP;
	}
	int cfd = ss_open_ro(dfd, name, O_DIRECTORY | O_NOFOLLOW);
	if (cfd == -ENOENT)
		return 0;   /* deleted while listed */
	if (cfd < 0) {
		snprintf(w->err, w->errlen, "%.*s: %s", (int)(klen - 1), w->key, strerror(-cfd));
		return cfd;
	}
	int r = walk_dir(w, cfd, klen, depth + 1);
	close(cfd);   /* opened above */
	return r;
}

/* An object: handed on, counted, and a page ends every PAGE objects. */
static int list_object(struct walk *w, size_t keylen, int64_t size)
{
	int r;
	if ((r = w->fn(w->arg, w->key, keylen, size)))
		return r;
	w->listed++;
	if (++w->since_page >= PAGE) {
		w->since_page = 0;
		if (w->page && (r = w->page(w->arg, w->listed)))
			return r;
		if (ss_store_cancelled(w->st))
			return -ECANCELED;
	}
	return 0;
}

static int walk_dir(struct walk *w, int dfd, size_t klen, int depth)
{
	int r = 0;
	struct fent *v = NULL;
	size_t n = 0;
	if ((r = ss_store_pace(w->st)))
		return r;
	if ((r = read_entries(w, dfd, klen, &v, &n)))
		goto out;
	for (size_t i = 0; i < n && !r; i++) {
		size_t nl = strlen(v[i].name);
		if (klen + nl + 1 >= sizeof(w->key)) {
			snprintf(w->err, w->errlen, "%.*s%s: the path is too long", (int)(klen > 200 ? 200 : klen), w->key,
				 v[i].name);
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(w->key + klen, v[i].name, nl + 1);
		if (v[i].dir) {
			w->key[klen + nl] = '/';
			w->key[klen + nl + 1] = 0;
			r = walk_subdir(w, dfd, v[i].name, klen + nl + 1, depth);
		} else {
			r = list_object(w, klen + nl, v[i].size);
		}
	}
out:
	free_ents(v, n);
	return r;
}

static int file_list(struct ss_store *st, ss_store_obj_fn fn, ss_store_page_fn page, void *arg, char *err, size_t errlen)
{
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct walk){ .st = st, .fn = fn, .page = page, .arg = arg, .err = err, .errlen = errlen };
	if (err && errlen)
		err[0] = 0;
	int r = walk_dir(w, root_fd(st), 0, 0);
	if (!r && page)
		r = page(arg, w->listed);
	if (r && r != -ECANCELED && err && errlen && !err[0])
		snprintf(err, errlen, "%s", segscan_strerror(r));
	free(w);
	return r;
}

/* The regular file of a key, component by component, no link followed anywhere on the
 * way. The fd or a negative errno (-ELOOP: a link). */
static int open_key(struct ss_store *st, const char *key, struct stat *sb)
{
	int dfd = root_fd(st), cur = -1, r;
	char part[NAME_MAX + 1];
	const char *p = key;
	for (;;) {
		const char *slash = strchr(p, '/');
		if (!slash)
			break;
		size_t n = (size_t)(slash - p);
		if (!n || n > NAME_MAX) {
			r = -EINVAL;
			goto fail;
		}
		memcpy(part, p, n);
		part[n] = 0;
		int nfd = ss_open_ro(cur >= 0 ? cur : dfd, part, O_DIRECTORY | O_NOFOLLOW);
		if (cur >= 0)
			close(cur);   /* the previous level, opened here */
		cur = -1;
		if (nfd < 0) {
			r = nfd;
			goto fail;
		}
		cur = nfd;
		p = slash + 1;
	}
	r = ss_open_reg(cur >= 0 ? cur : dfd, p, O_NOFOLLOW, sb);
fail:
	if (cur >= 0)
		close(cur);   /* the last directory, opened in the loop */
	return r;
}

static void key_error(const char *key, int r, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", key, r == -ELOOP ? "a symbolic link (not followed)" : segscan_strerror(r));
}

/* A key's file opened within the request rate (--rate), its error said in err. */
static int open_paced(struct ss_store *st, const char *key, struct stat *sb, char *err, size_t errlen)
{
	int r;
	if ((r = ss_store_pace(st)))
		return r;
	int fd = open_key(st, key, sb);
	if (fd < 0)
		key_error(key, fd, err, errlen);
	return fd;
}

static int file_get(struct ss_store *st, const char *key, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
	struct stat sb;
	int r;
	int fd = open_paced(st, key, &sb, err, errlen);   /* closed below */
	if (fd < 0)
		return fd;
	r = ss_read_fd(fd, (size_t)sb.st_size, max, out, len);
	close(fd);   /* opened by open_key */
	if (r)
		key_error(key, r, err, errlen);
	return r;
}

static int file_read(struct ss_store *st, const char *key, ss_store_data_fn fn, void *arg, char *err, size_t errlen)
{
	struct stat sb;
	int r;
	int fd = open_paced(st, key, &sb, err, errlen);   /* closed below */
	if (fd < 0)
		return fd;
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	if (!buf) {
		close(fd);   /* opened by open_key */
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			key_error(key, r, err, errlen);
			break;
		}
		if (n == 0 || (r = fn(arg, buf, (size_t)n)))
			break;
		if (ss_store_cancelled(st)) {
			r = -ECANCELED;
			break;
		}
	}
	free(buf);
	close(fd);   /* opened by open_key */
	return r;
}

const struct ss_store_ops ss_store_file_ops = {
	.open = file_open,
	.list = file_list,
	.get = file_get,
	.read = file_read,
	.close = file_close,
};
