/*
 * `segscan serve`: the scan loop, signals, the textfile and shutdown.
 *
 * Threads:
 *   main  waits for signals (every thread blocks them; main takes them synchronously
 *         with sigwaitinfo, so no handler runs in async-signal context): SIGHUP asks for
 *         a rescan that re-reads the topic config and remote state files, SIGTERM and
 *         SIGINT stop the service, SIGUSR1 is the scan thread's "look at fatal_rc".
 *   scan  one scan at a time: generation, new scan reusing the published one, run,
 *         publish, textfile; then sleeps on a condition variable until the interval
 *         elapses or main asks for a reload or a stop.
 *   MHD   libmicrohttpd's internal thread answers from the published snapshot.
 *
 * Shutdown: a running scan cannot be interrupted (segscan_run has no cancel point), so
 * main drains and stops HTTP, waits for the scan thread until 0.7 s after the signal (so
 * the process is gone within a second even on a busy host), and if the scan is still
 * running exits without it: the scanner only reads, and the textfile is replaced by
 * rename, so abandoning a scan leaves nothing half-written behind (at most a stale
 * PATH.tmp, truncated by the next run).
 */
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "fmt/config.h"
#include "scan/embed.h"
#include "service/cluster_tail.h"
#include "service/log.h"
#include "service/notify.h"
#include "service/serve.h"
#include "service/webconfig.h"
#include "source/local_files.h"
#include "service/watch.h"

static struct timespec ts_of(double t)
{
	struct timespec ts;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* ---- textfile ------------------------------------------------------------------------ */

/* An absolute, normalised path: realpath when it exists, else the lexical absolute form
 * (a log dir that is missing now may appear later; it must still be kept clear). */
static char *abs_path(const char *p)
{
	char *r = realpath(p, NULL);
	if (r)
		return r;
	if (p[0] == '/')
		return strdup(p);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (asprintf(&r, "%s/%s", cwd, p) < 0)
		return NULL;
	return r;
}


/* errors=N alone says nothing an operator can act on: one line per place that could
 * not be read (the first 20 of a scan, then a count), with its file and reason. */
static void log_errors(const segscan_scan *s, uint64_t gen)
{
	size_t logged = 0, total = 0;
	for (size_t i = 0; i < segscan_partition_count(s); i++) {
		const segscan_partition *p = segscan_partition_at(s, i);
		size_t n = segscan_partition_error_count(s, p);
		for (size_t k = 0; k < n; k++, total++) {
			char file[1024] = "", msg[512] = "";
			if (logged >= 20)
				continue;
			/* -ERANGE still fills what fits: log that */
			if (segscan_partition_error(s, p, k, file, sizeof(file), msg, sizeof(msg)) < 0 && !file[0])
				continue;
			struct ss_logline l;
			ss_log_begin(&l, "warn", "could not read");
			ss_log_fmt(&l, "generation", "%" PRIu64, gen);
			ss_log_str(&l, "file", file);
			ss_log_str(&l, "reason", msg);
			ss_log_end(&l);
			logged++;
		}
	}
	if (total > logged) {
		struct ss_logline l;
		ss_log_begin(&l, "warn", "more places could not be read");
		ss_log_fmt(&l, "generation", "%" PRIu64, gen);
		ss_log_fmt(&l, "not_logged", "%zu", total - logged);
		ss_log_end(&l);
	}
}

/* A log dir that is gone (a JBOD disk that dropped out, a typo in log.dirs) is named in
 * an error line of its own on every scan that cannot read it (issue 20 item 5: the scan
 * line said exit_code=3 and nothing else). Returns how many. */
static unsigned log_logdirs_down(const segscan_scan *s, uint64_t gen)
{
	unsigned down = 0;
	for (size_t i = 0; i < segscan_logdir_count(s); i++) {
		struct segscan_logdir d = { .size = sizeof(d) };
		if (segscan_logdir(s, i, &d) || !d.error)
			continue;
		struct ss_logline l;
		ss_log_begin(&l, "error", "log dir could not be read");
		ss_log_fmt(&l, "generation", "%" PRIu64, gen);
		ss_log_str(&l, "log_dir", d.path);
		ss_log_str(&l, "err", segscan_strerror(d.error));
		ss_log_end(&l);
		down++;
	}
	return down;
}

static bool path_within(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(p, dir, n))
		return false;
	return p[n] == 0 || p[n] == '/' || (n == 1 && dir[0] == '/');
}

