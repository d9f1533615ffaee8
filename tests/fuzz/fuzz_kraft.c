/*
 * KRaft metadata records on arbitrary bytes: the decoder (src/fmt/kraft.c) must never read
 * out of bounds and every view it returns must lie inside the input; the replay
 * (src/source/cluster_image.c) must take whatever decodes without crashing and keep its
 * indexes consistent (every topic found by name and by id, the partition count the sum of
 * the topics' partitions).
 *
 * Input: the first byte picks the mode. Even: the rest is one record value. Odd: the rest
 * is a sequence of values, each preceded by a one-byte length, replayed in order (every
 * 16th length byte of 0xff resets the image, as a snapshot does; a length byte of 0xfe
 * marks a loss of the kinds its next byte names, as the source does at damage). The
 * ss_cimage_*_known answers must be consistent: without a loss, everything is known.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/kraft.h"
#include "source/cluster_image.h"

static const uint8_t *lo, *hi;

static void in_range(const void *p, size_t n)
{
	if (n && ((const uint8_t *)p < lo || (const uint8_t *)p + n > hi))
		abort();
}

static void check_views(const struct ss_kraft_rec *r)
{
	if (!r->known)
		return;
	switch (r->api_key) {
	case SS_KR_TOPIC:
		in_range(r->u.topic.name.p, r->u.topic.name.len > 0 ? (size_t)r->u.topic.name.len : 0);
		break;
	case SS_KR_PARTITION: {
		const struct ss_karr *a[] = { &r->u.partition.replicas, &r->u.partition.isr, &r->u.partition.removing,
					      &r->u.partition.adding, &r->u.partition.elr, &r->u.partition.last_known_elr };
		for (size_t i = 0; i < 6; i++) {
			in_range(a[i]->p, a[i]->n > 0 ? (size_t)a[i]->n * 4 : 0);
			for (int32_t j = 0; j < a[i]->n; j++)
				(void)ss_karr_i32(*a[i], j);
		}
		in_range(r->u.partition.directories.p,
			 r->u.partition.directories.n > 0 ? (size_t)r->u.partition.directories.n * 16 : 0);
		break;
	}
	case SS_KR_CONFIG:
		in_range(r->u.config.value.p, r->u.config.value.len > 0 ? (size_t)r->u.config.value.len : 0);
		break;
	case SS_KR_REGISTER_BROKER: {
		struct ss_kiter it;
		struct ss_kraft_endpoint ep;
		struct ss_kraft_feature f;
		int n = 0, rc;
		ss_kiter_init(&it, &r->u.reg.endpoints);
		while ((rc = ss_kiter_endpoint(&it, &ep)) == 1) {
			in_range(ep.host.p, (size_t)ep.host.len);
			n++;
		}
		if (rc < 0 || n != r->u.reg.endpoints.n)
			abort(); /* a list the decoder accepted must iterate cleanly */
		n = 0;
		ss_kiter_init(&it, &r->u.reg.features);
		while ((rc = ss_kiter_feature(&it, &f)) == 1) {
			in_range(f.name.p, (size_t)f.name.len);
			n++;
		}
		if (rc < 0 || n != r->u.reg.features.n)
			abort();
		break;
	}
	}
}

static void check_image(const struct ss_cimage *img)
{
	size_t parts = 0;
	for (size_t i = 0; i < ss_cimage_topic_count(img); i++) {
		const struct ss_ci_topic *t = ss_cimage_topic_at(img, i);
		if (!t || ss_cimage_topic(img, t->name) != t || ss_cimage_topic_by_id(img, t->id) != t)
			abort();
		for (uint32_t j = 0; j < t->n_parts; j++) {
			if (j && t->parts[j - 1].id >= t->parts[j].id)
				abort();
			if (ss_ci_topic_partition(t, t->parts[j].id) != &t->parts[j])
				abort();
			if (t->parts[j].n_directories && t->parts[j].n_directories != t->parts[j].n_replicas)
				abort();
		}
		parts += t->n_parts;
	}
	if (parts != ss_cimage_partition_count(img))
		abort();
	bool exact = ss_cimage_lost(img) == 0;
	for (size_t i = 0; i < ss_cimage_topic_count(img); i++) {
		const struct ss_ci_topic *t = ss_cimage_topic_at(img, i);
		bool k = ss_cimage_topic_known(img, t->name);
		bool c = ss_cimage_config_known(img, SS_CI_RES_TOPIC, t->name, "retention.ms");
		if (exact && (!k || !c))
			abort();
	}
	if (exact && (!ss_cimage_broker_known(img, 1) || !ss_cimage_feature_known(img, "metadata.version")))
		abort();
	for (size_t i = 0; i + 1 < ss_cimage_broker_count(img); i++)
		if (ss_cimage_broker_at(img, i)->id >= ss_cimage_broker_at(img, i + 1)->id)
			abort();
	for (size_t i = 0; i < ss_cimage_warning_count(img); i++)
		if (!ss_cimage_warning_at(img, i))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	/* an exact-size copy so that reads past the end are caught */
	uint8_t *buf = malloc(size);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	lo = buf + 1;
	hi = buf + size;

	if ((buf[0] & 1) == 0) {
		struct ss_kraft_rec r;
		int rc = ss_kraft_decode(buf + 1, size - 1, &r);
		if (rc > 0)
			abort();
		if (rc == 0)
			check_views(&r);
		struct ss_cimage *img;
		if (ss_cimage_new(&img))
			abort();
		(void)ss_cimage_apply(img, buf + 1, size - 1, NULL);
		ss_cimage_finish(img);
		check_image(img);
		ss_cimage_free(img);
	} else {
		struct ss_cimage *img;
		if (ss_cimage_new(&img))
			abort();
		size_t p = 1;
		int64_t off = 0;
		unsigned resets = 0;
		while (p < size) {
			size_t n = buf[p++];
			if (n == 0xff && (resets++ % 16) == 0) {
				ss_cimage_reset(img);
				continue;
			}
			if (n == 0xfe && p < size) {
				ss_cimage_mark_lost(img, buf[p++] & SS_CI_LOST_ALL);
				continue;
			}
			if (n > size - p)
				n = size - p;
			/* each value copied to its own exact-size buffer */
			uint8_t *v = malloc(n ? n : 1);
			if (!v)
				abort();
			memcpy(v, buf + p, n);
			struct ss_ci_where w = { "fuzz.log", (int64_t)p, off++ };
			(void)ss_cimage_apply(img, v, n, &w);
			free(v);
			p += n;
		}
		ss_cimage_finish(img);
		check_image(img);
		ss_cimage_free(img);
	}
	free(buf);
	return 0;
}
