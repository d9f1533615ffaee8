/* Discovery over a hand-built log dir: names, classification, checkpoints, notes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "discover/discover.h"
#include "testutil.h"

static char *mk(const char *root, const char *rel, const char *content)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", root, rel) > 0);
	assert_int_equal(tu_write_file(p, content, strlen(content)), 0);
	return p;
}

static void mkd(const char *root, const char *rel)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", root, rel) > 0);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

static const struct ss_part *find(const struct ss_catalog *c, const char *topic, int32_t part)
{
	for (uint32_t i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].topic, topic) && c->parts[i].partition == part)
			return &c->parts[i];
	return NULL;
}

static bool has_note(const struct ss_catalog *c, const char *path_suffix, const char *what_part)
{
	size_t sl = strlen(path_suffix);
	for (uint32_t i = 0; i < c->n_notes; i++) {
		size_t pl = strlen(c->notes[i].path);
		if (pl >= sl && !strcmp(c->notes[i].path + pl - sl, path_suffix) && strstr(c->notes[i].what, what_part))
			return true;
	}
	return false;
}

static char *build_tree(void)
{
	char *root = tu_mkdtemp("discover");
	assert_non_null(root);
	free(mk(root, "meta.properties", "version=1\ncluster.id=abc\nnode.id=1\n"));
	free(mk(root, "recovery-point-offset-checkpoint", "0\n2\norders.v2 0 100\nclick-stream 3 5\n"));
	free(mk(root, "log-start-offset-checkpoint", "0\n1\norders.v2 0 10\n"));
	free(mk(root, "replication-offset-checkpoint", "0\n1\nclick-stream 3 6\n"));
	free(mk(root, "stray.txt", "hello"));
	mkd(root, "orders.v2-0");
	free(mk(root, "orders.v2-0/00000000000000000000.log", ""));
	free(mk(root, "orders.v2-0/00000000000000000000.index", ""));
	free(mk(root, "orders.v2-0/00000000000000000000.timeindex", ""));
	free(mk(root, "orders.v2-0/00000000000000000100.log", ""));
	free(mk(root, "orders.v2-0/00000000000000000100.index", ""));
	free(mk(root, "orders.v2-0/00000000000000000100.timeindex", ""));
	free(mk(root, "orders.v2-0/00000000000000000100.txnindex", ""));
	free(mk(root, "orders.v2-0/00000000000000000100.snapshot", ""));
	free(mk(root, "orders.v2-0/00000000000000000050.log.deleted", ""));
	free(mk(root, "orders.v2-0/junk.txt", "x"));
	free(mk(root, "orders.v2-0/leader-epoch-checkpoint", "0\n2\n0 0\n3 50\n"));
	free(mk(root, "orders.v2-0/partition.metadata", "version: 0\ntopic_id: ASNFZ4mrze_-3LqYdlQyEA"));
	mkd(root, "click-stream-3");
	free(mk(root, "click-stream-3/00000000000000000005.log", ""));
	free(mk(root, "click-stream-3/00000000000000000007.index", ""));
	mkd(root, "click-stream-10");
	mkd(root, "click-stream-2");
	mkd(root, "pay_ments-0.0123456789abcdef0123456789abcdef-delete");
	mkd(root, "notapartition");
	mkd(root, "remote-log-index-cache");
	return root;
}

static void test_catalog(void **state)
{
	char *root = build_tree();
	struct ss_catalog cat = { 0 };
	char *paths[] = { root };
	assert_int_equal(ss_discover(&cat, paths, 1), 0);

	/* sorted by topic bytewise, then partition as a number */
	assert_int_equal(cat.n_parts, 4);
	assert_string_equal(cat.parts[0].topic, "click-stream");
	assert_int_equal(cat.parts[0].partition, 2);
	assert_int_equal(cat.parts[1].partition, 3);
	assert_int_equal(cat.parts[2].partition, 10);
	assert_string_equal(cat.parts[3].topic, "orders.v2");

	const struct ss_part *o = find(&cat, "orders.v2", 0);
	assert_non_null(o);
	assert_int_equal(o->seg_count, 2);
	const struct ss_seg *s0 = &cat.segs[o->seg_first], *s1 = &cat.segs[o->seg_first + 1];
	assert_int_equal(s0->base_offset, 0);
	assert_int_equal(s1->base_offset, 100);
	assert_false(s0->flags & SS_SEG_ACTIVE);
	assert_true(s1->flags & SS_SEG_ACTIVE);
	assert_int_equal(s0->files, SS_HAS_LOG | SS_HAS_INDEX | SS_HAS_TIMEINDEX);
	assert_int_equal(s1->files, SS_HAS_LOG | SS_HAS_INDEX | SS_HAS_TIMEINDEX | SS_HAS_TXNINDEX);
	/* every segment points back at its (sorted) partition */
	for (uint32_t i = 0; i < cat.n_parts; i++)
		for (uint32_t k = 0; k < cat.parts[i].seg_count; k++)
			assert_int_equal(cat.segs[cat.parts[i].seg_first + k].part, i);

	assert_true(o->has_log_start);
	assert_int_equal(o->log_start_ckpt, 10);
	assert_true(o->has_recovery_point);
	assert_int_equal(o->recovery_point, 100);
	assert_false(o->has_high_watermark);
	assert_true(o->epochs_read);
	assert_int_equal(o->n_epochs, 2);
	assert_int_equal(o->epochs[1].epoch, 3);
	assert_int_equal(o->epochs[1].start_offset, 50);
	assert_true(o->has_topic_id);
	assert_int_equal(o->topic_id[0], 0x01);
	assert_int_equal(o->topic_id[15], 0x10);
	assert_int_equal(o->deleted_files, 1);
	assert_int_equal(o->snapshot_files, 1);
	assert_int_equal(o->unknown_files, 1);

	const struct ss_part *c3 = find(&cat, "click-stream", 3);
	assert_non_null(c3);
	assert_int_equal(c3->seg_count, 1);
	assert_true(c3->has_high_watermark);
	assert_int_equal(c3->high_watermark, 6);
	assert_int_equal(find(&cat, "click-stream", 10)->seg_count, 0);

	/* reported, not counted */
	assert_null(find(&cat, "pay_ments", 0));
	assert_true(has_note(&cat, "-delete", "scheduled for deletion"));
	assert_true(has_note(&cat, "notapartition", "not a <topic>-<partition>"));
	assert_true(has_note(&cat, "stray.txt", "unknown file"));
	assert_true(has_note(&cat, "orders.v2-0/junk.txt", "unknown file"));
	assert_true(has_note(&cat, "00000000000000000050.log.deleted", ".deleted"));
	assert_true(has_note(&cat, "00000000000000000007.*", "orphaned"));
	assert_false(has_note(&cat, "remote-log-index-cache", ""));
	assert_int_equal(cat.n_problems, 0);
	ss_catalog_free(&cat);
	free(root);
}

