#!/usr/bin/python3
"""The Python peer: the scanner an operator would write with kafka-python.

Walks LOGDIR/<topic>-<partition>/ directories, reads every live segment
(<20 digits>.log) whole, decodes its record batches with kafka.record.MemoryRecords
and reports, per segment, the last offset and the max timestamp (what segscan's fast
path reports too). Needs kafka-python (Debian python3-kafka, 2.0.2): run it with
/usr/bin/python3.

  peer_kafka_python.py [--sample-every N] [--out FILE] LOGDIR...

--sample-every N  only every N-th partition directory (sorted by name) of each log dir;
                  the benchmark extrapolates per-segment rates from such a sample
--out FILE        one line per segment: "<partition dir> <base> <last offset> <max ts>"
                  (last offset -1 for an empty segment), for cross-checking segscan

Prints "peer_kafka_python: S segments, B bytes, T s" on stderr.
"""
import argparse
import os
import re
import sys
import time

from kafka.record import MemoryRecords

LIVE_LOG = re.compile(r"^[0-9]{20}\.log$")
PART_DIR = re.compile(r"^.+-[0-9]+$")


def scan_segment(path):
    with open(path, "rb") as f:
        data = f.read()
    records = MemoryRecords(data)
    last, max_ts = -1, -1
    while True:
        batch = records.next_batch()
        if batch is None:
            break
        if batch.magic >= 2:
            last = batch.base_offset + batch.last_offset_delta
            ts = batch.max_timestamp
        else:
            # legacy (v0/v1) wrapper or message: iterate to the inner offsets
            ts = -1
            for rec in batch:
                last = rec.offset
                if rec.timestamp is not None and rec.timestamp > ts:
                    ts = rec.timestamp
        if ts > max_ts:
            max_ts = ts
    return last, max_ts, len(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample-every", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("logdirs", nargs="+")
    a = ap.parse_args()
    out = open(a.out, "w") if a.out else None
    t0 = time.monotonic()
    segs = nbytes = 0
    for logdir in a.logdirs:
        parts = sorted(d for d in os.listdir(logdir)
                       if PART_DIR.match(d) and os.path.isdir(os.path.join(logdir, d)))
        for part in parts[::a.sample_every]:
            pdir = os.path.join(logdir, part)
            for name in sorted(os.listdir(pdir)):
                if not LIVE_LOG.match(name):
                    continue
                last, max_ts, size = scan_segment(os.path.join(pdir, name))
                segs += 1
                nbytes += size
                if out:
                    out.write("%s %d %d %d\n" % (part, int(name[:20]), last, max_ts))
    dt = time.monotonic() - t0
    if out:
        out.close()
    print("peer_kafka_python: %d segments, %d bytes, %.3f s" % (segs, nbytes, dt), file=sys.stderr)


if __name__ == "__main__":
    main()
