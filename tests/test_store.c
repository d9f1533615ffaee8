/*
 * The remote stores as sources and `segscan audit` end to end:
 *   - file://: S3's key order (a directory sorts as its name and '/'), links not followed,
 *     a listing that stops midway (the error names the store and the last key; what it had
 *     not compared is null);
 *   - the CLI on a generated log dir with a --remote-state file and a store written from
 *     it: clean (no finding, stored = the objects, accounted = the metadata), then damaged
 *     (exactly the removed and added segments);
 *   - s3:// against tests/fake_s3.py (which checks every SigV4 signature in full): the same
 *     audit as file:// object for object with pages of 2 keys, a retry after 503s, HEAD for
 *     a listing without sizes, and wrong credentials, an unknown bucket and a server that
 *     stops answering each a clear error in bounded time.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/remote.h"
#include "fmt/names.h"
#include "fmt/ndjson.h"
#include "fmt/store_uri.h"
#include "source/store.h"
#include "testutil.h"
#include "scanutil.h"

#define NOW "1700000000000"

static void mkdirs(const char *p)
{
	char b[4096];
	snprintf(b, sizeof(b), "%s", p);
	for (char *s = b + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(b, 0755);
			*s = '/';
		}
	mkdir(b, 0755);
}

static void put(const char *path, int64_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

/* ---- file:// ordering ---- */

struct seen {
	char  keys[32][256];
	int64_t sizes[32];
	int   n;
};

static int on_obj(void *arg, const char *key, size_t len, int64_t size)
{
	struct seen *s = arg;
	if (s->n < 32) {
		snprintf(s->keys[s->n], sizeof(s->keys[0]), "%.*s", (int)len, key);
		s->sizes[s->n] = size;
	}
	s->n++;
	return 0;
}

