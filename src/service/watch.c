/* Change detection for serve's rescans: see watch.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/darray.h"
#include "common/file.h"
#include "common/hidx.h"
#include "fmt/names.h"
#include "service/watch.h"

/* A partition directory: everything that changes a segment's facts or the set of files. */
#define DIR_MASK (IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		  IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
/* A log dir: partition directories appearing and going (files there, the checkpoints,
 * are read by every scan anyway). */
#define LOG_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | \
		  IN_ONLYDIR | IN_EXCL_UNLINK)

struct wlog {
	char    *path;
	int      wd;         /* -1: not watched (new, or its watch was lost) */
	bool     need_list;  /* list it at the next begin: new, or events may have been lost */
	int      arm_err;    /* the last inotify_add_watch error on it (not ENOENT), or 0 */
	uint64_t stamp;      /* epoch of its last self event (moved, deleted, unmounted) */
};

struct wdir {
	uint32_t ld;
	char    *name;
	int      wd;         /* -1: not watched */
	bool     refused;    /* the watch limit said no: retried by a full check only */
	uint64_t stamp;      /* epoch of its last event or of its arming */
};

struct ss_watch {
	int             fd;          /* inotify, IN_NONBLOCK: drained under mu only */
	int             stop_fd;     /* eventfd: ss_watch_free wakes the thread */
	pthread_t       th;
	bool            th_started;
	pthread_mutex_t mu;          /* everything below */
	struct wlog    *logs;
	uint32_t        n_logs, cap_logs;
	struct wdir    *dirs;
	uint32_t        n_dirs, cap_dirs;
	struct ss_hidx  ht;          /* (ld, name) -> position in dirs (common/hidx.h); never deleted */
	int64_t        *wd_to;       /* wd -> dirs index + 1, or -(logs index + 1); 0 none */
	uint32_t        wd_cap;
	uint64_t        cur;         /* the epoch of the scan begun last */
	uint64_t        prev;        /* that scan's previous scan */
	uint64_t        all_stamp;   /* epoch of the last overflow: everything changed */
	uint64_t        max, n_watches, n_refused, newly_refused, overflows, events;
	int             limit_err;
	char            limit_dir[PATH_MAX]; /* where limit_err was said */
	int             log_err;     /* a log dir's watch newly refused in this begin, or 0 */
	char            log_dir[PATH_MAX];
};

struct dir_key {
	uint32_t    ld;
	const char *name;
};

static uint32_t hash_key(uint32_t ld, const char *name)
{
	return ss_hash_mix(ss_hash_add(ss_hash_add(SS_HASH_INIT, &ld, sizeof(ld)), name, strlen(name)));
}

static bool dir_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct wdir *d = &((const struct wdir *)ctx)[pos];
	const struct dir_key *k = key;
	return d->ld == k->ld && strcmp(d->name, k->name) == 0;
}

/* The entry of (ld, name), created when `create`; NULL when absent or out of memory. */
static struct wdir *dir_get(struct ss_watch *w, uint32_t ld, const char *name, bool create)
{
	const struct dir_key k = { ld, name };
	uint32_t h = hash_key(ld, name);
	int64_t s = ss_hidx_find(&w->ht, h, dir_is, w->dirs, &k, NULL);
	if (s >= 0)
		return &w->dirs[ss_hidx_pos(&w->ht, s)];
	if (!create)
		return NULL;
	struct wdir *d;
	char *nm = strdup(name);
	if (!nm || SS_DA_PUSH(&w->dirs, &w->n_dirs, &w->cap_dirs, &d) < 0) {
		free(nm);
		return NULL;
	}
	*d = (struct wdir){ .ld = ld, .name = nm, .wd = -1 };
	if (ss_hidx_insert(&w->ht, h, w->n_dirs - 1, NULL)) {
		free(nm);   /* unknown to the index: not kept */
		w->n_dirs--;
		return NULL;
	}
	return d;
}

