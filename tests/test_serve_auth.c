/*
 * serve's basic auth under attack (issue 21 item 7), in process: the HTTP server of
 * src/service/http.c with a --web.config.file's users, a published scan, and raw HTTP
 * clients from chosen loopback source addresses.
 *
 * crypt_r is interposed here (this file's definition wins over libcrypt's for the
 * library linked into this binary): a verification of the password "block-me" waits
 * inside crypt_r until the test lets it go. While it waits, a bcrypt is provably in
 * progress; what the server answers meanwhile is then a fact about its structure, not a
 * matter of timing. Every wait has a generous bound (2 minutes, more under sanitizers) that
 * only a broken server reaches.
 *
 * Checked:
 *   - a known-good client's scrape completes while a verification is in progress, and
 *     a second guess from the guessing address is refused at once, not queued;
 *   - a flood of wrong guesses for every user from one address does not lock out the
 *     right passwords from another (the budget is per client address);
 *   - hashes of a cost above SS_WEB_BCRYPT_MAX_COST (cost 31, 13), below bcrypt's
 *     minimum, or malformed are refused at load, naming FILE:LINE.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"
#include "service/serve.h"
#include "service/webconfig.h"

/* ---- the interposed crypt_r ------------------------------------------------------- */

#define BLOCK_PASS "block-me"

static pthread_mutex_t hook_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hook_cv = PTHREAD_COND_INITIALIZER;
static bool hook_inside;   /* hook_mu: a crypt_r of BLOCK_PASS has started and waits */
static bool hook_release;  /* hook_mu: let it (and any later one) go */
static atomic_uint hook_calls;

typedef char *(*crypt_r_fn)(const char *, const char *, struct crypt_data *);
static crypt_r_fn real_crypt_r;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void find_real(void)
{
	real_crypt_r = (crypt_r_fn)dlsym(RTLD_NEXT, "crypt_r");
}

char *crypt_r(const char *phrase, const char *setting, struct crypt_data *data)
{
	pthread_once(&real_once, find_real);
	atomic_fetch_add_explicit(&hook_calls, 1, memory_order_relaxed);
	if (!strcmp(phrase, BLOCK_PASS)) {
		pthread_mutex_lock(&hook_mu);
		hook_inside = true;
		pthread_cond_broadcast(&hook_cv);
		while (!hook_release)
			pthread_cond_wait(&hook_cv, &hook_mu);
		pthread_mutex_unlock(&hook_mu);
	}
	return real_crypt_r(phrase, setting, data);
}

static double bound_s(void)
{
	const char *s = getenv("SEGSCAN");
	return s && (strstr(s, "asan") || strstr(s, "tsan")) ? 480.0 : 120.0;
}

/* ---- a server in this process ----------------------------------------------------- */

struct fixture {
	char                *root, *ld;
	struct ss_web_config web;
	struct ss_pub       *pub;
	struct ss_http      *http;
	int                  port;
};

static char *bcrypt_of(const char *pass, int cost)
{
	char salt[64];
	struct crypt_data cd;
	memset(&cd, 0, sizeof(cd));
	assert_non_null(crypt_gensalt_rn("$2b$", (unsigned long)cost, NULL, 0, salt, sizeof(salt)));
	const char *h = crypt_r(pass, salt, &cd);
	assert_non_null(h);
	assert_int_equal(strlen(h), 60);
	return strdup(h);
}

/* users[i] with password passes[i], cost 4 (the checks are about who waits for what, not
 * about the cost) */
static void start(struct fixture *f, const char *const *users, const char *const *passes, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->ld = su_gen("serve-auth", 1, 2, 2, 16384, 0, false, &f->root);
	assert_non_null(f->ld);
	char *text = strdup("basic_auth_users:\n"), err[512];
	for (size_t i = 0; i < n; i++) {
		char *h = bcrypt_of(passes[i], 4), *t2 = NULL;
		assert_true(asprintf(&t2, "%s  %s: %s\n", text, users[i], h) > 0);
		free(text);
		free(h);
		text = t2;
	}
	assert_int_equal(ss_web_config_parse(text, strlen(text), "web.yml", &f->web, err, sizeof(err)), 0);
	free(text);

	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set(s, "quiet", "true"), 0);
	assert_int_equal(segscan_add_logdir(s, f->ld), 0);
	assert_int_equal(segscan_run(s), 0);
	assert_int_equal(ss_pub_new(&f->pub), 0);
	assert_int_equal(ss_pub_publish(f->pub, s, ss_pub_begin_scan(f->pub)), 0); /* owns s */

	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = 0 };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (ss_http_start_web(&f->http, (struct sockaddr *)&sa, sizeof(sa), f->pub, &f->web, err, sizeof(err)))
		fail_msg("start: %s", err);
	f->port = ss_http_port(f->http);
	assert_true(f->port > 0);
}

static void stop(struct fixture *f)
{
	ss_http_stop(f->http);
	ss_pub_free(f->pub);
	ss_web_config_free(&f->web);
	tu_run(NULL, "rm -rf '%s'", f->root);
	free(f->ld);
	free(f->root);
}

