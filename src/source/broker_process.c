/* The running broker's server.properties, found through /proc: see broker_process.h. */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/esc.h"
#include "common/file.h"
#include "fmt/config.h"
#include "fmt/procfs.h"
#include "segscan.h"
#include "source/broker_process.h"

/* A scanned log dir as the trust checks need it. */
struct scanned {
	bool  ok;    /* it could be opened: an unreadable one is served by nobody we can check */
	dev_t dev;
	ino_t ino;
	uid_t uid;   /* its owner: the user the broker of this dir runs as (or root) */
};

struct find {
	const struct scanned *dirs;
	uint32_t              n;
	double                t_end;   /* SS_BROKER_FIND_SECONDS from the start */
	bool                 *allow;   /* per dir: this candidate may be its broker (n entries) */
};

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A broker-shaped process of the right owner that could not be verified: counted, the
 * first reason kept (without its pid or file: see broker_process.h). */
static int unverified(struct ss_broker_config *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int unverified(struct ss_broker_config *out, const char *fmt, ...)
{
	out->n_unverified++;
	if (out->unverified)
		return 0;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&out->unverified, fmt, ap);
	va_end(ap);
	if (r < 0) {
		out->unverified = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The path to show for the file: absolute as given, else the process's working directory
 * (its /proc/PID/cwd link) joined with it, else as given. */
static char *display_path(int pfd, const char *arg)
{
	char cwd[PATH_MAX], *p = NULL;
	if (arg[0] == '/')
		return strdup(arg);
	ssize_t l = readlinkat(pfd, "cwd", cwd, sizeof(cwd) - 1);
	if (l <= 0)
		return strdup(arg);
	cwd[l] = 0;
	return asprintf(&p, "%s/%s", cwd, arg) < 0 ? NULL : p;
}

/* Does log.dirs list a scanned dir this candidate may serve? 1 yes, 0 no, or -ETIME
 * when the candidate's time ran out, -E2BIG when the entries looked at ran out first. */
static int serves(const struct find *f, const struct ss_config *c, int pfd, int *cwdfd, double t_cand)
{
	uint32_t n = c->n_log_dirs < SS_BROKER_LOGDIRS_MAX ? c->n_log_dirs : SS_BROKER_LOGDIRS_MAX;
	for (uint32_t i = 0; i < n; i++) {
		const char *e = c->log_dirs[i];
		struct stat st;
		if ((i & 63) == 63 && ss_mono() > t_cand)
			return -ETIME;
		/* a relative entry is relative to the broker's working directory, as the JVM
		 * resolves it; opened once, through the process's own /proc directory */
		if (e[0] != '/' && *cwdfd < 0 && (*cwdfd = ss_open_ro(pfd, "cwd", O_DIRECTORY)) < 0)
			continue;
		/* stat, not open: nothing of the entry is read, it only names a directory */
		if (fstatat(e[0] == '/' ? AT_FDCWD : *cwdfd, e, &st, 0) != 0 || !S_ISDIR(st.st_mode))
			continue;
		for (uint32_t k = 0; k < f->n; k++)
			if (f->allow[k] && f->dirs[k].dev == st.st_dev && f->dirs[k].ino == st.st_ino)
				return 1;
	}
	return c->n_log_dirs > n ? -E2BIG : 0;
}

/* Which log dirs a process run by these uids (real, effective, saved, fs) may speak for:
 * those whose owner runs it, or root. f->allow set; false when none. */
static bool allow_users(const struct find *f, const uint32_t u[4])
{
	bool any = false;
	for (uint32_t k = 0; k < f->n; k++) {
		f->allow[k] = f->dirs[k].ok;
		for (int i = 0; i < 4 && f->allow[k]; i++)
			f->allow[k] = u[i] == 0 || u[i] == (uint32_t)f->dirs[k].uid;
		any |= f->allow[k];
	}
	return any;
}

/* Of those, the log dirs whose owner (or root) owns the config file. false when none. */
static bool allow_file_owner(const struct find *f, const struct stat *st)
{
	bool any = false;
	for (uint32_t k = 0; k < f->n; k++) {
		f->allow[k] = f->allow[k] && (st->st_uid == 0 || st->st_uid == f->dirs[k].uid);
		any |= f->allow[k];
	}
	return any;
}

/* A verified config whose log.dirs did not show it serves these: why, when it is a limit
 * (counted as unverified); 0 when it is a broker of other log dirs, which lends nothing. */
static int not_served(struct ss_broker_config *out, int e, const struct ss_config *c)
{
	if (e == -ETIME)
		return unverified(out, "its log.dirs could not be checked within %.0f s", SS_BROKER_CANDIDATE_SECONDS);
	if (e == -E2BIG)
		return unverified(out, "its log.dirs lists %u entries, more than the %u looked at", c->n_log_dirs,
				  SS_BROKER_LOGDIRS_MAX);
	return 0;
}

/* The config file's bytes, from its one descriptor, bounded. *stop when they cannot be
 * had (the size over the limit, a read error: counted by unverified(), whose result is
 * returned); -ENOMEM. */
static int read_config(int cfd, const struct stat *st, struct ss_broker_config *out, char **text, size_t *tlen,
		       bool *stop)
{
	*stop = true;
	if (st->st_size > (off_t)SS_BROKER_CONFIG_MAX)
		return unverified(out, "its config file has %lld bytes, more than the %zu read", (long long)st->st_size,
				  SS_BROKER_CONFIG_MAX);
	int e = ss_read_fd(cfd, (size_t)st->st_size, SS_BROKER_CONFIG_MAX, text, tlen);
	if (e < 0)
		return e == -ENOMEM ? e : unverified(out, "its config file cannot be read: %s", segscan_strerror(e));
	*stop = false;
	return 0;
}

/* One /proc entry. 1 when it is the verified broker (out filled), 0 when not, -ENOMEM. */
static int candidate(const struct find *f, int procfd, const char *name, struct ss_broker_config *out)
{
	int pfd, cwdfd = -1, cfd = -1, r = 0, e;
	char *status = NULL, *cmd = NULL, *file = NULL, *shown = NULL, *text = NULL, err[512];
	size_t len, clen, tlen;
	struct ss_config *c = NULL;
	struct stat st;
	uint32_t u[4];
	bool stop;
	double t_cand = ss_mono() + SS_BROKER_CANDIDATE_SECONDS;

	/* Everything below is read through this descriptor: if the process exits and its pid
	 * is reused, reads through it fail instead of reading the new process. */
	pfd = ss_open_ro(procfd, name, O_DIRECTORY);   /* closed at out */
	if (pfd < 0)
		return 0;   /* gone, or hidden by hidepid */
	if (ss_read_file(pfd, "status", SS_BROKER_STATUS_MAX, &status, &len) < 0 || !ss_procfs_uids(status, len, u))
		goto out;
	/* Who runs it first: a process of another user is never read any further, so eight
	 * of them with 40,000-entry log.dirs cost eight small reads. Not the /proc/PID
	 * owner: a non-dumpable process's /proc entries are root's whoever runs it. */
	if (!allow_users(f, u))
		goto out;
	if (ss_read_file(pfd, "cmdline", SS_BROKER_CMDLINE_MAX, &cmd, &clen) < 0)
		goto out;
	const char *arg = ss_procfs_kafka_config(cmd, clen);
	if (!arg)
		goto out;
	/* From here it is a broker-shaped process of a log dir's owner: what stops the check
	 * is counted as unverified (broker_process.h). */
	if (arg[0] != '/' && (cwdfd = ss_open_ro(pfd, "cwd", O_DIRECTORY)) < 0) {
		r = unverified(out, "its working directory cannot be read: %s", segscan_strerror(cwdfd));
		goto out;
	}
	/* the one open of the file: O_NONBLOCK (a FIFO cannot block it), fstat on this
	 * descriptor, a regular file only (ss_open_reg); it is read from this fd only */
	cfd = ss_open_reg(arg[0] == '/' ? AT_FDCWD : cwdfd, arg, 0, &st);   /* closed at out */
	if (cfd < 0) {
		r = cfd == SEGSCAN_ENOTREG
			    ? unverified(out, "its config file is %s", ss_file_type_name(st.st_mode))
			    : unverified(out, "its config file cannot be read: %s", segscan_strerror(cfd));
		goto out;
	}
	/* A file another user could have written is not the broker's word: said nothing of. */
	if (!allow_file_owner(f, &st) || (st.st_mode & S_IWOTH))
		goto out;
	if ((r = read_config(cfd, &st, out, &text, &tlen, &stop)) || stop)
		goto out;
	if (!(file = display_path(pfd, arg)) || !(shown = ss_esc_line(file)) || ss_config_new(&c)) {
		r = -ENOMEM;
		goto out;
	}
	if ((e = ss_config_load_server_buf(c, text, tlen, shown, err, sizeof(err)))) {
		r = e == -ENOMEM ? e : unverified(out, "its config file does not parse");
		goto out;
	}
	if ((e = serves(f, c, pfd, &cwdfd, t_cand)) == 1) {
		out->path = file;
		out->text = text;
		out->len = tlen;
		out->pid = atoi(name);
		file = text = NULL;
		r = 1;
	} else {
		r = not_served(out, e, c);
	}
out:
	ss_config_free(c);
	free(shown);
	free(file);
	free(text);
	free(cmd);
	free(status);
	if (cfd >= 0)
		close(cfd);
	if (cwdfd >= 0)
		close(cwdfd);
	close(pfd);
	return r;
}

int ss_broker_config_find(const char *proc_root, char *const *logdirs, uint32_t n_logdirs,
			  struct ss_broker_config *out)
{
	struct scanned *dirs = NULL;
	struct find f = { 0 };
	DIR *d = NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->pid = -1;
	if (!proc_root)
		proc_root = "/proc";
	if (!n_logdirs)
		return 0;
	if (!(dirs = calloc(n_logdirs, sizeof(*dirs))) || !(f.allow = calloc(n_logdirs, sizeof(*f.allow)))) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n_logdirs; i++) {
		struct stat st;
		int fd = ss_open_ro(AT_FDCWD, logdirs[i], O_DIRECTORY);   /* closed below */
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0)
			dirs[i] = (struct scanned){ .ok = true, .dev = st.st_dev, .ino = st.st_ino, .uid = st.st_uid };
		close(fd);
	}
	f.dirs = dirs;
	f.n = n_logdirs;
	f.t_end = ss_mono() + SS_BROKER_FIND_SECONDS;
	if (!(d = ss_opendir(AT_FDCWD, proc_root)))
		goto out;   /* no /proc (a container without it): nothing to find */
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_pid(e->d_name))
			continue;
		if (ss_mono() > f.t_end) {
			out->gave_up = true;
			break;
		}
		if ((r = candidate(&f, dirfd(d), e->d_name, out)) != 0)
			break;
	}
	if (r > 0)
		r = 0;
out:
	if (d)
		closedir(d);
	free(f.allow);
	free(dirs);
	if (r < 0)
		ss_broker_config_release(out);
	return r;
}

void ss_broker_config_release(struct ss_broker_config *b)
{
	free(b->path);
	free(b->text);
	free(b->unverified);
	b->path = b->text = b->unverified = NULL;
}
