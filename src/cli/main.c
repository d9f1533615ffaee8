/*
 * segscan: the command-line face of the library. Parses options, hands them to the
 * library by name (segscan_set), runs, prints. No scanning logic lives here.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/fdlimit.h"
#include "segscan.h"

static const char usage_main[] =
"Usage: segscan <command> [OPTIONS] ...\n"
"\n"
"Read Apache Kafka broker log dirs at the speed of the hardware and tell the truth about\n"
"tiered storage (KIP-405): per-partition segments, what is only local, the real copy lag\n"
"beside what the broker reports, and what size and time retention would delete.\n"
"\n"
"Commands:\n"
"  scan  [OPTIONS] LOGDIR...   one pass over one or more Kafka log dirs, report, exit\n"
"  serve [OPTIONS] LOGDIR...   the same scan repeated as a service with HTTP metrics\n"
"  audit [OPTIONS] --remote-store=URI LOGDIR...\n"
"                              the scan, and the remote tier's object store joined with\n"
"                              the remote metadata: missing, orphaned, torn objects\n"
"  gen   [OPTIONS] OUTDIR      write a realistic synthetic Kafka log dir\n"
"  dump  [OPTIONS] FILE...     show a segment, index, snapshot or checkpoint file\n"
"  merge [OPTIONS] REPORT...   one cluster report from several brokers' scan reports\n"
"\n"
"  segscan --version           print the version\n"
"  segscan <command> --help    options of a command\n"
"\n"
"segscan never writes, renames, locks or deletes anything inside a log dir.\n";

#ifndef SS_NO_JEMALLOC
/* jemalloc reads this at its first allocation, before main (a library constructor
 * allocates). With its per-thread caches on, jemalloc 5.3 crashes setting a cache up
 * under a tight address-space limit (`ulimit -v` 30000..45000: SIGSEGV in every run,
 * issue 14 item 5); without them an allocation that cannot be had comes back NULL and
 * is a clean error. The scan allocates per segment, not per record: on a 33 MB tree the
 * caches made no difference beyond run-to-run noise. MALLOC_CONF still overrides it. */
const char *malloc_conf = "tcache:false";
#endif

int main(int argc, char **argv)
{
	/* the soft open-file limit up to the hard one: a scan keeps many files open at
	 * once; the library sizes what it keeps in flight from whatever limit is left */
	ss_fd_raise_soft();
	/* A file-size limit (ulimit -f, LimitFSIZE=) makes a write fail with EFBIG, which each
	 * writer reports naming its file (the report, gen's files, serve's --textfile, whose
	 * PATH.tmp is removed while the service keeps serving), instead of SIGXFSZ killing
	 * the process mid-write (issue 21 item 10: serve died with rc 153 and left a partial
	 * PATH.tmp). */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
		printf("segscan %s\n", segscan_version());
		return 0;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (strcmp(cmd, "scan") == 0)
		return ss_cmd_scan(argc - 1, argv + 1);
	if (strcmp(cmd, "audit") == 0)
		return ss_cmd_audit(argc - 1, argv + 1);
	if (strcmp(cmd, "gen") == 0)
		return ss_cmd_gen(argc - 1, argv + 1);
	if (strcmp(cmd, "serve") == 0)
		return ss_cmd_serve(argc - 1, argv + 1);
	if (strcmp(cmd, "dump") == 0)
		return ss_cmd_dump(argc - 1, argv + 1);
	if (strcmp(cmd, "merge") == 0)
		return ss_cmd_merge(argc - 1, argv + 1);
	fprintf(stderr, "segscan: unknown command '%s'\n\n", cmd);
	fputs(usage_main, stderr);
	return 2;
}