static int check_one(const char *cand, const char *cand_tmp, const char *logdir, char *err, size_t errlen)
{
	char *ld = abs_path(logdir);
	if (!ld) {
		snprintf(err, errlen, "%s: %s", logdir, strerror(errno ? errno : ENOMEM));
		return -(errno ? errno : ENOMEM);
	}
	int r = 0;
	if (path_within(cand, ld) || path_within(cand_tmp, ld)) {
		snprintf(err, errlen, "--textfile=%s is inside the log dir %s: segscan never writes inside a log dir",
			 cand, ld);
		r = -EINVAL;
	}
	free(ld);
	return r;
}

/* The log dirs of a server.properties, as the scan reads them (log.dirs, else log.dir:
 * the same parser, fmt/config.h, through the same source). */
static int check_properties(const struct ss_serve_props *props, const char *cand, const char *cand_tmp, char *err,
			    size_t errlen)
{
	struct ss_config *c;
	int r = ss_config_new(&c);   /* freed below */
	if (r)
		return r;
	r = ss_config_load_server_buf(c, props->text, props->len, props->name, err, errlen);
	for (uint32_t i = 0; !r && i < c->n_log_dirs; i++)
		r = check_one(cand, cand_tmp, c->log_dirs[i], err, errlen);
	ss_config_free(c);
	return r;
}

int ss_textfile_check(const char *textfile, char *const *logdirs, size_t n_logdirs,
		      const struct ss_serve_props *server_properties, char *err, size_t errlen)
{
	char *d = strdup(textfile), *b = strdup(textfile), *rd = NULL, *cand = NULL, *cand_tmp = NULL;
	int r = 0;
	struct stat st;
	if (!d || !b) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	const char *base = basename(b);
	size_t tl = strlen(textfile);
	if (!tl || textfile[tl - 1] == '/' || !strcmp(base, ".") || !strcmp(base, "..")) {
		r = -EINVAL;
		snprintf(err, errlen, "--textfile=%s: expected a file path", textfile);
		goto out;
	}
	const char *dir = dirname(d);
	if (!(rd = realpath(dir, NULL)) || stat(rd, &st) || !S_ISDIR(st.st_mode)) {
		r = rd ? -ENOTDIR : -errno;
		snprintf(err, errlen, "--textfile=%s: directory %s: %s", textfile, dir, strerror(-r));
		goto out;
	}
	if (asprintf(&cand, "%s/%s", strcmp(rd, "/") ? rd : "", base) < 0 ||
	    asprintf(&cand_tmp, "%s.tmp", cand) < 0) {
		cand = cand_tmp = NULL;
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n_logdirs && !r; i++)
		r = check_one(cand, cand_tmp, logdirs[i], err, errlen);
	if (!r && server_properties)
		r = check_properties(server_properties, cand, cand_tmp, err, errlen);
out:
	free(d);
	free(b);
	free(rd);
	free(cand);
	free(cand_tmp);
	return r;
}

int ss_textfile_write(const char *path, const char *buf, size_t len)
{
	char *tmp = NULL, *dcopy = NULL;
	int fd = -1, dfd = -1, r = 0;
	bool keep_tmp = false; /* PATH.tmp is not ours (a FIFO, a directory, ...) */
	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return -ENOMEM;
	/* O_NOFOLLOW: a symlink planted at PATH.tmp must not redirect our write.
	 * O_NONBLOCK: a FIFO planted there must not block the scan loop (its open would
	 * wait for a reader); it and anything else that is not a regular file is refused,
	 * and left where it is: not ours to delete. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (fd < 0) {
		r = errno == ENXIO ? SEGSCAN_ENOTREG : -errno; /* ENXIO: a FIFO without a reader */
		keep_tmp = true;
		goto out;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		r = SEGSCAN_ENOTREG;
		keep_tmp = true;
		goto out;
	}
	/* node_exporter usually runs as another user: readable whatever our umask */
	if (fchmod(fd, 0644)) {
		r = -errno;
		goto out;
	}
	for (const char *p = buf; len;) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		p += w;
		len -= (size_t)w;
	}
	if (fsync(fd)) {
		r = -errno;
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		r = -errno;
		goto out;
	}
	fd = -1;
	if (rename(tmp, path)) {
		r = -errno;
		goto out;
	}
	/* the rename itself is durable only once the directory is synced */
	if (!(dcopy = strdup(path))) {
		r = -ENOMEM;
		goto out;
	}
	dfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd))
		r = -errno;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (r && tmp && !keep_tmp)
		unlink(tmp);
	free(tmp);
	free(dcopy);
	return r;
}