static void t_file_order(void **st)
{
	(void)st;
	char *root = tu_mkdtemp("store-order"), p[4096];
	snprintf(p, sizeof(p), "%s/a", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/x", root);
	put(p, 3);
	snprintf(p, sizeof(p), "%s/a-b", root);
	put(p, 1);
	snprintf(p, sizeof(p), "%s/a.c", root);
	put(p, 2);
	snprintf(p, sizeof(p), "%s/a0", root);
	put(p, 4);
	snprintf(p, sizeof(p), "%s/l", root);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	snprintf(p, sizeof(p), "%s/empty", root);
	mkdir(p, 0755);
	struct ss_store_uri u;
	char uri[4200], err[512];
	snprintf(uri, sizeof(uri), "file://%s", root);
	assert_int_equal(ss_store_uri_parse(uri, &u, err, sizeof(err)), 0);
	struct ss_store *s;
	assert_int_equal(ss_store_open(&u, NULL, &s, err, sizeof(err)), 0);
	struct seen seen = { 0 };
	assert_int_equal(ss_store_list(s, on_obj, NULL, &seen, err, sizeof(err)), 0);
	/* bytewise over the whole key: '-' < '.' < '/' < '0' */
	assert_int_equal(seen.n, 5);
	assert_string_equal(seen.keys[0], "a-b");
	assert_string_equal(seen.keys[1], "a.c");
	assert_string_equal(seen.keys[2], "a/x");
	assert_int_equal(seen.sizes[2], 3);
	assert_string_equal(seen.keys[3], "a0");
	assert_string_equal(seen.keys[4], "l");
	assert_int_equal(seen.sizes[4], (int64_t)strlen("/etc/passwd"));   /* the link's own size */
	char *buf = NULL;
	size_t len = 0;
	assert_int_equal(ss_store_get(s, "a/x", 100, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 3);
	free(buf);
	assert_true(ss_store_get(s, "l", 100, &buf, &len, err, sizeof(err)) < 0);   /* never followed */
	assert_non_null(strstr(err, "l"));
	assert_int_equal(ss_store_get(s, "a/x", 2, &buf, &len, err, sizeof(err)), -EFBIG);
	ss_store_close(s);
	snprintf(uri, sizeof(uri), "file://%s/nope", root);
	assert_int_equal(ss_store_uri_parse(uri, &u, err, sizeof(err)), 0);
	assert_int_equal(ss_store_open(&u, NULL, &s, err, sizeof(err)), -ENOENT);
	free(root);
}

/* ---- a store written from a remote state: every finished segment's five objects ---- */

static int write_store(const char *ndjson, const char *store)
{
	size_t len = 0;
	char *buf = tu_read_file(ndjson, &len), err[512];
	assert_non_null(buf);
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	assert_int_equal(ss_ndjson_parse(buf, len, ndjson, ss_remote_apply_fn, r, err, sizeof(err)), 0);
	free(buf);
	int n = 0;
	for (uint32_t i = 0; i < ss_remote_part_count(r); i++) {
		const struct ss_remote_part *p = ss_remote_part_at(r, i);
		char tid[23], dir[4096];
		assert_true(p->has_topic_id);
		ss_uuid_format(p->topic_id, tid);
		snprintf(dir, sizeof(dir), "%s/kafka-tiered-storage/%s-%d-%s", store, p->topic, p->partition, tid);
		mkdirs(dir);
		for (uint32_t k = 0; k < p->n_segs; k++) {
			const struct ss_rseg *s = ss_remote_seg(p, k);
			if (s->state != SS_RSEG_COPY_FINISHED)
				continue;
			static const char *const ext[] = { ".log", ".index", ".timeindex", ".snapshot", ".leader_epoch_checkpoint" };
			for (int e = 0; e < 5; e++) {
				char f[4300];
				snprintf(f, sizeof(f), "%s/%020lld-%s%s", dir, (long long)s->start_offset, s->id, ext[e]);
				put(f, e == 0 ? s->size_bytes : 16);
			}
			n++;
		}
	}
	ss_remote_free(r);
	return n;
}

static json_t *run_json(int *rc, char **errout, const char *fmt, ...)
{
	char cmd[16384], *out = NULL, errf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 200, fmt, ap);
	va_end(ap);
	char *tmp = tu_mkdtemp("store-err");
	snprintf(errf, sizeof(errf), "%s/stderr", tmp);
	size_t n = strlen(cmd);
	snprintf(cmd + n, sizeof(cmd) - n, " 2>%s", errf);
	*rc = tu_run(&out, "%s", cmd);
	size_t l;
	if (errout) {
		*errout = tu_read_file(errf, &l);
	} else if (*rc) {
		char *e = tu_read_file(errf, &l);
		fprintf(stderr, "exit %d: %s\n", *rc, e ? e : "");
		free(e);
	}
	free(tmp);
	json_error_t je;
	json_t *j = out && *out ? json_loads(out, 0, &je) : NULL;
	free(out);
	return j;
}

static json_int_t ival(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_integer(v)) {
		char *d = o ? json_dumps(o, JSON_COMPACT) : NULL;
		fail_msg("\"%s\" is not an integer in %s", k, d ? d : "(no object)");
	}
	return json_integer_value(v);
}

static const json_t *find_code(json_t *p, const char *code)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(p, "findings"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "code")), code))
			return f;
	return NULL;
}

struct fixture {
	char *root, *logdir, *ndjson, *store;
};

static void fixture(struct fixture *fx, const char *tag)
{
	fx->logdir = su_gen(tag, 2, 2, 6, 64 << 10, 0, true, &fx->root);
	assert_non_null(fx->logdir);
	assert_true(asprintf(&fx->ndjson, "%s/remote.ndjson", fx->root) > 0);
	assert_true(asprintf(&fx->store, "%s/store", fx->root) > 0);
	assert_true(write_store(fx->ndjson, fx->store) > 0);
}

static void fixture_free(struct fixture *fx)
{
	free(fx->root);
	free(fx->logdir);
	free(fx->ndjson);
	free(fx->store);
}