static int wd_set(struct ss_watch *w, int wd, int64_t code)
{
	if ((uint32_t)wd >= w->wd_cap) {
		uint32_t old = w->wd_cap;
		if (SS_DA_RESERVE(&w->wd_to, &w->wd_cap, (uint64_t)wd + 1))
			return -ENOMEM;
		/* wds the kernel has not handed out yet map to nothing */
		memset(w->wd_to + old, 0, (size_t)(w->wd_cap - old) * sizeof(*w->wd_to));
	}
	w->wd_to[wd] = code;
	return 0;
}

static int64_t wd_get(const struct ss_watch *w, int wd)
{
	return wd >= 0 && (size_t)wd < w->wd_cap ? w->wd_to[wd] : 0;
}

/* Only live partition directories matter: -delete, -future and -stray ones are notes. */
static bool live_partition_name(const char *name)
{
	struct ss_dirname dn;
	return ss_dirname_parse(name, &dn) == 0 && dn.kind == SS_DIR_LIVE;
}

static void dir_unwatch(struct ss_watch *w, struct wdir *d)
{
	if (d->wd < 0)
		return;
	/* the kernel answers with IN_IGNORED for this wd, which then maps to nothing */
	inotify_rm_watch(w->fd, d->wd);
	w->wd_to[d->wd] = 0;
	d->wd = -1;
	w->n_watches--;
}

/* Arm d's watch; its stamp becomes at least `stamp`. Pair: dir_unwatch, or the kernel's
 * IN_IGNORED when the directory goes. */
static void dir_arm(struct ss_watch *w, struct wdir *d, uint64_t stamp)
{
	char path[PATH_MAX];
	if (d->stamp < stamp)
		d->stamp = stamp;
	if (snprintf(path, sizeof(path), "%s/%s", w->logs[d->ld].path, d->name) >= (int)sizeof(path))
		return;
	int wd;
	if (w->max && w->n_watches >= w->max) {
		wd = -1;
		errno = ENOSPC; /* the test knob, as the kernel says it */
	} else {
		wd = inotify_add_watch(w->fd, path, DIR_MASK);
	}
	if (wd < 0) {
		if (errno == ENOSPC || errno == ENOMEM) {
			if (!d->refused) {
				d->refused = true;
				w->n_refused++;
				w->newly_refused++;
			}
			if (!w->limit_err) {
				w->limit_err = -errno;
				memcpy(w->limit_dir, path, sizeof(path));
			}
		}
		/* ENOENT, ENOTDIR: gone meanwhile; seen as such by the scan */
		return;
	}
	if (d->refused) {
		d->refused = false;
		w->n_refused--;
	}
	int64_t code = (int64_t)(d - w->dirs) + 1;
	if (d->wd == wd)
		return; /* the same inode again: same watch */
	if (d->wd >= 0)
		dir_unwatch(w, d); /* another directory took the name */
	if (wd_get(w, wd) > 0) {
		/* one inode under two names (a bind mount): the first name keeps it */
		return;
	}
	if (wd_set(w, wd, code)) {
		inotify_rm_watch(w->fd, wd);
		return;
	}
	d->wd = wd;
	w->n_watches++;
}

/* Every live partition directory of log dir ld gets a watch (refused ones only when
 * retry). */
static void log_list(struct ss_watch *w, uint32_t ld, uint64_t stamp, bool retry)
{
	DIR *dp = ss_opendir(AT_FDCWD, w->logs[ld].path);   /* O_DIRECTORY|O_NONBLOCK (common/file.h) */
	if (!dp)
		return;
	struct dirent *e;
	while ((e = readdir(dp))) {
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
			continue;
		if (!live_partition_name(e->d_name))
			continue;
		struct wdir *d = dir_get(w, ld, e->d_name, true);
		if (!d)
			break; /* out of memory: those left unwatched take the full path */
		if (d->wd < 0 && (!d->refused || retry))
			dir_arm(w, d, stamp);
	}
	closedir(dp);
}

