/* Local input files: see local_files.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "common/log.h"
#include "eval/remote.h"
#include "fmt/config.h"
#include "fmt/ndjson.h"
#include "segscan.h"
#include "source/local_files.h"

int ss_source_read_input(const char *what, const char *path, size_t max, char **buf, size_t *len, char *err,
			 size_t errlen)
{
	struct stat st;
	int r, fd = 0;   /* "-": stdin, not ours to close */

	if (strcmp(path, "-") == 0) {
		r = ss_read_fd(0, 0, max, buf, len);
		goto done;
	}
	/* Opened O_NONBLOCK (ss_open_ro) and checked with fstat on the descriptor before a
	 * byte is read, as every input is: a directory or a block device is refused, and the
	 * open itself never waits. A pipe, FIFO, socket or terminal is read to its end because
	 * the user named it (the shell's <(...) gives /dev/fd/N): ss_read_stream waits for its
	 * writer, as a read of stdin does. Nothing found on disk comes through here (the running
	 * broker's config is read by source/broker_process.c). */
	fd = ss_open_ro(AT_FDCWD, path, 0);   /* closed below */
	if (fd < 0) {
		snprintf(err, errlen, "%s %s: cannot open: %s", what, path, segscan_strerror(fd));
		return fd;
	}
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISREG(st.st_mode))
		r = ss_read_fd(fd, st.st_size > 0 ? (size_t)st.st_size : 0, max, buf, len);
	else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode))
		r = ss_read_stream(fd, max, buf, len);
	else
		r = S_ISDIR(st.st_mode) ? -EISDIR : SEGSCAN_ENOTREG;
	close(fd);
done:
	if (r < 0)
		snprintf(err, errlen, "%s %s: cannot read: %s", what, path, segscan_strerror(r));
	return r;
}

typedef int (*config_parser)(struct ss_config *c, const char *buf, size_t len, const char *fname, char *err,
			     size_t errlen);

static int config_file(struct ss_config *c, const char *what, const char *path, config_parser parse, char *err,
		       size_t errlen)
{
	char *buf;
	size_t len;
	int r = ss_source_read_input(what, path, SS_SOURCE_CONFIG_MAX, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	r = parse(c, buf, len, path, err, errlen);
	free(buf);
	return r;
}

int ss_source_topic_config(struct ss_config *c, const char *path, char *err, size_t errlen)
{
	return config_file(c, "--topic-config", path, ss_config_load_topics_buf, err, errlen);
}

int ss_source_server_properties(struct ss_config *c, const char *path, char *err, size_t errlen)
{
	return config_file(c, "--server-properties", path, ss_config_load_server_buf, err, errlen);
}

/* Counts the events into the store for progress: the parser is pure and says nothing
 * of where it is, but a file has one event a line, so its lines are the total. */
struct counted {
	struct ss_remote  *r;
	struct ss_logsink *log;
	uint64_t           done, total;
};

static int counted_apply(void *arg, const struct ss_remote_event *ev, char *msg, size_t msglen)
{
	struct counted *c = arg;
	/* every 256th: a million events need no million clock reads */
	if ((++c->done & 255) == 0)
		ss_progress(c->log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_ITEMS, "events",
			    c->done < c->total ? c->done : c->total, c->total);
	return ss_remote_apply_fn(c->r, ev, msg, msglen);
}

int ss_source_remote_state_log(struct ss_remote *r, const char *path, struct ss_logsink *log, char *err,
			       size_t errlen)
{
	char *buf;
	size_t len;
	int e = ss_source_read_input("--remote-state", path, SS_SOURCE_STATE_MAX, &buf, &len, err, errlen);
	if (e < 0)
		return e;
	if (!ss_progress_on(log)) {
		e = ss_ndjson_parse(buf, len, path, ss_remote_apply_fn, r, err, errlen);
	} else {
		struct counted c = { .r = r, .log = log };
		for (const char *p = buf, *end = buf + len; p < end; c.total++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			p = nl ? nl + 1 : end;
		}
		ss_progress(log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_ITEMS, "events", 0, c.total);
		e = ss_ndjson_parse(buf, len, path, counted_apply, &c, err, errlen);
		if (!e)   /* blank lines are no events: the count is the end */
			ss_progress_end(log, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_UNIT_ITEMS, "events", c.done, c.done);
	}
	free(buf);
	return e;
}

int ss_source_remote_state(struct ss_remote *r, const char *path, char *err, size_t errlen)
{
	return ss_source_remote_state_log(r, path, NULL, err, errlen);
}