static void t_cli_clean_and_damaged(void **st)
{
	(void)st;
	struct fixture fx;
	fixture(&fx, "store-cli");
	int rc;
	json_t *j = run_json(&rc, NULL, "%s audit -q -f json --now=" NOW " --remote-state=%s --remote-store=file://%s %s",
			     tu_segscan(), fx.ndjson, fx.store, fx.logdir);
	assert_non_null(j);
	assert_int_equal(rc, 0);
	json_t *sum = json_object_get(json_object_get(j, "summary"), "remote_store");
	assert_true(json_is_true(json_object_get(sum, "complete")));
	assert_int_equal(ival(sum, "missing_objects") + ival(sum, "orphan_objects") + ival(sum, "torn_objects"), 0);
	size_t i;
	json_t *p;
	int compared = 0;
	json_array_foreach(json_object_get(j, "partitions"), i, p) {
		json_t *rs = json_object_get(p, "remote_store");
		json_t *remote = json_object_get(p, "remote");
		if (!json_is_object(rs))
			continue;
		compared++;
		/* accounted = the metadata's finished bytes (remote.size_bytes); nothing wrong */
		assert_int_equal(ival(rs, "accounted_bytes"), ival(remote, "size_bytes"));
		assert_int_equal(ival(rs, "stored_bytes"), ival(remote, "size_bytes") + 16 * 4 * ival(remote, "segments"));
		assert_int_equal(ival(rs, "objects"), 5 * ival(remote, "segments"));
		assert_null(find_code(p, "MISSING_REMOTE_OBJECT"));
		assert_null(find_code(p, "ORPHAN_REMOTE_OBJECT"));
	}
	assert_true(compared >= 2);
	json_decref(j);

	/* damage: one .log removed, one orphan fileset added, in the first tiered partition */
	char cmd[8192];
	snprintf(cmd, sizeof(cmd),
		 "d=$(ls -d %s/kafka-tiered-storage/*-0-* | head -1); f=$(ls $d/*.log | head -1); rm $f; "
		 "for e in log index timeindex snapshot leader_epoch_checkpoint; do "
		 "truncate -s 7 $d/00000000000000999999-AAAAAAAAAAAAAAAAAAAAAA.$e; done; basename $f .log",
		 fx.store);
	char *gone = NULL;
	assert_int_equal(tu_run(&gone, "%s", cmd), 0);
	gone[strcspn(gone, "\n")] = 0;
	const char *gone_id = strchr(gone, '-') + 1;
	j = run_json(&rc, NULL, "%s audit -q -f json --now=" NOW " --remote-state=%s --remote-store=file://%s %s",
		     tu_segscan(), fx.ndjson, fx.store, fx.logdir);
	assert_non_null(j);
	assert_int_equal(rc, 0);   /* findings do not change the exit code */
	int missing = 0, orphan = 0;
	json_array_foreach(json_object_get(j, "partitions"), i, p) {
		const json_t *m = find_code(p, "MISSING_REMOTE_OBJECT"), *o = find_code(p, "ORPHAN_REMOTE_OBJECT");
		if (m) {
			missing++;
			json_t *ids = json_object_get(m, "segment_ids");
			assert_int_equal(json_array_size(ids), 1);
			assert_string_equal(json_string_value(json_array_get(ids, 0)), gone_id);
			assert_int_equal(json_array_size(json_object_get(m, "object_keys")), 1);
			assert_int_equal(ival(json_object_get(p, "remote_store"), "missing_objects"), 1);
		}
		if (o) {
			orphan++;
			json_t *ids = json_object_get(o, "segment_ids");
			assert_string_equal(json_string_value(json_array_get(ids, 0)), "AAAAAAAAAAAAAAAAAAAAAA");
			assert_int_equal(ival(json_object_get(p, "remote_store"), "orphan_bytes"), 35);
		}
	}
	assert_int_equal(missing, 1);
	assert_int_equal(orphan, 1);
	json_decref(j);
	free(gone);

	/* a listing that stops: a tree deeper than the walk goes, after every partition */
	char deep[4096];
	int n = snprintf(deep, sizeof(deep), "%s/zzz", fx.store);
	for (int k = 0; k < 40; k++)
		n += snprintf(deep + n, sizeof(deep) - (size_t)n, "/d");
	mkdirs(deep);
	strcat(deep, "/f");
	put(deep, 1);
	/* a key after every partition before the walk fails: the last one is closed too */
	char after[4200];
	snprintf(after, sizeof(after), "%s/zzz/a", fx.store);
	put(after, 1);
	char *err = NULL;
	j = run_json(&rc, &err, "%s audit -q -f json --now=" NOW " --remote-state=%s --remote-store=file://%s %s",
		     tu_segscan(), fx.ndjson, fx.store, fx.logdir);
	assert_non_null(j);
	assert_int_equal(rc, 1);
	assert_non_null(err);
	assert_non_null(strstr(err, "file://"));
	assert_non_null(strstr(err, "after the key"));
	sum = json_object_get(json_object_get(j, "summary"), "remote_store");
	assert_false(json_is_true(json_object_get(sum, "complete")));
	assert_non_null(json_string_value(json_object_get(sum, "error")));
	/* every partition is before "zzz/": compared all the same */
	json_array_foreach(json_object_get(j, "partitions"), i, p)
		/* a partition the metadata does not know has remote.segments null (unknown): nothing
		 * to compare it with */
		if (json_integer_value(json_object_get(json_object_get(p, "remote"), "segments")) > 0)
			assert_true(json_is_object(json_object_get(p, "remote_store")));
	json_decref(j);
	free(err);
	/* ... and one that stops before them: "aaa" sorts first, every partition is null */
	char cmd2[8192];
	snprintf(cmd2, sizeof(cmd2), "rm %s/zzz/a && mv %s/zzz %s/aaa", fx.store, fx.store, fx.store);
	assert_int_equal(tu_run(NULL, "%s", cmd2), 0);
	j = run_json(&rc, NULL, "%s audit -q -f json --now=" NOW " --remote-state=%s --remote-store=file://%s %s",
		     tu_segscan(), fx.ndjson, fx.store, fx.logdir);
	assert_non_null(j);
	assert_int_equal(rc, 1);
	json_array_foreach(json_object_get(j, "partitions"), i, p) {
		assert_true(json_is_null(json_object_get(p, "remote_store")));
		assert_non_null(json_string_value(json_object_get(p, "remote_store_reason")));
		assert_null(find_code(p, "MISSING_REMOTE_OBJECT"));
	}
	json_decref(j);
	fixture_free(&fx);
}