static void log_arm(struct ss_watch *w, uint32_t ld)
{
	struct wlog *l = &w->logs[ld];
	int wd = inotify_add_watch(w->fd, l->path, LOG_MASK);
	if (wd < 0) {
		/* tried again at the next begin. Missing (ENOENT) is the scan's to report; any
		 * other refusal (EACCES, ENOSPC) is said once per new error, with the path */
		int e = errno == ENOENT ? 0 : -errno;
		if (e && e != l->arm_err) {
			if (w->log_err)
				return; /* one per begin: this one is said at the next */
			w->log_err = e;
			snprintf(w->log_dir, sizeof(w->log_dir), "%s", l->path);
		}
		l->arm_err = e;
		return;
	}
	l->arm_err = 0;
	if (wd_set(w, wd, -(int64_t)ld - 1)) {
		inotify_rm_watch(w->fd, wd);
		return;
	}
	l->wd = wd;
	l->need_list = true;
}

static void handle(struct ss_watch *w, const struct inotify_event *ev)
{
	w->events++;
	if (ev->mask & IN_Q_OVERFLOW) {
		/* events were lost: nothing is known unchanged, and directories may have
		 * appeared unseen */
		w->all_stamp = w->cur;
		w->overflows++;
		for (uint32_t k = 0; k < w->n_logs; k++)
			w->logs[k].need_list = true;
		return;
	}
	int64_t code = wd_get(w, ev->wd);
	if (code < 0) {
		struct wlog *l = &w->logs[-code - 1];
		uint32_t ld = (uint32_t)(-code - 1);
		if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED)) {
			l->stamp = w->cur;
			if (!(ev->mask & IN_IGNORED))
				inotify_rm_watch(w->fd, ev->wd);
			w->wd_to[ev->wd] = 0;
			l->wd = -1;
			/* its partition watches follow the old inodes, wherever they went: the
			 * names are armed again when the path is a log dir again */
			for (uint32_t i = 0; i < w->n_dirs; i++)
				if (w->dirs[i].ld == ld)
					dir_unwatch(w, &w->dirs[i]);
			return;
		}
		if (!(ev->mask & IN_ISDIR) || !ev->len || !live_partition_name(ev->name))
			return;
		struct wdir *d = dir_get(w, ld, ev->name, true);
		if (!d) {
			l->stamp = w->cur; /* out of memory: the whole log dir is unknown */
			return;
		}
		d->stamp = w->cur;
		if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
			dir_unwatch(w, d);
		if (ev->mask & (IN_CREATE | IN_MOVED_TO))
			dir_arm(w, d, w->cur);
		return;
	}
	if (code > 0) {
		struct wdir *d = &w->dirs[code - 1];
		d->stamp = w->cur;
		if (ev->mask & IN_IGNORED) {
			if (d->wd == ev->wd) {
				w->wd_to[ev->wd] = 0;
				d->wd = -1;
				w->n_watches--;
			}
		} else if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
			dir_unwatch(w, d); /* renamed away (-delete) or gone: the name is no longer it */
		}
	}
}

/* Read every queued event (the fd is non-blocking). Under mu. */
static void drain(struct ss_watch *w)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(w->fd, buf, sizeof(buf));
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return; /* EAGAIN: empty */
		}
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			handle(w, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
}

static void *watch_main(void *arg)
{
	struct ss_watch *w = arg;
	pthread_setname_np(pthread_self(), "segscan-watch");
	struct pollfd pf[2] = { { .fd = w->fd, .events = POLLIN }, { .fd = w->stop_fd, .events = POLLIN } };
	for (;;) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (pf[1].revents)
			return NULL;
		if (pf[0].revents) {
			pthread_mutex_lock(&w->mu);
			drain(w);
			pthread_mutex_unlock(&w->mu);
		}
	}
}

int ss_watch_new(struct ss_watch **out, uint64_t max_watches)
{
	struct ss_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->stop_fd = -1;
	w->max = max_watches;
	pthread_mutex_init(&w->mu, NULL);
	int r;
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0 ||
	    (w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		r = -errno;
		goto fail;
	}
	if ((r = -pthread_create(&w->th, NULL, watch_main, w)))
		goto fail;
	w->th_started = true;
	*out = w;
	return 0;
fail:
	ss_watch_free(w);
	return r;
}

