/*
 * A set of entries keyed by a string: the entries' pointers in an array, found through the
 * one hash index (common/hidx.h). Each entry's key is found through `key`, so an entry may
 * be the string itself or a struct that carries its key. Not thread-safe: one owner (the
 * evaluator thread's per-scan caches use it).
 */
#ifndef SS_COMMON_STRTAB_H
#define SS_COMMON_STRTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hidx.h"

struct ss_strtab {
	void          **e;      /* the entries, in the order added */
	uint32_t        n, cap;
	struct ss_hidx  ix;     /* their keys */
	const char   *(*key)(const void *entry);
};

/* The entry whose key is `key`, or NULL. */
void *ss_strtab_get(const struct ss_strtab *t, const char *key);
/* Add an entry whose key is not in the table yet: 0 or -ENOMEM (nothing changed). */
int   ss_strtab_add(struct ss_strtab *t, void *entry);
/* Free the slots (and every entry with free_entries); the table is empty again. */
void  ss_strtab_free(struct ss_strtab *t, bool free_entries);

#endif
