#!/usr/bin/env python3
"""Cross-check the oracle's captures against themselves: Kafka's DumpLogSegments reading of
the files, the broker's JMX gauges, its Admin API answers and the remote metadata events must
tell one consistent story. A failure here means the harness captured something inconsistent
(a race between the reads and the copy, a parsing bug), not that segscan is wrong.

usage: check_fixtures.py CASE_DIR...     exit 0 when every check passes
"""
import json
import os
import sys

failures = []
checks = 0


def check(cond, case, what):
    global checks
    checks += 1
    if not cond:
        failures.append(f"{case}: {what}")


def load(d, name):
    with open(os.path.join(d, name)) as f:
        return json.load(f)


def replay(events):
    """Kafka's per-segment state after applying the events in order: id -> (metadata, state)."""
    segs = {}
    for e in events:
        if e["type"] == "segment":
            segs[e["segment_id"]] = [e, e["state"]]
        elif e["type"] == "update" and e["segment_id"] in segs:
            segs[e["segment_id"]][1] = e["state"]
    return segs


def check_case(d):
    case = os.path.basename(os.path.normpath(d))
    cj = load(d, "case.json")
    dump = load(d, "dump.json")
    admin = load(d, "admin.json")
    jmx = load(d, "jmx.json")
    rm = load(d, "remote-metadata.json")
    live = cj["live_copy"]

    gauges = {}
    for m in jmx["mbeans"]:
        gauges[(m["domain"], m["type"], m["name"], m["topic"], m["partition"])] = m["attributes"]
    adm = {(p["topic"], p["partition"]): p for p in admin["partitions"]}

    for p in dump["partitions"]:
        tp = (p["topic"], p["partition"])
        segs = p["segments"]
        bases = [s["base_offset"] for s in segs]
        check(bases == sorted(bases), case, f"{p['dir']}: segments not in base offset order")
        for i, s in enumerate(segs):
            where = f"{p['dir']}/{s['base_offset']}"
            if s.get("file_size") is None:
                continue
            check(s["all_batches_valid"], case, f"{where}: a batch failed Kafka's CRC check")
            check(s["trailing_invalid_bytes"] == 0, case, f"{where}: trailing bytes")
            check(s["valid_bytes"] == s["file_size"], case, f"{where}: valid_bytes != file size")
            check(s["record_count"] == sum(b["count"] for b in s["batches"]), case, f"{where}: record sum")
            if s["batches"]:
                check(s["first_offset"] >= s["base_offset"], case, f"{where}: first offset below base")
                if i + 1 < len(segs):
                    check(s["last_offset"] < segs[i + 1]["base_offset"], case, f"{where}: overlaps next segment")
                pos = 0
                for b in s["batches"]:
                    check(b["position"] == pos, case, f"{where}: batch at {b['position']} expected {pos}")
                    pos += b["size"]
        if p["topic"].startswith("__"):
            continue  # coordinators may append between the reads and the copy
        a = adm.get(tp)
        check(a is not None, case, f"{p['dir']}: missing from admin.json")
        if a is None:
            continue
        last = [s for s in segs if s.get("batches")]
        leo = last[-1]["last_offset"] + 1 if last else (segs[-1]["base_offset"] if segs else 0)
        check(a["latest_offset"] == leo, case, f"{p['dir']}: Admin LATEST {a['latest_offset']} != dump LEO {leo}")
        size = sum(s["file_size"] or 0 for s in segs)
        g = gauges.get(("kafka.log", "Log", "Size", p["topic"], p["partition"]))
        check(g is not None and g["Value"] == size, case, f"{p['dir']}: JMX Size {g} != sum of .log sizes {size}")
        g = gauges.get(("kafka.log", "Log", "NumLogSegments", p["topic"], p["partition"]))
        check(g is not None and g["Value"] == len(segs), case, f"{p['dir']}: JMX NumLogSegments {g} != {len(segs)}")
        g = gauges.get(("kafka.log", "Log", "LogStartOffset", p["topic"], p["partition"]))
        check(g is not None and g["Value"] == a["earliest_offset"], case, f"{p['dir']}: JMX LogStartOffset {g}")
        check(a["log_dir_size_bytes"] == size, case, f"{p['dir']}: DescribeLogDirs size != sum of .log sizes")
        if segs:
            check(a["earliest_local_offset"] >= segs[0]["base_offset"], case,
                  f"{p['dir']}: local start {a['earliest_local_offset']} below first segment")

    segs = replay(rm["events"])
    by_topic = {}
    for sid, (md, state) in segs.items():
        if state != "DELETE_SEGMENT_FINISHED":
            t = by_topic.setdefault(md["topic"], [0, 0])
            t[0] += 1
            t[1] += md["size_bytes"]
        elif not live:
            # A remote segment whose deletion finished has no files left in the store.
            names = [f["path"] for f in rm["remote_store_files"]]
            check(not any(sid in n for n in names), case, f"deleted remote segment {sid} still has files")
    if not live:
        sizes = {f["path"]: f["size"] for f in rm["remote_store_files"]}
        for sid, (md, state) in segs.items():
            if state == "COPY_SEGMENT_FINISHED":
                path = f"{md['topic']}-{md['partition']}/{md['start_offset']:020d}-{sid}.log"
                check(sizes.get(path) == md["size_bytes"], case, f"remote {path}: size {sizes.get(path)} != {md['size_bytes']}")
    for topic, (count, size) in by_topic.items():
        g = gauges.get(("kafka.server", "BrokerTopicMetrics", "RemoteLogSizeBytes", topic, None))
        check(g is not None and g["Value"] == size, case, f"{topic}: RemoteLogSizeBytes {g} != {size}")
        g = gauges.get(("kafka.server", "BrokerTopicMetrics", "RemoteLogMetadataCount", topic, None))
        check(g is not None and g["Value"] == count, case, f"{topic}: RemoteLogMetadataCount {g} != {count}")

    with open(os.path.join(d, "remote-state.ndjson")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    check(len(lines) == len(rm["events"]), case, "remote-state.ndjson line count != events")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for d in argv[1:]:
        try:
            check_case(d)
        except (OSError, KeyError, ValueError, TypeError) as e:
            failures.append(f"{d}: cannot check: {e!r}")
    for f in failures:
        print("FAIL " + f)
    print(f"{checks - len(failures)} passed, {len(failures)} failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
