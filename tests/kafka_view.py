#!/usr/bin/python3
"""Kafka's view of a log dir through an independent decoder (kafka-python), for the tests.

Walks LOGDIR/<topic>-<partition>/*.log, decodes every batch with kafka-python's
MemoryRecords (not segscan's code) and prints JSON:
  {"<dir>": [{"base_offset", "last_offset", "size_bytes", "valid_bytes", "batches",
              "records", "max_timestamp_ms", "crc_ok"}, ...], ...}
last_offset is null for a segment without a complete batch. Exit 3 when kafka-python is
missing (the caller skips).
"""
import json
import os
import sys

try:
    from kafka.record.memory_records import MemoryRecords
except ImportError:
    sys.exit(3)


def segment_view(path):
    with open(path, "rb") as f:
        data = f.read()
    recs = MemoryRecords(data)
    last = None
    batches = records = 0
    max_ts = -1
    crc_ok = True
    while recs.has_next():
        b = recs.next_batch()
        if b is None:
            break
        batches += 1
        # kafka-python checks the CRC only before it decompresses the batch
        if not b.validate_crc():
            crc_ok = False
        if b.magic == 2:
            last = b.base_offset + b.last_offset_delta
            max_ts = max(max_ts, b.max_timestamp)
            n = 0
            for _ in b:
                n += 1
            records += n
        else:
            n = 0
            for r in b:
                n += 1
                last = r.offset
                if r.timestamp is not None:
                    max_ts = max(max_ts, r.timestamp)
            records += n
    return {
        "base_offset": int(os.path.basename(path).split(".")[0]),
        "last_offset": last,
        "size_bytes": len(data),
        "valid_bytes": recs.valid_bytes(),
        "batches": batches,
        "records": records,
        "max_timestamp_ms": max_ts,
        "crc_ok": crc_ok,
    }


def main():
    root = sys.argv[1]
    out = {}
    for d in sorted(os.listdir(root)):
        p = os.path.join(root, d)
        if not os.path.isdir(p) or "-" not in d:
            continue
        logs = sorted(f for f in os.listdir(p) if f.endswith(".log"))
        out[d] = [segment_view(os.path.join(p, f)) for f in logs]
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
