/*
 * Remote-store keys under both layouts (fmt/store_key.h) on arbitrary bytes: no crash, no
 * read past the key, and what parses names itself back: the partition prefix rebuilt from
 * the parsed fields is the key's own, and a segment object's name is the rebuilt one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/store_key.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *key = malloc(size ? size : 1);
	if (!key)
		abort();
	memcpy(key, data, size);
	for (int l = 0; l < 2; l++) {
		struct ss_store_key k;
		const char *why = NULL;
		enum ss_key_parse r = ss_store_key_parse((enum ss_store_layout)l, key, size, &k, &why);
		if (r != SS_KEY_OBJECT && !why)
			abort();
		if (r == SS_KEY_NONE)
			continue;
		if (k.part_len > size || !k.topic_len)
			abort();
		char pre[4200];
		int n = ss_store_part_prefix((enum ss_store_layout)l, k.lts_root, k.topic, k.topic_len, k.partition, k.topic_id,
					     pre, sizeof(pre));
		if (n < 0 || (size_t)n != k.part_len || memcmp(pre, key, k.part_len))
			abort();
		if (r != SS_KEY_OBJECT)
			continue;
		char seg[SS_STORE_SEG_NAME_LEN];
		ss_store_seg_name(k.start_offset, k.seg_id, seg);
		if (k.seg_len > size || k.seg_len != k.part_len + SS_STORE_SEG_NAME_LEN - 1 ||
		    memcmp(seg, key + k.part_len, SS_STORE_SEG_NAME_LEN - 1))
			abort();
		const char *suf = ss_obj_suffix(k.kind);
		if (size - k.seg_len != strlen(suf) || memcmp(key + k.seg_len, suf, strlen(suf)))
			abort();
	}
	free(key);
	return 0;
}