/* ---- the scan loop ------------------------------------------------------------------- */

struct svc {
	const struct ss_serve_opts *o;
	const struct ss_serve_props *props; /* --server-properties as read at the start; NULL */
	struct ss_pub  *pub;
	pthread_t       main_tid;
	pthread_mutex_t mu;
	pthread_cond_t  cv;          /* CLOCK_MONOTONIC */
	bool            stop;        /* mu: main asks the scan thread to finish */
	bool            reload;      /* mu: main asks for a rescan now (SIGHUP) */
	int             fatal_rc;    /* mu: nonzero = the scan thread asks main to exit with it */
	bool            first_done;  /* scan thread only */
	/* change detection (service/watch.h), scan thread only */
	struct ss_watch *watch;      /* NULL: every scan takes the full path */
	bool            watch_tried;
	double          last_full;   /* CLOCK_MONOTONIC of the last full check */
};

static int build_scan(const struct ss_serve_opts *o, const struct ss_serve_props *props, segscan_scan **out)
{
	segscan_scan *s = NULL;
	int r = segscan_scan_new(&s);
	if (r)
		return r;
	/* progress lines would break the logfmt stream; the library's warnings are logfmt
	 * lines of serve's own log (service/log.h) */
	if ((r = segscan_set(s, "quiet", "true")) ||
	    (r = segscan_set_log(s, ss_log_scan_event, NULL, SEGSCAN_LOG_WARNING)))
		goto fail;
	for (size_t i = 0; i < o->n_scan_opts; i++) {
		if (props && !strcmp(o->scan_opts[i].name, "server-properties"))
			continue;   /* the bytes read at the start, below */
		if ((r = segscan_set(s, o->scan_opts[i].name, o->scan_opts[i].value))) {
			struct ss_logline l;
			ss_log_begin(&l, "error", "scan option rejected");
			ss_log_str(&l, "option", o->scan_opts[i].name);
			ss_log_str(&l, "value", o->scan_opts[i].value);
			ss_log_str(&l, "err", segscan_last_error(s));
			ss_log_end(&l);
			goto fail;
		}
	}
	for (size_t i = 0; i < o->n_logdirs; i++)
		if ((r = segscan_add_logdir(s, o->logdirs[i])))
			goto fail;
	if (props && (r = ss_scan_use_server_properties(s, props->name, props->text, props->len)))
		goto fail;
	/* the live tail, when one runs, serves this scan's remote state */
	if ((r = ss_scan_use_cluster_tail(s, ss_serve_cluster_tail())))
		goto fail;
	*out = s;
	return 0;
fail:
	segscan_scan_free(s);
	return r;
}

static void log_stats(const segscan_scan *s, uint64_t gen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return;
	int r = segscan_write_stats(s, f);
	if (fclose(f) || r) {
		free(buf);
		return;
	}
	while (len && buf[len - 1] == '\n')
		buf[--len] = 0;
	struct ss_logline l;
	ss_log_begin(&l, "info", "scan stats");
	ss_log_fmt(&l, "generation", "%" PRIu64, gen);
	ss_log_str(&l, "stats", buf);
	ss_log_end(&l);
	free(buf);
}

/* The published exposition to --textfile; a failure (a full disk, a file-size limit, a
 * FIFO in the way) is logged with the path and left for the next publication. */
static int write_textfile(struct svc *v)
{
	struct ss_snapshot *snap = ss_pub_acquire(v->pub);
	if (!snap)
		return -ENODATA;
	int r = ss_textfile_write(v->o->textfile, snap->metrics, snap->metrics_len);
	if (r) {
		struct ss_logline l;
		ss_log_begin(&l, "error", "textfile not written");
		ss_log_str(&l, "path", v->o->textfile);
		ss_log_str(&l, "err", segscan_strerror(r));
		if (r == SEGSCAN_ENOTREG) {
			/* the temporary file is the one in the way: name it */
			char tmp[4096];
			snprintf(tmp, sizeof(tmp), "%s.tmp", v->o->textfile);
			ss_log_str(&l, "file", tmp);
		}
		ss_log_end(&l);
	}
	ss_snapshot_release(snap);
	return r;
}

/* Change detection before a scan: arms what is not yet watched and opens the scan's
 * epoch. Returns true when this scan is a full check (every partition listed, closed
 * segments statted): the first scan, a reload, every --full-rescan-interval, or always
 * when change detection is off or unavailable. */
