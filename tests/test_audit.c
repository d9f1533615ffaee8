/*
 * The remote-store audit's join (eval/audit.h), pure: remote state built event by event
 * (KAFKA mode, ids as the metadata topic gives them), listings built by hand in key order,
 * and every finding and boundary of the contract's rules checked on the counters, the
 * items and the findings' keys. The expected keys are spelled out from Kafka's
 * LocalTieredStorage naming (RemoteTopicPartitionDirectory, RemoteLogSegmentFileset) and
 * Aiven's ObjectKeyFactory, not derived from the code under test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval/audit.h"
#include "eval/eval.h"
#include "eval/remote.h"
#include "fmt/aiven_manifest.h"
#include "fmt/names.h"

/* topic id "AAAAAAAAAAAAAAAAAAAAAQ" (bytes 0..0,1), segment ids "SSSSSSSSSSSSSSSSSSSSSA" etc. */
static const char *TID = "LWgrMmVrT0a__7a4SasuPA";
#define S1 "bCqX9U--S-6U8XUM9II25Q"
#define S2 "oAtiIQ95REujbuzNd_lkLQ"
#define S3 "tvHCaSDsQZWsjr5rbtCjxA"
#define S4 "BFyXlC8ySMm-Uzxw5lZSMg"
#define DIR0 "kafka-tiered-storage/orders-0-LWgrMmVrT0a__7a4SasuPA/"
#define OFF0 "00000000000000000000-"
#define OFF100 "00000000000000000100-"
#define OFF200 "00000000000000000200-"

static const int64_t NOW = 1700000000000;

static const struct ss_epoch_entry EP0[] = { { 0, 0 } };

static void tid(uint8_t out[16])
{
	assert_int_equal(ss_uuid_parse(TID, 22, out), 0);
}

static void add(struct ss_remote *r, const char *topic, int32_t part, const char *id, int64_t start, int64_t end,
		int64_t size, int state, int64_t ts)
{
	struct ss_remote_event ev = {
		.type = SS_REV_SEGMENT, .topic = topic, .topic_len = strlen(topic), .partition = part,
		.segment_id = id, .segment_id_len = 22, .has_id_bytes = true, .start_offset = start, .end_offset = end,
		.size_bytes = size, .max_timestamp_ms = ts, .epochs = EP0, .n_epochs = 1, .broker_id = 1,
		.event_timestamp_ms = ts, .state = SS_RSEG_COPY_STARTED, .has_topic_id = true,
	};
	tid(ev.topic_id);
	assert_int_equal(ss_uuid_parse(id, 22, ev.id_bytes), 0);
	char msg[256];
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), 0);
	if (state == SS_RSEG_COPY_STARTED)
		return;
	int path[4], n = 0;
	if (state >= SS_RSEG_COPY_FINISHED)
		path[n++] = SS_RSEG_COPY_FINISHED;
	if (state >= SS_RSEG_DELETE_STARTED)
		path[n++] = SS_RSEG_DELETE_STARTED;
	if (state >= SS_RSEG_DELETE_FINISHED)
		path[n++] = SS_RSEG_DELETE_FINISHED;
	for (int i = 0; i < n; i++) {
		struct ss_remote_event u = {
			.type = SS_REV_UPDATE, .topic = topic, .topic_len = strlen(topic), .partition = part,
			.segment_id = id, .segment_id_len = 22, .has_id_bytes = true, .broker_id = 1,
			.event_timestamp_ms = ts + 1 + i, .state = path[i], .has_topic_id = true,
		};
		tid(u.topic_id);
		assert_int_equal(ss_uuid_parse(id, 22, u.id_bytes), 0);
		assert_int_equal(ss_remote_apply(r, &u, msg, sizeof(msg)), 0);
	}
}

static struct ss_remote *remote(void)
{
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	return r;
}

/* coverage: "the metadata can speak for every partition" unless told otherwise */
static bool cov_all(void *arg, const char *topic, int32_t partition, const uint8_t topic_id[16], bool has_state,
		    const char **why)
{
	(void)topic; (void)partition; (void)topic_id;
	bool only_state = arg != NULL;
	if (only_state && !has_state) {
		*why = "test: unknown";
		return false;
	}
	return true;
}

