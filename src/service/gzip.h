/*
 * gzip for serve's /metrics (issue 11: a 1M-segment broker's exposition is tens of MB).
 * The body is compressed once per publication (snapshot.c) and served to every client
 * whose Accept-Encoding allows gzip (http.c), so a scrape costs no compression.
 */
#ifndef SS_SERVICE_GZIP_H
#define SS_SERVICE_GZIP_H

#include <stdbool.h>
#include <stddef.h>

/* One gzip member (RFC 1952) of in[0..len) at zlib's fastest level (the broker's CPU
 * matters more than the last percent). *out is malloc'd: the caller frees it. Returns
 * 0, -ENOMEM, or -EIO for a zlib failure. */
int ss_gzip(const char *in, size_t len, char **out, size_t *out_len);

/* Does an Accept-Encoding header value (RFC 9110 12.5.3) accept gzip? "gzip" or
 * "x-gzip" with q > 0, or "*" with q > 0 when gzip is not listed; NULL: no. */
bool ss_accepts_gzip(const char *accept_encoding);

#endif
