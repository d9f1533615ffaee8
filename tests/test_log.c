/*
 * The log callback (segscan.h, "Messages and progress") and the CLI's renderer of it
 * (cli/progress.h): the warnings that used to be written to stderr reach the callback,
 * nothing reaches stderr without one, progress is monotonic, ends at its total and comes
 * in phase order; on a terminal the CLI draws one line with a percentage and an ETA and
 * clears it at the end, off one (--progress) plain lines, --quiet none, and a warning is
 * never glued to a progress line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"
#include "common/clock.h"
#include "common/log.h"
#include "segscan.h"

/* ---- a recording callback ---------------------------------------------------------------- */

#define MAX_EV 4096

struct rec {
	int      n;
	struct { enum segscan_log_kind kind; enum segscan_log_level level; enum segscan_phase phase;
		 enum segscan_unit unit; uint64_t done, total; bool final; double t; char msg[512]; } ev[MAX_EV];
	int      overlap;    /* > 0: two calls ran at once (the library promises they never do) */
	int      inside;
};

static void on_event(void *user, const struct segscan_log_event *e)
{
	struct rec *r = user;
	if (__atomic_fetch_add(&r->inside, 1, __ATOMIC_SEQ_CST) != 0)
		__atomic_fetch_add(&r->overlap, 1, __ATOMIC_SEQ_CST);
	assert_true(e->size >= offsetof(struct segscan_log_event, reserved));
	if (r->n < MAX_EV) {
		__typeof__(r->ev[0]) *x = &r->ev[r->n++];
		x->kind = e->kind;
		x->level = e->level;
		x->phase = e->phase;
		x->unit = e->unit;
		x->done = e->done;
		x->total = e->total;
		x->final = e->final;
		x->t = ss_mono();
		snprintf(x->msg, sizeof(x->msg), "%s", e->message ? e->message : "");
	}
	usleep(200);   /* widen the window in which an unserialized second call would overlap */
	__atomic_fetch_sub(&r->inside, 1, __ATOMIC_SEQ_CST);
}

static bool find_msg(const struct rec *r, enum segscan_log_level level, const char *sub)
{
	for (int i = 0; i < r->n; i++)
		if (r->ev[i].kind == SEGSCAN_LOG_MESSAGE && r->ev[i].level == level && strstr(r->ev[i].msg, sub))
			return true;
	return false;
}

static int count_kind(const struct rec *r, enum segscan_log_kind k)
{
	int n = 0;
	for (int i = 0; i < r->n; i++)
		n += r->ev[i].kind == k;
	return n;
}

/* ---- fixtures --------------------------------------------------------------------------- */

static char *g_root, *g_logdir, *g_topic_config;

static int setup(void **state)
{
	(void)state;
	g_logdir = su_gen("log", 3, 4, 5, 64 * 1024, 0, false, &g_root);
	if (!g_logdir)
		return -1;
	/* a topic config line with a key segscan does not use: the warning of ss_scan_load_configs */
	if (asprintf(&g_topic_config, "%s/topics.txt", g_root) < 0)
		return -1;
	const char *line = "orders.v2 retention.ms=1000 max.message.bytes=100\n";
	if (tu_write_file(g_topic_config, line, strlen(line)))
		return -1;
	/* a local __remote_log_metadata partition: the remote-state phase has something to read */
	char dst[1024];
	size_t len = 0;
	char *data = tu_read_file("tests/vectors/rlmm/p0_00000000000000000000.log", &len);
	if (!data)
		return -1;
	snprintf(dst, sizeof(dst), "%s/__remote_log_metadata-0", g_logdir);
	mkdir(dst, 0755);
	snprintf(dst, sizeof(dst), "%s/__remote_log_metadata-0/00000000000000000000.log", g_logdir);
	int e = tu_write_file(dst, data, len);
	free(data);
	return e ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	char *out = NULL;
	if (g_root)
		tu_run(&out, "rm -rf '%s'", g_root);
	free(out);
	free(g_root);
	free(g_logdir);
	free(g_topic_config);
	return 0;
}

