/*
 * A small HTTP/1.1 load client for `segscan serve`: N keep-alive connections, one
 * thread each, requests paced on an absolute schedule so the aggregate rate is what was
 * asked (or as fast as possible with rate 0). Every response is checked: status 200, a
 * complete body of Content-Length bytes, and a marker string in it.
 *
 * Used two ways: tests/test_serve.c includes it (SS_LOAD_NO_MAIN) for the bounded load
 * test, and tests/serve_load.sh builds it as a stand-alone tool for measurements:
 *   serve_load HOST PORT PATH CONNS RATE SECONDS [MARKER]
 * A run ends at its duration (ss_load_run, the measurements) or once it has made a
 * number of requests (ss_load_run_n, the test: the same work however loaded the machine,
 * within a guard of time that only a stuck server reaches).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct ss_load_result {
	uint64_t requests;      /* responses received and checked */
	uint64_t errors;        /* failed requests (any reason) */
	uint64_t reconnects;    /* connections the server closed under us */
	uint64_t bytes;         /* body bytes */
	double   seconds;
	double   p50_ms, p99_ms, max_ms;
	char     first_error[256];
};

struct ss_load_conn {
	const struct sockaddr_in *sa;
	const char *path, *marker;
	double      t0, period, offset, end;
	uint64_t    quota;       /* requests to make (0: until end) */
	int         rcv_timeout; /* seconds a response may take (0: 5) */
	int         fd;
	double     *lat;
	size_t      n_lat, cap_lat;
	uint64_t    requests, errors, reconnects, bytes;
	char        first_error[256];
	char       *buf;
	size_t      buf_cap;
};

static double ss_load_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ss_load_err(struct ss_load_conn *c, const char *what)
{
	c->errors++;
	if (!c->first_error[0])
		snprintf(c->first_error, sizeof(c->first_error), "%s", what);
}

static int ss_load_connect(struct ss_load_conn *c)
{
	int one = 1;
	struct timeval tv = { .tv_sec = c->rcv_timeout > 0 ? c->rcv_timeout : 5 };
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(c->fd, (const struct sockaddr *)c->sa, sizeof(*c->sa))) {
		int e = -errno;
		close(c->fd);
		c->fd = -1;
		return e;
	}
	return 0;
}

/* One request/response on the keep-alive connection. 0 ok, 1 the server closed an idle
 * connection before answering (retry on a new one), -1 error (recorded). */
static int ss_load_one(struct ss_load_conn *c)
{
	char req[512];
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: localhost\r\nUser-Agent: segscan-load\r\n\r\n",
			 c->path);
	if (send(c->fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		return 1;
	}
	size_t have = 0, hdr_end = 0, body_len = 0;
	bool got_hdr = false;
	for (;;) {
		if (have + 65536 > c->buf_cap) {
			size_t nc = (have + 65536) * 2;
			char *nb = realloc(c->buf, nc);
			if (!nb) {
				ss_load_err(c, "out of memory");
				return -1;
			}
			c->buf = nb;
			c->buf_cap = nc;
		}
		ssize_t r = recv(c->fd, c->buf + have, c->buf_cap - have - 1, 0);
		if (r == 0 && have == 0)
			return 1;
		if (r <= 0) {
			ss_load_err(c, r == 0 ? "connection closed inside a response" : "recv timed out or failed");
			return -1;
		}
		have += (size_t)r;
		c->buf[have] = 0;
		if (!got_hdr) {
			char *e = strstr(c->buf, "\r\n\r\n");
			if (!e)
				continue;
			hdr_end = (size_t)(e - c->buf) + 4;
			if (strncmp(c->buf, "HTTP/1.1 200 ", 13)) {
				char msg[128];
				snprintf(msg, sizeof(msg), "status line: %.40s", c->buf);
				ss_load_err(c, msg);
				return -1;
			}
			const char *cl = strcasestr(c->buf, "\r\nContent-Length:");
			if (!cl || cl > e) {
				ss_load_err(c, "no Content-Length");
				return -1;
			}
			body_len = strtoull(cl + 17, NULL, 10);
			got_hdr = true;
		}
		if (have >= hdr_end + body_len)
			break;
	}
	if (have != hdr_end + body_len) {
		ss_load_err(c, "bytes beyond the response");
		return -1;
	}
	if (c->marker && !memmem(c->buf + hdr_end, body_len, c->marker, strlen(c->marker))) {
		ss_load_err(c, "marker missing from the body");
		return -1;
	}
	c->bytes += body_len;
	return 0;
}

static void *ss_load_thread(void *p)
{
	struct ss_load_conn *c = p;
	if (ss_load_connect(c)) {
		ss_load_err(c, "connect failed");
		return NULL;
	}
	for (uint64_t k = 0;; k++) {
		double due = c->t0 + c->offset + (double)k * c->period;
		if (c->quota && c->requests + c->errors >= c->quota)
			break;
		if (due >= c->end || (c->quota && ss_load_now() >= c->end)) {
			if (c->quota)
				ss_load_err(c, "the requests were not all answered within the guard");
			break;
		}
		double now = ss_load_now();
		if (c->period > 0 && due > now) {
			double d = due - now;
			struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
			nanosleep(&ts, NULL);
		}
		double start = ss_load_now();
		if (c->period == 0 && start >= c->end)
			break;
		int r = ss_load_one(c);
		if (r == 1) {
			/* an idle keep-alive connection closed by the server: not an error by itself,
			 * but it should not happen within MHD's timeout; counted */
			c->reconnects++;
			close(c->fd);
			if (ss_load_connect(c)) {
				ss_load_err(c, "reconnect failed");
				return NULL;
			}
			r = ss_load_one(c);
			if (r == 1)
				ss_load_err(c, "server closed a fresh connection");
		}
		if (r == -1) {
			close(c->fd);
			if (ss_load_connect(c)) {
				ss_load_err(c, "reconnect after error failed");
				return NULL;
			}
			continue;
		}
		if (r != 0)
			continue;
		c->requests++;
		if (c->n_lat == c->cap_lat) {
			size_t nc = c->cap_lat ? c->cap_lat * 2 : 4096;
			double *nl = realloc(c->lat, nc * sizeof(*nl));
			if (!nl)
				continue;
			c->lat = nl;
			c->cap_lat = nc;
		}
		c->lat[c->n_lat++] = (ss_load_now() - start) * 1e3;
	}
	close(c->fd);
	return NULL;
}

