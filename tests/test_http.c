/*
 * The one HTTP client (source/http.h) against a tiny server this test runs on 127.0.0.1
 * (a thread, one connection at a time, canned answers by path): the body and its bound, a
 * redirect returned and not followed, the total deadline against a server that never
 * answers, cancellation, basic_auth from an http.config, credentials in a URL refused and
 * never in a message, the streaming sink (a 200's body only), HEAD's Content-Length.
 * Nothing waits on a clock: the server answers or holds the connection until the client
 * goes, and every bound is what the test asks for.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "fmt/httpconf.h"
#include "source/http.h"

static int g_lfd = -1, g_port, g_stop_fd[2] = { -1, -1 };
static pthread_t g_srv;
static atomic_int g_requests;

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void answer(int fd, const char *status, const char *extra, const char *body, size_t blen)
{
	char h[512];
	int n = snprintf(h, sizeof(h), "HTTP/1.1 %s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n", status, blen,
			 extra ? extra : "");
	send_all(fd, h, (size_t)n);
	if (body)
		send_all(fd, body, blen);
}

/* hold: keep the connection open, answer nothing, until the client closes or the test ends */
static void hold(int fd)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = g_stop_fd[0], .events = POLLIN } };
	char b[256];
	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return;
		if (p[1].revents)
			return;
		if (p[0].revents && recv(fd, b, sizeof(b), 0) <= 0)
			return;
	}
}

static void serve_one(int fd)
{
	char req[4096];
	size_t n = 0;
	while (n < sizeof(req) - 1 && !memmem(req, n, "\r\n\r\n", 4)) {
		ssize_t r = recv(fd, req + n, sizeof(req) - 1 - n, 0);
		if (r <= 0)
			return;
		n += (size_t)r;
	}
	req[n] = 0;
	atomic_fetch_add(&g_requests, 1);
	bool head = !strncmp(req, "HEAD ", 5);
	const char *path = strchr(req, ' ');
	path = path ? path + 1 : "";
	if (!strncmp(path, "/ok ", 4)) {
		answer(fd, "200 OK", "Content-Type: text/plain; version=0.0.4\r\n", head ? NULL : "hello", 5);
	} else if (!strncmp(path, "/big ", 5)) {
		static char big[100000];
		memset(big, 'x', sizeof(big));
		answer(fd, "200 OK", NULL, big, sizeof(big));
	} else if (!strncmp(path, "/redirect ", 10)) {
		answer(fd, "302 Found", "Location: http://other.invalid/ok\r\n", "", 0);
	} else if (!strncmp(path, "/hold ", 6)) {
		hold(fd);
	} else if (!strncmp(path, "/auth ", 6)) {
		/* alice:hunter2 */
		if (strstr(req, "Authorization: Basic YWxpY2U6aHVudGVyMg==\r\n"))
			answer(fd, "200 OK", NULL, "welcome", 7);
		else
			answer(fd, "401 Unauthorized", NULL, "no", 2);
	} else if (!strncmp(path, "/missing ", 9)) {
		answer(fd, "404 Not Found", NULL, "<Error>gone</Error>", 19);
	} else {
		answer(fd, "400 Bad Request", NULL, "", 0);
	}
}

static void *server_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p[2] = { { .fd = g_lfd, .events = POLLIN }, { .fd = g_stop_fd[0], .events = POLLIN } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (p[1].revents)
			return NULL;
		int fd = accept(g_lfd, NULL, NULL);
		if (fd < 0)
			continue;
		serve_one(fd);
		close(fd);
	}
}

static int setup(void **state)
{
	(void)state;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	g_lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (g_lfd < 0 || bind(g_lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(g_lfd, 16) ||
	    getsockname(g_lfd, (struct sockaddr *)&sa, &sl) || pipe(g_stop_fd))
		return -1;
	g_port = ntohs(sa.sin_port);
	return pthread_create(&g_srv, NULL, server_main, NULL) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	if (write(g_stop_fd[1], "x", 1) != 1)
		return -1;
	pthread_join(g_srv, NULL);
	close(g_lfd);
	close(g_stop_fd[0]);
	close(g_stop_fd[1]);
	return 0;
}

static char *url(const char *path)
{
	static char u[4][128];
	static int i;
	i = (i + 1) % 4;
	snprintf(u[i], sizeof(u[i]), "http://127.0.0.1:%d%s", g_port, path);
	return u[i];
}

static void test_body_and_status(void **state)
{
	(void)state;
	struct ss_http_resp resp;
	char err[512];
	struct ss_http_req q = { .url = url("/ok"), .timeout_ms = 60000 };
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(resp.status, 200);
	assert_int_equal(resp.len, 5);
	assert_string_equal(resp.body, "hello");
	assert_int_equal(resp.content_length, 5);
	ss_http_resp_free(&resp);
	/* a status other than 200 is a response: the caller decides */
	q.url = url("/missing");
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(resp.status, 404);
	assert_string_equal(resp.body, "<Error>gone</Error>");
	ss_http_resp_free(&resp);
	/* HEAD: the length, no body */
	q.url = url("/ok");
	q.head = true;
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(resp.status, 200);
	assert_int_equal(resp.content_length, 5);
	assert_int_equal(resp.len, 0);
	ss_http_resp_free(&resp);
}

static void test_bound(void **state)
{
	(void)state;
	struct ss_http_resp resp;
	char err[512];
	struct ss_http_req q = { .url = url("/big"), .timeout_ms = 60000, .max_bytes = 1000 };
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, "larger than 1000 bytes"));
	assert_true(resp.len <= 1000);
	ss_http_resp_free(&resp);
	q.max_bytes = 100000;
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(resp.len, 100000);
	ss_http_resp_free(&resp);
}