/* One scan of the fixture with options (NULL-terminated pairs) and a callback (fn may be
 * NULL: none set). Returns segscan_run's result. */
static int scan_with(segscan_log_fn fn, void *user, enum segscan_log_level lv, const char *const *kv)
{
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	for (; kv && kv[0]; kv += 2)
		assert_int_equal(segscan_set(s, kv[0], kv[1]), 0);
	if (fn)
		assert_int_equal(segscan_set_log(s, fn, user, lv), 0);
	assert_int_equal(segscan_add_logdir(s, g_logdir), 0);
	int r = segscan_run(s);
	/* the callback is fixed once the scan ran */
	assert_int_equal(segscan_set_log(s, fn, user, lv), -EALREADY); /* after the run: the wrong state */
	segscan_scan_free(s);
	return r;
}

/* ---- stderr capture ---------------------------------------------------------------------- */

static int g_saved_err = -1;
static char g_err_path[512];

static void capture_stderr(void)
{
	snprintf(g_err_path, sizeof(g_err_path), "%s/stderr.txt", g_root);
	int fd = open(g_err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	fflush(stderr);
	g_saved_err = dup(2);
	assert_true(g_saved_err >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static char *release_stderr(void)
{
	fflush(stderr);
	assert_int_equal(dup2(g_saved_err, 2), 2);
	close(g_saved_err);
	g_saved_err = -1;
	size_t len = 0;
	char *s = tu_read_file(g_err_path, &len);
	assert_non_null(s);
	return s;
}

/* ---- library ------------------------------------------------------------------------------- */

/* Without a callback the library writes nothing to stderr, even for the warnings it used
 * to print there (a topic config key it ignores, the io_uring fallback); with one, they
 * reach it instead, and still nothing reaches stderr. */
static void test_warnings_reach_the_callback_not_stderr(void **state)
{
	(void)state;
	const char *kv[] = { "topic-config", g_topic_config, "threads", "2", NULL };
	setenv("SEGSCAN_FORCE_URING_FAIL", "1", 1);
	capture_stderr();
	int r1 = scan_with(NULL, NULL, SEGSCAN_LOG_DEBUG, kv);
	struct rec *rec = calloc(1, sizeof(*rec));
	assert_non_null(rec);
	int r2 = scan_with(on_event, rec, SEGSCAN_LOG_WARNING, kv);
	char *err = release_stderr();
	unsetenv("SEGSCAN_FORCE_URING_FAIL");
	assert_int_equal(r1, 0);
	assert_int_equal(r2, 0);
	if (err[0])
		fprintf(stderr, "stderr:\n%s\n", err);
	assert_string_equal(err, "");
	free(err);
	/* the topic config warning, as the CLI printed it after "segscan: warning: " */
	assert_true(find_msg(rec, SEGSCAN_LOG_WARNING, "ignoring topic config max.message.bytes"));
	/* the io_uring fallback (once per process: the scan without a callback did not use it up) */
	assert_true(find_msg(rec, SEGSCAN_LOG_WARNING, "io_uring unavailable"));
	/* max_level WARNING: no progress, no info */
	assert_int_equal(count_kind(rec, SEGSCAN_LOG_PROGRESS), 0);
	for (int i = 0; i < rec->n; i++) {
		assert_true(rec->ev[i].level <= SEGSCAN_LOG_WARNING);
		assert_null(strchr(rec->ev[i].msg, '\n'));   /* one line each, no newline of its own */
		assert_null(strstr(rec->ev[i].msg, "segscan:"));
	}
	assert_int_equal(rec->overlap, 0);
	free(rec);
}

/* Progress: every phase that ran reports, phases start in order, done never decreases,
 * exactly one final event per phase and it is the phase's last, ending at its total;
 * the totals are the catalog's; the throttle keeps it to a few events a second. */
static void test_progress_events(void **state)
{
	(void)state;
	struct rec *rec = calloc(1, sizeof(*rec));
	assert_non_null(rec);
	/* slow enough (about 1.5 s) that the throttle has something to throttle */
	const char *kv[] = { "threads", "2", "max-read-rate", "256k", "io", "pread", NULL };
	double t0 = ss_mono();
	assert_int_equal(scan_with(on_event, rec, SEGSCAN_LOG_INFO, kv), 0);
	double took = ss_mono() - t0;
	assert_int_equal(rec->overlap, 0);

	int first[SEGSCAN_PHASE_EVALUATION + 1], finals[SEGSCAN_PHASE_EVALUATION + 1];
	int events[SEGSCAN_PHASE_EVALUATION + 1];
	uint64_t last[SEGSCAN_PHASE_EVALUATION + 1];
	for (int p = 0; p <= SEGSCAN_PHASE_EVALUATION; p++)
		first[p] = -1, finals[p] = 0, last[p] = 0, events[p] = 0;
	for (int i = 0; i < rec->n; i++) {
		const __typeof__(rec->ev[0]) *e = &rec->ev[i];
		if (e->kind != SEGSCAN_LOG_PROGRESS)
			continue;
		assert_true(e->phase >= SEGSCAN_PHASE_DISCOVERY && e->phase <= SEGSCAN_PHASE_EVALUATION);
		assert_int_equal(e->level, SEGSCAN_LOG_INFO);
		if (first[e->phase] < 0)
			first[e->phase] = i;
		assert_int_equal(finals[e->phase], 0);   /* nothing after the final event */
		assert_true(e->done >= last[e->phase]);  /* monotonic */
		if (e->total)
			assert_true(e->done <= e->total);
		last[e->phase] = e->done;
		events[e->phase]++;
		if (e->final) {
			finals[e->phase]++;
			assert_true(e->total > 0);
			assert_true(e->done == e->total);
		}
	}
	/* the fixture's phases: 12 partitions + 1 metadata partition, 60 segments + its one */
	int want[] = { SEGSCAN_PHASE_DISCOVERY, SEGSCAN_PHASE_REMOTE_STATE, SEGSCAN_PHASE_SCAN,
		       SEGSCAN_PHASE_EVALUATION };
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		assert_true(first[want[k]] >= 0);
		assert_int_equal(finals[want[k]], 1);
		if (k)
			assert_true(first[want[k - 1]] < first[want[k]]);   /* in order */
		/* about four a second plus the first and the final */
		assert_true(events[want[k]] <= 4.0 * took + 3);
	}
	assert_int_equal(first[SEGSCAN_PHASE_METADATA_LOG], -1);   /* there is none here */
	assert_int_equal(last[SEGSCAN_PHASE_DISCOVERY], 13);
	assert_int_equal(last[SEGSCAN_PHASE_SCAN], 61);
	assert_int_equal(last[SEGSCAN_PHASE_EVALUATION], 13);
	/* the remote state is counted in bytes of the metadata partition's file */
	struct stat st;
	char p[1024];
	snprintf(p, sizeof(p), "%s/__remote_log_metadata-0/00000000000000000000.log", g_logdir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(last[SEGSCAN_PHASE_REMOTE_STATE], (uint64_t)st.st_size);
	/* the scan took long enough that it reported along the way, not just at its ends */
	assert_true(took > 0.8);
	assert_true(events[SEGSCAN_PHASE_SCAN] >= 3);
	free(rec);
}

/* Sum of the sizes of the files in dir whose names end in suffix. */
static uint64_t sum_sizes(const char *dir, const char *suffix)
{
	char *out = NULL;
	/* find(1), not our own walker: an independent count */
	assert_int_equal(tu_run(&out, "find '%s' -maxdepth 1 -type f -name '*%s' -printf '%%s\\n'", dir, suffix), 0);
	uint64_t sum = 0;
	for (char *p = out; *p;) {
		char *end;
		sum += strtoull(p, &end, 10);
		p = *end ? end + 1 : end;
	}
	free(out);
	return sum;
}

/* A real broker's log dir (tests/fixtures/kafka/cluster-meta): all five phases, in order,
 * the metadata log counted in the bytes of its newest snapshot and the segments after it,
 * the remote state in those of the five __remote_log_metadata partitions. */
static void test_all_phases_on_a_broker_dir(void **state)
{
	(void)state;
	const char *ld = "tests/fixtures/kafka/cluster-meta/logdir";
	struct rec *rec = calloc(1, sizeof(*rec));
	assert_non_null(rec);
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set_log(s, on_event, rec, SEGSCAN_LOG_INFO), 0);
	assert_int_equal(segscan_add_logdir(s, ld), 0);
	assert_int_equal(segscan_run(s), 0);
	segscan_scan_free(s);

	int first[SEGSCAN_PHASE_EVALUATION + 1];
	uint64_t fin_done[SEGSCAN_PHASE_EVALUATION + 1], fin_total[SEGSCAN_PHASE_EVALUATION + 1];
	enum segscan_unit unit[SEGSCAN_PHASE_EVALUATION + 1];
	for (int p = 0; p <= SEGSCAN_PHASE_EVALUATION; p++)
		first[p] = -1, fin_done[p] = fin_total[p] = 0;
	for (int i = 0; i < rec->n; i++) {
		if (rec->ev[i].kind != SEGSCAN_LOG_PROGRESS)
			continue;
		enum segscan_phase ph = rec->ev[i].phase;
		if (first[ph] < 0)
			first[ph] = i;
		unit[ph] = rec->ev[i].unit;
		if (rec->ev[i].final) {
			fin_done[ph] = rec->ev[i].done;
			fin_total[ph] = rec->ev[i].total;
		}
	}
	for (int p = SEGSCAN_PHASE_DISCOVERY; p <= SEGSCAN_PHASE_EVALUATION; p++) {
		assert_true(first[p] >= 0);
		if (p > SEGSCAN_PHASE_DISCOVERY)
			assert_true(first[p - 1] < first[p]);
		assert_true(fin_total[p] > 0);
		assert_true(fin_done[p] == fin_total[p]);
	}
	assert_int_equal(unit[SEGSCAN_PHASE_METADATA_LOG], SEGSCAN_UNIT_BYTES);
	assert_int_equal(unit[SEGSCAN_PHASE_REMOTE_STATE], SEGSCAN_UNIT_BYTES);
	assert_int_equal(unit[SEGSCAN_PHASE_SCAN], SEGSCAN_UNIT_ITEMS);
	/* the newest snapshot ends at offset 108: it, and the segments from 103 on */
	char m[512];
	snprintf(m, sizeof(m), "%s/__cluster_metadata-0", ld);
	struct stat st;
	uint64_t want = 0;
	const char *files[] = { "00000000000000000108-0000000001.checkpoint", "00000000000000000103.log",
				"00000000000000000115.log" };
	for (size_t i = 0; i < 3; i++) {
		char f[768];
		snprintf(f, sizeof(f), "%s/%s", m, files[i]);
		assert_int_equal(stat(f, &st), 0);
		want += (uint64_t)st.st_size;
	}
	assert_int_equal(fin_total[SEGSCAN_PHASE_METADATA_LOG], want);
	want = 0;
	for (int i = 0; i < 5; i++) {
		snprintf(m, sizeof(m), "%s/__remote_log_metadata-%d", ld, i);
		want += sum_sizes(m, ".log");
	}
	assert_int_equal(fin_total[SEGSCAN_PHASE_REMOTE_STATE], want);
	free(rec);
}

/* A --remote-state file: the remote-state phase counts its events (read on a thread of
 * its own beside discovery), ending at the file's event count. */
static void test_remote_state_file(void **state)
{
	(void)state;
	char *root = NULL, *ld = su_gen("logrs", 2, 3, 4, 64 * 1024, 0, true, &root), *path = NULL, *out = NULL;
	assert_non_null(ld);
	assert_true(asprintf(&path, "%s/remote.ndjson", root) > 0);
	/* grep(1) counts the events (non-blank lines), independently of the library */
	assert_int_equal(tu_run(&out, "grep -c . '%s'", path), 0);
	uint64_t events = strtoull(out, NULL, 10);
	free(out);
	assert_true(events > 0);
	struct rec *rec = calloc(1, sizeof(*rec));
	assert_non_null(rec);
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set(s, "remote-state", path), 0);
	assert_int_equal(segscan_set_log(s, on_event, rec, SEGSCAN_LOG_INFO), 0);
	assert_int_equal(segscan_add_logdir(s, ld), 0);
	assert_int_equal(segscan_run(s), 0);
	segscan_scan_free(s);
	assert_int_equal(rec->overlap, 0);
	int finals = 0;
	uint64_t last = 0;
	for (int i = 0; i < rec->n; i++) {
		if (rec->ev[i].kind != SEGSCAN_LOG_PROGRESS || rec->ev[i].phase != SEGSCAN_PHASE_REMOTE_STATE)
			continue;
		assert_int_equal(rec->ev[i].unit, SEGSCAN_UNIT_ITEMS);
		assert_int_equal(finals, 0);
		assert_true(rec->ev[i].done >= last);
		last = rec->ev[i].done;
		if (rec->ev[i].final) {
			finals++;
			assert_int_equal(rec->ev[i].done, events);
			assert_int_equal(rec->ev[i].total, events);
		}
	}
	assert_int_equal(finals, 1);
	free(rec);
	tu_run(&out, "rm -rf '%s'", root);
	free(out);
	free(path);
	free(ld);
	free(root);
}

/* "quiet": no progress events; warnings still come. */
static void test_quiet(void **state)
{
	(void)state;
	struct rec *rec = calloc(1, sizeof(*rec));
	assert_non_null(rec);
	const char *kv[] = { "quiet", "true", "topic-config", g_topic_config, NULL };
	assert_int_equal(scan_with(on_event, rec, SEGSCAN_LOG_INFO, kv), 0);
	assert_int_equal(count_kind(rec, SEGSCAN_LOG_PROGRESS), 0);
	assert_true(find_msg(rec, SEGSCAN_LOG_WARNING, "ignoring topic config max.message.bytes"));
	free(rec);
}

static void test_set_log_args(void **state)
{
	(void)state;
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set_log(s, on_event, NULL, (enum segscan_log_level)99), -EINVAL);
	assert_int_equal(segscan_set_log(NULL, on_event, NULL, SEGSCAN_LOG_INFO), -EINVAL);
	assert_int_equal(segscan_set_log(s, NULL, NULL, SEGSCAN_LOG_INFO), 0);   /* none: the default */
	segscan_scan_free(s);
}

