/*
 * A set of entries keyed by a string, by open addressing (FNV-1a, linear probing, at most
 * half full). The table holds pointers; each entry's key is found through `key`, so an
 * entry may be the string itself or a struct that carries its key. Not thread-safe: one
 * owner (the evaluator thread's per-scan caches use it).
 */
#ifndef SS_COMMON_STRTAB_H
#define SS_COMMON_STRTAB_H

#include <stdbool.h>
#include <stdint.h>

struct ss_strtab {
	void       **slot;
	uint32_t     cap, n;
	const char *(*key)(const void *entry);
};

static inline uint32_t ss_fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The entry whose key is `key`, or NULL. */
void *ss_strtab_get(const struct ss_strtab *t, const char *key);
/* Add an entry whose key is not in the table yet: 0 or -ENOMEM (nothing changed). */
int   ss_strtab_add(struct ss_strtab *t, void *entry);
/* Free the slots (and every entry with free_entries); the table is empty again. */
void  ss_strtab_free(struct ss_strtab *t, bool free_entries);

#endif
