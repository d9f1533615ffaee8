/*
 * segscan's version, at compile time and at run time (included by segscan.h; as
 * liburing's io_uring_version.h). The Makefile reads VERSION from these three macros,
 * so this file is the one place a release changes; the shared library's soname is
 * libsegscan.so.SEGSCAN_VERSION_MAJOR.
 *
 * Compile time: SEGSCAN_CHECK_VERSION(maj, min, pat) is true when the header is at
 * least maj.min.pat (GLib's sense; note liburing's IO_URING_CHECK_VERSION is the
 * opposite: true when the header is older), e.g.
 *   #if SEGSCAN_CHECK_VERSION(0, 2, 0)
 *       ... use an accessor added in 0.2 ...
 *   #endif
 * Run time: segscan_check_version(maj, min, pat) asks the same of the library actually
 * loaded (a program built against a newer header may run on an older .so of the same
 * soname). Both are thread-safe and allocate nothing.
 */
#ifndef SEGSCAN_VERSION_H
#define SEGSCAN_VERSION_H

#include <stdbool.h>

#define SEGSCAN_VERSION_MAJOR 0
#define SEGSCAN_VERSION_MINOR 1
#define SEGSCAN_VERSION_PATCH 0

#define SEGSCAN_VERSION_NUM(maj, min, pat) ((maj) * 1000000L + (min) * 1000L + (pat))
#define SEGSCAN_CHECK_VERSION(maj, min, pat)                                                   \
	(SEGSCAN_VERSION_NUM(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR, SEGSCAN_VERSION_PATCH) >= \
	 SEGSCAN_VERSION_NUM((maj), (min), (pat)))

#ifdef __cplusplus
extern "C" {
#endif

/* The loaded library's version numbers ("0.1.0" is segscan_version()). */
int  segscan_version_major(void);
int  segscan_version_minor(void);
int  segscan_version_patch(void);
/* True when the loaded library is at least maj.min.pat. */
bool segscan_check_version(int maj, int min, int pat);

#ifdef __cplusplus
}
#endif
#endif /* SEGSCAN_VERSION_H */