/* The sink itself, hammered from several threads as discovery's listers do: the callback
 * never runs twice at once, counts never go backwards, the throttle holds, the final
 * event is the last and a late report after it is dropped. */
struct hammer {
	struct ss_logsink *l;
	atomic_uint_fast64_t *next;
	uint64_t total;
};

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;
	for (;;) {
		uint64_t i = atomic_fetch_add(h->next, 1);
		if (i >= h->total)
			break;
		ss_progress(h->l, SEGSCAN_PHASE_DISCOVERY, SEGSCAN_UNIT_ITEMS, "things", i, h->total);
		if ((i & 4095) == 0)
			ss_logmsg(h->l, SEGSCAN_LOG_WARNING, "item %llu", (unsigned long long)i);
	}
	return NULL;
}

static void test_sink_threads(void **state)
{
	(void)state;
	struct rec *rec = calloc(1, sizeof(*rec));
	assert_non_null(rec);
	bool quiet = false;
	struct ss_logsink l;
	ss_logsink_init(&l, &quiet);   /* destroyed below */
	l.fn = on_event;
	l.user = rec;
	atomic_uint_fast64_t next = 0;
	enum { T = 4 };
	const uint64_t total = 400000;
	struct hammer h = { .l = &l, .next = &next, .total = total };
	pthread_t th[T];
	double t0 = ss_mono();
	for (int i = 0; i < T; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer_main, &h), 0);
	for (int i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	double took = ss_mono() - t0;
	ss_progress_end(&l, SEGSCAN_PHASE_DISCOVERY, SEGSCAN_UNIT_ITEMS, "things", total, total);
	ss_progress(&l, SEGSCAN_PHASE_DISCOVERY, SEGSCAN_UNIT_ITEMS, "things", total, total);   /* late: dropped */
	ss_logsink_destroy(&l);

	assert_int_equal(rec->overlap, 0);
	int progress = 0, msgs = 0, finals = 0;
	uint64_t last = 0;
	for (int i = 0; i < rec->n; i++) {
		if (rec->ev[i].kind == SEGSCAN_LOG_MESSAGE) {
			msgs++;
			continue;
		}
		progress++;
		assert_int_equal(finals, 0);
		assert_true(rec->ev[i].done >= last);
		last = rec->ev[i].done;
		finals += rec->ev[i].final;
	}
	assert_int_equal(msgs, (int)((total + 4095) / 4096));   /* messages are never throttled */
	assert_int_equal(finals, 1);
	assert_int_equal(last, total);
	assert_true(progress >= 2);
	assert_true(progress <= 4.0 * took + 2);
	free(rec);
}

