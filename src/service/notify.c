/*
 * sd_notify for serve: see notify.h. The fallback follows the protocol as systemd
 * documents it in sd_notify(3) ("NOTIFY_SOCKET ... an AF_UNIX datagram socket; '@'
 * ... abstract namespace") and sd_watchdog_enabled(3) (WATCHDOG_USEC, WATCHDOG_PID).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "service/notify.h"

#ifdef SS_HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>

int ss_notify(const char *msg)
{
	/* unset_environment=0: the scan threads' children (none today) may still notify */
	return sd_notify(0, msg);
}
#else
int ss_notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n;
	if (!path || !*path)
		return 0;
	n = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || n >= sizeof(sa.sun_path))
		return -EAFNOSUPPORT;
	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = 0; /* abstract: the name is the bytes after the NUL, unterminated */
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);   /* closed below */
	if (fd < 0)
		return -errno;
	ssize_t w = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	int r = w < 0 ? -errno : 1;
	close(fd);
	return r;
}
#endif

uint64_t ss_notify_watchdog_usec(void)
{
	const char *us = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	char *end;
	if (!us || !*us)
		return 0;
	if (pid && *pid) {
		errno = 0;
		unsigned long long p = strtoull(pid, &end, 10);
		if (errno || *end || p != (unsigned long long)getpid())
			return 0; /* meant for another process (e.g. our parent) */
	}
	errno = 0;
	unsigned long long v = strtoull(us, &end, 10);
	if (errno || *end || v == 0)
		return 0;
	return (uint64_t)v;
}
