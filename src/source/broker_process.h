/*
 * The running broker's own configuration, found the way an operator would: its command
 * line. Kafka's kafka-server-start.sh runs `java ... kafka.Kafka <server.properties>`, so
 * /proc/<pid>/cmdline names the file that holds this broker's static configs
 * (STATIC_BROKER_CONFIG), metadata.log.dir and node.id.
 *
 * segscan runs as root on hosts with other users, and any user can start a process whose
 * command line reads `kafka.Kafka FILE`. So a process is the broker of a scanned log dir
 * only when all of these hold (docs/contract.md "The static config"):
 *   - every uid of the process (real, effective, saved, filesystem: /proc/PID/status) is
 *     root or the owner of that log dir; nothing else is read from any other process;
 *   - its config file, opened once (common/file.h: O_NONBLOCK, fstat on the descriptor,
 *     a regular file), is owned by root or by that log dir's owner and is not
 *     world-writable;
 *   - its log.dirs (else log.dir) lists that log dir (the same directory: device and
 *     inode, so a symbolic link or a relative path resolves as Kafka's would).
 * A process that fails the first two is never mentioned. One that passes them but cannot
 * be verified (its file unreadable, too large, unparseable; its log.dirs longer than
 * SS_BROKER_LOGDIRS_MAX; its time used up) is counted in n_unverified with the first
 * reason, naming neither its pid nor its file: an operator running segscan without the
 * rights to read the broker's file learns why nothing was found, and nobody is named the
 * broker who has not been shown to be it.
 *
 * The work is bounded per process (SS_BROKER_STATUS_MAX, SS_BROKER_CMDLINE_MAX,
 * SS_BROKER_CONFIG_MAX bytes, SS_BROKER_LOGDIRS_MAX entries, SS_BROKER_CANDIDATE_SECONDS)
 * and in all (SS_BROKER_FIND_SECONDS). Everything of one process is read through its
 * /proc/PID directory descriptor, so a pid reused meanwhile reads as gone, not as the
 * new process. The file is read ONCE: the caller parses `text`, never `path` again (a
 * file swapped for a FIFO after this read cannot make a second open block).
 *
 * Read-only: /proc/<pid>/status, cmdline, cwd and the properties file are read; nothing
 * is signalled or written. A /proc mounted with hidepid, or a process that exits
 * meanwhile, is skipped.
 */
#ifndef SS_SOURCE_BROKER_PROCESS_H
#define SS_SOURCE_BROKER_PROCESS_H

#include <stddef.h>
#include <stdint.h>

#define SS_BROKER_STATUS_MAX        ((size_t)64 << 10)
#define SS_BROKER_CMDLINE_MAX       ((size_t)256 << 10) /* a JVM's command line with a long class path */
#define SS_BROKER_CONFIG_MAX        ((size_t)4 << 20)   /* a server.properties is a few KiB */
#define SS_BROKER_LOGDIRS_MAX       1024u               /* log.dirs entries compared per process */
#define SS_BROKER_CANDIDATE_SECONDS 1.0
#define SS_BROKER_FIND_SECONDS      5.0

struct ss_broker_config {
	char    *path;         /* the verified broker's properties file (made absolute with its
				  working directory when relative); NULL when none */
	char    *text;         /* that file's bytes, read once, NUL-terminated; parse these */
	size_t   len;
	int      pid;          /* its process, -1 */
	uint32_t n_unverified; /* processes of the log dirs' owner running kafka.Kafka that
				  could not be verified */
	char    *unverified;   /* why the first of them could not be (owned); NULL */
	bool     gave_up;      /* SS_BROKER_FIND_SECONDS ran out before every process was seen */
};

/* proc_root: "/proc" (NULL) or a test tree laid out like it (PID/status, PID/cmdline,
 * PID/cwd). 0 (found or not: see out->path) or -ENOMEM. Release with
 * ss_broker_config_release. */
int  ss_broker_config_find(const char *proc_root, char *const *logdirs, uint32_t n_logdirs,
			   struct ss_broker_config *out);
void ss_broker_config_release(struct ss_broker_config *b);

#endif