static void test_missing_and_bad_files(void **state)
{
	char *root = build_tree();
	/* a malformed checkpoint is a problem naming the file and line, not a crash */
	free(mk(root, "orders.v2-0/leader-epoch-checkpoint", "0\n3\n0 0\n"));
	struct ss_catalog cat = { 0 };
	char *missing = NULL;
	assert_true(asprintf(&missing, "%s/nope", root) > 0);
	char *paths[] = { missing, root };
	assert_int_equal(ss_discover(&cat, paths, 2), 0);
	assert_int_equal(cat.logdirs[0].err, -ENOENT);
	assert_int_equal(cat.logdirs[1].err, 0);
	bool saw_ckpt = false, saw_missing = false;
	for (uint32_t i = 0; i < cat.n_problems; i++) {
		if (strstr(cat.problems[i].path, "leader-epoch-checkpoint")) {
			saw_ckpt = true;
			assert_true(cat.problems[i].data_loss);
		}
		if (!strcmp(cat.problems[i].path, missing))
			saw_missing = true;
	}
	assert_true(saw_ckpt);
	assert_true(saw_missing);
	assert_false(find(&cat, "orders.v2", 0)->epochs_read);
	ss_catalog_free(&cat);
	free(missing);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog),
		cmocka_unit_test(test_missing_and_bad_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
