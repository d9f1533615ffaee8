/*
 * Issue 21 items 1 and 2, issue 20 item 9: the running broker found through /proc is a
 * local privilege boundary (segscan runs as root beside other users). Driven through the
 * CLI (a /proc-like tree with --proc-root, and real processes), so that each case runs
 * the same on the code before the fix and fails there:
 *
 *   - the broker's config file is opened exactly once (counted with inotify IN_OPEN: a
 *     second open is the window in which a FIFO swapped in hung every root scan);
 *   - a process of another user, a setuid-style process whose real uid is another
 *     user's, a config file owned by another user or writable by anyone: never adopted,
 *     never named, and (for another user's process) its file is never even opened;
 *   - a broker-shaped process whose config cannot be read is not named "the running
 *     broker": nothing ties it to the scanned dirs;
 *   - eight hostile processes with 40,000-entry log.dirs cost nothing (their files are
 *     never opened), and a trusted one's log.dirs is looked at up to a bound;
 *   - a config path with LF, CR and ESC is shown escaped in the table and in messages.
 *
 * Every scan runs under `timeout`: a hang is a failed test (exit 124), not a stuck suite.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "testutil.h"
#include "scanutil.h"

#define NOBODY 65534u

struct fx {
	char *root;   /* the test's directory */
	char *ld;     /* a generated log dir */
	char *proc;   /* root/proc: the fake /proc */
};

static void fx_init(struct fx *x, const char *tag)
{
	x->ld = su_gen(tag, 1, 1, 2, 16 << 10, 0, false, &x->root);
	assert_non_null(x->ld);
	assert_true(asprintf(&x->proc, "%s/proc", x->root) > 0);
	assert_int_equal(mkdir(x->proc, 0755), 0);
}

static void fx_done(struct fx *x)
{
	char *out = NULL;
	tu_run(&out, "rm -rf '%s'", x->root);
	free(out);
	free(x->root);
	free(x->ld);
	free(x->proc);
}

/* A process in the fake /proc: PID/status with the four uids, PID/cmdline with argv
 * (NUL-separated), PID/cwd a symbolic link to cwd when given. */
static void fake_proc(const struct fx *x, int pid, const unsigned uid[4], const char *cwd, int argc, ...)
{
	char d[4096], p[4200], st[256];
	snprintf(d, sizeof(d), "%s/%d", x->proc, pid);
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(p, sizeof(p), "%s/status", d);
	int n = snprintf(st, sizeof(st), "Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t%u\t%u\t%u\t%u\nGid:\t0\t0\t0\t0\n",
			 uid[0], uid[1], uid[2], uid[3]);
	assert_int_equal(tu_write_file(p, st, (size_t)n), 0);
	char *cmd = NULL;
	size_t len = 0;
	va_list ap;
	va_start(ap, argc);
	for (int i = 0; i < argc; i++) {
		const char *a = va_arg(ap, const char *);
		size_t al = strlen(a) + 1;
		cmd = realloc(cmd, len + al);
		assert_non_null(cmd);
		memcpy(cmd + len, a, al);
		len += al;
	}
	va_end(ap);
	snprintf(p, sizeof(p), "%s/cmdline", d);
	assert_int_equal(tu_write_file(p, cmd, len), 0);
	free(cmd);
	if (cwd) {
		snprintf(p, sizeof(p), "%s/cwd", d);
		assert_int_equal(symlink(cwd, p), 0);
	}
}

static char *write_props(const char *dir, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *write_props(const char *dir, const char *name, const char *fmt, ...)
{
	char *p = NULL, *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	assert_true(vasprintf(&text, fmt, ap) > 0);
	va_end(ap);
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	free(text);
	return p;
}

/* IN_OPEN watches: how often each file was opened while the scan ran (inotify queues
 * the event in the open itself, so after the scan has exited the count is exact).
 * Closes are watched too: inotify merges an event identical to the last one queued, so
 * open-close-open-close must not read as OPEN-OPEN merged into one. */
struct opens {
	int fd;
	int wd[16];
	unsigned n[16];
	unsigned k;
};

static void opens_watch(struct opens *o, const char *const *paths, unsigned k)
{
	o->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(o->fd >= 0);
	o->k = k;
	for (unsigned i = 0; i < k; i++) {
		o->wd[i] = inotify_add_watch(o->fd, paths[i], IN_OPEN | IN_CLOSE);
		assert_true(o->wd[i] >= 0);
		o->n[i] = 0;
	}
}

static void opens_count(struct opens *o)
{
	char buf[64 << 10] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(o->fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			for (unsigned i = 0; i < o->k; i++)
				if (ev->wd == o->wd[i] && (ev->mask & IN_OPEN))
					o->n[i]++;
			p += sizeof(*ev) + ev->len;
		}
	}
	close(o->fd);
}

