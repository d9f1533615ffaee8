/* Engine lookup by name, and the io_uring -> pread fallback. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/engine.h"

const struct ss_io_ops *ss_io_find(const char *name)
{
	if (!name)
		return NULL;
	if (!strcmp(name, "uring"))
		return &ss_io_uring_ops;
	if (!strcmp(name, "mmap"))
		return &ss_io_mmap_ops;
	if (!strcmp(name, "pread"))
		return &ss_io_pread_ops;
	return NULL;
}

int ss_io_check_req(const struct ss_io_req *req)
{
	if (!req)
		return -EINVAL;
	switch (req->op) {
	case SS_IO_OPEN:
		return req->path ? 0 : -EINVAL;
	case SS_IO_STAT:
	case SS_IO_CLOSE:
		return 0;
	case SS_IO_READ:
		/* io_uring reads at the file position for off == -1, so a negative offset
		 * must never reach it; pread would say EINVAL anyway. */
		if (req->off < 0 || req->len > (uint64_t)(INT64_MAX - req->off))
			return -EINVAL;
		if (!req->buf && req->len)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/* -1 when the sysctl does not exist (kernels before 6.6) or cannot be read. */
static int uring_disabled_sysctl(void)
{
	char b[16];
	int fd = open("/proc/sys/kernel/io_uring_disabled", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	b[n] = 0;
	return atoi(b);
}

static void uring_reason(int err, char *why, size_t whylen)
{
	const char *detail = "";
	if (err == -EPERM) {
		const char *force = getenv("SEGSCAN_FORCE_URING_FAIL");
		int dis = uring_disabled_sysctl();
		if (force && !strcmp(force, "1"))
			detail = ": simulated by SEGSCAN_FORCE_URING_FAIL=1";
		else if (dis == 2)
			detail = ": kernel.io_uring_disabled=2";
		else if (dis == 1)
			detail = ": kernel.io_uring_disabled=1 and not in kernel.io_uring_group";
		else
			detail = ": blocked by seccomp or kernel.io_uring_disabled";
	} else if (err == -ENOSYS) {
		detail = ": kernel without io_uring, or blocked by seccomp";
	}
	snprintf(why, whylen, "io_uring unavailable (%s%s); using pread", strerror(-err), detail);
}

int ss_io_create(const char *name, unsigned depth, const struct ss_io_ops **ops,
		 struct ss_io_engine **out, bool *fell_back, char *why, size_t whylen)
{
	const struct ss_io_ops *o = ss_io_find(name);
	int r;

	*out = NULL;
	if (fell_back)
		*fell_back = false;
	if (why && whylen)
		why[0] = 0;
	/* Checked here too so that a bad depth is reported as such and never mistaken
	 * for io_uring being unavailable. */
	if (!o || depth == 0 || depth > SS_IO_MAX_DEPTH)
		return -EINVAL;
	r = o->create(out, depth);
	if (r < 0 && o == &ss_io_uring_ops) {
		if (why && whylen)
			uring_reason(r, why, whylen);
		o = &ss_io_pread_ops;
		r = o->create(out, depth);
		if (r == 0 && fell_back)
			*fell_back = true;
	}
	if (r < 0) {
		*out = NULL;
		return r;
	}
	if (ops)
		*ops = o;
	return 0;
}
