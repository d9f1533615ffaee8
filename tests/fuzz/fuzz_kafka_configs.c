/*
 * kafka-configs.sh --describe output parser on arbitrary bytes: no crash, no leak, no
 * read past the input, and every entry it hands out is a well-formed one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/kafka_configs.h"

static int check(void *arg, const struct ss_kc_entry *e)
{
	(void)arg;
	if (!e->entity_type || !e->entity || !e->key || !e->key[0] || e->line == 0)
		abort();
	if (strchr(e->key, '='))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	(void)ss_kc_detect((const char *)data, size);
	(void)ss_kc_parse((const char *)data, size, "fuzz", check, NULL, err, sizeof(err));
	return 0;
}