static bool watch_prepare(struct svc *v, uint64_t gen, const struct ss_snapshot *prev, const char *reason)
{
	const struct ss_serve_opts *o = v->o;
	struct ss_logline l;
	if (o->once || o->full_check_s <= 0)
		return true;
	if (!v->watch_tried) {
		v->watch_tried = true;
		const char *mx = getenv("SEGSCAN_WATCH_MAX"); /* tests: a watch limit of their own */
		int r = ss_watch_new(&v->watch, mx ? strtoull(mx, NULL, 10) : 0);
		for (size_t i = 0; !r && i < o->n_logdirs; i++)
			r = ss_watch_add_logdir(v->watch, o->logdirs[i]);
		if (r) {
			ss_watch_free(v->watch);
			v->watch = NULL;
			ss_log_begin(&l, "warn", "change detection unavailable: every rescan lists every partition");
			ss_log_str(&l, "err", segscan_strerror(r));
			ss_log_str(&l, "hint", r == -EMFILE ? "raise fs.inotify.max_user_instances" : "");
			ss_log_end(&l);
		}
	}
	if (!v->watch)
		return true;
	double now = ss_mono();
	bool full = !prev || strcmp(reason, "reload") == 0 || now - v->last_full >= o->full_check_s;
	struct ss_watch_info wi;
	ss_watch_begin(v->watch, gen, prev ? prev->generation : 0, full, &wi);
	if (full)
		v->last_full = now;
	if (wi.newly_refused) {
		ss_log_begin(&l, "warn", "inotify watch limit reached: the unwatched partitions are listed by every rescan");
		ss_log_fmt(&l, "generation", "%" PRIu64, gen);
		ss_log_fmt(&l, "watched", "%" PRIu64, wi.watched);
		ss_log_fmt(&l, "unwatched", "%" PRIu64, wi.refused);
		ss_log_str(&l, "dir", wi.limit_dir);
		ss_log_str(&l, "err", segscan_strerror(wi.limit_err ? wi.limit_err : -ENOSPC));
		ss_log_str(&l, "hint", "raise fs.inotify.max_user_watches (sysctl; docs/serve.md)");
		ss_log_end(&l);
	}
	if (wi.log_err) {
		ss_log_begin(&l, "warn", "inotify cannot watch a log dir: its partitions are listed by every rescan");
		ss_log_fmt(&l, "generation", "%" PRIu64, gen);
		ss_log_str(&l, "dir", wi.log_dir);
		ss_log_str(&l, "err", segscan_strerror(wi.log_err));
		ss_log_end(&l);
	}
	if (wi.overflows) {
		ss_log_begin(&l, "warn", "inotify queue overflowed: this rescan lists every partition");
		ss_log_fmt(&l, "generation", "%" PRIu64, gen);
		ss_log_fmt(&l, "overflows", "%" PRIu64, wi.overflows);
		ss_log_str(&l, "hint", "raise fs.inotify.max_queued_events");
		ss_log_end(&l);
	}
	return full;
}

