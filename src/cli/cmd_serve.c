/* `segscan serve`: placeholder until the service lands (issue: segscan serve). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int ss_cmd_serve(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("Usage: segscan serve [OPTIONS] LOGDIR...\n\n(the service is not built yet)");
		return 0;
	}
	fputs("segscan serve: not available in this build yet\n", stderr);
	return 2;
}
