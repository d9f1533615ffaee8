/* One strerror for both error spaces: negative errno and the SEGSCAN_E* format range. */
#include <string.h>

#include "segscan.h"

static const char *const fmt_msgs[] = {
	[1]  = "record batch framing is corrupt",
	[2]  = "record batch CRC mismatch",
	[3]  = "unknown record batch magic",
	[4]  = "index inconsistent with its log segment",
	[5]  = "malformed checkpoint file",
	[6]  = "not a <topic>-<partition> directory name",
	[7]  = "malformed varint",
	[8]  = "message does not fit its schema",
	[9]  = "illegal remote segment state transition",
	[10] = "malformed JSON",
	[11] = "malformed config line or value",
	[12] = "compression codec unsupported or stream corrupt",
	[13] = "input ends inside a structure",
	[14] = "update for an unknown remote segment",
	[15] = "value contradicts another source",
};

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