static double cpu_seconds(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

/* Log dirs from --server-properties: watched from the next scan on. */
static void watch_found_logdirs(struct svc *v, segscan_scan *s, size_t parts)
{
	const char *last = NULL;
	for (size_t i = 0; i < parts; i++) {
		const char *ld = segscan_partition_log_dir(segscan_partition_at(s, i));
		if (ld && (!last || strcmp(ld, last)))
			ss_watch_add_logdir(v->watch, last = ld);
	}
}

/* What the "scan complete" (or "scan not published") line says of one scan. */
struct scan_done {
	uint64_t gen;
	size_t   parts;
	uint64_t parts_reused;
	bool     full;
	double   cpu0;
	int      exit_code;
	unsigned down;
};

/* A scan that could not read a log dir is a failed scan, published for what it read;
 * r: ss_pub_publish's answer. */
static void log_scan_done(const struct scan_done *d, const struct segscan_scan_stats *st, int r)
{
	struct ss_logline l;
	ss_log_begin(&l, d->down ? "error" : r ? "warn" : "info", r ? "scan not published" : "scan complete");
	ss_log_fmt(&l, "generation", "%" PRIu64, d->gen);
	ss_log_fmt(&l, "partitions", "%zu", d->parts);
	ss_log_fmt(&l, "segments", "%" PRIu64, st->segments);
	ss_log_fmt(&l, "reused", "%" PRIu64, st->segments_reused);
	ss_log_fmt(&l, "partitions_reused", "%" PRIu64, d->parts_reused);
	ss_log_str(&l, "check", d->full ? "full" : "changes");
	ss_log_fmt(&l, "bytes_read", "%" PRIu64, st->bytes_read);
	ss_log_fmt(&l, "errors", "%" PRIu64, st->errors);
	ss_log_fmt(&l, "duration_s", "%.3f", st->seconds);
	ss_log_fmt(&l, "cpu_s", "%.3f", cpu_seconds() - d->cpu0);
	ss_log_fmt(&l, "exit_code", "%d", d->exit_code);
	if (d->down)
		ss_log_fmt(&l, "log_dirs_down", "%u", d->down);
	if (r)
		ss_log_str(&l, "err", r == -ESTALE ? "a newer scan was already published" : segscan_strerror(r));
	ss_log_end(&l);
}

/* One scan: returns 0 when it was published, 1 when it ran but was not published, or
 * a negative error when it failed; *exit_code gets the CLI exit code it deserves. */
static int run_one(struct svc *v, const char *reason, int *exit_code)
{
	struct ss_logline l;
	segscan_scan *s = NULL;
	struct ss_snapshot *prev = NULL;
	struct segscan_scan_stats st;
	uint64_t gen = ss_pub_begin_scan(v->pub);
	double cpu0 = cpu_seconds();
	bool full = true;
	int r;

	ss_log_begin(&l, "info", "scan started");
	ss_log_fmt(&l, "generation", "%" PRIu64, gen);
	ss_log_str(&l, "reason", reason);
	ss_log_end(&l);

	*exit_code = 2;
	if ((r = build_scan(v->o, v->props, &s)))
		goto failed;
	/* unchanged closed segments of the published scan cost one statx instead of a read;
	 * our reference keeps that scan alive until segscan_run has returned */
	prev = ss_pub_acquire(v->pub);
	/* with no prev too: this scan then keeps the identities the next one compares */
	if ((r = segscan_reuse(s, prev ? prev->scan : NULL)))
		goto failed;
	/* partitions with no inotify event since prev began are taken whole from it: no
	 * listing, no statx (watches are armed before the scan reads) */
	full = watch_prepare(v, gen, prev, reason);
	if (prev && !full && (r = segscan_reuse_unchanged(s, ss_watch_unchanged, v->watch)))
		goto failed;
	r = segscan_run(s);
	ss_snapshot_release(prev);
	prev = NULL;
	if (r) {
		*exit_code = segscan_exit_code(s);
		if (*exit_code == 0)
			*exit_code = 1;
		goto failed;
	}
	*exit_code = segscan_exit_code(s);
	segscan_get_stats(s, &st);
	if (v->o->stats)
		log_stats(s, gen);
	size_t parts = segscan_partition_count(s);
	uint64_t parts_reused = segscan_partitions_reused(s);
	unsigned down = log_logdirs_down(s, gen);
	if (st.errors)
		log_errors(s, gen);
	if (v->watch && v->o->n_logdirs == 0)
		watch_found_logdirs(v, s, parts);

	r = ss_pub_publish(v->pub, s, gen); /* owns s from here */
	s = NULL;
	struct scan_done d = { gen, parts, parts_reused, full, cpu0, *exit_code, down };
	log_scan_done(&d, &st, r);
	if (r == 0) {
		/* `systemctl status segscan` shows the last publication (Type=notify) */
		char status[160];
		snprintf(status, sizeof(status), "STATUS=generation %" PRIu64 ": %zu partitions, %" PRIu64
			 " segments, %" PRIu64 " errors in %.1f s", gen, parts, st.segments, st.errors, st.seconds);
		ss_notify(status);
	}
	if (v->o->textfile && r == 0 && !v->o->once)
		write_textfile(v); /* --once: serve_once writes it and says so on stderr */
	if (r && r != -ESTALE)
		return r;
	return r ? 1 : 0;

failed:
	ss_log_begin(&l, "error", "scan failed");
	ss_log_fmt(&l, "generation", "%" PRIu64, gen);
	ss_log_str(&l, "err", s && segscan_last_error(s) ? segscan_last_error(s) : segscan_strerror(r));
	ss_log_fmt(&l, "exit_code", "%d", *exit_code);
	ss_log_end(&l);
	ss_snapshot_release(prev);
	segscan_scan_free(s);
	ss_pub_note_failure(v->pub);
	return r < 0 ? r : -EIO;
}

static void *scan_main(void *arg)
{
	struct svc *v = arg;
	const char *reason = "startup";
	for (;;) {
		double start = ss_mono();
		int ec = 0;
		int r = run_one(v, reason, &ec);
		double end = ss_mono();
		if (r < 0 && !v->first_done && ec == 2) {
			/* a usage problem (bad config file, bad option value) on the very first scan
			 * is an operator error at startup: fail loudly instead of serving nothing */
			pthread_mutex_lock(&v->mu);
			v->fatal_rc = 2;
			pthread_mutex_unlock(&v->mu);
			pthread_kill(v->main_tid, SIGUSR1);
			return NULL;
		}
		v->first_done = true;

		double deadline = start + v->o->interval_s;
		if (end > deadline) {
			/* a scan that outlasts the interval: give the broker a full interval of
			 * rest rather than scanning back to back */
			deadline = end + v->o->interval_s;
			struct ss_logline l;
			ss_log_begin(&l, "warn", "scan took longer than the interval");
			ss_log_fmt(&l, "duration_s", "%.3f", end - start);
			ss_log_fmt(&l, "interval_s", "%.3f", v->o->interval_s);
			ss_log_end(&l);
		}
		struct timespec dl = ts_of(deadline);
		pthread_mutex_lock(&v->mu);
		while (!v->stop && !v->reload && ss_mono() < deadline) {
			int w = pthread_cond_timedwait(&v->cv, &v->mu, &dl);
			if (w == ETIMEDOUT)
				break;
		}
		bool stop = v->stop;
		reason = v->reload ? "reload" : "interval";
		v->reload = false;
		pthread_mutex_unlock(&v->mu);
		if (stop)
			return NULL;
	}
}

static int svc_init(struct svc *v, const struct ss_serve_opts *o)
{
	pthread_condattr_t ca;
	int r;
	memset(v, 0, sizeof(*v));
	v->o = o;
	v->main_tid = pthread_self();
	if ((r = pthread_condattr_init(&ca)))
		return -r;
	if ((r = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)) || (r = pthread_cond_init(&v->cv, &ca))) {
		pthread_condattr_destroy(&ca);
		return -r;
	}
	pthread_condattr_destroy(&ca);
	if ((r = pthread_mutex_init(&v->mu, NULL))) {
		pthread_cond_destroy(&v->cv);
		return -r;
	}
	if (!(r = ss_pub_new(&v->pub)))
		ss_pub_set_interval(v->pub, o->once ? 0 : o->interval_s);
	if (r) {
		pthread_mutex_destroy(&v->mu);
		pthread_cond_destroy(&v->cv);
		return r;
	}
	return 0;
}

