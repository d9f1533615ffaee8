/*
 * The live-cluster source against a hostile peer (issue 21 items 3 and 4, issue 20 item 8):
 * tests/cluster_peer.sh starts tests/fake_kafka.py on 127.0.0.1, a fake broker serving the
 * real __remote_log_metadata batches of tests/fixtures/kafka/tiered or lying about them, and
 * scans the fixture against it; each test below reports one case's verdict.
 *
 *   peer_clean           the peer's records give the on-disk replay's remote state
 *   peer_no_group        no group request (FindCoordinator, JoinGroup, OffsetFetch/Commit)
 *                        from scan or from serve's tail
 *   peer_crc             a flipped bit: refused (check.crcs), named, its partition unknown
 *   peer_crc_serve       the same through serve's tail
 *   peer_giveup          a high watermark of 2^62: the rate-based give-up, exit 1
 *   peer_deadline        --kafka-deadline=3000 against a long stream: exit 1, named
 *   peer_sigterm_stream  SIGTERM while records stream in: exit 143 at once
 *   peer_sigterm_stall   SIGTERM while a Fetch is never answered: exit 143 at once
 *   peer_sigterm_cfgs    SIGTERM while DescribeConfigs is never answered: exit 143 at once
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char lines[32][768];
static int n_lines;

static int group_setup(void **state)
{
	const char *tmp = getenv("SEGSCAN_TEST_TMP");
	char results[512], cmd[1024];
	snprintf(results, sizeof(results), "%s/cluster-peer-results.%d", tmp ? tmp : "/tmp", (int)getpid());
	snprintf(cmd, sizeof(cmd), "bash tests/cluster_peer.sh '%s'", results);
	int rc = system(cmd);
	FILE *f = fopen(results, "r");
	if (!f) {
		fprintf(stderr, "cluster_peer.sh (exit %d) wrote no results\n", rc);
		return 0;   /* every test then fails: "no verdict" */
	}
	while (n_lines < 32 && fgets(lines[n_lines], sizeof(lines[0]), f)) {
		lines[n_lines][strcspn(lines[n_lines], "\n")] = 0;
		n_lines++;
	}
	fclose(f);
	unlink(results);
	return 0;
}

static void verdict(const char *name)
{
	size_t nl = strlen(name);
	for (int i = 0; i < n_lines; i++) {
		const char *l = lines[i];
		const char *sp = strchr(l, ' ');
		if (!sp || strncmp(sp + 1, name, nl) || (sp[1 + nl] != 0 && sp[1 + nl] != ' ' && sp[1 + nl] != ':'))
			continue;
		print_message("%s\n", l);
		if (!strncmp(l, "PASS ", 5))
			return;
		fail_msg("%s", l);
	}
	fail_msg("cluster_peer.sh gave no verdict for %s", name);
}

static void peer_clean(void **s) { verdict("peer_clean"); }
static void peer_no_group(void **s) { verdict("peer_no_group"); }
static void peer_crc(void **s) { verdict("peer_crc"); }
static void peer_crc_serve(void **s) { verdict("peer_crc_serve"); }
static void peer_giveup(void **s) { verdict("peer_giveup"); }
static void peer_deadline(void **s) { verdict("peer_deadline"); }
static void peer_sigterm_stream(void **s) { verdict("peer_sigterm_stream"); }
static void peer_sigterm_stall(void **s) { verdict("peer_sigterm_stall"); }
static void peer_sigterm_cfgs(void **s) { verdict("peer_sigterm_cfgs"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(peer_clean),
		cmocka_unit_test(peer_no_group),
		cmocka_unit_test(peer_crc),
		cmocka_unit_test(peer_crc_serve),
		cmocka_unit_test(peer_giveup),
		cmocka_unit_test(peer_deadline),
		cmocka_unit_test(peer_sigterm_stream),
		cmocka_unit_test(peer_sigterm_stall),
		cmocka_unit_test(peer_sigterm_cfgs),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
