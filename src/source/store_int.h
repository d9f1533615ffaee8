/* Between source/store.c and its backends (store_file.c, store_s3.c). */
#ifndef SS_SOURCE_STORE_INT_H
#define SS_SOURCE_STORE_INT_H

#include "source/store.h"

struct ss_store_ops {
	int  (*open)(struct ss_store *st, char *err, size_t errlen);
	int  (*list)(struct ss_store *st, ss_store_obj_fn fn, ss_store_page_fn page, void *arg, char *err, size_t errlen);
	int  (*get)(struct ss_store *st, const char *key, size_t max, char **out, size_t *len, char *err, size_t errlen);
	int  (*read)(struct ss_store *st, const char *key, ss_store_data_fn fn, void *arg, char *err, size_t errlen);
	void (*close)(struct ss_store *st);
};

extern const struct ss_store_ops ss_store_file_ops;
extern const struct ss_store_ops ss_store_s3_ops;

struct ss_store {
	const struct ss_store_ops *ops;
	struct ss_store_uri        uri;
	struct ss_store_env        env;
	char                       name[SS_STORE_URI_MAX + 16];
	uint64_t                   requests;
	double                     next_at;   /* --rate: monotonic time the next request may start */
	void                      *impl;      /* the backend's */
};

/* Before each request: waits for --rate (in slices, polling the cancel flag) and counts
 * it. 0 or -ECANCELED. */
int  ss_store_pace(struct ss_store *st);
bool ss_store_cancelled(const struct ss_store *st);
const char *ss_store_getenv(const struct ss_store *st, const char *name);

#endif