/* `segscan scan -q -f json --proc-root=PROC LD` (proc NULL: the real /proc); the JSON
 * report parsed, its exit code in *rc. */
static json_t *scan_json(const struct fx *x, const char *proc, int *rc)
{
	char *out = NULL;
	int r = tu_run(&out, "timeout %.0f %s scan -q -f json %s%s%s '%s' 2>'%s/err.txt'", tu_guard_s(60), tu_segscan(),
		       proc ? "--proc-root='" : "", proc ? proc : "", proc ? "'" : "", x->ld, x->root);
	if (rc)
		*rc = r;
	assert_int_not_equal(r, 124);   /* a hang */
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	if (!j)
		fprintf(stderr, "not JSON (exit %d): %.2000s\n", r, out);
	assert_non_null(j);
	free(out);
	return j;
}

static const char *how_of(json_t *j)
{
	const char *s = json_string_value(json_object_get(
		json_object_get(json_object_get(j, "summary"), "static_config"), "how"));
	assert_non_null(s);
	return s;
}

static const char *file_of(json_t *j)
{
	return json_string_value(json_object_get(json_object_get(json_object_get(j, "summary"), "static_config"), "file"));
}

static json_int_t node_of(json_t *j)
{
	json_t *v = json_object_get(json_object_get(json_object_get(j, "summary"), "broker"), "node_id");
	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* The uid that owns the test's files: root when the test runs as root. */
static unsigned me(void)
{
	return (unsigned)geteuid();
}

/* ---- issue 21 item 1: the config file is read once ------------------------------------ */

static void test_config_opened_once(void **state)
{
	(void)state;
	struct fx x;
	fx_init(&x, "pt_once");
	unsigned u[4] = { me(), me(), me(), me() };
	char *props = write_props(x.root, "server.properties", "node.id=7\nlog.dirs=%s\nlog.retention.hours=72\n", x.ld);
	fake_proc(&x, 30, u, NULL, 4, "java", "-Xmx1G", "kafka.Kafka", props);
	const char *paths[] = { props };
	struct opens o;
	opens_watch(&o, paths, 1);
	json_t *j = scan_json(&x, x.proc, NULL);
	opens_count(&o);
	assert_string_equal(how_of(j), "the running broker's (pid 30)");
	assert_int_equal(node_of(j), 7);
	/* one open, one read, the text parsed: a FIFO put at the path after that read has no
	 * second open to block (the code before the fix opened it twice: 2) */
	if (o.n[0] != 1)
		fprintf(stderr, "%s opened %u times\n", props, o.n[0]);
	assert_int_equal(o.n[0], 1);
	json_decref(j);

	/* and a FIFO there from the start: not read, said, no hang */
	unlink(props);
	assert_int_equal(mkfifo(props, 0644), 0);
	j = scan_json(&x, x.proc, NULL);
	assert_null(strstr(how_of(j), "pid 30"));
	assert_non_null(strstr(how_of(j), "a FIFO"));
	json_decref(j);
	free(props);
	fx_done(&x);
}

/* ---- issue 21 item 2: whose process, whose file ---------------------------------------- */

static void test_foreign_process_not_adopted(void **state)
{
	(void)state;
	struct fx x;
	fx_init(&x, "pt_foreign");
	if (me() == NOBODY)
		skip();
	/* nobody's process naming a file that lists the scanned dir, with a 1 ms retention and
	 * another node id and metadata dir */
	char *props = write_props(x.root, "evil.properties",
				  "node.id=42\nlog.dirs=%s\nlog.retention.ms=1\nmetadata.log.dir=%s\n", x.ld, x.root);
	unsigned nob[4] = { NOBODY, NOBODY, NOBODY, NOBODY };
	fake_proc(&x, 40, nob, NULL, 3, "java", "kafka.Kafka", props);
	/* a setuid-root program run by nobody (sudo, passwd waiting for a password): its
	 * effective uid is root, its argv is nobody's */
	unsigned suid[4] = { NOBODY, 0, 0, 0 };
	fake_proc(&x, 41, suid, NULL, 3, "sudo", "kafka.Kafka", props);
	const char *paths[] = { props };
	struct opens o;
	opens_watch(&o, paths, 1);
	json_t *j = scan_json(&x, x.proc, NULL);
	opens_count(&o);
	assert_null(strstr(how_of(j), "running broker's"));
	assert_null(file_of(j));
	assert_true(node_of(j) != 42);
	assert_null(strstr(how_of(j), "pid 4"));
	/* nothing of another user's process is read past its status */
	assert_int_equal(o.n[0], 0);
	json_decref(j);
	free(props);
	fx_done(&x);
}

/* The file's owner and mode (needs root to give files away; skipped otherwise). */
static void test_config_owner(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	struct fx x;
	fx_init(&x, "pt_owner");
	char *props = write_props(x.root, "server.properties", "node.id=9\nlog.dirs=%s\n", x.ld);
	unsigned root[4] = { 0, 0, 0, 0 };
	fake_proc(&x, 50, root, NULL, 3, "java", "kafka.Kafka", props);

	/* a root broker, a root-owned file: the broker */
	json_t *j = scan_json(&x, x.proc, NULL);
	assert_string_equal(how_of(j), "the running broker's (pid 50)");
	json_decref(j);
	/* the file owned by another user: not the broker's word */
	assert_int_equal(chown(props, NOBODY, NOBODY), 0);
	j = scan_json(&x, x.proc, NULL);
	assert_null(strstr(how_of(j), "running broker's"));
	assert_null(strstr(how_of(j), "pid 50"));
	assert_true(node_of(j) != 9);
	json_decref(j);
	/* root's, but anyone may write it */
	assert_int_equal(chown(props, 0, 0), 0);
	assert_int_equal(chmod(props, 0666), 0);
	j = scan_json(&x, x.proc, NULL);
	assert_null(strstr(how_of(j), "running broker's"));
	json_decref(j);
	assert_int_equal(chmod(props, 0644), 0);

	/* log dirs owned by a broker user (1234): its process and its own file, or root's
	 * file, are trusted; another user's process is not */
	char *out = NULL;
	assert_int_equal(tu_run(&out, "chown -R 1234:1234 '%s'", x.ld), 0);
	free(out);
	unsigned kafka[4] = { 1234, 1234, 1234, 1234 }, other[4] = { 1235, 1235, 1235, 1235 };
	char p[4096];
	snprintf(p, sizeof(p), "%s/50", x.proc);
	assert_int_equal(tu_run(&out, "rm -rf '%s'", p), 0);
	free(out);
	fake_proc(&x, 51, other, NULL, 3, "java", "kafka.Kafka", props);
	fake_proc(&x, 52, kafka, NULL, 3, "java", "kafka.Kafka", props);
	j = scan_json(&x, x.proc, NULL);
	assert_string_equal(how_of(j), "the running broker's (pid 52)");
	json_decref(j);
	assert_int_equal(chown(props, 1234, 1234), 0);
	j = scan_json(&x, x.proc, NULL);
	assert_string_equal(how_of(j), "the running broker's (pid 52)");
	json_decref(j);
	assert_int_equal(chown(props, 1235, 1235), 0);
	j = scan_json(&x, x.proc, NULL);
	assert_null(strstr(how_of(j), "running broker's"));
	json_decref(j);
	free(props);
	fx_done(&x);
}

/* ---- issue 20 item 9: nothing named the broker that is not shown to be it -------------- */

static void test_unverified_not_named(void **state)
{
	(void)state;
	struct fx x;
	fx_init(&x, "pt_unverified");
	unsigned u[4] = { me(), me(), me(), me() };
	/* a broker-shaped process whose "config" cannot be read (a directory) and one whose
	 * config does not exist: nothing ties either to the scanned dir */
	fake_proc(&x, 20, u, NULL, 3, "java", "kafka.Kafka", x.proc);
	fake_proc(&x, 21, u, NULL, 3, "java", "kafka.Kafka", "/nonexistent/server.properties");
	json_t *j = scan_json(&x, x.proc, NULL);
	const char *how = how_of(j);
	assert_null(file_of(j));
	assert_null(strstr(how, "running broker,"));
	assert_null(strstr(how, "pid 2"));
	assert_null(strstr(how, x.proc));
	assert_null(strstr(how, "/nonexistent"));
	assert_non_null(strstr(how, "not read (no running broker verified to serve these log dirs"));
	json_decref(j);

	/* the table says the same, naming no process */
	char *out = NULL;
	tu_run(&out, "timeout %.0f %s scan --proc-root='%s' '%s' 2>&1", tu_guard_s(60), tu_segscan(), x.proc, x.ld);
	assert_non_null(out);
	assert_null(strstr(out, "pid 20"));
	assert_null(strstr(out, "pid 21"));
	free(out);
	fx_done(&x);
}

/* ---- issue 21 item 2: the work per candidate is bounded -------------------------------- */

/* A log.dirs of n entries (none of them there) with `last` appended when given. */
static char *big_props(const char *dir, const char *name, unsigned n, const char *last)
{
	size_t cap = (size_t)n * (strlen(dir) + 24) + strlen(last ? last : "") + 4096, len = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	len += (size_t)snprintf(t + len, cap - len, "node.id=5\nlog.dirs=");
	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(t + len, cap - len, "%s/no/such/dir/%06u,", dir, i);
	len += (size_t)snprintf(t + len, cap - len, "%s\n", last ? last : "/no/such/last");
	assert_true(len < cap);   /* every snprintf above fit */
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	assert_int_equal(tu_write_file(p, t, len), 0);
	free(t);
	return p;
}

static void test_hostile_scale(void **state)
{
	(void)state;
	if (me() == NOBODY)
		skip();
	struct fx x;
	fx_init(&x, "pt_scale");
	/* eight processes of another user, each naming a 40,000-entry log.dirs that lists
	 * the scanned dir last: none is adopted and none of their files is opened */
	char *props[8];
	unsigned nob[4] = { NOBODY, NOBODY, NOBODY, NOBODY };
	for (int i = 0; i < 8; i++) {
		char name[32];
		snprintf(name, sizeof(name), "big%d.properties", i);
		props[i] = big_props(x.root, name, 40000, x.ld);
		fake_proc(&x, 100 + i, nob, NULL, 3, "java", "kafka.Kafka", props[i]);
	}
	struct opens o;
	opens_watch(&o, (const char *const *)props, 8);
	json_t *j = scan_json(&x, x.proc, NULL);
	opens_count(&o);
	assert_null(strstr(how_of(j), "running broker's"));
	for (int i = 0; i < 8; i++)
		assert_int_equal(o.n[i], 0);
	json_decref(j);

	/* the log dirs' owner's own process with such a log.dirs: looked at up to the bound
	 * (1024 entries), then counted as not verified, not adopted */
	unsigned u[4] = { me(), me(), me(), me() };
	fake_proc(&x, 200, u, NULL, 3, "java", "kafka.Kafka", props[0]);
	j = scan_json(&x, x.proc, NULL);
	assert_null(strstr(how_of(j), "running broker's"));
	assert_non_null(strstr(how_of(j), "more than the 1024 looked at"));
	json_decref(j);
	for (int i = 0; i < 8; i++)
		free(props[i]);
	fx_done(&x);
}

/* Real processes of another user (root only: the child drops to nobody). */
static void test_real_foreign_processes(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	struct fx x;
	fx_init(&x, "pt_real");
	char *props = big_props(x.root, "evil.properties", 40000, x.ld);
	pid_t kids[8];
	for (int i = 0; i < 8; i++) {
		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0) {
			/* its own process group (killed whole below: bash and its sleep), and no
			 * stdout or stderr of ours kept open by a sleep that outlives the test */
			int null = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (setpgid(0, 0) != 0 || null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 ||
			    setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
				_exit(127);
			/* "; :" keeps bash from exec'ing sleep, so its own command line stays */
			execlp("bash", "bash", "-c", "sleep 600; :", "kafka.Kafka", props, (char *)NULL);
			_exit(127);
		}
	}
	/* wait (an event, generously bounded) until each child's command line reads
	 * kafka.Kafka, i.e. it has exec'd */
	for (int i = 0; i < 8; i++) {
		char p[64];
		bool execd = false;
		snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)kids[i]);
		for (int t = 0; t < 12000 && !execd; t++) { /* 2 minutes at least */
			size_t n = 0;
			char *cmd = tu_read_file(p, &n);
			execd = cmd && memmem(cmd, n, "kafka.Kafka", 11);
			free(cmd);
			if (!execd)
				usleep(10 * 1000);
		}
		assert_true(execd);
	}
	const char *paths[] = { props };
	struct opens o;
	opens_watch(&o, paths, 1);
	json_t *j = scan_json(&x, NULL, NULL);
	opens_count(&o);
	for (int i = 0; i < 8; i++) {
		kill(-kids[i], SIGKILL);   /* the group: bash and its sleep */
		waitpid(kids[i], NULL, 0);
	}
	assert_null(strstr(how_of(j), "running broker's"));
	assert_true(node_of(j) != 5);
	assert_int_equal(o.n[0], 0);
	json_decref(j);
	free(props);
	fx_done(&x);
}

