/*
 * Helpers for the tests of `segscan dump` (test_dump.c, test_dump_conformance.c): run the
 * dump of one file in-process and read its ndjson back as JSON. Include after <cmocka.h>
 * and <jansson.h>.
 */
#ifndef SEGSCAN_TESTS_DUMPUTIL_H
#define SEGSCAN_TESTS_DUMPUTIL_H

#include <stdio.h>
#include <string.h>

#include "dump/dump.h"

/* The dump of `path` with `o` (its format forced to ndjson) as an array of its ndjson
 * objects; *status = ss_dump_file's. A line that is not JSON fails the test. */
static inline json_t *du_dump_ndjson(const char *path, const struct ss_dump_opts *o, int *status)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	struct ss_dump d;
	struct ss_dump_opts op = *o;
	op.fmt = SS_DUMP_NDJSON;
	assert_int_equal(ss_dump_init(&d, &op, f), 0);
	*status = ss_dump_file(&d, path);
	assert_int_equal(ss_dump_finish(&d), 0);
	fclose(f);
	json_t *arr = json_array();
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t e;
		json_t *j = json_loads(line, JSON_ALLOW_NUL, &e);
		if (!j)
			fail_msg("%s: not JSON: %s: %.200s", path, e.text, line);
		json_array_append_new(arr, j);
	}
	free(buf);
	return arr;
}

/* The objects of `items` whose "type" is `type` (new references in a new array). */
static inline json_t *du_of_type(json_t *items, const char *type)
{
	json_t *out = json_array(), *v;
	size_t i;
	json_array_foreach(items, i, v) if (!strcmp(json_string_value(json_object_get(v, "type")), type))
		json_array_append(out, v);
	return out;
}

#endif