static void b64(const char *in, char *out)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(in), o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)in[i] << 16 | (i + 1 < n ? (unsigned char)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? (unsigned char)in[i + 2] : 0);
		out[o++] = al[v >> 18 & 63];
		out[o++] = al[v >> 12 & 63];
		out[o++] = i + 1 < n ? al[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? al[v & 63] : '=';
	}
	out[o] = 0;
}

/* GET path as user:pass from the loopback address src; the status, or -1 when no answer
 * came within the bound. */
static int get_as(int port, const char *src, const char *path, const char *user, const char *pass)
{
	char cred[256], enc[400], req[1024];
	snprintf(cred, sizeof(cred), "%s:%s", user, pass);
	b64(cred, enc);
	int n = snprintf(req, sizeof(req),
			 "GET %s HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic %s\r\nConnection: close\r\n\r\n", path,
			 enc);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_in me = { .sin_family = AF_INET }, to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, src, &me.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	struct timeval tv = { .tv_sec = (time_t)bound_s() };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0);
	assert_int_equal(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
	char buf[64] = "";
	size_t got = 0;
	while (got < 12) {
		ssize_t r = recv(fd, buf + got, sizeof(buf) - 1 - got, 0);
		/* the server's own threads live in this process and a signal meant for one of
		 * them can land here: with SO_RCVTIMEO set, recv(2) is then never restarted */
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = 0;
	return got >= 12 && !strncmp(buf, "HTTP/1.", 7) ? atoi(buf + 9) : -1;
}

struct guess {
	int         port;
	const char *src, *user, *pass;
	int         status;
};

static void *guess_main(void *arg)
{
	struct guess *g = arg;
	g->status = get_as(g->port, g->src, "/metrics", g->user, g->pass);
	return NULL;
}

/* ---- the tests -------------------------------------------------------------------- */

/* A bcrypt in progress (held inside crypt_r) does not hold up a scrape whose password is
 * known good: on the old code the verification ran on MHD's one polling thread, and this
 * scrape waited for it (1-2 s per guess under a flood, 2.7 s per cost-16 guess). */
static void test_scrape_not_behind_bcrypt(void **state)
{
	static const char *const users[] = { "prometheus" }, *const passes[] = { "hunter2" };
	struct fixture f;
	start(&f, users, passes, 1);
	/* first: the right password, verified once (crypt_r not held for it) */
	assert_int_equal(get_as(f.port, "127.0.0.1", "/metrics", "prometheus", "hunter2"), 200);
	unsigned calls = atomic_load(&hook_calls);

	/* a guess whose verification is held inside crypt_r */
	struct guess g = { f.port, "127.0.0.1", "prometheus", BLOCK_PASS, 0 };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, guess_main, &g), 0); /* joined below */
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += (time_t)bound_s();
	pthread_mutex_lock(&hook_mu);
	while (!hook_inside)
		if (pthread_cond_timedwait(&hook_cv, &hook_mu, &dl) == ETIMEDOUT)
			break;
	bool inside = hook_inside;
	pthread_mutex_unlock(&hook_mu);
	assert_true(inside);

	/* the verification is in progress and cannot end before we release it: the known-good
	 * scrapes are answered now, from the guesser's own address too */
	assert_int_equal(get_as(f.port, "127.0.0.1", "/metrics", "prometheus", "hunter2"), 200);
	assert_int_equal(get_as(f.port, "127.0.0.2", "/healthz", "prometheus", "hunter2"), 200);
	assert_int_equal(get_as(f.port, "127.0.0.1", "/v1/partitions", "prometheus", "hunter2"), 200);
	/* another guess from the guessing address: refused at once (one verification at a
	 * time per client), not queued behind the one held */
	assert_int_equal(get_as(f.port, "127.0.0.1", "/metrics", "prometheus", "wrong"), 401);
	pthread_mutex_lock(&hook_mu);
	assert_true(hook_inside && !hook_release); /* still held: all of the above came meanwhile */
	hook_release = true;
	pthread_cond_broadcast(&hook_cv);
	pthread_mutex_unlock(&hook_mu);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(g.status, 401); /* the held guess, once verified, is refused */
	/* no bcrypt was paid for the known-good scrapes nor the refused guess: the held one only */
	assert_int_equal(atomic_load(&hook_calls), calls + 1);
	stop(&f);
}

struct flood {
	int         port;
	const char *const *users;
	size_t      n_users;
	atomic_bool stop;
	atomic_uint sent, accepted;
};

static void *flood_main(void *arg)
{
	struct flood *fl = arg;
	for (unsigned i = 0; !atomic_load_explicit(&fl->stop, memory_order_acquire); i++) {
		int st = get_as(fl->port, "127.0.0.1", "/metrics", fl->users[i % fl->n_users], "guess");
		atomic_fetch_add(&fl->sent, 1);
		if (st == 200)
			atomic_fetch_add(&fl->accepted, 1);
	}
	return NULL;
}

