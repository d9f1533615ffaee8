/*
 * The four compression stream formats (src/fmt/codec.c) on arbitrary bytes: decompression
 * must stay within its output ceiling, never read past the input, and never leak; and
 * what we compress must decompress to the same bytes. The first byte picks the codec and
 * the ceiling.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	enum ss_codec c = (enum ss_codec)(1 + data[0] % 4);
	size_t max_out = (data[0] & 0x80) ? 4096 : (size_t)1 << 20;
	size_t len = size - 1;
	uint8_t *src = malloc(len ? len : 1);
	if (!src)
		abort();
	memcpy(src, data + 1, len);

	uint8_t *out = NULL;
	size_t out_len = 0;
	if (ss_codec_decompress(c, src, len, &out, &out_len, max_out) == 0 && out_len > max_out)
		abort();
	free(out);

	/* round trip of the input itself */
	uint8_t *z = NULL, *back = NULL;
	size_t zl = 0, bl = 0;
	if (ss_codec_compress(c, src, len, &z, &zl) == 0) {
		if (ss_codec_decompress(c, z, zl, &back, &bl, len + 1) != 0 || bl != len ||
		    (len && memcmp(back, src, len) != 0))
			abort();
	}
	free(z);
	free(back);

	enum ss_codec p;
	if (ss_codec_parse(ss_codec_name(c), &p) != 0 || p != c)
		abort();
	free(src);
	return 0;
}
