#!/usr/bin/env python3
"""The audit benchmark's store (make bench, part `audit`): a file:// store in Kafka's
LocalTieredStorage layout and the remote metadata that matches it, deterministic for a seed.

  auditgen.py DIR OBJECTS [SEED]

DIR/store/kafka-tiered-storage/<topic>-<partition>-<topicId>/<offset 20d>-<segmentId>.<ext>,
the five objects LocalTieredStorage writes for a segment without a transaction index (.log
.index .timeindex .snapshot .leader_epoch_checkpoint: RemoteLogSegmentFileset), 100 segments a
partition, 100 partitions a topic, OBJECTS / 5 segments in all. Every file is sparse (ftruncate):
the audit reads sizes, never data, so the store costs inodes, not disk. DIR/remote.ndjson holds a
COPY_SEGMENT_STARTED and a COPY_SEGMENT_FINISHED event per segment (docs/contract.md, "Remote
state file"), with the segment's .log size as size_bytes: a clean store, no finding expected.
DIR/ld0 is a log dir with a meta.properties and no partition (the audit needs a log dir; every
partition is then one the metadata speaks for, in the summary's other_partitions). Prints "OBJECTS SEGMENTS PARTITIONS BYTES".
"""
import base64
import json
import os
import random
import sys

SEGS_PER_PART = 100
PARTS_PER_TOPIC = 100
EXTS = (".log", ".index", ".timeindex", ".snapshot", ".leader_epoch_checkpoint")
T0_MS = 1690000000000      # the events' time, before bench/run.sh's --now


def uuid(rng):
    """Kafka's Uuid.toString(): 16 bytes, base64url without padding; never the reserved
    ZERO or METADATA_TOPIC ids (Uuid.randomUuid retries those)"""
    while True:
        b = rng.getrandbits(128).to_bytes(16, "big")
        if b not in (bytes(16), bytes(15) + b"\x01"):
            return base64.urlsafe_b64encode(b).decode().rstrip("=")


def sparse(path, size):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)


def main():
    out, objects = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    segments = max(1, objects // len(EXTS))
    root = os.path.join(out, "store", "kafka-tiered-storage")
    os.makedirs(root)
    os.makedirs(os.path.join(out, "ld0"))
    with open(os.path.join(out, "ld0", "meta.properties"), "w") as f:
        f.write("#\nnode.id=1\ndirectory.id=%s\nversion=1\ncluster.id=%s\n" % (uuid(rng), uuid(rng)))
    nbytes = nparts = 0
    with open(os.path.join(out, "remote.ndjson"), "w") as ev:
        seg = 0
        topic_no = 0
        while seg < segments:
            topic, tid = "audit-%04d" % topic_no, uuid(rng)
            topic_no += 1
            for part in range(PARTS_PER_TOPIC):
                if seg >= segments:
                    break
                nparts += 1
                pdir = os.path.join(root, "%s-%d-%s" % (topic, part, tid))
                os.mkdir(pdir)
                for i in range(SEGS_PER_PART):
                    if seg >= segments:
                        break
                    seg += 1
                    sid, start = uuid(rng), i * 1000
                    size = 1048576 + rng.randrange(65536)
                    stem = os.path.join(pdir, "%020d-%s" % (start, sid))
                    for ext, n in zip(EXTS, (size, 1200, 1800, 10, 20)):
                        sparse(stem + ext, n)
                        nbytes += n
                    t = T0_MS + seg
                    common = {"topic": topic, "partition": part, "topic_id": tid, "segment_id": sid,
                              "broker_id": 1}
                    ev.write(json.dumps(dict(common, type="segment", start_offset=start, end_offset=start + 999,
                                             leader_epochs={"0": start}, size_bytes=size, max_timestamp_ms=t,
                                             event_timestamp_ms=t, state="COPY_SEGMENT_STARTED"),
                                        separators=(",", ":")) + "\n")
                    ev.write(json.dumps(dict(common, type="update", event_timestamp_ms=t + 1,
                                             state="COPY_SEGMENT_FINISHED"), separators=(",", ":")) + "\n")
    print(segments * len(EXTS), segments, nparts, nbytes)


if __name__ == "__main__":
    main()
