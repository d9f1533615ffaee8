/* gzip for /metrics: see gzip.h. zlib is already linked for the gzip record codec. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "service/gzip.h"

int ss_gzip(const char *in, size_t len, char **out, size_t *out_len)
{
	z_stream z = { 0 };
	/* windowBits 15 + 16: a gzip header and trailer instead of zlib's */
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	/* deflateBound's bound assumes a zlib wrapper: gzip's header and trailer are 12 bytes
	 * longer (18 vs 6) */
	size_t cap = deflateBound(&z, (uLong)len) + 12;
	char *buf = malloc(cap);   /* handed to the caller, or freed below */
	int r = -ENOMEM;
	if (!buf)
		goto out;
	z.next_in = (Bytef *)in;
	z.next_out = (Bytef *)buf;
	z.avail_out = (uInt)cap;
	/* avail_in is a uInt: feed a body larger than 4 GiB in slices */
	size_t left = len;
	int zr;
	do {
		uInt n = left > (1u << 30) ? (1u << 30) : (uInt)left;
		z.avail_in = n;
		left -= n;
		zr = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
	} while (left && zr == Z_OK);
	if (zr != Z_STREAM_END) {
		r = -EIO;
		free(buf);
		goto out;
	}
	*out = buf;
	*out_len = z.total_out;
	r = 0;
out:
	deflateEnd(&z);
	return r;
}

/* q=VALUE of one list element's parameters (";q=0.5"); 1 when absent */
static double qvalue(const char *p, const char *end)
{
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		if (!semi)
			break;
		p = semi + 1;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
			return strtod(p + 2, NULL);
	}
	return 1;
}

bool ss_accepts_gzip(const char *ae)
{
	if (!ae)
		return false;
	double gzip = -1, star = -1;
	for (const char *p = ae; *p;) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		size_t n = 0;
		while (p + n < end && p[n] != ';' && p[n] != ' ' && p[n] != '\t')
			n++;
		double q = qvalue(p, end);
		if ((n == 4 && !strncasecmp(p, "gzip", 4)) || (n == 6 && !strncasecmp(p, "x-gzip", 6)))
			gzip = q;
		else if (n == 1 && *p == '*')
			star = q;
		p = comma ? comma + 1 : end;
	}
	if (gzip >= 0)
		return gzip > 0;
	return star > 0;
}
