/* One strerror for both error spaces: negative errno and the SEGSCAN_E* format range. */
#include <string.h>

#include "segscan.h"

/* Indexed by the code's offset in the range, from the enum itself. */
#define FMT_MSG(code) [-(code) - SEGSCAN_EBASE]
static const char *const fmt_msgs[] = {
	FMT_MSG(SEGSCAN_ECORRUPT)    = "record batch framing is corrupt",
	FMT_MSG(SEGSCAN_ECRC)        = "record batch CRC mismatch",
	FMT_MSG(SEGSCAN_EMAGIC)      = "unknown record batch magic",
	FMT_MSG(SEGSCAN_EINDEX)      = "index inconsistent with its log segment",
	FMT_MSG(SEGSCAN_ECHECKPOINT) = "malformed checkpoint file",
	FMT_MSG(SEGSCAN_EDIRNAME)    = "not a <topic>-<partition> directory name",
	FMT_MSG(SEGSCAN_EVARINT)     = "malformed varint",
	FMT_MSG(SEGSCAN_ESCHEMA)     = "message does not fit its schema",
	FMT_MSG(SEGSCAN_ETRANSITION) = "illegal remote segment state transition",
	FMT_MSG(SEGSCAN_EJSON)       = "malformed JSON",
	FMT_MSG(SEGSCAN_ECONFIG)     = "malformed config line or value",
	FMT_MSG(SEGSCAN_ECODEC)      = "compression codec unsupported or stream corrupt",
	FMT_MSG(SEGSCAN_ETRUNC)      = "input ends inside a structure",
	FMT_MSG(SEGSCAN_EUNKNOWNSEG) = "update for an unknown remote segment",
	FMT_MSG(SEGSCAN_EMISMATCH)   = "value contradicts another source",
	FMT_MSG(SEGSCAN_ENOTREG)     = "not a regular file",
	FMT_MSG(SEGSCAN_EPARTMETA)   = "malformed partition.metadata file",
	FMT_MSG(SEGSCAN_ENOTLOGDIR)  = "not a Kafka log dir",
};
/* A code added to the enum without a message here (or the other way round) stops the
 * build: the table ends exactly at SEGSCAN_ELAST. */
_Static_assert(sizeof(fmt_msgs) / sizeof(fmt_msgs[0]) == (size_t)(-SEGSCAN_ELAST - SEGSCAN_EBASE),
	       "one message per SEGSCAN_E* code");

const char *segscan_strerror(int err)
{
	if (err == 0)
		return "success";
	if (err <= -SEGSCAN_EBASE - 1 && err > SEGSCAN_ELAST) {
		const char *m = fmt_msgs[-err - SEGSCAN_EBASE];
		return m ? m : "unknown segscan error";
	}
	if (err < 0 && err > -4096)
		return strerror(-err); /* strerror of a valid errno returns a static string */
	return "unknown error";
}

const char *segscan_version(void)
{
	return SEGSCAN_VERSION;
}