/* ---- s3:// against the fake server ---- */

struct fake {
	pid_t pid;
	int   port;
	char  log[4096];
};

static int fake_start(struct fake *f, const char *root, const char *extra)
{
	char cmd[16384], portfile[4096];
	char *tmp = tu_mkdtemp("fake-s3");
	snprintf(f->log, sizeof(f->log), "%s/requests.log", tmp);
	snprintf(portfile, sizeof(portfile), "%s/port", tmp);
	free(tmp);
	snprintf(cmd, sizeof(cmd), "exec python3 tests/fake_s3.py %s AKTEST SKTEST %s --log %s %s >/dev/null 2>&1", root,
		 portfile, f->log, extra);
	f->pid = fork();
	if (f->pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	/* the port, once it listens (bounded: 30 s) */
	f->port = 0;
	for (int i = 0; i < 300 && f->port <= 0; i++) {
		size_t l;
		char *b = tu_read_file(portfile, &l);
		if (b)
			f->port = atoi(b);
		free(b);
		if (f->port <= 0) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	return f->port > 0 ? 0 : -1;
}

static void fake_stop(struct fake *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
	}
	f->pid = 0;
}

static int count_lines(const char *path, const char *needle)
{
	size_t l;
	char *b = tu_read_file(path, &l);
	int n = 0;
	for (char *p = b; p && (p = strstr(p, needle)); p++)
		n++;
	free(b);
	return n;
}

/* every partition's remote_store and its audit findings, as one canonical string */
static char *audit_view(json_t *j)
{
	json_t *v = json_array();
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(j, "partitions"), i, p) {
		json_t *o = json_object();
		json_object_set(o, "t", json_object_get(p, "topic"));
		json_object_set(o, "p", json_object_get(p, "partition"));
		json_t *rs = json_deep_copy(json_object_get(p, "remote_store"));
		json_object_set_new(o, "rs", rs);
		json_t *fs = json_array();
		size_t k;
		json_t *f;
		json_array_foreach(json_object_get(p, "findings"), k, f)
			if (json_object_get(f, "object_keys"))
				json_array_append(fs, f);
		json_object_set_new(o, "f", fs);
		json_array_append_new(v, o);
	}
	char *s = json_dumps(v, JSON_SORT_KEYS);
	json_decref(v);
	return s;
}

