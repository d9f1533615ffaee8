/* String-keyed open addressing: see strtab.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"

static uint32_t probe(void *const *slot, uint32_t cap, const char *key, const char *(*kf)(const void *))
{
	uint32_t k = ss_fnv1a(key) & (cap - 1);
	while (slot[k] && strcmp(kf(slot[k]), key) != 0)
		k = (k + 1) & (cap - 1);
	return k;
}

void *ss_strtab_get(const struct ss_strtab *t, const char *key)
{
	return t->cap ? t->slot[probe(t->slot, t->cap, key, t->key)] : NULL;
}

int ss_strtab_add(struct ss_strtab *t, void *entry)
{
	if ((uint64_t)(t->n + 1) * 2 > t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		void **s = calloc(cap, sizeof(*s));
		if (!s)
			return -ENOMEM;
		for (uint32_t i = 0; i < t->cap; i++)
			if (t->slot[i])
				s[probe(s, cap, t->key(t->slot[i]), t->key)] = t->slot[i];
		free(t->slot);
		t->slot = s;
		t->cap = cap;
	}
	t->slot[probe(t->slot, t->cap, t->key(entry), t->key)] = entry;
	t->n++;
	return 0;
}

void ss_strtab_free(struct ss_strtab *t, bool free_entries)
{
	for (uint32_t i = 0; free_entries && i < t->cap; i++)
		free(t->slot[i]);
	free(t->slot);
	t->slot = NULL;
	t->cap = t->n = 0;
}
