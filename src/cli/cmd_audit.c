/* `segscan audit`: the scan with --remote-store required (cmd_scan.c runs it). */
#include <stdbool.h>

#include "cli/cli.h"

static const char usage_audit[] =
"Usage: segscan audit [OPTIONS] --remote-store=URI LOGDIR...\n"
"\n"
"The scan of `segscan scan`, and the remote tier's object store listed and joined with the\n"
"remote log metadata (the local __remote_log_metadata partitions, --bootstrap-server or\n"
"--remote-state): per partition, topic and store, the objects and bytes stored, the bytes\n"
"the metadata accounts for, and the findings\n"
"  MISSING_REMOTE_OBJECT  the metadata says COPY_SEGMENT_FINISHED, an object reads need is\n"
"                         absent: fetches of that offset range fail\n"
"  ORPHAN_REMOTE_OBJECT   objects of a segment the metadata does not know or knows as\n"
"                         DELETE_SEGMENT_FINISHED: billed storage nothing will delete\n"
"  TORN_REMOTE_UPLOAD     some of a segment's objects, its copy STARTED long ago or unknown\n"
"  REMOTE_SIZE_MISMATCH   the .log object (or Aiven's manifest) against the metadata's size\n"
"A partition the listing did not cover, or whose metadata no source gives, is null, never\n"
"\"nothing wrong\". The store is only listed (HEAD where a listing lacks a size, GET of\n"
"Aiven's manifests); segment data is read only with --deep. Nothing is written.\n"
"\n";

static const char audit_tail[] =
"\n"
"Exit status: as segscan scan's (findings do not change it); 1 also when the listing of the\n"
"store was refused or stopped early (the error names the store and the last key listed).\n"
"\n"
"Examples:\n"
"  segscan audit --remote-store=file:///var/lib/kafka/tiered /var/lib/kafka/data\n"
"  AWS_PROFILE=kafka segscan audit -f json --remote-layout=aiven \\\n"
"      --remote-store='s3://tiered/prod/?region=eu-west-1' --bootstrap-server=b1:9092 DATA\n"
"  segscan audit --remote-store='s3://kts?endpoint=http://127.0.0.1:7070' --rate=50 DATA\n";

int ss_cmd_audit(int argc, char **argv)
{
	static const struct ss_cli_scan_cmd audit = { .name = "audit", .usage = usage_audit, .tail = audit_tail,
						      .need_store = true };
	return ss_cli_run_scan(&audit, argc, argv);
}
