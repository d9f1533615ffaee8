/* fmt/yamlkv.h: the one walk over the YAML subset of --web.config.file and
 * --http.config.file, and the two parsers' line errors through it (file, line, reason). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/httpconf.h"
#include "fmt/yamlkv.h"
#include "segscan.h"
#include "service/webconfig.h"

static void test_walk(void **state)
{
	(void)state;
	const char *text = "# head\n\ntop:\r\n  key: 'v # not a comment'  # a comment\n\t k2:   plain   \n"
			   "  empty:\nlast: {}";
	struct ss_yaml_lines it = ss_yaml_lines_init(text, strlen(text));
	struct ss_yaml_kv kv;
	const char *why = NULL;
	static const struct { unsigned line; size_t indent; const char *k, *v; } want[] = {
		{ 3, 0, "top", "" },  { 4, 2, "key", "v # not a comment" }, { 5, 2, "k2", "plain" },
		{ 6, 2, "empty", "" }, { 7, 0, "last", "{}" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(ss_yaml_next(&it, &kv, &why), 1);
		assert_int_equal(it.l.no, want[i].line);
		assert_int_equal(kv.indent, want[i].indent);
		assert_int_equal(kv.kn, strlen(want[i].k));
		assert_memory_equal(kv.k, want[i].k, kv.kn);
		assert_int_equal(kv.vn, strlen(want[i].v));
		if (kv.vn)
			assert_memory_equal(kv.v, want[i].v, kv.vn);
	}
	assert_int_equal(ss_yaml_next(&it, &kv, &why), 0);
	assert_int_equal(ss_yaml_next(&it, &kv, &why), 0);
}

/* Each line the subset refuses, as both parsers report it: "FILE:LINE: reason" (%s: a
 * section each parser takes, basic_auth / tls_server_config). */
static const struct {
	const char *text, *err;
} bad_lines[] = {
	{ "# c\n- item\n", "f.yml:2: YAML lists are not supported here" },
	{ "%s:\n  b\n", "f.yml:2: expected \"key: value\"" },
	{ "a:b\n", "f.yml:1: expected \"key: value\"" },
	{ "\n\n  '': x\n", "f.yml:3: empty or malformed key" },
	{ "'a' b: x\n", "f.yml:1: empty or malformed key" },
	{ "%s:\n  b: 'open\n", "f.yml:2: unterminated quote" },
	{ "%s:\r\n\n  b: \"x\" y\n", "f.yml:3: unterminated quote" },
};

static void test_line_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		char t[128], err[256] = "";
		snprintf(t, sizeof(t), bad_lines[i].text, "basic_auth");
		struct ss_httpconf h = { 0 };
		assert_int_equal(ss_httpconf_parse(t, strlen(t), "f.yml", &h, err, sizeof(err)), SEGSCAN_ECONFIG);
		assert_string_equal(err, bad_lines[i].err);
		ss_httpconf_free(&h);
		struct ss_web_config w = { 0 };
		snprintf(t, sizeof(t), bad_lines[i].text, "tls_server_config");
		err[0] = 0;
		assert_int_equal(ss_web_config_parse(t, strlen(t), "f.yml", &w, err, sizeof(err)), SEGSCAN_ECONFIG);
		assert_string_equal(err, bad_lines[i].err);
		ss_web_config_free(&w);
	}
}

/* The checks after the walk name the last line read (blank lines included), or line 1 of
 * an empty file; CRLF files read as LF ones. */
static void test_after_walk(void **state)
{
	(void)state;
	char err[256];
	struct ss_httpconf h = { 0 };
	const char *t = "tls_config:\r\n  cert_file: c.pem\r\n\r\n";
	assert_int_equal(ss_httpconf_parse(t, strlen(t), "h.yml", &h, err, sizeof(err)), SEGSCAN_ECONFIG);
	assert_string_equal(err, "h.yml:3: tls_config needs both cert_file and key_file, or neither");
	ss_httpconf_free(&h);
	t = "basic_auth:\n  username: 'alice' # who\n  password: \"p#w\"\ntls_config: {}\n";
	assert_int_equal(ss_httpconf_parse(t, strlen(t), "h.yml", &h, err, sizeof(err)), 0);
	assert_string_equal(h.username, "alice");
	assert_string_equal(h.password, "p#w");
	ss_httpconf_free(&h);

	struct ss_web_config w = { 0 };
	t = "tls_server_config:\n  key_file: k.pem\n\n";
	assert_int_equal(ss_web_config_parse(t, strlen(t), "w.yml", &w, err, sizeof(err)), SEGSCAN_ECONFIG);
	assert_string_equal(err, "w.yml:3: tls_server_config needs both cert_file and key_file");
	ss_web_config_free(&w);
	assert_int_equal(ss_web_config_parse("", 0, "w.yml", &w, err, sizeof(err)), 0);
	ss_web_config_free(&w);
	assert_int_equal(ss_web_config_parse("a\0b", 3, "w.yml", &w, err, sizeof(err)), SEGSCAN_ECONFIG);
	assert_string_equal(err, "w.yml:1: a NUL byte: not a text file");
	ss_web_config_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_line_errors),
		cmocka_unit_test(test_after_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
