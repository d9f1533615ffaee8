/* Per-worker arenas: with jemalloc, blocks land in the arena asked for (checked with
 * jemalloc's own "arenas.lookup", not with our bookkeeping) from any thread; without it
 * (-DSS_NO_JEMALLOC, or a process that has no jemalloc) the malloc fallback works and
 * reports arena 0. test_link_modes builds small programs that do and do not have
 * jemalloc, since one test binary is only ever one of them. */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/arena.h"
#include "testutil.h"

static const size_t sizes[] = { 0, 1, 8, 100, 4096, 20000, 1u << 20, 8u << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Fill every byte and read it back: a block shorter than asked would trip ASan (the
 * fallback build) or, with jemalloc, be caught by a neighbour's pattern. */
static void fill(void *p, size_t n, unsigned char seed)
{
	unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(seed + i * 7);
}

static void check(const void *p, size_t n, unsigned char seed)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i] != (unsigned char)(seed + i * 7))
			fail_msg("byte %zu of a %zu-byte block changed", i, n);
}

/*
 * ss_arena_enabled() tells what the running process really has, found without the
 * build's #ifdef: jemalloc's mallctl is linked in exactly when arenas are enabled, and
 * then a block from a created arena is in that arena by jemalloc's own lookup (called
 * through the symbol, not through arena.c); without it the fallback's blocks are plain
 * malloc blocks that free() takes.
 */
static void test_arena_selection(void **state)
{
	typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
	mallctl_fn mc;
	void *sym = dlsym(RTLD_DEFAULT, "mallctl");
	memcpy(&mc, &sym, sizeof(mc));   /* object to function pointer, without the pedantic cast */
	assert_int_equal(ss_arena_enabled(), sym != NULL);

	unsigned a = 12345;
	assert_int_equal(ss_arena_create(&a), 0);
	void *p = ss_arena_alloc(a, 4096);
	assert_non_null(p);
	fill(p, 4096, 3);
	check(p, 4096, 3);
	if (sym) {
		const char *ver = NULL;
		size_t sz = sizeof(ver);
		assert_int_equal(mc("version", &ver, &sz, NULL, 0), 0);
		assert_non_null(ver);
		unsigned got = 9999;
		sz = sizeof(got);
		assert_int_equal(mc("arenas.lookup", &got, &sz, &p, sizeof(p)), 0);
		assert_int_equal(got, a);
		assert_int_not_equal(a, 0);   /* a created arena, not the automatic one */
		ss_arena_free(p);
	} else {
		assert_int_equal(a, 0);
		free(p);   /* the fallback's block is malloc's: ASan checks the pairing */
	}
	assert_int_equal(ss_arena_destroy(a), 0);
}

static void test_alloc_lands_in_arena(void **state)
{
	unsigned a1 = 12345, a2 = 12345;
	void *p1[NSIZES], *p2[NSIZES];
	assert_int_equal(ss_arena_create(&a1), 0);
	assert_int_equal(ss_arena_create(&a2), 0);
	for (size_t i = 0; i < NSIZES; i++) {
		p1[i] = ss_arena_alloc(a1, sizes[i]);
		p2[i] = ss_arena_alloc(a2, sizes[i]);
		assert_non_null(p1[i]);
		assert_non_null(p2[i]);
		assert_ptr_not_equal(p1[i], p2[i]);
		/* the allocator's own view of the block (jemalloc's, or ASan's in the
		 * fallback build) */
		assert_true(malloc_usable_size(p1[i]) >= sizes[i]);
		assert_true(malloc_usable_size(p2[i]) >= sizes[i]);
		fill(p1[i], sizes[i], (unsigned char)i);
		fill(p2[i], sizes[i], (unsigned char)(i + 100));
	}
	if (ss_arena_enabled()) {
		/* arena 0 is automatic: created arenas come after the automatic ones */
		assert_int_not_equal(a1, a2);
		assert_true(a1 > 0 && a2 > 0);
		for (size_t i = 0; i < NSIZES; i++) {
			unsigned got = 9999;
			assert_int_equal(ss_arena_of(p1[i], &got), 0);
			if (got != a1)
				fail_msg("%zu bytes: arena %u, want %u", sizes[i], got, a1);
			assert_int_equal(ss_arena_of(p2[i], &got), 0);
			if (got != a2)
				fail_msg("%zu bytes: arena %u, want %u", sizes[i], got, a2);
		}
		/* the lookup does tell arenas apart: an ordinary malloc is in neither */
		void *m = malloc(64);
		assert_non_null(m);
		unsigned got = 9999;
		assert_int_equal(ss_arena_of(m, &got), 0);
		assert_int_not_equal(got, a1);
		assert_int_not_equal(got, a2);
		free(m);
	} else {
		assert_int_equal(a1, 0);
		assert_int_equal(a2, 0);
		unsigned got = 9999;
		assert_int_equal(ss_arena_of(p1[0], &got), -ENOTSUP);
		assert_int_equal(got, 9999);
	}
	for (size_t i = 0; i < NSIZES; i++) {
		check(p1[i], sizes[i], (unsigned char)i);
		check(p2[i], sizes[i], (unsigned char)(i + 100));
		ss_arena_free(p1[i]);
		ss_arena_free(p2[i]);
	}
	ss_arena_free(NULL);
	assert_int_equal(ss_arena_destroy(a1), 0);
	assert_int_equal(ss_arena_destroy(a2), 0);
}

