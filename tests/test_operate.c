/*
 * What an operator installs beside the binary (issue 11): the default port, the
 * sd_notify protocol and serve's use of it under a watchdog, gzip for /metrics, and
 * tests/operate.sh's checks of the man pages, the shell completions, the systemd unit
 * (verify, exposure <= 2.0), the Prometheus rules (promtool), the exposition (promtool
 * check metrics, plain and gzip) and the Grafana dashboard.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "service/gzip.h"
#include "service/notify.h"
#include "service/serve.h"
#include "testutil.h"

/* ---- the default port ---------------------------------------------------------------- */

static void test_default_port(void **state)
{
	struct sockaddr_storage sa;
	socklen_t len;
	assert_int_equal(ss_parse_listen(SS_SERVE_DEFAULT_LISTEN, &sa, &len), 0);
	assert_int_equal(sa.ss_family, AF_INET);
	const struct sockaddr_in *in = (const struct sockaddr_in *)&sa;
	/* loopback unless told otherwise */
	assert_int_equal(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK);
	unsigned port = ntohs(in->sin_port);
	/* the contract's list (OpenTelemetry's Prometheus exporter, kafka_exporter,
	 * node_exporter, the JMX exporter), Kafka's own listeners, controller and JMX, and
	 * Prometheus, Alertmanager and the Pushgateway */
	const unsigned taken[] = { 9464, 9308, 9100, 7071, 9404, 9092, 9093, 9094, 9999, 9090, 9091, 2181 };
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		assert_int_not_equal(port, taken[i]);
	/* outside Prometheus' (full) exporter range and the kernel's ephemeral ports */
	assert_true(port < 9100 || port > 9999);
	assert_true(port < 32768);
}

/* ---- sd_notify ----------------------------------------------------------------------- */

/* A datagram socket at a fresh path (or an abstract name) that ss_notify can reach. */
static int notify_listener(char *name, size_t cap, bool abstract)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (abstract) {
		snprintf(name, cap, "@segscan-test-notify-%d-%ld", (int)getpid(), (long)random());
		memcpy(sa.sun_path, name, strlen(name));
		sa.sun_path[0] = 0;
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
	} else {
		char *d = tu_mkdtemp("notify");
		if (!d) {
			close(fd);
			return -ENOMEM;
		}
		snprintf(name, cap, "%s/notify.sock", d);
		free(d);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", name);
		len = sizeof(sa);
	}
	if (bind(fd, (struct sockaddr *)&sa, len)) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/* The next datagram within ms milliseconds into buf, or "" on a timeout. */
static void recv_msg(int fd, char *buf, size_t cap, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	buf[0] = 0;
	if (poll(&p, 1, ms) != 1)
		return;
	ssize_t n = recv(fd, buf, cap - 1, 0);
	buf[n > 0 ? n : 0] = 0;
}

static void test_notify_protocol(void **state)
{
	char name[256], buf[512];
	for (int abstract = 0; abstract <= 1; abstract++) {
		int fd = notify_listener(name, sizeof(name), abstract);
		assert_true(fd >= 0);
		assert_int_equal(setenv("NOTIFY_SOCKET", name, 1), 0);
		assert_true(ss_notify("READY=1\nSTATUS=testing") > 0);
		recv_msg(fd, buf, sizeof(buf), 1000);
		assert_string_equal(buf, "READY=1\nSTATUS=testing");
		assert_true(ss_notify("WATCHDOG=1") > 0);
		recv_msg(fd, buf, sizeof(buf), 1000);
		assert_string_equal(buf, "WATCHDOG=1");
		close(fd);
		if (!abstract)
			unlink(name);
	}
	/* outside systemd: nothing to send, not an error */
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(ss_notify("READY=1"), 0);

	/* the watchdog interval, for this process only */
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	assert_int_equal(ss_notify_watchdog_usec(), 0);
	setenv("WATCHDOG_USEC", "2500000", 1);
	assert_int_equal(ss_notify_watchdog_usec(), 2500000);
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(ss_notify_watchdog_usec(), 2500000);
	setenv("WATCHDOG_PID", "1", 1); /* meant for another process */
	assert_int_equal(ss_notify_watchdog_usec(), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "12x", 1);
	assert_int_equal(ss_notify_watchdog_usec(), 0);
	unsetenv("WATCHDOG_USEC");
}

/* serve under Type=notify with a watchdog: READY once it listens, STATUS after the first
 * publication, WATCHDOG pings at half the interval, STOPPING on SIGTERM. */
