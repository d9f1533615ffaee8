/*
 * A tiny HTTP/1.1 server on 127.0.0.1 for tests (header-only): one thread, one connection
 * at a time, a canned answer per path from a table the test owns; an unknown path is a
 * 404. Never an external host; no clock: th_stop ends it through a pipe.
 *
 *   static const struct th_route routes[] = { { "/metrics", "200 OK", body, len }, ... };
 *   int port = th_start(routes, n);      // -1 when it cannot listen
 *   ... requests to http://127.0.0.1:port/metrics ...
 *   th_stop();
 */
#ifndef SS_TESTS_TINY_HTTPD_H
#define SS_TESTS_TINY_HTTPD_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct th_route {
	const char *path;     /* exact, without the query */
	const char *status;   /* "200 OK" */
	const char *body;
	size_t      len;
};

static struct {
	int                    lfd, stop[2];
	pthread_t              t;
	const struct th_route *routes;
	size_t                 n;
	atomic_int             requests;
} th_ = { .lfd = -1, .stop = { -1, -1 } };

static void th_send_(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void th_one_(int fd)
{
	char req[8192];
	size_t n = 0;
	while (n < sizeof(req) - 1 && !memmem(req, n, "\r\n\r\n", 4)) {
		ssize_t r = recv(fd, req + n, sizeof(req) - 1 - n, 0);
		if (r <= 0)
			return;
		n += (size_t)r;
	}
	req[n] = 0;
	atomic_fetch_add(&th_.requests, 1);
	const char *p = strchr(req, ' ');
	p = p ? p + 1 : "";
	size_t pl = strcspn(p, " ?");
	const struct th_route *hit = NULL;
	for (size_t i = 0; i < th_.n && !hit; i++)
		if (strlen(th_.routes[i].path) == pl && !memcmp(th_.routes[i].path, p, pl))
			hit = &th_.routes[i];
	static const struct th_route nf = { "", "404 Not Found", "not found\n", 10 };
	if (!hit)
		hit = &nf;
	char h[256];
	int hl = snprintf(h, sizeof(h),
			  "HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
			  "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			  hit->status, hit->len);
	th_send_(fd, h, (size_t)hl);
	th_send_(fd, hit->body, hit->len);
}

static void *th_main_(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p[2] = { { .fd = th_.lfd, .events = POLLIN }, { .fd = th_.stop[0], .events = POLLIN } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (p[1].revents)
			return NULL;
		int fd = accept(th_.lfd, NULL, NULL);
		if (fd < 0)
			continue;
		th_one_(fd);
		close(fd);
	}
}

static int th_start(const struct th_route *routes, size_t n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	th_.routes = routes;
	th_.n = n;
	th_.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (th_.lfd < 0 || bind(th_.lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(th_.lfd, 16) ||
	    getsockname(th_.lfd, (struct sockaddr *)&sa, &sl) || pipe(th_.stop) ||
	    pthread_create(&th_.t, NULL, th_main_, NULL))
		return -1;
	return ntohs(sa.sin_port);
}

static void th_stop(void)
{
	if (write(th_.stop[1], "x", 1) == 1)
		pthread_join(th_.t, NULL);
	close(th_.lfd);
	close(th_.stop[0]);
	close(th_.stop[1]);
	th_.lfd = th_.stop[0] = th_.stop[1] = -1;
}

#endif