static struct ss_audit *audit(const struct ss_remote *r, enum ss_store_layout l, bool only_state)
{
	struct ss_audit *a;
	struct ss_audit_cfg cfg = { .layout = l, .remote = r, .now_ms = NOW, .dangling_after_ms = 3600000,
				    .coverage = cov_all, .coverage_arg = only_state ? (void *)1 : NULL };
	assert_int_equal(ss_audit_new(&cfg, &a), 0);
	return a;
}

static void obj(struct ss_audit *a, const char *key, int64_t size)
{
	assert_int_equal(ss_audit_object(a, key, strlen(key), size), 0);
}

/* the five objects LocalTieredStorage writes for a segment (no .txnindex), in key order */
static void fileset(struct ss_audit *a, const char *seg, int64_t log_size, uint32_t skip)
{
	static const char *const ext[] = { ".index", ".leader_epoch_checkpoint", ".log", ".snapshot", ".timeindex" };
	char key[256];
	for (int i = 0; i < 5; i++) {
		if (skip & (1u << i))
			continue;
		snprintf(key, sizeof(key), DIR0 "%s%s", seg, ext[i]);
		obj(a, key, !strcmp(ext[i], ".log") ? log_size : 10);
	}
}

static const struct ss_audit_part *part0(const struct ss_audit *a)
{
	uint8_t t[16];
	tid(t);
	const struct ss_audit_part *ap = ss_audit_find(a, "orders", 0, t);
	assert_non_null(ap);
	return ap;
}

static uint32_t count(const struct ss_audit_part *ap, enum ss_audit_code c)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < ap->n_items; i++)
		n += ap->items[i].code == c;
	return n;
}

static const struct ss_finding *finding(const struct ss_eval *ev, const char *code)
{
	for (uint32_t i = 0; i < ev->n_findings; i++)
		if (!strcmp(ev->findings[i].code, code))
			return &ev->findings[i];
	return NULL;
}

static struct ss_eval *attach(const struct ss_audit *a, const struct ss_audit_part *ap)
{
	struct ss_eval *ev = calloc(1, sizeof(*ev));
	assert_non_null(ev);
	assert_int_equal(ss_audit_attach(a, ap, NULL, ev), 0);
	return ev;
}

