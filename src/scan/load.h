/* Moved to source/context.h (the context sources). This forwarder lives only until
 * scan.c's own include line names the new place; then it goes. */
#include "source/context.h"