/* Workers create their arenas and allocate concurrently; blocks are freed by another
 * thread, as the evaluator may do with a worker's buffers. */
struct worker {
	unsigned arena;
	int      create_rc;
	unsigned wrong;     /* blocks that landed elsewhere */
	void    *blocks[256];
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	w->create_rc = ss_arena_create(&w->arena);
	if (w->create_rc)
		return NULL;
	for (int i = 0; i < 256; i++) {
		size_t n = (size_t)(i * 37 % 5000) + 1;
		w->blocks[i] = ss_arena_alloc(w->arena, n);
		if (!w->blocks[i])
			continue;
		fill(w->blocks[i], n, (unsigned char)i);
		unsigned got;
		if (ss_arena_enabled() && (ss_arena_of(w->blocks[i], &got) || got != w->arena))
			w->wrong++;
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct worker w[4];
	pthread_t th[4];
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(w[i].create_rc, 0);
		assert_int_equal(w[i].wrong, 0);
		if (ss_arena_enabled())
			for (int j = 0; j < i; j++)
				assert_int_not_equal(w[i].arena, w[j].arena);
		for (int k = 0; k < 256; k++) {
			assert_non_null(w[i].blocks[k]);
			check(w[i].blocks[k], (size_t)(k * 37 % 5000) + 1, (unsigned char)k);
			ss_arena_free(w[i].blocks[k]);
		}
		assert_int_equal(ss_arena_destroy(w[i].arena), 0);
	}
}

static void test_destroy(void **state)
{
	unsigned a;
	assert_int_equal(ss_arena_create(&a), 0);
	void *p = ss_arena_alloc(a, 1000);
	assert_non_null(p);
	ss_arena_free(p);
	assert_int_equal(ss_arena_destroy(a), 0);
	if (ss_arena_enabled()) {
		/* gone, and the automatic arena 0 cannot be destroyed */
		assert_true(ss_arena_destroy(a) < 0);
		assert_true(ss_arena_destroy(0) < 0);
		/* the index is reusable: creating again works and allocations land there */
		unsigned b;
		assert_int_equal(ss_arena_create(&b), 0);
		p = ss_arena_alloc(b, 1000);
		assert_non_null(p);
		unsigned got;
		assert_int_equal(ss_arena_of(p, &got), 0);
		assert_int_equal(got, b);
		ss_arena_free(p);
		assert_int_equal(ss_arena_destroy(b), 0);
	}
}

/* The probe: arenas created, blocks of several sizes allocated, written, freed; prints
 * what it saw. Linked below with and without jemalloc. */
static const char probe_src[] =
"#include <stdio.h>\n"
"#include <string.h>\n"
"#include \"sched/arena.h\"\n"
"int main(void) {\n"
"	unsigned a = 77, got = 99;\n"
"	if (ss_arena_create(&a)) return 10;\n"
"	static const size_t n[] = { 0, 1, 100, 5000, 1u << 20 };\n"
"	void *keep = NULL;\n"
"	for (int i = 0; i < 5; i++) {\n"
"		void *p = ss_arena_alloc(a, n[i]);\n"
"		if (!p) return 11;\n"
"		memset(p, 0x5a, n[i]);\n"
"		if (i == 2) keep = p; else ss_arena_free(p);\n"
"	}\n"
"	int of = ss_arena_of(keep, &got);\n"
"	printf(\"enabled=%d arena0=%d of=%d match=%d\\n\", ss_arena_enabled(), a == 0, of, of == 0 && got == a);\n"
"	ss_arena_free(keep);\n"
"	return ss_arena_destroy(a) ? 12 : 0;\n"
"}\n";