static void svc_destroy(struct svc *v)
{
	ss_watch_free(v->watch); /* after the scan thread: nothing asks it any more */
	ss_pub_free(v->pub);
	pthread_mutex_destroy(&v->mu);
	pthread_cond_destroy(&v->cv);
}

static int serve_once(struct svc *v)
{
	int ec = 0;
	int r = run_one(v, "once", &ec);
	if (r < 0)
		return ec ? ec : 1;
	struct ss_snapshot *snap = ss_pub_acquire(v->pub);
	if (!snap)
		return 1;
	if (v->o->textfile) {
		if ((r = write_textfile(v))) {
			fprintf(stderr, "segscan: --textfile=%s: %s\n", v->o->textfile, segscan_strerror(r));
			ec = 1;
		}
	} else if (fwrite(snap->metrics, 1, snap->metrics_len, stdout) != snap->metrics_len || fflush(stdout)) {
		fprintf(stderr, "segscan: writing the metrics: %s\n", strerror(errno));
		ec = 1;
	}
	ss_snapshot_release(snap);
	return ec;
}

static bool listen_is_loopback(const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

#define SERVE_GO (-1) /* go on; anything else is the exit code */

/* What serve reads once, before anything starts: --server-properties (*props: its bytes, or
 * NULL), the --collector.textfile.directory check, --listen (sa, salen) and
 * --web.config.file (*webp). SERVE_GO, or the exit code (2) with the message printed. */
static int serve_inputs(const struct ss_serve_opts *o, const struct ss_serve_props **props,
			struct sockaddr_storage *sa, socklen_t *salen, struct ss_web_config **webp)
{
	char err[512];

	*props = NULL;
	/* --server-properties is read once, here: every rescan and the textfile check parse
	 * these bytes, so a FIFO or pipe the user named (empty after its first read) serves
	 * them all; a change to the file takes a restart (docs/serve.md) */
	static struct ss_serve_props props_buf;
	for (size_t i = 0; i < o->n_scan_opts; i++)
		if (!strcmp(o->scan_opts[i].name, "server-properties"))
			props_buf.name = o->scan_opts[i].value;   /* the last one wins, as segscan_set */
	if (props_buf.name) {
		if (ss_source_read_input("--server-properties", props_buf.name, SS_SOURCE_CONFIG_MAX, &props_buf.text,
					 &props_buf.len, err, sizeof(err)) < 0) {
			fprintf(stderr, "segscan: %s\n", err);
			return 2;
		}
		*props = &props_buf;   /* the process's lifetime, like the options */
	}
	if (o->textfile && ss_textfile_check(o->textfile, o->logdirs, o->n_logdirs, *props, err, sizeof(err))) {
		fprintf(stderr, "segscan: %s\n", err);
		return 2;
	}
	if (!o->once && ss_parse_listen(o->listen, sa, salen)) {
		fprintf(stderr, "segscan: --listen=%s: expected HOST:PORT or [IPV6]:PORT with a port from 1 to 65535\n",
			o->listen);
		return 2;
	}
	/* the process's lifetime: MHD reads the certificate and key for every handshake.
	 * --once loads it too, so the dry run reports a bad file (a hash, a key) as the
	 * listening serve would, exit 2, before it scans */
	static struct ss_web_config web;
	*webp = &web;
	if (o->web_config && ss_web_config_load(o->web_config, &web, err, sizeof(err))) {
		fprintf(stderr, "segscan: %s\n", err);
		return 2;
	}
	return SERVE_GO;
}

/* The "listening" line, and a warning when the metrics leave this host unprotected. */
static void log_listening(const struct ss_serve_opts *o, const struct sockaddr_storage *sa,
			  const struct ss_web_config *web)
{
	struct ss_logline l;
	ss_log_begin(&l, "info", "listening");
	ss_log_str(&l, "listen", o->listen);
	ss_log_fmt(&l, "interval_s", "%g", o->interval_s);
	ss_log_str(&l, "version", segscan_version());
	ss_log_str(&l, "tls", ss_web_tls(web) ? "true" : "false");
	ss_log_str(&l, "basic_auth", web->n_users ? "true" : "false");
	ss_log_end(&l);
	if (!listen_is_loopback(sa) && (!ss_web_tls(web) || !web->n_users)) {
		/* the metrics name every topic of the broker: beyond this host they deserve
		 * what Prometheus exporters offer */
		ss_log_begin(&l, "warn", "listening beyond loopback without TLS and basic auth");
		ss_log_str(&l, "listen", o->listen);
		ss_log_str(&l, "hint", "--web.config.file with tls_server_config and basic_auth_users "
			   "(the Prometheus exporter-toolkit format)");
		ss_log_end(&l);
	}
}

/* The signals, taken only here (blocked in every thread): SIGHUP asks the next scan to
 * re-read its files, SIGUSR1 from the scan thread reports a fatal error (its exit code),
 * SIGINT and SIGTERM stop; with WatchdogSec= the wait pings at half the interval. Returns
 * the exit code. */
static int signal_loop(struct svc *v, const sigset_t *set, uint64_t wd_us)
{
	struct timespec wd_ts = { .tv_sec = (time_t)(wd_us / 2000000), .tv_nsec = (long)(wd_us / 2 % 1000000) * 1000 };
	struct ss_logline l;
	int rc;

	for (;;) {
		siginfo_t si;
		int sig = wd_us ? sigtimedwait(set, &si, &wd_ts) : sigwaitinfo(set, &si);
		if (sig < 0) {
			if (wd_us && errno == EAGAIN)
				ss_notify("WATCHDOG=1");
			continue; /* or EINTR from a signal outside the set (e.g. SIGCONT) */
		}
		if (sig == SIGHUP) {
			ss_log("info", "reload requested: the next scan re-reads the topic config and remote state files",
			       NULL);
			pthread_mutex_lock(&v->mu);
			v->reload = true;
			pthread_cond_signal(&v->cv);
			pthread_mutex_unlock(&v->mu);
			continue;
		}
		if (sig == SIGUSR1) {
			pthread_mutex_lock(&v->mu);
			rc = v->fatal_rc;
			pthread_mutex_unlock(&v->mu);
			if (!rc)
				continue; /* someone else's SIGUSR1: nothing to do */
			return rc;
		}
		ss_log_begin(&l, "info", "shutting down");
		ss_log_str(&l, "signal", sig == SIGTERM ? "SIGTERM" : "SIGINT");
		ss_log_end(&l);
		return 0;
	}
}

/* Stop: the scan thread told, the listener closed, the scan in flight waited for briefly
 * (else left: the process exits with rc here). */
static void serve_stop(struct svc *v, struct ss_http *http, pthread_t th, int rc)
{
	ss_notify("STOPPING=1");
	double t_stop = ss_mono();
	pthread_mutex_lock(&v->mu);
	v->stop = true;
	pthread_cond_signal(&v->cv);
	pthread_mutex_unlock(&v->mu);
	ss_http_stop(http);

	/* wait for an in-flight scan until 0.7 s after the signal, then leave it: exiting a
	 * process with its scan threads and mappings takes its own tens of milliseconds */
	struct timespec now_rt;
	clock_gettime(CLOCK_REALTIME, &now_rt);
	double left = t_stop + 0.7 - ss_mono();
	if (left < 0.05)
		left = 0.05;
	struct timespec dl = ts_of((double)now_rt.tv_sec + (double)now_rt.tv_nsec / 1e9 + left);
	if (pthread_timedjoin_np(th, NULL, &dl)) {
		ss_log("warn", "abandoning the scan in flight: it cannot be interrupted and only reads", NULL);
		fflush(stdout);
		_exit(rc);
	}
}

int ss_serve_main(const struct ss_serve_opts *o)
{
	struct svc v;
	struct sockaddr_storage sa;
	socklen_t salen = 0;
	struct ss_http *http = NULL;
	sigset_t set;
	pthread_t th;
	char err[512];
	int r, rc;

	const struct ss_serve_props *props;
	struct ss_web_config *web;
	if ((rc = serve_inputs(o, &props, &sa, &salen, &web)) != SERVE_GO)
		return rc;
	rc = 0;
	if ((r = svc_init(&v, o))) {
		fprintf(stderr, "segscan: %s\n", segscan_strerror(r));
		return 1;
	}
	v.props = props;
	if (o->once) {
		rc = serve_once(&v);
		svc_destroy(&v);
		return rc;
	}

	/* Blocked before any thread exists, so every thread inherits the mask and only
	 * sigwaitinfo below ever takes these signals. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	if ((r = pthread_sigmask(SIG_BLOCK, &set, NULL))) {
		fprintf(stderr, "segscan: pthread_sigmask: %s\n", strerror(r));
		svc_destroy(&v);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN); /* a scraper hanging up must not kill us */

	if ((r = ss_http_start_web(&http, (struct sockaddr *)&sa, salen, v.pub, o->web_config ? web : NULL, err,
				     sizeof(err)))) {
		ss_log("error", "cannot listen", err);
		svc_destroy(&v);
		return 1;
	}
	log_listening(o, &sa, web);
	/* Type=notify: ready once the socket listens (/healthz says 503 until the first scan).
	 * With WatchdogSec= the signal loop below pings at half the interval; a scan that
	 * hangs is caught by the scan-age alert (contrib/prometheus), not by the watchdog,
	 * because a scan's length has no bound the unit could name. */
	uint64_t wd_us = ss_notify_watchdog_usec();
	ss_notify("READY=1\nSTATUS=listening; the first scan is running");

	/* the __remote_log_metadata consumer, before the first scan so it reads from it */
	if ((r = ss_serve_cluster_start(o, err, sizeof(err)))) {
		ss_log("error", "cannot consume __remote_log_metadata", err);
		ss_http_stop(http);
		svc_destroy(&v);
		return r == -EINVAL ? 2 : 1;
	}
	if ((r = pthread_create(&th, NULL, scan_main, &v))) {
		ss_log("error", "cannot start the scan thread", strerror(r));
		ss_serve_cluster_stop();
		ss_http_stop(http);
		svc_destroy(&v);
		return 1;
	}

	rc = signal_loop(&v, &set, wd_us);

	serve_stop(&v, http, th, rc);
	ss_serve_cluster_stop();   /* after the scan thread: no scan reads the tail any more */
	svc_destroy(&v);
	ss_log("info", "stopped", NULL);
	return rc;
}