/* A guesser flooding wrong passwords for every user from one address does not get the
 * right passwords refused from another (the old budget was global: 401 in 10 of 10
 * runs). Each right password is a first verification (none is remembered yet), so each
 * needs a budget the flood has been spending all along. */
static void test_guesser_does_not_lock_out(void **state)
{
	static const char *const users[] = { "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7" };
	static const char *const passes[] = { "p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7" };
	_Static_assert(sizeof(users) / sizeof(users[0]) <= SS_WEB_BCRYPT_PER_SEC,
		       "within one address's budget even if all fall in one second");
	struct fixture f;
	start(&f, users, passes, 8);
	struct flood fl = { .port = f.port, .users = users, .n_users = 8 };
	atomic_init(&fl.stop, false);
	atomic_init(&fl.sent, 0);
	atomic_init(&fl.accepted, 0);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, flood_main, &fl), 0); /* joined below */
	/* the flood under way: 50 guesses answered (far past any one second's budget) */
	double t0 = (double)time(NULL);
	while (atomic_load(&fl.sent) < 50 && (double)time(NULL) - t0 < bound_s())
		sched_yield();
	assert_true(atomic_load(&fl.sent) >= 50);
	for (size_t i = 0; i < 8; i++) {
		int st = get_as(f.port, "127.0.0.2", "/metrics", users[i], passes[i]);
		if (st != 200)
			fail_msg("%s's right password from 127.0.0.2 during the flood: %d, want 200", users[i], st);
	}
	atomic_store_explicit(&fl.stop, true, memory_order_release);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(atomic_load(&fl.accepted), 0);
	stop(&f);
}

/* Costs are checked at load: cost 31 is days per verification. */
static void test_cost_limits(void **state)
{
	char *ok12 = bcrypt_of("pw", 12), *ok4 = bcrypt_of("pw", 4), text[512], err[512];
	struct {
		const char *hash;
		const char *want; /* NULL: accepted */
	} cases[] = {
		{ ok12, NULL },
		{ ok4, NULL },
		{ "$2b$31$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234", "bcrypt cost 31 is above the maximum of 12" },
		{ "$2y$13$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234", "bcrypt cost 13 is above the maximum of 12" },
		{ "$2a$03$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234", "below bcrypt's minimum of 4" },
		{ "$2b$10$short", "a bcrypt hash is 60 characters" },
		{ "$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ0123!", "only ./A-Za-z0-9" },
		{ "$2b$1x$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234", "expected a bcrypt hash" },
		{ "$1$md5$whatever", "expected a bcrypt hash" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ss_web_config c;
		memset(&c, 0, sizeof(c));
		int n = snprintf(text, sizeof(text), "# users\nbasic_auth_users:\n  alice: %s\n", cases[i].hash);
		err[0] = 0;
		int r = ss_web_config_parse(text, (size_t)n, "web.yml", &c, err, sizeof(err));
		if (!cases[i].want) {
			if (r)
				fail_msg("%s refused: %s", cases[i].hash, err);
		} else {
			if (r != SEGSCAN_ECONFIG || !strstr(err, cases[i].want) || strncmp(err, "web.yml:3: ", 11))
				fail_msg("%s: %d \"%s\", want web.yml:3: ...%s", cases[i].hash, r, err, cases[i].want);
		}
		ss_web_config_free(&c);
	}
	/* the binary: exit 2 at startup, the file and line named */
	char *root = tu_mkdtemp("serve-auth-cost"), cfg[600], *out = NULL;
	assert_non_null(root);
	snprintf(cfg, sizeof(cfg), "%s/web.yml", root);
	int n = snprintf(text, sizeof(text), "basic_auth_users:\n  alice: %s\n", cases[2].hash);
	assert_int_equal(tu_write_file(cfg, text, (size_t)n), 0);
	assert_int_equal(tu_run(&out, "%s serve --listen=127.0.0.1:1 --web.config.file=%s %s 2>&1", tu_segscan(), cfg,
				root), 2);
	char want[700];
	snprintf(want, sizeof(want), "%s:2: user \"alice\": bcrypt cost 31 is above the maximum of 12", cfg);
	if (!strstr(out, want))
		fail_msg("serve with a cost-31 hash: %s", out);
	free(out);
	/* --once checks the file too: a bad hash is reported by the dry run that should catch
	 * it, not first when serve listens (it exited 0 and printed the metrics) */
	out = NULL;
	assert_int_equal(tu_run(&out, "%s serve --once --web.config.file=%s %s 2>&1", tu_segscan(), cfg, root), 2);
	if (!strstr(out, want))
		fail_msg("serve --once with a cost-31 hash: %s", out);
	free(out);
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
	free(ok12);
	free(ok4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_limits),
		cmocka_unit_test(test_guesser_does_not_lock_out),
		/* last: it leaves crypt_r released, which the others do not need */
		cmocka_unit_test(test_scrape_not_behind_bcrypt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
