/*
 * The two parsers of untrusted text on serve's request and command-line side, kept apart
 * from http.c (libmicrohttpd glue) so that a fuzzer can call them without a daemon:
 * the percent-decoding of a /v1/partitions path segment and the --listen address.
 */
#include <errno.h>
#include <netdb.h>
#include <string.h>
#include <sys/socket.h>

#include "common/ascii.h"
#include "service/serve.h"

int ss_url_decode(const char *in, size_t len, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		int ch = (unsigned char)in[i];
		if (ch == '%') {
			if (i + 2 >= len)
				return -EINVAL;
			int hi = ss_hexval(in[i + 1]), lo = ss_hexval(in[i + 2]);
			if (hi < 0 || lo < 0)
				return -EINVAL;
			ch = hi << 4 | lo;
			i += 2;
		}
		if (ch == 0 || n + 1 >= cap)
			return -EINVAL;
		out[n++] = (char)ch;
	}
	if (cap == 0)
		return -EINVAL;
	out[n] = 0;
	return (int)n;
}

int ss_parse_listen(const char *spec, struct sockaddr_storage *sa, socklen_t *salen)
{
	char host[256];
	const char *port;
	if (!spec || !*spec)
		return -EINVAL;
	if (spec[0] == '[') {
		const char *e = strchr(spec, ']');
		if (!e || e[1] != ':' || (size_t)(e - spec - 1) >= sizeof(host) || e == spec + 1)
			return -EINVAL;
		memcpy(host, spec + 1, (size_t)(e - spec - 1));
		host[e - spec - 1] = 0;
		port = e + 2;
	} else {
		const char *c = strrchr(spec, ':');
		if (!c || c == spec || (size_t)(c - spec) >= sizeof(host) || memchr(spec, ':', (size_t)(c - spec)))
			return -EINVAL; /* bare IPv6 without brackets is ambiguous */
		memcpy(host, spec, (size_t)(c - spec));
		host[c - spec] = 0;
		port = c + 1;
	}
	/* strict decimal port: getaddrinfo would also take service names and "0" */
	int32_t pn;
	if (strlen(port) > 5 || !ss_dec_u31(port, strlen(port), &pn))
		return -EINVAL;
	if (pn < 1 || pn > 65535)
		return -EINVAL;

	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV }, *res = NULL;
	if (spec[0] == '[') {
		hints.ai_family = AF_INET6;
		hints.ai_flags |= AI_NUMERICHOST;
	}
	int g = getaddrinfo(host, port, &hints, &res);
	if (g != 0 || !res)
		return g == EAI_MEMORY ? -ENOMEM : -EINVAL;
	if (res->ai_addrlen > sizeof(*sa)) {
		freeaddrinfo(res);
		return -EINVAL;
	}
	memset(sa, 0, sizeof(*sa));
	memcpy(sa, res->ai_addr, res->ai_addrlen);
	*salen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}
