/* The one hash index: see hidx.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hidx.h"

static uint32_t max_pct(const struct ss_hidx *x)
{
	return x->max_pct ? x->max_pct : 70;
}

static int rehash(struct ss_hidx *x, uint32_t need, uint64_t *work)
{
	uint32_t ncap = 16;
	while ((uint64_t)need * 100 > (uint64_t)ncap * max_pct(x)) {
		if (ncap > UINT32_MAX / 4)
			return -ENOMEM;
		ncap *= 2;
	}
	uint32_t *np = calloc(ncap, sizeof *np), *nh = malloc((size_t)ncap * sizeof *nh);
	if (!np || !nh) {
		free(np);
		free(nh);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < x->cap; i++) {
		if (x->pos[i] == SS_HIDX_EMPTY || x->pos[i] == SS_HIDX_TOMB)
			continue;
		uint32_t j = x->hash[i] & (ncap - 1);
		while (np[j]) {
			j = (j + 1) & (ncap - 1);
			if (work)
				(*work)++;
		}
		np[j] = x->pos[i];
		nh[j] = x->hash[i];
		if (work)
			(*work)++;
	}
	free(x->pos);
	free(x->hash);
	x->pos = np;
	x->hash = nh;
	x->cap = ncap;
	x->tombs = 0;
	return 0;
}

int ss_hidx_insert(struct ss_hidx *x, uint32_t h, uint32_t pos, uint64_t *work)
{
	if (pos >= SS_HIDX_TOMB - 1)
		return -ENOMEM;
	if ((uint64_t)(x->used + x->tombs + 1) * 100 > (uint64_t)x->cap * max_pct(x)) {
		int rc = rehash(x, x->used + 1, work);
		if (rc)
			return rc;
	}
	uint32_t mask = x->cap - 1, i = h & mask;
	while (x->pos[i] != SS_HIDX_EMPTY && x->pos[i] != SS_HIDX_TOMB) {
		i = (i + 1) & mask;
		if (work)
			(*work)++;
	}
	if (x->pos[i] == SS_HIDX_TOMB)
		x->tombs--;
	x->pos[i] = pos + 1;
	x->hash[i] = h;
	x->used++;
	if (work)
		(*work)++;
	return 0;
}

void ss_hidx_del(struct ss_hidx *x, int64_t slot)
{
	x->pos[slot] = SS_HIDX_TOMB;
	x->used--;
	x->tombs++;
}

void ss_hidx_move(struct ss_hidx *x, uint32_t h, uint32_t from, uint32_t to, uint64_t *work)
{
	if (!x->cap)
		return;
	uint32_t mask = x->cap - 1;
	for (uint32_t i = h & mask, n = 0; n < x->cap && x->pos[i] != SS_HIDX_EMPTY; i = (i + 1) & mask, n++) {
		if (work)
			(*work)++;
		if (x->pos[i] == from + 1) {
			x->pos[i] = to + 1;
			return;
		}
	}
}

void ss_hidx_free(struct ss_hidx *x)
{
	uint32_t pct = x->max_pct;   /* a setting, not contents */
	free(x->pos);
	free(x->hash);
	memset(x, 0, sizeof *x);
	x->max_pct = pct;
}
