/*
 * The benchmark's synthetic remote metadata (bench/evalbench.c, and tests/test_remote.c's
 * bookkeeping check): replay n_events events (adds, finishes, a delete of the oldest
 * segment every 16 uploads, occasional leader epoch changes) over n_parts partitions,
 * deterministic for a seed, through the one state machine (ss_remote_apply). Every event is
 * legal, in either mode. Not part of the library: the scanner never makes up events.
 */
#ifndef SS_BENCH_REMOTE_SYNTHETIC_H
#define SS_BENCH_REMOTE_SYNTHETIC_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/remote.h"
#include "fmt/names.h"
#include "fmt/remote_event.h"

struct synth_part {
	int64_t  next_off;
	int32_t  epoch;
	uint32_t added, deleted;
	int      phase;           /* 0 add next, 1 finish pending, 2 delete-finish oldest */
	char     pending[23];
	char     topic[16];
};

static uint64_t synth_xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static int bench_replay_synthetic(struct ss_remote *r, uint64_t n_events, uint32_t n_parts, uint64_t seed)
{
	if (!n_parts)
		return -EINVAL;
	struct synth_part *sp = calloc(n_parts, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	uint64_t rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	uint8_t tid[16];
	for (int i = 0; i < 16; i++)
		tid[i] = (uint8_t)synth_xorshift(&rng);
	for (uint32_t i = 0; i < n_parts; i++)
		snprintf(sp[i].topic, sizeof(sp[i].topic), "bench%u", i % 64);
	int e = 0;
	char msg[256];
	for (uint64_t i = 0; i < n_events; i++) {
		uint32_t pi = (uint32_t)(synth_xorshift(&rng) % n_parts);
		struct synth_part *q = &sp[pi];
		struct ss_epoch_entry ep[2];
		struct ss_remote_event ev = {
			.topic = q->topic, .topic_len = strlen(q->topic), .partition = (int32_t)(pi / 64),
			.has_topic_id = true, .broker_id = 1, .event_timestamp_ms = 1700000000000LL + (int64_t)i,
		};
		memcpy(ev.topic_id, tid, 16);
		ev.topic_id[0] ^= (uint8_t)(pi % 64);
		char del_id[23];
		if (q->phase == 1) {
			ev.type = SS_REV_UPDATE;
			ev.segment_id = q->pending;
			ev.segment_id_len = 22;
			ev.state = SS_RSEG_COPY_FINISHED;
			q->phase = (q->added % 16 == 0) ? 2 : 0;
		} else if (q->phase == 2 || q->phase == 3) {
			const struct ss_remote_part *p = ss_remote_find(r, ev.topic, ev.partition, ev.topic_id);
			const struct ss_rseg *s = p ? ss_remote_seg(p, q->deleted) : NULL;
			if (!s) {
				q->phase = 0;
				i--;
				continue;
			}
			memcpy(del_id, s->id, s->id_len < 22 ? s->id_len : 22);
			del_id[s->id_len < 22 ? s->id_len : 22] = '\0';
			ev.type = SS_REV_UPDATE;
			ev.segment_id = del_id;
			ev.segment_id_len = strlen(del_id);
			if (q->phase == 2) {
				ev.state = SS_RSEG_DELETE_STARTED;
				q->phase = 3;
			} else {
				ev.state = SS_RSEG_DELETE_FINISHED;
				q->deleted++;
				q->phase = 0;
			}
		} else {
			uint8_t id[16];
			for (int k = 0; k < 16; k++)
				id[k] = (uint8_t)synth_xorshift(&rng);
			ss_uuid_format(id, q->pending);
			if (synth_xorshift(&rng) % 64 == 0)
				q->epoch++;
			int64_t len = 1000 + (int64_t)(synth_xorshift(&rng) % 1000);
			ev.type = SS_REV_SEGMENT;
			ev.segment_id = q->pending;
			ev.segment_id_len = 22;
			ev.has_id_bytes = true;
			memcpy(ev.id_bytes, id, 16);
			ev.start_offset = q->next_off;
			ev.end_offset = q->next_off + len - 1;
			ev.size_bytes = len * 100;
			ev.max_timestamp_ms = ev.event_timestamp_ms;
			ep[0].epoch = q->epoch;
			ep[0].start_offset = q->next_off;
			ev.epochs = ep;
			ev.n_epochs = 1;
			ev.state = SS_RSEG_COPY_STARTED;
			q->next_off += len;
			q->added++;
			q->phase = 1;
		}
		if ((e = ss_remote_apply(r, &ev, msg, sizeof(msg))) < 0)
			break;
		e = 0;
	}
	free(sp);
	return e;
}

#endif
