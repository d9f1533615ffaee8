/* State names of remote log metadata: see remote_event.h. */
#include <string.h>

#include "fmt/remote_event.h"

static const char *const seg_state_names[SS_RSEG_NSTATES] = {
	"COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED", "DELETE_SEGMENT_STARTED",
	"DELETE_SEGMENT_FINISHED", "DANGLING",
};
static const char *const part_state_names[3] = {
	"DELETE_PARTITION_MARKED", "DELETE_PARTITION_STARTED", "DELETE_PARTITION_FINISHED",
};

const char *ss_rseg_state_name(int state)
{
	return state >= 0 && state < SS_RSEG_NSTATES ? seg_state_names[state] : "?";
}

static int parse_name(const char *const *names, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return i;
	return -1;
}

int ss_rseg_state_parse(const char *s, size_t len)
{
	return parse_name(seg_state_names, SS_RSEG_NSTATES, s, len);
}

const char *ss_rpart_state_name(int state)
{
	return state >= 0 && state < 3 ? part_state_names[state] : "?";
}

int ss_rpart_state_parse(const char *s, size_t len)
{
	return parse_name(part_state_names, 3, s, len);
}