static void t_s3(void **st)
{
	(void)st;
	if (tu_run(NULL, "python3 -c 'import http.server' >/dev/null 2>&1")) {
		skip();
		return;
	}
	struct fixture fx;
	fixture(&fx, "store-s3");
	/* damage, so that the comparison has findings to compare */
	char cmd[8192];
	snprintf(cmd, sizeof(cmd),
		 "d=$(ls -d %s/kafka-tiered-storage/*-1-* | head -1); rm $(ls $d/*.index | head -1); "
		 "truncate -s 9 $d/00000000000000777777-BBBBBBBBBBBBBBBBBBBBBA.log",
		 fx.store);
	assert_int_equal(tu_run(NULL, "%s", cmd), 0);
	int rc;
	json_t *jf = run_json(&rc, NULL, "%s audit -q -f json --now=" NOW " --remote-state=%s --remote-store=file://%s %s",
			      tu_segscan(), fx.ndjson, fx.store, fx.logdir);
	assert_non_null(jf);
	assert_int_equal(rc, 0);
	char *vf = audit_view(jf);

	struct fake f;
	assert_int_equal(fake_start(&f, fx.store, ""), 0);
	const char *env = "AWS_ACCESS_KEY_ID=AKTEST AWS_SECRET_ACCESS_KEY=SKTEST AWS_SHARED_CREDENTIALS_FILE=/nonexistent";
	/* the bucket is kafka-tiered-storage: keys without the root component */
	json_t *js = run_json(&rc, NULL,
			      "%s %s audit -q -f json --now=" NOW " --remote-state=%s "
			      "--remote-store='s3://kafka-tiered-storage?endpoint=http://127.0.0.1:%d&max-keys=2' %s",
			      env, tu_segscan(), fx.ndjson, f.port, fx.logdir);
	assert_non_null(js);
	assert_int_equal(rc, 0);
	char *vs = audit_view(js);
	/* object for object: the prefixes differ by the root only */
	char *vf2 = vf, *w;
	while ((w = strstr(vf2, "kafka-tiered-storage/")))
		memmove(w, w + 21, strlen(w + 21) + 1);
	assert_string_equal(vf2, vs);
	int pages = count_lines(f.log, "list-type=2");
	json_int_t objs = ival(json_object_get(json_object_get(js, "summary"), "remote_store"), "objects");
	assert_true(pages >= (objs + 1) / 2);   /* pages of 2 keys */
	assert_int_equal(count_lines(f.log, "HEAD "), 0);
	free(vs);
	json_decref(js);

	/* --deep over s3 (the fixture's .log objects are not whole batches): each error names
	 * its object as the store spells it, the bucket then the key, one slash between them */
	js = run_json(&rc, NULL,
		      "%s %s audit -q -f json --deep --now=" NOW " --remote-state=%s "
		      "--remote-store='s3://kafka-tiered-storage?endpoint=http://127.0.0.1:%d&max-keys=2' %s",
		      env, tu_segscan(), fx.ndjson, f.port, fx.logdir);
	assert_non_null(js);
	assert_int_equal(rc, 1);
	size_t di, nd = 0;
	json_t *de;
	json_array_foreach(json_object_get(js, "errors"), di, de) {
		const char *pp = json_string_value(json_object_get(de, "path"));
		assert_non_null(pp);
		if (!strstr(pp, ".log"))
			continue;
		nd++;
		assert_true(!strncmp(pp, "s3://kafka-tiered-storage/orders", 32));
		assert_null(strstr(pp + 5, "//"));
	}
	assert_true(nd > 0);
	json_decref(js);
	fake_stop(&f);

	/* the same through a prefix, a listing without sizes (HEAD each) and two 503s first */
	assert_int_equal(fake_start(&f, fx.root, "--no-size --fail-first 2"), 0);
	js = run_json(&rc, NULL,
		      "%s %s audit -q -f json --now=" NOW " --remote-state=%s "
		      "--remote-store='s3://store/kafka-tiered-storage/?endpoint=http://127.0.0.1:%d&max-keys=3' %s",
		      env, tu_segscan(), fx.ndjson, f.port, fx.logdir);
	assert_non_null(js);
	assert_int_equal(rc, 0);
	vs = audit_view(js);
	assert_string_equal(vf2, vs);
	assert_int_equal(count_lines(f.log, "HEAD "), objs);
	assert_int_equal(count_lines(f.log, " 503"), 2);
	free(vs);
	json_decref(js);

	/* wrong credentials: refused, said, nothing compared */
	char *err = NULL;
	time_t t0 = time(NULL);
	js = run_json(&rc, &err,
		      "AWS_ACCESS_KEY_ID=AKTEST AWS_SECRET_ACCESS_KEY=wrong %s audit -q -f json --now=" NOW
		      " --remote-state=%s --remote-store='s3://store?endpoint=http://127.0.0.1:%d' %s",
		      tu_segscan(), fx.ndjson, f.port, fx.logdir);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "SignatureDoesNotMatch"));
	assert_non_null(strstr(err, "s3://store/"));
	assert_non_null(strstr(err, "before any key"));
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(js, "partitions"), i, p)
		assert_true(json_is_null(json_object_get(p, "remote_store")));
	json_decref(js);
	free(err);
	/* an unknown access key, and an unknown bucket */
	js = run_json(&rc, &err,
		      "AWS_ACCESS_KEY_ID=NOBODY AWS_SECRET_ACCESS_KEY=x %s audit -q -f json --remote-state=%s "
		      "--remote-store='s3://store?endpoint=http://127.0.0.1:%d' %s",
		      tu_segscan(), fx.ndjson, f.port, fx.logdir);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "HTTP 403 InvalidAccessKeyId"));
	json_decref(js);
	free(err);
	js = run_json(&rc, &err, "%s %s audit -q -f json --remote-state=%s "
				 "--remote-store='s3://no-such-bucket?endpoint=http://127.0.0.1:%d' %s",
		      env, tu_segscan(), fx.ndjson, f.port, fx.logdir);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "HTTP 404 NoSuchBucket"));
	json_decref(js);
	free(err);
	assert_true(time(NULL) - t0 < 60);
	fake_stop(&f);

	/* a server that stops answering: a timeout, bounded (two tries of 1 s, a pause) */
	assert_int_equal(fake_start(&f, fx.root, "--stall"), 0);
	t0 = time(NULL);
	js = run_json(&rc, &err, "%s %s audit -q -f json --remote-state=%s "
				 "--remote-store='s3://store?endpoint=http://127.0.0.1:%d&timeout=1000' %s",
		      env, tu_segscan(), fx.ndjson, f.port, fx.logdir);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "s3://store/"));
	assert_non_null(strstr(err, "timed out"));
	assert_true(time(NULL) - t0 < 30);
	json_decref(js);
	free(err);
	fake_stop(&f);
	/* nobody listening at all */
	js = run_json(&rc, &err, "%s %s audit -q -f json --remote-state=%s "
				 "--remote-store='s3://store?endpoint=http://127.0.0.1:%d&timeout=1000' %s",
		      env, tu_segscan(), fx.ndjson, f.port, fx.logdir);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "s3://store/"));
	json_decref(js);
	free(err);

	/* a credentials file others may write is refused (a usage error, before any disk) */
	char creds[4096];
	snprintf(creds, sizeof(creds), "%s/creds", fx.root);
	FILE *cf = fopen(creds, "w");
	fputs("[default]\naws_access_key_id = AKTEST\naws_secret_access_key = SKTEST\n", cf);
	fclose(cf);
	chmod(creds, 0666);
	js = run_json(&rc, &err, "AWS_SHARED_CREDENTIALS_FILE=%s %s audit -q -f json --remote-state=%s "
				 "--remote-store='s3://store?endpoint=http://127.0.0.1:1' %s",
		      creds, tu_segscan(), fx.ndjson, fx.logdir);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "writable by group or others"));
	json_decref(js);
	free(err);
	json_decref(jf);
	free(vf);
	fixture_free(&fx);
}