/* ---- the CLI ------------------------------------------------------------------------------- */

/* Runs `segscan scan ARGS` with stderr on a pseudo-terminal (stdout to a file); returns
 * the exit code, *err what the terminal got. */
static int run_on_pty(char **err, const char *out_path, const char *const *args)
{
	int master = -1;
	struct winsize ws = { .ws_row = 24, .ws_col = 200 };
	pid_t pid = forkpty(&master, NULL, NULL, &ws);
	assert_true(pid >= 0);
	if (pid == 0) {
		/* the child: stdout to the file, stderr stays on the terminal */
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(120);
		const char *argv[32];
		int n = 0;
		argv[n++] = tu_segscan();
		argv[n++] = "scan";
		for (; *args && n < 30; args++)
			argv[n++] = *args;
		argv[n] = NULL;
		execv(argv[0], (char *const *)argv);
		_exit(121);
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		ssize_t n = read(master, buf + len, cap - len - 1);
		if (n <= 0)
			break;   /* EIO once the child has closed the terminal */
		len += (size_t)n;
	}
	buf[len] = 0;
	close(master);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	*err = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* On a terminal: the line is rewritten in place with a percentage and an ETA, and the
 * last thing on the terminal is the clearing of it; the report on stdout is whole. */
static void test_cli_terminal(void **state)
{
	(void)state;
	char out[1024], *err = NULL;
	snprintf(out, sizeof(out), "%s/pty.json", g_root);
	const char *args[] = { "-f", "json", "--threads=2", "--max-read-rate=256k", "--io=pread", g_logdir, NULL };
	int rc = run_on_pty(&err, out, args);
	assert_int_equal(rc, 0);
	if (!strstr(err, "% ") || !strstr(err, "ETA ") || !strstr(err, "\033[K"))
		fprintf(stderr, "terminal got: %.2000s\n", err);
	assert_non_null(strstr(err, "\rsegscan: discovery "));
	assert_non_null(strstr(err, "\rsegscan: scan "));
	assert_non_null(strstr(err, "% "));
	assert_non_null(strstr(err, "ETA "));
	/* an ETA that is a time, not only "--" */
	bool eta_time = false;
	for (const char *p = err; (p = strstr(p, "ETA ")); p++)
		if (p[4] >= '0' && p[4] <= '9')
			eta_time = true;
	assert_true(eta_time);
	/* in place: no newline at all (the terminal turns \n into \r\n; neither is there) */
	assert_null(strchr(err, '\n'));
	/* cleared at the end: after the last \r, only the erase-line sequence */
	const char *last = strrchr(err, '\r');
	assert_non_null(last);
	assert_string_equal(last, "\r\033[K");
	size_t len = 0;
	char *json = tu_read_file(out, &len);
	assert_non_null(json);
	assert_true(len > 2 && json[0] == '{' && json[len - 2] == '}');
	free(json);
	free(err);

	/* --quiet: nothing drawn */
	const char *qargs[] = { "-f", "json", "--quiet", "--threads=2", g_logdir, NULL };
	assert_int_equal(run_on_pty(&err, out, qargs), 0);
	assert_string_equal(err, "");
	free(err);
}

/* A warning while the line is up starts on a line of its own (the progress line cleared
 * first), reads as it always did, and the end is still clean. */
static void test_cli_warning_not_mangled(void **state)
{
	(void)state;
	char out[1024], *err = NULL;
	snprintf(out, sizeof(out), "%s/pty2.json", g_root);
	setenv("SEGSCAN_FORCE_URING_FAIL", "1", 1);
	const char *args[] = { "-f", "json", "--threads=2", "--max-read-rate=512k", g_logdir, NULL };
	int rc = run_on_pty(&err, out, args);
	unsetenv("SEGSCAN_FORCE_URING_FAIL");
	assert_int_equal(rc, 0);
	const char *w = strstr(err, "segscan: warning: io_uring unavailable");
	if (!w)
		fprintf(stderr, "terminal got: %.2000s\n", err);
	assert_non_null(w);
	/* at the start, or right after an erased line; never after progress text */
	assert_true(w == err || (w - err >= 4 && !strncmp(w - 4, "\r\033[K", 4)));
	/* the terminal's newline after it (\r\n) ends it; the progress line comes back */
	const char *nl = strstr(w, "\r\n");
	assert_non_null(nl);
	assert_non_null(strstr(nl, "\rsegscan: scan "));
	assert_string_equal(strrchr(err, '\r'), "\r\033[K");
	free(err);
}

/* Off a terminal: nothing without --progress; with it, plain lines (no \r, no escapes),
 * a percentage and each phase's end. Warnings are the same lines as ever. */
static void test_cli_plain(void **state)
{
	(void)state;
	char *err = NULL;
	int rc = tu_run(&err, "%s scan -f json --threads=2 --topic-config='%s' '%s' 2>&1 >/dev/null", tu_segscan(),
			g_topic_config, g_logdir);
	assert_int_equal(rc, 0);
	/* exactly the warning line, nothing of progress */
	char want[1024];
	snprintf(want, sizeof(want), "segscan: warning: %s:1: ignoring topic config max.message.bytes", g_topic_config);
	if (!strstr(err, want))
		fprintf(stderr, "stderr: %s\nwant: %s\n", err, want);
	assert_non_null(strstr(err, want));
	assert_null(strstr(err, "segscan: scan "));
	assert_null(strchr(err, '\r'));
	free(err);

	rc = tu_run(&err, "%s scan -f json --progress --threads=2 --max-read-rate=256k --io=pread '%s' 2>&1 >/dev/null",
		    tu_segscan(), g_logdir);
	assert_int_equal(rc, 0);
	assert_null(strchr(err, '\r'));
	assert_null(strchr(err, '\033'));
	assert_non_null(strstr(err, "segscan: discovery 13/13 partition directories in "));
	assert_non_null(strstr(err, "segscan: scan 61/61 segments in "));
	/* along the way (the scan takes more than a second): a percentage and an ETA */
	const char *mid = strstr(err, "% ");
	assert_non_null(mid);
	assert_non_null(strstr(err, "ETA "));
	/* every line is a progress line of its own */
	for (const char *p = err; *p; p = strchr(p, '\n') + 1) {
		assert_int_equal(strncmp(p, "segscan: ", 9), 0);
		assert_non_null(strchr(p, '\n'));
	}
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_log_args),
		cmocka_unit_test(test_sink_threads),
		cmocka_unit_test(test_warnings_reach_the_callback_not_stderr),
		cmocka_unit_test(test_progress_events),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_all_phases_on_a_broker_dir),
		cmocka_unit_test(test_remote_state_file),
		cmocka_unit_test(test_cli_terminal),
		cmocka_unit_test(test_cli_warning_not_mangled),
		cmocka_unit_test(test_cli_plain),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
