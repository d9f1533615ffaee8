/*
 * The Prometheus text-exposition parser (src/fmt/promtext.c) on arbitrary bytes, under
 * small bounds so that they are reached: no crash, no leak, no read past the input; every
 * sample delivered has a valid name, at most labels_max labels, NUL-terminated values no
 * longer than the line; every refusal says why.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/promtext.h"

struct st {
	size_t n, len;
};

static int on_sample(void *arg, const struct ss_prom_sample *s)
{
	struct st *st = arg;
	if (!s->name_len || s->n_labels > 8 || s->line == 0)
		abort();
	for (size_t i = 0; i < s->n_labels; i++)
		if (!s->labels[i].name_len || s->labels[i].value[s->labels[i].value_len] != 0 ||
		    s->labels[i].value_len > st->len)
			abort();
	st->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	struct ss_promtext_limits lim = { .line_max = 4096, .labels_max = 8, .samples_max = 2000 };
	struct st st = { 0, size };
	char err[256];
	err[0] = 0;
	int r = ss_promtext_parse(buf, size, "metrics", &lim, on_sample, &st, err, sizeof(err));
	if (r && r != -ENOMEM && !err[0])
		abort();
	if (r && r != -EBADMSG && r != -E2BIG && r != -ENOMEM)
		abort();
	if (st.n > lim.samples_max)
		abort();
	free(buf);
	return 0;
}