void ss_watch_free(struct ss_watch *w)
{
	if (!w)
		return;
	if (w->th_started) {
		uint64_t one = 1;
		if (write(w->stop_fd, &one, sizeof(one)) == sizeof(one))
			pthread_join(w->th, NULL);
		else
			pthread_detach(w->th); /* cannot happen with an eventfd; never free under it */
	}
	if (w->fd >= 0)
		close(w->fd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	for (uint32_t i = 0; i < w->n_logs; i++)
		free(w->logs[i].path);
	for (uint32_t i = 0; i < w->n_dirs; i++)
		free(w->dirs[i].name);
	free(w->logs);
	free(w->dirs);
	ss_hidx_free(&w->ht);
	free(w->wd_to);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

/* Under mu. */
static int64_t log_find(struct ss_watch *w, const char *path, bool create)
{
	for (uint32_t k = 0; k < w->n_logs; k++)
		if (strcmp(w->logs[k].path, path) == 0)
			return k;
	if (!create)
		return -1;
	struct wlog *l;
	char *p = strdup(path);
	if (!p || SS_DA_PUSH(&w->logs, &w->n_logs, &w->cap_logs, &l) < 0) {
		free(p);
		return -ENOMEM;
	}
	*l = (struct wlog){ .path = p, .wd = -1, .need_list = true };
	return w->n_logs - 1;
}

int ss_watch_add_logdir(struct ss_watch *w, const char *path)
{
	pthread_mutex_lock(&w->mu);
	int64_t k = log_find(w, path, true);
	pthread_mutex_unlock(&w->mu);
	return k < 0 ? (int)k : 0;
}

int ss_watch_begin(struct ss_watch *w, uint64_t gen, uint64_t prev_gen, bool full, struct ss_watch_info *info)
{
	pthread_mutex_lock(&w->mu);
	drain(w);
	/* watches armed now precede the scan's reads: stamped with the epoch before it, so
	 * the next scan may trust them */
	uint64_t before = w->cur;
	w->newly_refused = 0;
	w->limit_err = 0;
	w->limit_dir[0] = 0;
	w->log_err = 0;
	w->log_dir[0] = 0;
	for (uint32_t k = 0; k < w->n_logs; k++) {
		struct wlog *l = &w->logs[k];
		if (l->wd < 0)
			log_arm(w, k);
		if (l->wd >= 0 && (l->need_list || full)) {
			log_list(w, k, before, full);
			l->need_list = false;
		}
	}
	w->cur = gen;
	w->prev = prev_gen;
	if (info) {
		*info = (struct ss_watch_info){ .watched = w->n_watches, .refused = w->n_refused,
						.newly_refused = w->newly_refused, .overflows = w->overflows,
						.events = w->events, .limit_err = w->limit_err, .log_err = w->log_err };
		memcpy(info->limit_dir, w->limit_dir, sizeof(info->limit_dir));
		memcpy(info->log_dir, w->log_dir, sizeof(info->log_dir));
	}
	w->overflows = 0;
	w->events = 0;
	pthread_mutex_unlock(&w->mu);
	return 0;
}

bool ss_watch_unchanged(void *arg, const char *log_dir, const char *dir)
{
	struct ss_watch *w = arg;
	bool r = false;
	pthread_mutex_lock(&w->mu);
	int64_t k = log_find(w, log_dir, true); /* a log dir named by the scan itself: from now on */
	if (k >= 0 && w->logs[k].wd >= 0 && w->logs[k].stamp < w->prev && w->all_stamp < w->prev) {
		const struct wdir *d = dir_get(w, (uint32_t)k, dir, false);
		r = d && d->wd >= 0 && d->stamp < w->prev;
	}
	pthread_mutex_unlock(&w->mu);
	return r;
}
