/*
 * The run-time half of include/segscan_version.h: the numbers compiled into this
 * library, which may differ from the header an embedder was built with.
 */
#include "segscan.h"

/* The Makefile's -DSEGSCAN_VERSION string is read from these same macros. */
_Static_assert(SEGSCAN_VERSION_MAJOR >= 0 && SEGSCAN_VERSION_MINOR < 1000 && SEGSCAN_VERSION_PATCH < 1000,
	       "SEGSCAN_VERSION_NUM packs minor and patch into three digits each");

int segscan_version_major(void) { return SEGSCAN_VERSION_MAJOR; }
int segscan_version_minor(void) { return SEGSCAN_VERSION_MINOR; }
int segscan_version_patch(void) { return SEGSCAN_VERSION_PATCH; }

bool segscan_check_version(int maj, int min, int pat)
{
	return SEGSCAN_VERSION_NUM(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR, SEGSCAN_VERSION_PATCH) >=
	       SEGSCAN_VERSION_NUM((long)maj, (long)min, (long)pat);
}