/* ---- issue 21 item 2, issue 20 item 9: a path with control characters ------------------- */

static void test_control_chars_escaped(void **state)
{
	(void)state;
	struct fx x;
	fx_init(&x, "pt_ctl");
	char *dir = NULL;
	assert_true(asprintf(&dir, "%s/etc\nFORGED line\r\x1b[2Jx", x.root) > 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	/* in the file, LF and CR are written as Java properties escapes (\n, \r) */
	char *pdir = NULL;
	assert_true(asprintf(&pdir, "%s/etc\\nFORGED line\\r\x1b[2Jx", x.root) > 0);
	char *props = write_props(dir, "server.properties", "node.id=3\nlog.dirs=%s\nmetadata.log.dir=%s/md\n", x.ld, pdir);
	free(pdir);
	unsigned u[4] = { me(), me(), me(), me() };
	fake_proc(&x, 60, u, NULL, 3, "java", "kafka.Kafka", props);

	/* JSON: the path as it is (escaped by JSON) */
	json_t *j = scan_json(&x, x.proc, NULL);
	assert_string_equal(how_of(j), "the running broker's (pid 60)");
	assert_non_null(file_of(j));
	assert_string_equal(file_of(j), props);
	json_decref(j);

	/* the table: one line, the controls as escapes, no forged line, no raw ESC */
	char *out = NULL;
	tu_run(&out, "timeout %.0f %s scan --proc-root='%s' '%s' 2>&1", tu_guard_s(60), tu_segscan(), x.proc, x.ld);
	assert_non_null(out);
	if (strstr(out, "\nFORGED") || strchr(out, '\r') || strchr(out, '\x1b'))
		fprintf(stderr, "raw control characters:\n%s\n", out);
	assert_null(strstr(out, "\nFORGED"));
	assert_null(strchr(out, '\r'));
	assert_null(strchr(out, '\x1b'));
	assert_non_null(strstr(out, "broker config: "));
	assert_non_null(strstr(out, "etc\\x0aFORGED line\\x0d\\x1b[2Jx/server.properties"));
	/* metadata.log.dir (where the replay looked) is named the same way */
	assert_non_null(strstr(out, "etc\\x0aFORGED line\\x0d\\x1b[2Jx/md"));
	free(out);
	free(props);
	free(dir);
	fx_done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_opened_once),
		cmocka_unit_test(test_foreign_process_not_adopted),
		cmocka_unit_test(test_config_owner),
		cmocka_unit_test(test_unverified_not_named),
		cmocka_unit_test(test_hostile_scale),
		cmocka_unit_test(test_real_foreign_processes),
		cmocka_unit_test(test_control_chars_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