/* --deep: a .log object read whole through the segment walker */
static void t_deep(void **st)
{
	(void)st;
	char *root = NULL;
	char *logdir = su_gen("store-deep", 1, 1, 4, 64 << 10, 0, false, &root);
	assert_non_null(logdir);
	int ec;
	const char *const kv[] = { "now", NOW, NULL };
	char *rep = su_scan(logdir, SEGSCAN_FMT_JSON, &ec, kv);
	assert_non_null(rep);
	json_t *j = json_loads(rep, 0, NULL);
	free(rep);
	json_t *p = json_array_get(json_object_get(j, "partitions"), 0);
	json_t *sg = json_array_get(json_object_get(p, "segments"), 1);   /* a closed one */
	const char *topic = json_string_value(json_object_get(p, "topic"));
	const char *tid = json_string_value(json_object_get(p, "topic_id"));
	const char *dir = json_string_value(json_object_get(p, "dir"));
	json_int_t base = ival(sg, "base_offset"), last = ival(sg, "last_offset"), size = ival(sg, "size_bytes");
	const char *id = "bCqX9U--S-6U8XUM9II25Q";
	char nd[4096], store[4096], sdir[4200], path[4400], cmd[16384];
	snprintf(nd, sizeof(nd), "%s/remote.ndjson", root);
	FILE *f = fopen(nd, "w");
	fprintf(f, "{\"type\":\"segment\",\"topic\":\"%s\",\"partition\":0,\"topic_id\":\"%s\",\"segment_id\":\"%s\","
		   "\"start_offset\":%lld,\"end_offset\":%lld,\"leader_epochs\":{\"0\":%lld},\"size_bytes\":%lld,"
		   "\"max_timestamp_ms\":1,\"broker_id\":1,\"event_timestamp_ms\":1,\"state\":\"COPY_SEGMENT_STARTED\"}\n"
		   "{\"type\":\"update\",\"topic\":\"%s\",\"partition\":0,\"segment_id\":\"%s\",\"state\":"
		   "\"COPY_SEGMENT_FINISHED\",\"broker_id\":1,\"event_timestamp_ms\":2}\n",
		topic, tid, id, (long long)base, (long long)last, (long long)base, (long long)size, topic, id);
	fclose(f);
	snprintf(store, sizeof(store), "%s/store", root);
	snprintf(sdir, sizeof(sdir), "%s/kafka-tiered-storage/%s-0-%s", store, topic, tid);
	mkdirs(sdir);
	static const char *const ext[] = { ".index", ".timeindex", ".snapshot", ".leader_epoch_checkpoint" };
	for (int e = 0; e < 4; e++) {
		snprintf(path, sizeof(path), "%s/%020lld-%s%s", sdir, (long long)base, id, ext[e]);
		put(path, 8);
	}
	snprintf(path, sizeof(path), "%s/%020lld-%s.log", sdir, (long long)base, id);
	snprintf(cmd, sizeof(cmd), "cp %s/%s/%020lld.log %s", logdir, dir, (long long)base, path);
	assert_int_equal(tu_run(NULL, "%s", cmd), 0);
	char *err = NULL;
	int rc;
	json_t *a = run_json(&rc, &err, "%s audit -q -f json --deep --now=" NOW " --remote-state=%s --remote-store=file://%s %s",
			     tu_segscan(), nd, store, logdir);
	assert_int_equal(rc, 0);
	assert_null(strstr(err, "--deep"));
	json_t *ap = json_array_get(json_object_get(a, "partitions"), 0);
	assert_true(json_is_object(json_object_get(ap, "remote_store")));
	assert_int_equal(json_array_size(json_object_get(a, "errors")), 0);
	json_decref(a);
	free(err);
	/* one byte of a record changed: the batch's CRC fails */
	snprintf(cmd, sizeof(cmd), "printf 'X' | dd of=%s bs=1 seek=%lld conv=notrunc status=none", path,
		 (long long)(size / 2));
	assert_int_equal(tu_run(NULL, "%s", cmd), 0);
	a = run_json(&rc, &err, "%s audit -q -f json --deep --now=" NOW " --remote-state=%s --remote-store=file://%s %s",
		     tu_segscan(), nd, store, logdir);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "--deep"));
	assert_non_null(strstr(err, "CRC"));
	assert_non_null(strstr(err, id));
	json_decref(a);
	free(err);
	/* without --deep nothing of it is read: no error */
	a = run_json(&rc, &err, "%s audit -q -f json --now=" NOW " --remote-state=%s --remote-store=file://%s %s",
		     tu_segscan(), nd, store, logdir);
	assert_int_equal(rc, 0);
	json_decref(a);
	free(err);
	json_decref(j);
	free(logdir);
	free(root);
}

static void t_usage(void **st)
{
	(void)st;
	char *err = NULL;
	int rc;
	json_t *j = run_json(&rc, &err, "%s audit /tmp", tu_segscan());
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "--remote-store=URI is required"));
	json_decref(j);
	free(err);
	j = run_json(&rc, &err, "%s scan --remote-store=ftp://x /tmp", tu_segscan());
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "--remote-store=ftp://x"));
	json_decref(j);
	free(err);
	j = run_json(&rc, &err, "%s scan --remote-layout=bogus /tmp", tu_segscan());
	assert_int_equal(rc, 2);
	json_decref(j);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_file_order), cmocka_unit_test(t_cli_clean_and_damaged), cmocka_unit_test(t_s3),
		cmocka_unit_test(t_deep),          cmocka_unit_test(t_usage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
