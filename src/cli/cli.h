/* Subcommands of the segscan CLI. Each returns the process exit code. */
#ifndef SS_CLI_H
#define SS_CLI_H

int ss_cmd_scan(int argc, char **argv);
int ss_cmd_gen(int argc, char **argv);
int ss_cmd_serve(int argc, char **argv);

/* Shared by scan and serve: the scan options, their long names and help text. */
#include <getopt.h>
extern const struct option ss_scan_longopts[];
extern const char ss_scan_options_help[];
/* Applies one parsed scan option to the library; returns 0 or prints an error and
 * returns 2. `name` is the long option name. */
struct segscan_scan;
int ss_cli_apply(struct segscan_scan *s, const char *name, const char *value);

#endif