static void test_serve_notifies(void **state)
{
	const char *bin = getenv("SEGSCAN");
	assert_non_null(bin);
	char *dir = tu_mkdtemp("serve-notify"), cmd[1024], name[256], buf[512], listen[64];
	assert_non_null(dir);
	snprintf(cmd, sizeof(cmd), "'%s' gen '%s/ld' --topics=2 --partitions=2 --segments=3 --segment-bytes=64KiB -q",
		 bin, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/ld", dir);
	int fd = notify_listener(name, sizeof(name), false);
	assert_true(fd >= 0);

	/* every wait is for a message, bounded by a hang guard of minutes */
	const double guard = tu_guard_s(120);
	pid_t pid = -1;
	buf[0] = 0;
	for (int attempt = 0; attempt < 5 && !strstr(buf, "READY=1"); attempt++) {
		/* a port free now; if another process takes it first, serve exits: again */
		snprintf(listen, sizeof(listen), "--listen=127.0.0.1:%d", tu_free_port());
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			setenv("NOTIFY_SOCKET", name, 1);
			setenv("WATCHDOG_USEC", "200000", 1);
			unsetenv("WATCHDOG_PID");
			int devnull = open("/dev/null", O_WRONLY);
			dup2(devnull, 2);
			execl(bin, bin, "serve", listen, "--interval=60", cmd, (char *)NULL);
			_exit(127);
		}
		double end = tu_now() + guard;
		int st;
		do
			recv_msg(fd, buf, sizeof(buf), 100);
		while (!strstr(buf, "READY=1") && waitpid(pid, &st, WNOHANG) == 0 && tu_now() < end);
		if (!strstr(buf, "READY=1")) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	if (!strstr(buf, "READY=1"))
		fail_msg("no READY=1 from serve within %.0f s", guard);
	bool status = false;
	int pings = 0;
	double end = tu_now() + guard;
	do {
		recv_msg(fd, buf, sizeof(buf), 1000);
		status |= !strncmp(buf, "STATUS=generation 1: 4 partitions", 33);
		pings += !strcmp(buf, "WATCHDOG=1");
	} while ((!status || pings < 3) && tu_now() < end);
	if (!status || pings < 3)
		fail_msg("in %.0f s: %s STATUS of the first publication, %d WATCHDOG pings (want 3)", guard,
			 status ? "a" : "no", pings);
	kill(pid, SIGTERM);
	bool stopping = false;
	end = tu_now() + guard;
	while (!stopping && tu_now() < end) {
		recv_msg(fd, buf, sizeof(buf), 200);
		stopping = !strcmp(buf, "STOPPING=1");
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(stopping);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(fd);
	unlink(name);
	free(dir);
}

/* ---- gzip ---------------------------------------------------------------------------- */

static void test_accepts_gzip(void **state)
{
	assert_false(ss_accepts_gzip(NULL));
	assert_false(ss_accepts_gzip(""));
	assert_false(ss_accepts_gzip("identity"));
	assert_false(ss_accepts_gzip("deflate, br"));
	assert_true(ss_accepts_gzip("gzip"));
	assert_true(ss_accepts_gzip("GZip"));
	assert_true(ss_accepts_gzip("x-gzip"));
	assert_true(ss_accepts_gzip("deflate, gzip;q=0.5"));
	assert_true(ss_accepts_gzip("br;q=1.0, gzip; q=0.8, *;q=0.1"));
	assert_false(ss_accepts_gzip("gzip;q=0"));
	assert_false(ss_accepts_gzip("gzip;q=0.0, identity"));
	assert_true(ss_accepts_gzip("*"));
	assert_false(ss_accepts_gzip("*;q=0"));
	assert_false(ss_accepts_gzip("gzip;q=0, *")); /* gzip named: its own q decides */
	assert_false(ss_accepts_gzip("gzipx"));
}

static void test_gzip_roundtrip(void **state)
{
	/* an exposition-like body, large enough to need several deflate blocks */
	size_t len = 0, cap = 1 << 20;
	char *in = malloc(cap), *gz = NULL, *back = malloc(cap);
	assert_non_null(in);
	assert_non_null(back);
	for (int i = 0; len + 128 < cap; i++)
		len += (size_t)snprintf(in + len, cap - len,
					"segscan_log_size_bytes{topic=\"t%d\",partition=\"%d\",log_dir=\"/d\"} %d\n", i / 7,
					i % 7, i * 7919);
	size_t gz_len = 0;
	assert_int_equal(ss_gzip(in, len, &gz, &gz_len), 0);
	assert_true(gz_len > 18 && gz_len < len / 4);
	assert_int_equal((unsigned char)gz[0], 0x1f); /* RFC 1952 magic */
	assert_int_equal((unsigned char)gz[1], 0x8b);
	z_stream z = { 0 };
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gz_len;
	z.next_out = (Bytef *)back;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.total_out, len);
	assert_memory_equal(back, in, len);
	inflateEnd(&z);
	free(gz);
	/* an empty body is a valid, empty gzip member */
	assert_int_equal(ss_gzip("", 0, &gz, &gz_len), 0);
	assert_true(gz_len >= 18);
	free(gz);
	free(in);
	free(back);
}

/* ---- tests/operate.sh ------------------------------------------------------------------ */

static void run_check(const char *check)
{
	const char *bin = getenv("SEGSCAN");
	char cmd[1024];
	assert_non_null(bin);
	snprintf(cmd, sizeof(cmd), "bash tests/operate.sh %s '%s'", check, bin);
	int st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_man_pages(void **state) { run_check("man"); }
static void test_completions(void **state) { run_check("completions"); }
static void test_systemd_unit(void **state) { run_check("unit"); }
static void test_prometheus_rules(void **state) { run_check("rules"); }
static void test_exposition(void **state) { run_check("metrics"); }
static void test_grafana_dashboard(void **state) { run_check("dashboard"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_port),
		cmocka_unit_test(test_notify_protocol),
		cmocka_unit_test(test_serve_notifies),
		cmocka_unit_test(test_accepts_gzip),
		cmocka_unit_test(test_gzip_roundtrip),
		cmocka_unit_test(test_man_pages),
		cmocka_unit_test(test_completions),
		cmocka_unit_test(test_systemd_unit),
		cmocka_unit_test(test_prometheus_rules),
		cmocka_unit_test(test_exposition),
		cmocka_unit_test(test_grafana_dashboard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
