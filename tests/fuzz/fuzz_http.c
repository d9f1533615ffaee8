/*
 * serve's two parsers of untrusted text (src/service/parse.c): the percent-decoding of a
 * /v1/partitions/TOPIC/N path segment and the --listen address. The decoder must never
 * write past its buffer, never produce a NUL, and agree with a plain reference count of
 * its output length. --listen is fuzzed only on inputs without letters, so getaddrinfo
 * gets numeric hosts and the fuzzer never waits on a name lookup.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "service/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size ? size : 1);
	if (!in)
		abort();
	memcpy(in, data, size);
	size_t cap = size ? data[0] % 300 : 0; /* small caps too: the fit check */
	char *out = malloc(cap ? cap : 1);
	if (!out)
		abort();
	int n = ss_url_decode(in, size, out, cap);
	if (n >= 0) {
		if ((size_t)n >= cap || out[n] != 0 || memchr(out, 0, (size_t)n))
			abort();
		size_t pct = 0;
		for (size_t i = 0; i < size; i++)
			pct += in[i] == '%';
		if ((size_t)n != size - 2 * pct)
			abort();
	}
	free(out);

	bool letters = false;
	for (size_t i = 0; i < size; i++)
		letters |= isalpha(data[i]) != 0;
	if (!letters && size < 300) {
		char *spec = malloc(size + 1);
		if (!spec)
			abort();
		memcpy(spec, data, size);
		spec[size] = 0;
		struct sockaddr_storage sa;
		socklen_t sl = 0;
		if (ss_parse_listen(spec, &sa, &sl) == 0 &&
		    (sl == 0 || sl > sizeof(sa) || (sa.ss_family != AF_INET && sa.ss_family != AF_INET6)))
			abort();
		free(spec);
	}
	free(in);
	return 0;
}