static void expect_probe(const char *what, const char *cmd_fmt, const char *a, const char *b, const char *want)
{
	char *out = NULL;
	int rc = tu_run(&out, cmd_fmt, a, b);
	if (rc != 0 || !out || strcmp(out, want))
		fail_msg("%s: exit %d, printed \"%s\", want \"%s\"", what, rc, out ? out : "", want);
	free(out);
}

/*
 * The library's choice in each way an embedder can link it (issue 11: the library does
 * not force jemalloc): a shared object built from arena.c, without jemalloc in the
 * process and with it preloaded; the build's own arena.o linked statically without and
 * with -ljemalloc. Without jemalloc the blocks are malloc's (arena 0, no lookup); with it
 * they land in the created arena by jemalloc's lookup.
 */
static void test_link_modes(void **state)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* the sanitizer build compiles jemalloc out, and its objects need the runtime */
	skip();
#endif
	const char *bin = getenv("SEGSCAN");
	if (!bin) {
		print_message("SEGSCAN (the built binary, set by tests/run.sh) is not set\n");
		fail();
	}
	char *bdir = strdup(bin), *tmp = tu_mkdtemp("arena"), *je = NULL, path[4096];
	assert_non_null(bdir);
	assert_non_null(tmp);
	char *slash = strrchr(bdir, '/');
	if (slash)
		*slash = 0;
	else
		strcpy(bdir, ".");
	snprintf(path, sizeof(path), "%s/probe.c", tmp);
	assert_int_equal(tu_write_file(path, probe_src, strlen(probe_src)), 0);
	/* the jemalloc the build uses, if any: its shared object to preload */
	if (tu_run(&je, "pkg-config --variable=libdir jemalloc 2>/dev/null") == 0 && je && *je) {
		je[strcspn(je, "\n")] = 0;
		char *so = NULL;
		assert_true(asprintf(&so, "%s/libjemalloc.so.2", je) > 0);
		free(je);
		je = access(so, R_OK) == 0 ? so : (free(so), NULL);
	} else {
		free(je);
		je = NULL;
	}

	const char *cc = getenv("CC") ? getenv("CC") : "cc";
	char *out = NULL;
	/* a shared object from the source, as libsegscan.so is built (-fPIC, no -ljemalloc) */
	assert_int_equal(tu_run(&out, "%s -std=gnu11 -O2 -fPIC -shared -D_GNU_SOURCE -Isrc -o %s/libarena.so "
				 "src/sched/arena.c 2>&1 && %s -std=gnu11 -Isrc -o %s/probe_so %s/probe.c -L%s -larena "
				 "-Wl,-rpath,%s 2>&1", cc, tmp, cc, tmp, tmp, tmp, tmp), 0);
	free(out);
	assert_int_equal(tu_run(&out, "readelf -d %s/libarena.so | grep -c 'NEEDED.*jemalloc'", tmp), 1);
	assert_string_equal(out, "0\n");
	free(out);
	expect_probe("shared, no jemalloc", "env -u LD_PRELOAD %s/%s", tmp, "probe_so",
		     "enabled=0 arena0=1 of=-95 match=0\n");
	if (je) {
		char pre[4200];
		snprintf(pre, sizeof(pre), "LD_PRELOAD=%s %%s/%%s", je);
		expect_probe("shared, jemalloc preloaded", pre, tmp, "probe_so", "enabled=1 arena0=0 of=0 match=1\n");
	}

	/* the build's own object, linked statically as libsegscan.a is */
	assert_int_equal(tu_run(&out, "%s -std=gnu11 -Isrc -o %s/probe_static %s/probe.c %s/obj/src/sched/arena.o 2>&1",
				cc, tmp, tmp, bdir), 0);
	free(out);
	expect_probe("static, no jemalloc", "env -u LD_PRELOAD %s/%s", tmp, "probe_static",
		     "enabled=0 arena0=1 of=-95 match=0\n");
	if (je) {
		assert_int_equal(tu_run(&out, "%s -std=gnu11 -Isrc -o %s/probe_je %s/probe.c %s/obj/src/sched/arena.o "
					 "-ljemalloc 2>&1", cc, tmp, tmp, bdir), 0);
		free(out);
		expect_probe("static, -ljemalloc", "env -u LD_PRELOAD %s/%s", tmp, "probe_je",
			     "enabled=1 arena0=0 of=0 match=1\n");
	} else {
		print_message("no jemalloc found: only the malloc paths were checked\n");
	}
	assert_int_equal(tu_run(NULL, "rm -rf %s", tmp), 0);
	free(je);
	free(tmp);
	free(bdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arena_selection),
		cmocka_unit_test(test_alloc_lands_in_arena),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_destroy),
		cmocka_unit_test(test_link_modes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