static void test_no_redirect(void **state)
{
	(void)state;
	struct ss_http_resp resp;
	char err[512];
	int before = atomic_load(&g_requests);
	struct ss_http_req q = { .url = url("/redirect"), .timeout_ms = 60000 };
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(resp.status, 302);
	assert_int_equal(atomic_load(&g_requests), before + 1);
	ss_http_resp_free(&resp);
}

static void test_deadline(void **state)
{
	(void)state;
	struct ss_http_resp resp;
	char err[512];
	struct ss_http_req q = { .url = url("/hold"), .timeout_ms = 300 };
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), -ETIMEDOUT);
	assert_non_null(strstr(err, "127.0.0.1"));
	assert_null(resp.body);
}

static atomic_int g_polls;
static bool cancel_after_some(void *arg)
{
	(void)arg;
	return atomic_fetch_add(&g_polls, 1) >= 1;
}

static void test_cancel(void **state)
{
	(void)state;
	struct ss_http_resp resp;
	char err[512];
	/* the deadline is far: only the cancellation can end it */
	struct ss_http_req q = { .url = url("/hold"), .timeout_ms = 600000, .cancelled = cancel_after_some };
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), -ECANCELED);
	assert_true(atomic_load(&g_polls) >= 2);
}

static void test_basic_auth(void **state)
{
	(void)state;
	struct ss_http_resp resp;
	char err[512];
	struct ss_httpconf hc = { .username = (char *)"alice", .password = (char *)"hunter2" };
	struct ss_http_req q = { .url = url("/auth"), .timeout_ms = 60000, .conf = &hc };
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(resp.status, 200);
	ss_http_resp_free(&resp);
	q.conf = NULL;
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(resp.status, 401);
	ss_http_resp_free(&resp);
}

static void test_refused_urls(void **state)
{
	(void)state;
	struct ss_http_resp resp;
	char err[512];
	int before = atomic_load(&g_requests);
	char u[128];
	snprintf(u, sizeof(u), "http://alice:s3cret@127.0.0.1:%d/ok", g_port);
	struct ss_http_req q = { .url = u, .timeout_ms = 60000 };
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), -EINVAL);
	assert_null(strstr(err, "s3cret"));
	assert_non_null(strstr(err, "credentials"));
	q.url = "ftp://127.0.0.1/x";
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), -EINVAL);
	q.url = "file:///etc/passwd";
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), -EINVAL);
	assert_int_equal(atomic_load(&g_requests), before);
	char *d = ss_http_display(u);
	assert_non_null(d);
	assert_null(strstr(d, "s3cret"));
	assert_null(strstr(d, "alice"));
	assert_non_null(strstr(d, "127.0.0.1"));
	free(d);
	d = ss_http_display("not a url \x1b[2J with@at");
	assert_non_null(d);
	assert_null(strchr(d, '\x1b'));
	free(d);
}

struct sunk {
	char   buf[64];
	size_t n;
};
static int sink(void *arg, const void *p, size_t n)
{
	struct sunk *s = arg;
	if (s->n + n > sizeof(s->buf))
		return -ENOSPC;
	memcpy(s->buf + s->n, p, n);
	s->n += n;
	return 0;
}

static void test_sink(void **state)
{
	(void)state;
	struct ss_http_resp resp;
	char err[512];
	struct sunk s = { .n = 0 };
	struct ss_http_req q = { .url = url("/ok"), .timeout_ms = 60000, .sink = sink, .sink_arg = &s };
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(s.n, 5);
	assert_memory_equal(s.buf, "hello", 5);
	assert_null(resp.body);
	/* another status's body is kept, not sunk */
	s.n = 0;
	q.url = url("/missing");
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
	assert_string_equal(resp.body, "<Error>gone</Error>");
	ss_http_resp_free(&resp);
	/* the sink's stop */
	q.url = url("/big");
	assert_int_equal(ss_http_get1(&q, &resp, err, sizeof(err)), 0);
	assert_int_equal(resp.sink_r, -ENOSPC);
	ss_http_resp_free(&resp);
}

/* one handle, several requests (S3's connection reuse): each answer its own */
static void test_reuse(void **state)
{
	(void)state;
	struct ss_http *h;
	char err[512];
	assert_int_equal(ss_http_open(&h, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++) {
		struct ss_http_resp resp;
		struct ss_http_req q = { .url = url(i == 1 ? "/missing" : "/ok"), .timeout_ms = 60000 };
		assert_int_equal(ss_http_get(h, &q, &resp, err, sizeof(err)), 0);
		assert_int_equal(resp.status, i == 1 ? 404 : 200);
		ss_http_resp_free(&resp);
	}
	ss_http_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_and_status),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_no_redirect),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_basic_auth),
		cmocka_unit_test(test_refused_urls),
		cmocka_unit_test(test_sink),
		cmocka_unit_test(test_reuse),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
