/*
 * The ListObjectsV2 parser (fmt/s3_list.h) fed arbitrary bytes in arbitrary pieces (the
 * first byte sets the piece size), and every key it yields joined by the audit
 * (eval/audit.h) against a small fixed remote state, then confirmed and attached: no
 * crash, no leak, the same objects whatever the pieces, and counters that add up.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval/audit.h"
#include "eval/eval.h"
#include "eval/remote.h"
#include "fmt/aiven_manifest.h"
#include "fmt/names.h"
#include "fmt/s3_list.h"

struct ctx {
	struct ss_audit *a;
	uint64_t n;
	bool stopped;
};

static int on_obj(void *arg, const struct ss_s3_object *o)
{
	struct ctx *c = arg;
	c->n++;
	if (c->stopped)
		return 0;
	int r = ss_audit_object(c->a, o->key, o->key_len, o->has_size ? o->size : -1);
	if (r == -EPROTO)
		c->stopped = true;   /* out of order: the store would stop here */
	else if (r)
		abort();
	return 0;
}

static bool cov(void *arg, const char *t, int32_t p, const uint8_t id[16], bool has, const char **why)
{
	(void)arg; (void)t; (void)p; (void)id; (void)has; (void)why;
	return true;
}

static struct ss_remote *state(void)
{
	static const struct ss_epoch_entry ep[] = { { 0, 0 } };
	struct ss_remote *r;
	if (ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r))
		abort();
	const char *ids[] = { "bCqX9U--S-6U8XUM9II25Q", "oAtiIQ95REujbuzNd_lkLQ" };
	for (int i = 0; i < 2; i++) {
		struct ss_remote_event ev = { .type = SS_REV_SEGMENT, .topic = "t", .topic_len = 1, .partition = 0,
					      .has_topic_id = true, .segment_id = ids[i], .segment_id_len = 22,
					      .has_id_bytes = true, .start_offset = i * 100, .end_offset = i * 100 + 99,
					      .size_bytes = 10, .epochs = ep, .n_epochs = 1, .broker_id = 1,
					      .event_timestamp_ms = 1, .state = SS_RSEG_COPY_STARTED };
		ss_uuid_parse("LWgrMmVrT0a__7a4SasuPA", 22, ev.topic_id);
		ss_uuid_parse(ids[i], 22, ev.id_bytes);
		char msg[128];
		ss_remote_apply(r, &ev, msg, sizeof(msg));
		ev.type = SS_REV_UPDATE;
		ev.state = SS_RSEG_COPY_FINISHED;
		ss_remote_apply(r, &ev, msg, sizeof(msg));
	}
	return r;
}

static uint64_t run(const uint8_t *data, size_t size, size_t piece, const struct ss_remote *r, int layout)
{
	struct ss_audit_cfg cfg = { .layout = (enum ss_store_layout)layout, .remote = r, .now_ms = 1000000,
				    .dangling_after_ms = 10, .coverage = cov };
	struct ctx c = { 0 };
	if (ss_audit_new(&cfg, &c.a))
		abort();
	struct ss_s3_list *p;
	if (ss_s3_list_new(on_obj, &c, &p))
		abort();
	char err[256];
	int e = 0;
	for (size_t at = 0; at < size && !e; at += piece)
		e = ss_s3_list_feed(p, (const char *)data + at, size - at < piece ? size - at : piece, false, err,
				    sizeof(err));
	if (!e)
		e = ss_s3_list_feed(p, "", 0, true, err, sizeof(err));
	if (e && e != -EPROTO)
		abort();
	ss_s3_list_free(p);
	while (ss_audit_manifest_count(c.a)) {
		struct ss_aiven_manifest m = { .original_size = 10, .stored_log_size = 7 };
		for (uint32_t i = 0; i < ss_audit_manifest_count(c.a); i++)
			ss_audit_manifest(c.a, i, (i & 1) ? NULL : &m, "x");
		ss_audit_manifest_clear(c.a);
	}
	if (ss_audit_end_listing(c.a, !e && !c.stopped))
		abort();
	for (uint32_t i = 0; i < ss_audit_manifest_count(c.a); i++)
		ss_audit_manifest(c.a, i, NULL, "x");
	ss_audit_manifest_clear(c.a);
	if (ss_audit_confirm(c.a, r))
		abort();
	const struct ss_audit_totals *t = ss_audit_totals(c.a);
	int64_t objs = 0;
	for (uint32_t i = 0; i < ss_audit_part_count(c.a); i++) {
		const struct ss_audit_part *ap = ss_audit_part_at(c.a, i);
		objs += ap->objects;
		if (ap->compared && (ap->pending_objects < 0 || ap->orphan_objects + ap->torn_objects > ap->objects))
			abort();
		struct ss_eval *ev = calloc(1, sizeof(*ev));
		if (!ev || ss_audit_attach(c.a, ap, NULL, ev))
			abort();
		ss_eval_free(ev);
	}
	if (objs + t->unplaced != t->objects)
		abort();
	ss_audit_free(c.a);
	return c.n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	size_t piece = (size_t)data[0] + 1;
	static struct ss_remote *r;
	if (!r)
		r = state();
	uint64_t whole = run(data + 1, size - 1, size, r, data[0] & 1);
	uint64_t pieces = run(data + 1, size - 1, piece, r, data[0] & 1);
	if (whole != pieces)
		abort();
	return 0;
}
