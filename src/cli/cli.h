/* Subcommands of the segscan CLI. Each returns the process exit code. */
#ifndef SS_CLI_H
#define SS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

int ss_cmd_scan(int argc, char **argv);
int ss_cmd_gen(int argc, char **argv);
int ss_cmd_serve(int argc, char **argv);
int ss_cmd_dump(int argc, char **argv);
int ss_cmd_audit(int argc, char **argv);
int ss_cmd_merge(int argc, char **argv);

/* scan and audit: one scan run, with the command's name and help (cmd_scan.c). */
struct ss_cli_scan_cmd {
	const char *name;         /* "scan" | "audit" */
	const char *usage, *tail; /* --help before and after the options */
	bool        need_store;   /* --remote-store is required */
};
int ss_cli_run_scan(const struct ss_cli_scan_cmd *cmd, int argc, char **argv);

/* Shared by scan and serve (cli/options.c): the scan options from the library's table. */
struct ss_optdef;
struct segscan_scan;
/* A calloc'd getopt table: `head` (n_head entries, the command's own options, first so
 * that getopt prefers them), --format, every scan option, --help, the terminator. */
struct option *ss_cli_longopts(const struct option *head, size_t n_head);
/* getopt's short option string: "f:" + the table's short options + "h". */
const char *ss_cli_shortopts(char *buf, size_t len);
/* A command's --help on stdout: its usage, "Scan options:" with every option, its tail. */
void ss_cli_help(const char *usage, const char *tail);
/* The same without the options named in skip (NULL-terminated; "format" is --format). */
void ss_cli_help_except(const char *usage, const char *tail, const char *const *skip);
/* Is name one of skip's? */
bool ss_cli_skipped(const char *const *skip, const char *name);
/* The scan option getopt_long matched (c == 0: longopts[idx]; else a short option), or
 * NULL after telling the user to try `segscan <cmd> --help`. */
const struct ss_optdef *ss_cli_scan_option(const char *cmd, const struct option *longopts, int c, int idx);
/* Applies one parsed scan option to the library; returns 0 or prints an error and
 * returns 2. `name` is the long option name. */
int ss_cli_apply(struct segscan_scan *s, const char *name, const char *value);

#endif