/* ---- a clean store: nothing wrong, stored = the objects, accounted = the metadata ---- */
static void t_clean(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(r, "orders", 0, S2, 100, 199, 2000, SS_RSEG_COPY_FINISHED, NOW - 90000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 0);
	fileset(a, OFF100 S2, 2000, 0);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_false(ss_audit_suspects(a));
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_true(ap->compared);
	assert_int_equal(ap->objects, 10);
	assert_int_equal(ap->stored_bytes, 1000 + 2000 + 8 * 10);
	assert_int_equal(ap->accounted_bytes, 3000);
	assert_int_equal(ap->orphan_objects + ap->missing_objects + ap->torn_objects + ap->unrecognised, 0);
	assert_int_equal(ap->n_items, 0);
	assert_int_equal(ap->pending_objects, 0);
	struct ss_eval *ev = attach(a, ap);
	assert_int_equal(ev->n_findings, 0);
	assert_ptr_equal(ev->remote_store, ap);
	ss_eval_free(ev);
	const struct ss_audit_totals *t = ss_audit_totals(a);
	assert_true(t->complete);
	assert_int_equal(t->objects, 10);
	assert_int_equal(t->n_topics, 1);
	assert_int_equal(t->topics[0].stored_bytes, ap->stored_bytes);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- MISSING: one object of a finished segment, and a whole segment ---- */
static void t_missing(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(r, "orders", 0, S2, 100, 199, 2000, SS_RSEG_COPY_FINISHED, NOW - 90000);
	add(r, "orders", 0, S3, 200, 299, 3000, SS_RSEG_COPY_FINISHED, NOW - 80000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 1u << 2);   /* no .log */
	/* S2: nothing at all */
	fileset(a, OFF200 S3, 3000, 0);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_true(ss_audit_suspects(a));
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_int_equal(ap->missing_objects, 1 + 5);
	assert_int_equal(count(ap, SS_AUDIT_MISSING), 2);
	struct ss_eval *ev = attach(a, ap);
	const struct ss_finding *f = finding(ev, "MISSING_REMOTE_OBJECT");
	assert_non_null(f);
	assert_int_equal(f->segments, 2);
	assert_int_equal(f->bytes, 1000 + 2000);
	assert_int_equal(f->n_ids, 2);
	assert_string_equal(f->segment_ids[0], S1);
	assert_string_equal(f->segment_ids[1], S2);
	assert_int_equal(f->n_keys, 6);
	assert_string_equal(f->object_keys[0], DIR0 OFF0 S1 ".log");
	/* the whole fileset of S2, as LocalTieredStorage would have named it */
	bool idx = false, snap = false;
	for (uint32_t i = 0; i < f->n_keys; i++) {
		idx |= !strcmp(f->object_keys[i], DIR0 OFF100 S2 ".index");
		snap |= !strcmp(f->object_keys[i], DIR0 OFF100 S2 ".snapshot");
	}
	assert_true(idx && snap);
	assert_null(finding(ev, "ORPHAN_REMOTE_OBJECT"));
	ss_eval_free(ev);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- the optional .txnindex: absent is fine, present is the segment's ---- */
static void t_txnindex(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	obj(a, DIR0 OFF0 S1 ".index", 8);
	obj(a, DIR0 OFF0 S1 ".leader_epoch_checkpoint", 8);
	obj(a, DIR0 OFF0 S1 ".log", 1000);
	obj(a, DIR0 OFF0 S1 ".snapshot", 8);
	obj(a, DIR0 OFF0 S1 ".timeindex", 8);
	obj(a, DIR0 OFF0 S1 ".txnindex", 8);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_int_equal(ap->n_items, 0);
	assert_int_equal(ap->objects, 6);
	assert_int_equal(ap->unrecognised, 0);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- ORPHAN: DELETE_SEGMENT_FINISHED and an id nobody knows; DELETE_STARTED is pending ---- */
static void t_orphan(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_DELETE_FINISHED, NOW - 100000);
	add(r, "orders", 0, S2, 100, 199, 2000, SS_RSEG_DELETE_STARTED, NOW - 90000);
	add(r, "orders", 0, S4, 300, 399, 4000, SS_RSEG_COPY_FINISHED, NOW - 80000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 0);
	fileset(a, OFF100 S2, 2000, 0);
	fileset(a, OFF200 S3, 3000, 0);   /* unknown id, complete */
	fileset(a, "00000000000000000300-" S4, 4000, 0);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_int_equal(count(ap, SS_AUDIT_ORPHAN), 2);
	assert_int_equal(ap->orphan_objects, 10);
	assert_int_equal(ap->orphan_bytes, 1000 + 40 + 3000 + 40);
	assert_int_equal(ap->pending_objects, 5);   /* S2, being deleted */
	assert_int_equal(ap->accounted_bytes, 4000);
	struct ss_eval *ev = attach(a, ap);
	const struct ss_finding *f = finding(ev, "ORPHAN_REMOTE_OBJECT");
	assert_non_null(f);
	assert_int_equal(f->segments, 2);
	assert_string_equal(f->segment_ids[0], S1);
	assert_string_equal(f->segment_ids[1], S3);
	assert_int_equal(f->n_keys, 10);
	assert_null(finding(ev, "MISSING_REMOTE_OBJECT"));
	assert_null(finding(ev, "TORN_REMOTE_UPLOAD"));
	ss_eval_free(ev);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- TORN: partial unknown id; STARTED old (torn) vs recent (in flight) ---- */
static void t_torn(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_STARTED, NOW - 3600001);   /* older than an hour */
	add(r, "orders", 0, S2, 100, 199, 2000, SS_RSEG_COPY_STARTED, NOW - 3600000); /* exactly the limit: in flight */
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 0x1c);   /* .index and .leader_epoch_checkpoint only */
	fileset(a, OFF100 S2, 2000, 0x1c);
	obj(a, DIR0 OFF200 S3 ".log", 3000);   /* unknown id, .log only */
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_int_equal(count(ap, SS_AUDIT_TORN), 2);
	assert_int_equal(ap->torn_objects, 3);
	assert_int_equal(ap->torn_bytes, 20 + 3000);
	assert_int_equal(ap->pending_objects, 2);
	assert_int_equal(ap->accounted_bytes, 0);
	struct ss_eval *ev = attach(a, ap);
	const struct ss_finding *f = finding(ev, "TORN_REMOTE_UPLOAD");
	assert_non_null(f);
	assert_int_equal(f->segments, 2);
	assert_string_equal(f->segment_ids[0], S1);
	assert_string_equal(f->segment_ids[1], S3);
	assert_null(finding(ev, "ORPHAN_REMOTE_OBJECT"));
	ss_eval_free(ev);
	/* a STARTED copy with all its objects is about to finish: nothing */
	ss_audit_free(a);
	a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 0);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_int_equal(part0(a)->n_items, 0);
	assert_int_equal(part0(a)->pending_objects, 5);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- REMOTE_SIZE_MISMATCH: the .log object against segment_size_in_bytes ---- */
static void t_size(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(r, "orders", 0, S2, 100, 199, 2000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 999, 0);
	fileset(a, OFF100 S2, 2000, 0);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_false(ss_audit_suspects(a));   /* sizes do not change between replays */
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_int_equal(count(ap, SS_AUDIT_SIZE), 1);
	struct ss_eval *ev = attach(a, ap);
	const struct ss_finding *f = finding(ev, "REMOTE_SIZE_MISMATCH");
	assert_non_null(f);
	assert_int_equal(f->segments, 1);
	assert_string_equal(f->object_keys[0], DIR0 OFF0 S1 ".log");
	assert_non_null(strstr(f->message, "999 bytes where 1000"));
	ss_eval_free(ev);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- unrecognised keys: counted and listed, never orphans, never skipped ---- */
static void t_unrecognised(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	obj(a, "README", 5);
	obj(a, DIR0 "0000000000000000000-" S2 ".log", 7);       /* 19 digits ('-' sorts before '0') */
	fileset(a, OFF0 S1, 1000, 0);
	obj(a, DIR0 OFF100 S2 ".log.deleted", 7);               /* not a suffix of the layout */
	obj(a, DIR0 OFF100 "oAtiIQ95REujbuzNd_lkLR.log", 7);    /* non-canonical id: unused bits set */
	obj(a, "kafka-tiered-storage/orders-x-LWgrMmVrT0a__7a4SasuPA/" OFF0 S1 ".log", 7);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_int_equal(ap->unrecognised, 3);
	assert_int_equal(ap->n_unrec_keys, 3);
	assert_int_equal(ap->n_items, 0);
	assert_int_equal(ap->orphan_objects, 0);
	const struct ss_audit_totals *t = ss_audit_totals(a);
	assert_int_equal(t->unrecognised, 5);
	assert_int_equal(t->unplaced, 2);
	assert_int_equal(t->n_unrec_keys, 2);
	assert_string_equal(t->unrec_keys[0], "README");
	assert_int_equal(t->objects, 1 + 1 + 5 + 3);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- the listing's order is the join's premise: a key out of order or repeated ---- */
static void t_order(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	obj(a, "b", 1);
	assert_int_equal(ss_audit_object(a, "a", 1, 1), -EPROTO);
	assert_non_null(strstr(ss_audit_error(a), "not in key order"));
	ss_audit_free(a);
	a = audit(r, SS_LAYOUT_LTS, false);
	obj(a, "a/b", 1);
	assert_int_equal(ss_audit_object(a, "a/b", 3, 1), -EPROTO);
	assert_non_null(strstr(ss_audit_error(a), "repeats"));
	/* '-' sorts before '/': "a-b" after "a/b" is out of order */
	ss_audit_free(a);
	a = audit(r, SS_LAYOUT_LTS, false);
	obj(a, "a/b", 1);
	assert_int_equal(ss_audit_object(a, "a-b", 3, 1), -EPROTO);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- an interrupted listing: what it covered is compared, the rest null ---- */
static void t_interrupted(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(r, "orders", 1, S2, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(r, "orders", 2, S3, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(r, "orders", 3, S4, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	/* orders-0 has nothing (all missing, and the listing went past it); orders-1 complete;
	 * the listing stops inside orders-2; orders-3 never reached */
	obj(a, "kafka-tiered-storage/orders-1-LWgrMmVrT0a__7a4SasuPA/" OFF0 S2 ".index", 10);
	obj(a, "kafka-tiered-storage/orders-1-LWgrMmVrT0a__7a4SasuPA/" OFF0 S2 ".leader_epoch_checkpoint", 10);
	obj(a, "kafka-tiered-storage/orders-1-LWgrMmVrT0a__7a4SasuPA/" OFF0 S2 ".log", 1000);
	obj(a, "kafka-tiered-storage/orders-1-LWgrMmVrT0a__7a4SasuPA/" OFF0 S2 ".snapshot", 10);
	obj(a, "kafka-tiered-storage/orders-1-LWgrMmVrT0a__7a4SasuPA/" OFF0 S2 ".timeindex", 10);
	obj(a, "kafka-tiered-storage/orders-2-LWgrMmVrT0a__7a4SasuPA/" OFF0 S3 ".index", 10);
	assert_int_equal(ss_audit_end_listing(a, false), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	uint8_t t[16];
	tid(t);
	const struct ss_audit_part *p0 = ss_audit_find(a, "orders", 0, t), *p1 = ss_audit_find(a, "orders", 1, t),
				   *p2 = ss_audit_find(a, "orders", 2, t), *p3 = ss_audit_find(a, "orders", 3, t);
	assert_true(p0->compared);
	assert_int_equal(p0->missing_objects, 5);
	assert_true(p1->compared);
	assert_int_equal(p1->n_items, 0);
	assert_false(p2->compared);
	assert_non_null(strstr(p2->why_not, "stopped inside"));
	assert_int_equal(p2->n_items, 0);   /* nothing about it is known: no findings */
	assert_false(p3->compared);
	assert_non_null(strstr(p3->why_not, "stopped before"));
	const char *why = NULL;
	assert_null(ss_audit_for_partition(a, "orders", 3, t, &why));
	assert_non_null(why);
	struct ss_eval *ev = calloc(1, sizeof(*ev));
	assert_int_equal(ss_audit_attach(a, NULL, why, ev), 0);
	assert_null(ev->remote_store);
	assert_int_equal(ev->n_findings, 0);
	ss_eval_free(ev);
	/* a partition neither side has, past the last key: unknown; before it: vouched empty */
	assert_null(ss_audit_for_partition(a, "zzz", 0, t, &why));
	assert_non_null(ss_audit_for_partition(a, "aaa", 0, t, &why));
	const struct ss_audit_totals *tt = ss_audit_totals(a);
	assert_false(tt->complete);
	assert_int_equal(tt->partitions_compared, 2);
	assert_string_equal(tt->last_key, "kafka-tiered-storage/orders-2-LWgrMmVrT0a__7a4SasuPA/" OFF0 S3 ".index");
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- a key past the partition's prefix closes it, whatever the key is ---- */
static void t_interrupted_after(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 0);
	obj(a, "zzz", 1);   /* no partition's, but after orders-0's prefix */
	assert_int_equal(ss_audit_end_listing(a, false), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_true(part0(a)->compared);
	assert_int_equal(part0(a)->n_items, 0);
	ss_audit_free(a);
	/* without that key the listing may have stopped inside it */
	a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 0);
	assert_int_equal(ss_audit_end_listing(a, false), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_false(part0(a)->compared);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- a listing refused before any key: nothing compared, never "no orphans" ---- */
static void t_refused(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	assert_int_equal(ss_audit_end_listing(a, false), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_false(part0(a)->compared);
	assert_int_equal(ss_audit_totals(a)->partitions_compared, 0);
	uint8_t t[16];
	tid(t);
	const char *why;
	assert_null(ss_audit_for_partition(a, "orders", 0, t, &why));
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- coverage: a partition without state the metadata cannot speak for is not judged ---- */
static void t_coverage(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, true);   /* only partitions with state */
	fileset(a, OFF0 S1, 1000, 0);
	obj(a, "kafka-tiered-storage/other-0-BFyXlC8ySMm-Uzxw5lZSMg/" OFF0 S2 ".log", 5);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_false(ap->compared);
	assert_false(ap->in_metadata);
	assert_int_equal(ap->objects, 5);
	assert_int_equal(ap->n_items, 0);
	assert_string_equal(ap->why_not, "test: unknown");
	assert_int_equal(ss_audit_totals(a)->not_compared_objects, 6);
	ss_audit_free(a);
	/* the same listing when the metadata was read whole: all orphans (a deleted topic's) */
	a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 0);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_true(part0(a)->compared);
	assert_int_equal(part0(a)->orphan_objects, 5);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- the second replay: what changed while listing is not a fault ---- */
static void t_confirm(void **st)
{
	(void)st;
	struct ss_remote *m0 = remote(), *m1 = remote();
	/* S1 finished, then deleted by retention during the listing; S2 finished and gone
	 * for real; S3 an upload that began during the listing */
	add(m0, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(m0, "orders", 0, S2, 100, 199, 2000, SS_RSEG_COPY_FINISHED, NOW - 90000);
	add(m1, "orders", 0, S1, 0, 99, 1000, SS_RSEG_DELETE_STARTED, NOW - 100000);
	add(m1, "orders", 0, S2, 100, 199, 2000, SS_RSEG_COPY_FINISHED, NOW - 90000);
	add(m1, "orders", 0, S3, 200, 299, 3000, SS_RSEG_COPY_STARTED, NOW - 1000);
	struct ss_audit *a = audit(m0, SS_LAYOUT_LTS, false);
	obj(a, DIR0 OFF200 S3 ".index", 10);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_true(ss_audit_suspects(a));
	assert_int_equal(ss_audit_confirm(a, m1), 0);
	const struct ss_audit_part *ap = part0(a);
	assert_int_equal(count(ap, SS_AUDIT_MISSING), 1);
	assert_int_equal(count(ap, SS_AUDIT_TORN), 0);
	assert_int_equal(ap->missing_objects, 5);
	assert_int_equal(ap->pending_objects, 1);
	struct ss_eval *ev = attach(a, ap);
	const struct ss_finding *f = finding(ev, "MISSING_REMOTE_OBJECT");
	assert_non_null(f);
	assert_int_equal(f->n_ids, 1);
	assert_string_equal(f->segment_ids[0], S2);
	ss_eval_free(ev);
	ss_audit_free(a);
	/* nothing happened to the partition in between: the first replay's word stands */
	a = audit(m0, SS_LAYOUT_LTS, false);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, m0), 0);
	assert_int_equal(count(part0(a), SS_AUDIT_MISSING), 2);
	ss_audit_free(a);
	ss_remote_free(m0);
	ss_remote_free(m1);
}

/* ---- one store root: keys under the other are not this store's partitions ---- */
static void t_roots(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, 1000, 0);
	obj(a, "orders-0-LWgrMmVrT0a__7a4SasuPA/" OFF0 S1 ".log", 1000);   /* bare, after the root form */
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_int_equal(part0(a)->n_items, 0);
	assert_int_equal(ss_audit_totals(a)->unplaced, 1);
	ss_audit_free(a);
	/* the bare form alone is a store served from kafka-tiered-storage/ itself */
	a = audit(r, SS_LAYOUT_LTS, false);
	static const char *const ext[] = { ".index", ".leader_epoch_checkpoint", ".log", ".snapshot", ".timeindex" };
	for (int i = 0; i < 5; i++) {
		char k[200];
		snprintf(k, sizeof(k), "orders-0-LWgrMmVrT0a__7a4SasuPA/" OFF0 S1 "%s", ext[i]);
		obj(a, k, i == 2 ? 1000 : 1);
	}
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_true(part0(a)->compared);
	assert_int_equal(part0(a)->n_items, 0);
	assert_string_equal(part0(a)->prefix, "orders-0-LWgrMmVrT0a__7a4SasuPA/");
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- a partition whose remote data is being deleted is not judged ---- */
static void t_partition_delete(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_remote_event ev = { .type = SS_REV_PARTITION_DELETE, .topic = "orders", .topic_len = 6,
				      .partition = 0, .has_topic_id = true, .broker_id = 1,
				      .event_timestamp_ms = NOW - 5000, .state = SS_RPART_DELETE_MARKED };
	tid(ev.topic_id);
	char msg[200];
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), 0);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	obj(a, DIR0 OFF0 S1 ".log", 1000);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_false(part0(a)->compared);
	assert_non_null(strstr(part0(a)->why_not, "being deleted"));
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- a store that gives no size: the partition is not compared ---- */
static void t_no_size(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	fileset(a, OFF0 S1, -1, 0);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	assert_false(part0(a)->compared);
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- aiven: three objects, sizes from the manifest ---- */
#define ADIR "orders-LWgrMmVrT0a__7a4SasuPA/0/"
static void t_aiven(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	add(r, "orders", 0, S1, 0, 99, 1000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(r, "orders", 0, S2, 100, 199, 2000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	add(r, "orders", 0, S3, 200, 299, 3000, SS_RSEG_COPY_FINISHED, NOW - 100000);
	struct ss_audit *a = audit(r, SS_LAYOUT_AIVEN, false);
	obj(a, ADIR OFF0 S1 ".indexes", 40);
	obj(a, ADIR OFF0 S1 ".log", 600);       /* compressed */
	obj(a, ADIR OFF0 S1 ".rsm-manifest", 300);
	obj(a, ADIR OFF100 S2 ".indexes", 40);
	obj(a, ADIR OFF100 S2 ".log", 2000);    /* no manifest: reads fail */
	obj(a, ADIR OFF200 S3 ".indexes", 41);
	obj(a, ADIR OFF200 S3 ".log", 3100);
	obj(a, ADIR OFF200 S3 ".rsm-manifest", 300);
	/* a segment's manifest is asked for once its objects are all listed (the next key) */
	assert_int_equal(ss_audit_manifest_count(a), 1);
	assert_string_equal(ss_audit_manifest_key(a, 0), ADIR OFF0 S1 ".rsm-manifest");
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_manifest_count(a), 2);
	assert_string_equal(ss_audit_manifest_key(a, 1), ADIR OFF200 S3 ".rsm-manifest");
	struct ss_aiven_manifest m1 = { .original_size = 1000, .stored_log_size = 600, .indexes_size = 40 };
	struct ss_aiven_manifest m3 = { .original_size = 2999, .stored_log_size = 3000, .indexes_size = 40 };
	assert_int_equal(ss_audit_manifest(a, 0, &m1, NULL), 0);
	assert_int_equal(ss_audit_manifest(a, 1, &m3, NULL), 0);
	ss_audit_manifest_clear(a);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	uint8_t t[16];
	tid(t);
	const struct ss_audit_part *ap = ss_audit_find(a, "orders", 0, t);
	assert_non_null(ap);
	assert_true(ap->compared);
	assert_int_equal(ap->missing_objects, 1);
	/* S3: original against metadata, .log and .indexes against the manifest */
	assert_int_equal(count(ap, SS_AUDIT_SIZE), 3);
	struct ss_eval *ev = attach(a, ap);
	const struct ss_finding *f = finding(ev, "MISSING_REMOTE_OBJECT");
	assert_non_null(f);
	assert_string_equal(f->object_keys[0], ADIR OFF100 S2 ".rsm-manifest");
	f = finding(ev, "REMOTE_SIZE_MISMATCH");
	assert_non_null(f);
	assert_int_equal(f->segments, 1);
	assert_string_equal(f->segment_ids[0], S3);
	ss_eval_free(ev);
	ss_audit_free(a);
	/* aiven torn: .log and .indexes without the manifest, no metadata */
	a = audit(r, SS_LAYOUT_AIVEN, false);
	obj(a, ADIR "00000000000000000900-" S4 ".indexes", 40);
	obj(a, ADIR "00000000000000000900-" S4 ".log", 40);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	ap = ss_audit_find(a, "orders", 0, t);
	assert_int_equal(count(ap, SS_AUDIT_TORN), 1);
	assert_int_equal(ap->missing_objects, 9);   /* and the three finished segments are not there */
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- a --remote-state file without Kafka ids: nothing can be matched, so nothing is judged ---- */
static void t_text_ids(void **st)
{
	(void)st;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	struct ss_remote_event ev = {
		.type = SS_REV_SEGMENT, .topic = "orders", .topic_len = 6, .partition = 0, .segment_id = "seg-1",
		.segment_id_len = 5, .start_offset = 0, .end_offset = 9, .size_bytes = 10, .epochs = EP0, .n_epochs = 1,
		.broker_id = 1, .event_timestamp_ms = NOW, .state = SS_RSEG_COPY_STARTED,
	};
	char msg[200];
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), 0);
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	obj(a, DIR0 OFF0 S1 ".log", 10);
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	const struct ss_audit_part *ap = ss_audit_find(a, "orders", 0, NULL);
	assert_non_null(ap);
	assert_false(ap->compared);
	assert_non_null(strstr(ap->why_not, "not Kafka Uuids"));
	ss_audit_free(a);
	ss_remote_free(r);
}

/* ---- memory: a million objects of one partition hold one partition's sort, no keys ---- */
static void t_many(void **st)
{
	(void)st;
	struct ss_remote *r = remote();
	struct ss_audit *a = audit(r, SS_LAYOUT_LTS, false);
	char key[200];
	uint8_t id[16] = { 0 };
	for (uint32_t i = 0; i < 200000; i++) {
		char txt[23];
		id[0] = (uint8_t)(i >> 16);
		id[1] = (uint8_t)(i >> 8);
		id[2] = (uint8_t)i;
		ss_uuid_format(id, txt);
		snprintf(key, sizeof(key), DIR0 "%020u-%s.log", i, txt);
		assert_int_equal(ss_audit_object(a, key, strlen(key), 1), 0);
	}
	assert_int_equal(ss_audit_end_listing(a, true), 0);
	assert_int_equal(ss_audit_confirm(a, NULL), 0);
	/* every one a torn upload (a .log alone, no metadata): items, not keys */
	assert_int_equal(part0(a)->torn_objects, 200000);
	assert_int_equal(part0(a)->n_unrec_keys, 0);
	struct ss_eval *ev = attach(a, part0(a));
	const struct ss_finding *f = finding(ev, "TORN_REMOTE_UPLOAD");
	assert_int_equal(f->segments, 200000);
	assert_int_equal(f->n_ids, SS_AUDIT_LIST_MAX);
	assert_int_equal(f->n_keys, SS_AUDIT_LIST_MAX);
	ss_eval_free(ev);
	ss_audit_free(a);
	ss_remote_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_clean),         cmocka_unit_test(t_missing),   cmocka_unit_test(t_txnindex),
		cmocka_unit_test(t_orphan),        cmocka_unit_test(t_torn),      cmocka_unit_test(t_size),
		cmocka_unit_test(t_unrecognised),  cmocka_unit_test(t_order),     cmocka_unit_test(t_interrupted),
		cmocka_unit_test(t_refused),       cmocka_unit_test(t_interrupted_after),
		      cmocka_unit_test(t_coverage),  cmocka_unit_test(t_confirm),
		cmocka_unit_test(t_roots),         cmocka_unit_test(t_partition_delete), cmocka_unit_test(t_no_size),
		cmocka_unit_test(t_aiven),         cmocka_unit_test(t_text_ids),  cmocka_unit_test(t_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