static int ss_load_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* rate 0: as fast as each connection can go. total > 0: that many requests (split over
 * the connections), seconds then only a guard; rcv_timeout: seconds a response may take. */
static int ss_load_run_ex(const char *host, int port, const char *path, unsigned conns, double rate, double seconds,
			  uint64_t total, int rcv_timeout, const char *marker, struct ss_load_result *out)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct ss_load_conn *c = calloc(conns, sizeof(*c));
	pthread_t *th = calloc(conns, sizeof(*th));
	int rc = 0;
	memset(out, 0, sizeof(*out));
	if (!c || !th || inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		free(c);
		free(th);
		return -EINVAL;
	}
	double t0 = ss_load_now() + 0.05;
	double period = rate > 0 ? (double)conns / rate : 0;
	for (unsigned i = 0; i < conns; i++) {
		c[i] = (struct ss_load_conn){ .sa = &sa, .path = path, .marker = marker, .t0 = t0, .period = period,
					      .offset = period * i / conns, .end = t0 + seconds, .fd = -1,
					      .quota = total ? total / conns + (i < total % conns) : 0,
					      .rcv_timeout = rcv_timeout };
		if (pthread_create(&th[i], NULL, ss_load_thread, &c[i])) {
			conns = i;
			rc = -EAGAIN;
			break;
		}
	}
	size_t n_lat = 0;
	for (unsigned i = 0; i < conns; i++) {
		pthread_join(th[i], NULL);
		out->requests += c[i].requests;
		out->errors += c[i].errors;
		out->reconnects += c[i].reconnects;
		out->bytes += c[i].bytes;
		if (!out->first_error[0] && c[i].first_error[0])
			snprintf(out->first_error, sizeof(out->first_error), "%s", c[i].first_error);
		n_lat += c[i].n_lat;
	}
	out->seconds = ss_load_now() - t0;
	double *all = malloc((n_lat ? n_lat : 1) * sizeof(*all));
	size_t k = 0;
	for (unsigned i = 0; i < conns; i++) {
		if (all && c[i].n_lat)
			memcpy(all + k, c[i].lat, c[i].n_lat * sizeof(*all));
		k += c[i].n_lat;
		free(c[i].lat);
		free(c[i].buf);
	}
	if (all && n_lat) {
		qsort(all, n_lat, sizeof(*all), ss_load_cmp);
		out->p50_ms = all[n_lat / 2];
		out->p99_ms = all[(size_t)((double)n_lat * 0.99)];
		out->max_ms = all[n_lat - 1];
	}
	free(all);
	free(c);
	free(th);
	return rc;
}

static __attribute__((unused)) int ss_load_run(const char *host, int port, const char *path, unsigned conns,
						double rate, double seconds, const char *marker,
						struct ss_load_result *out)
{
	return ss_load_run_ex(host, port, path, conns, rate, seconds, 0, 0, marker, out);
}

/* total requests at rate over conns connections, however long they take up to guard_s. */
static __attribute__((unused)) int ss_load_run_n(const char *host, int port, const char *path, unsigned conns,
						  double rate, uint64_t total, double guard_s, int rcv_timeout,
						  const char *marker, struct ss_load_result *out)
{
	return ss_load_run_ex(host, port, path, conns, rate, guard_s, total ? total : 1, rcv_timeout, marker, out);
}

#ifndef SS_LOAD_NO_MAIN
int main(int argc, char **argv)
{
	if (argc < 7) {
		fprintf(stderr, "usage: %s HOST PORT PATH CONNS RATE SECONDS [MARKER]\n", argv[0]);
		return 2;
	}
	struct ss_load_result r;
	if (ss_load_run(argv[1], atoi(argv[2]), argv[3], (unsigned)atoi(argv[4]), atof(argv[5]), atof(argv[6]),
			argc > 7 ? argv[7] : NULL, &r)) {
		fprintf(stderr, "load: bad arguments\n");
		return 2;
	}
	printf("requests=%llu errors=%llu reconnects=%llu seconds=%.2f rate=%.1f/s body_MB=%.1f "
	       "p50_ms=%.3f p99_ms=%.3f max_ms=%.3f%s%s\n",
	       (unsigned long long)r.requests, (unsigned long long)r.errors, (unsigned long long)r.reconnects,
	       r.seconds, r.requests / r.seconds, r.bytes / 1e6, r.p50_ms, r.p99_ms, r.max_ms,
	       r.first_error[0] ? " first_error=" : "", r.first_error);
	return r.errors ? 1 : 0;
}
#endif
