/* A string-keyed set over the one hash index: see strtab.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/darray.h"
#include "common/strtab.h"

static bool key_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct ss_strtab *t = ctx;
	return strcmp(t->key(t->e[pos]), key) == 0;
}

void *ss_strtab_get(const struct ss_strtab *t, const char *key)
{
	int64_t s = ss_hidx_find(&t->ix, ss_hash_str(key), key_is, t, key, NULL);
	return s < 0 ? NULL : t->e[ss_hidx_pos(&t->ix, s)];
}

int ss_strtab_add(struct ss_strtab *t, void *entry)
{
	void **slot;
	if (SS_DA_PUSH(&t->e, &t->n, &t->cap, &slot) < 0)
		return -ENOMEM;
	*slot = entry;
	if (ss_hidx_insert(&t->ix, ss_hash_str(t->key(entry)), t->n - 1, NULL)) {
		t->n--;   /* nothing changed */
		return -ENOMEM;
	}
	return 0;
}

void ss_strtab_free(struct ss_strtab *t, bool free_entries)
{
	for (uint32_t i = 0; free_entries && i < t->n; i++)
		free(t->e[i]);
	free(t->e);
	ss_hidx_free(&t->ix);
	t->e = NULL;
	t->n = t->cap = 0;
}
