#!/usr/bin/env python3
"""A log dir written by an encoder segscan did not write: kafka-python's
DefaultRecordBatchBuilder makes the batches (records, varints, CRC-32C), this script lays
them out as a broker does (docs/kafka-format.md §3): segments rolled at --segment-bytes,
named by their base offset, an .index entry every 4096 bytes of log and a .timeindex entry
with it (the segment's max timestamp appended at roll), leader-epoch-checkpoint,
partition.metadata, the log-dir checkpoint files.

To be fast enough for tens of thousands of segments, one segment's batches are encoded
once per partition and reused: a batch's baseOffset and partitionLeaderEpoch are outside
its CRC (bytes 0-7 and 12-15), so each copy gets its own offsets and stays valid.

usage: pytree.py OUTDIR --partitions N --segments N --segment-bytes B
                 [--records-per-batch N] [--value-bytes N] [--compression none|zstd|gzip]
"""
import argparse
import os
import struct

from kafka.record.default_records import DefaultRecordBatchBuilder

CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def batches_for(seg_bytes, per_batch, value_bytes, codec, t0):
    """Encoded batches (base offset 0) filling at most seg_bytes, and their records."""
    out, size, i = [], 0, 0
    while True:
        b = DefaultRecordBatchBuilder(magic=2, compression_type=codec, is_transactional=0,
                                      producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                      batch_size=1 << 30)
        for r in range(per_batch):
            v = bytes((i * 31 + r * 7 + k) & 0xFF for k in range(value_bytes))
            b.append(r, timestamp=t0 + i * per_batch + r, key=b"k%d" % r, value=v, headers=[])
        raw = bytes(b.build())
        if size + len(raw) > seg_bytes and out:
            return out
        out.append(raw)
        size += len(raw)
        i += 1
        if size >= seg_bytes:
            return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--topic", default="py-events")
    ap.add_argument("--partitions", type=int, required=True)
    ap.add_argument("--segments", type=int, required=True)
    ap.add_argument("--segment-bytes", type=int, required=True)
    ap.add_argument("--records-per-batch", type=int, default=10)
    ap.add_argument("--value-bytes", type=int, default=90)
    ap.add_argument("--compression", default="none", choices=sorted(CODECS))
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    t0 = 1700000000000
    protos = batches_for(a.segment_bytes, a.records_per_batch, a.value_bytes, CODECS[a.compression], t0)
    per_seg = len(protos) * a.records_per_batch
    for p in range(a.partitions):
        d = os.path.join(a.outdir, "%s-%d" % (a.topic, p))
        os.makedirs(d, exist_ok=True)
        for s in range(a.segments):
            base = s * per_seg
            log, idx, tim = bytearray(), bytearray(), bytearray()
            since, last_ts = 0, -1
            for k, raw in enumerate(protos):
                off = base + k * a.records_per_batch
                top = off + a.records_per_batch - 1          # the batch's largest offset
                top_ts = t0 + k * a.records_per_batch + a.records_per_batch - 1
                # LogSegment.append: an entry when more than index.interval.bytes were
                # appended since the last one: (largest offset, position), (max ts so far)
                if since > 4096:
                    idx += struct.pack(">ii", top - base, len(log))
                    tim += struct.pack(">qi", top_ts, top - base)
                    last_ts = top_ts
                    since = 0
                buf = bytearray(raw)
                struct.pack_into(">q", buf, 0, off)
                struct.pack_into(">i", buf, 12, 0)
                log += buf
                since += len(buf)
            last = base + per_seg - 1
            # at roll Kafka appends the segment's max timestamp (LogSegment.onBecomeInactiveSegment)
            if t0 + per_seg - 1 > last_ts:   # TimeIndex.maybeAppend: only a larger timestamp
                tim += struct.pack(">qi", t0 + per_seg - 1, last - base)
            name = "%020d" % base
            for ext, data in (("log", log), ("index", idx), ("timeindex", tim)):
                with open(os.path.join(d, name + "." + ext), "wb") as f:
                    f.write(data)
        with open(os.path.join(d, "leader-epoch-checkpoint"), "w") as f:
            f.write("0\n1\n0 0\n")
        with open(os.path.join(d, "partition.metadata"), "w") as f:
            f.write("version: 0\ntopic_id: %s\n" % "Pq9mFUSjTGKSYqQFPiYPaw")
    leo = a.segments * per_seg
    for ck in ("recovery-point-offset-checkpoint", "replication-offset-checkpoint", "log-start-offset-checkpoint"):
        with open(os.path.join(a.outdir, ck), "w") as f:
            f.write("0\n%d\n" % a.partitions)
            for p in range(a.partitions):
                f.write("%s %d %d\n" % (a.topic, p, 0 if ck.startswith("log-start") else leo))
    with open(os.path.join(a.outdir, "meta.properties"), "w") as f:
        f.write("version=1\nnode.id=1\ncluster.id=%s\ndirectory.id=%s\n" % ("q1Sh-9_ISia_zwGINzRvyQ", "b" * 22))


if __name__ == "__main__":
    main()
