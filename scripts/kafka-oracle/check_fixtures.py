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


def gauges_of(jmx, into=None):
    """(domain, type, name, topic, partition) -> attributes. into: a cluster's sum over its nodes
    (the per-topic remote gauges count only the partitions each node leads)."""
    g = {} if into is None else into
    for m in jmx["mbeans"]:
        k = (m["domain"], m["type"], m["name"], m["topic"], m["partition"])
        if into is not None and k in g and "Value" in g[k] and "Value" in m["attributes"]:
            g[k] = {"Value": g[k]["Value"] + m["attributes"]["Value"]}
        else:
            g[k] = dict(m["attributes"])
    return g


def check_cluster_case(d, case, cj):
    """A several-node case: every node's log dir against its dump and JMX, the remote metadata of
    all nodes against the summed gauges, the placement in case.json against the files and
    DescribeTopics, and node 1's metadata log against cluster.json."""
    admin = load(d, "admin.json")
    rm = load(d, "remote-metadata.json")
    cl = load(d, "cluster.json")
    adm = {(p["topic"], p["partition"]): p for p in admin["partitions"]}
    ids = cj["node_ids"]
    summed = {}
    for n in ids:
        jmx = load(d, f"jmx-{n}.json")
        check_dump(case, d, f"logdir-{n}", load(d, f"dump-{n}.json"), adm, gauges_of(jmx), False, node=n)
        gauges_of(jmx, summed)
    check_remote(case, rm, summed, False)
    check_ndjson(case, d, rm)
    check_cluster_context(case, d, "logdir-1", cj, node_ids=tuple(ids))

    pl = cj["placement"]
    md_leader = {p["partition"]: p["leader"] for p in cl["describe_topics"]["__remote_log_metadata"]["partitions"]}
    for mp in pl["metadata_partitions"]:
        check(md_leader.get(mp["partition"]) == mp["leader"], case,
              f"__remote_log_metadata-{mp['partition']}: placement leader {mp['leader']} != DescribeTopics")
        for n in ids:
            has = os.path.isdir(os.path.join(d, f"logdir-{n}", f"__remote_log_metadata-{mp['partition']}"))
            check(has == (n in mp["replicas"]), case,
                  f"logdir-{n}: __remote_log_metadata-{mp['partition']} present={has}, replicas {mp['replicas']}")
    for p in pl["partitions"]:
        tp = f"{p['topic']}-{p['partition']}"
        evs = [e for e in rm["events"] if e["topic"] == p["topic"] and e["partition"] == p["partition"]]
        check(len(evs) > 0, case, f"{tp}: no remote metadata events")
        check(all(e["metadata_partition"] == p["metadata_partition"] for e in evs), case,
              f"{tp}: events outside metadata partition {p['metadata_partition']}")
        check(all(e["metadata_broker"] == p["metadata_partition_node"] for e in evs), case,
              f"{tp}: events not read from node {p['metadata_partition_node']}")
        check(md_leader.get(p["metadata_partition"]) == p["metadata_partition_node"], case,
              f"{tp}: metadata partition node disagrees with DescribeTopics")
        td = cl["describe_topics"][p["topic"]]
        check(td["topic_id"] == p["topic_id"], case, f"{tp}: topic id != DescribeTopics")
        pi = td["partitions"][p["partition"]]
        check(pi["replicas"] == p["replicas"] and pi["leader"] == p["leader"], case, f"{tp}: replicas/leader")
        for n in ids:
            here = os.path.isdir(os.path.join(d, f"logdir-{n}", tp))
            check(here == (n in p["replicas"]), case, f"logdir-{n}: {tp} present={here}, replicas {p['replicas']}")
    n1 = pl["per_node"]["1"]
    check(n1["metadata_here"] and n1["metadata_elsewhere"], case,
          "node 1 does not host both kinds of tiered partitions")


def check_case(d):
    case = os.path.basename(os.path.normpath(d))
    cj = load(d, "case.json")
    if "nodes" in cj:
        check_cluster_case(d, case, cj)
        return
    dump = load(d, "dump.json")
    admin = load(d, "admin.json")
    jmx = load(d, "jmx.json")
    rm = load(d, "remote-metadata.json")
    live = cj["live_copy"]

    gauges = {}
    for m in jmx["mbeans"]:
        gauges[(m["domain"], m["type"], m["name"], m["topic"], m["partition"])] = m["attributes"]
    adm = {(p["topic"], p["partition"]): p for p in admin["partitions"]}

    check_dump(case, d, "logdir", dump, adm, gauges, live)
    check_remote(case, rm, gauges, live)
    check_ndjson(case, d, rm)
    if os.path.exists(os.path.join(d, "cluster.json")):
        check_cluster_context(case, d, "logdir", cj)


def preallocated_tail(case, d, logdir, p, s):
    """A live preallocated segment: Kafka's Size is the valid bytes, the rest of the file zeros.
    DumpLogSegments stops there with "Found record size 0 smaller than minimum record overhead"."""
    path = os.path.join(d, logdir, p["dir"], f"{s['base_offset']:020d}.log")
    with open(path, "rb") as f:
        f.seek(s["valid_bytes"])
        tail = f.read()
    check(len(tail) == s["file_size"] - s["valid_bytes"] and tail.count(0) == len(tail), case,
          f"{p['dir']}/{s['base_offset']}: bytes after the last valid batch are not all zero")
    check("record size 0 smaller than minimum record overhead" in s.get("exception", ""), case,
          f"{p['dir']}/{s['base_offset']}: DumpLogSegments did not stop at the zero tail")


def check_dump(case, d, logdir, dump, adm, gauges, live, node=None):
    """dump.json of one log dir against itself, admin.json and one broker's JMX gauges.
    node: for a cluster, this log dir's broker id (only its leader replicas are in its gauges)."""
    prealloc = set()
    cl = os.path.join(d, "cluster.json")
    if os.path.exists(cl):
        for t, cfg in load(d, "cluster.json")["describe_configs"]["topics"].items():
            if cfg.get("preallocate", {}).get("value") == "true":
                prealloc.add(t)
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
            if live and p["topic"] in prealloc and i == len(segs) - 1 and s["valid_bytes"] < s["file_size"]:
                preallocated_tail(case, d, logdir, p, s)
            else:
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
        # Kafka's Size is the segments' valid bytes: a preallocated file is longer.
        size = sum(s["valid_bytes"] if s.get("file_size") is not None else 0 for s in segs)
        if node is not None:
            rl = a.get("replica_log_dirs", {}).get(str(node))
            check(rl is not None and rl["size_bytes"] == size, case,
                  f"{logdir}/{p['dir']}: DescribeLogDirs of node {node} {rl} != sum of .log sizes {size}")
            if a["leader"] != node:
                continue  # per-partition Log gauges live on every replica; offsets only on the leader's
        
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


def check_remote(case, rm, gauges, live):
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



def check_ndjson(case, d, rm):
    with open(os.path.join(d, "remote-state.ndjson")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    check(len(lines) == len(rm["events"]), case, "remote-state.ndjson line count != events")


# ----------------------------------------------------------------- cluster context

TOPIC, BROKER = 2, 4  # ConfigRecord resourceType (ConfigResource.Type ids)


def batch_of(batches, offset):
    for b in batches:
        if b["base_offset"] <= offset <= b["last_offset"]:
            return b
    return None


def metadata_replay(case, cm, until_ms):
    """Kafka's MetadataLoader order: the newest snapshot whose SnapshotHeader
    lastContainedLogTimestamp <= until_ms, then every log record at or after its end offset whose
    batch was appended by until_ms. Returns (state, snapshot file name)."""
    snaps = [f for f in cm["files"] if f["kind"] == "snapshot"]
    segs = [f for f in cm["files"] if f["kind"] == "segment"]
    usable = []
    for f in snaps:
        hdr = [c for c in f["control_records"] if c["type"] == "SnapshotHeader"]
        if hdr and hdr[0]["data"]["lastContainedLogTimestamp"] <= until_ms:
            usable.append(f)
    snap = max(usable, key=lambda f: f["snapshot_end_offset"]) if usable else None
    st = {"topics": {}, "names": {}, "parts": {}, "configs": {}, "features": {}, "brokers": {}}
    recs = list(snap["records"]) if snap else []
    start = snap["snapshot_end_offset"] if snap else 0
    for f in segs:
        for r in f["records"]:
            b = batch_of(f["batches"], r["offset"])
            if r["offset"] >= start and b is not None and b["max_timestamp"] <= until_ms:
                recs.append(r)
    for r in recs:
        t, v = r["type"], r.get("data")
        if t == "TOPIC_RECORD":
            st["topics"][v["topicId"]] = v["name"]
        elif t == "REMOVE_TOPIC_RECORD":
            st["topics"].pop(v["topicId"], None)
            for k in [k for k in st["parts"] if k[0] == v["topicId"]]:
                del st["parts"][k]
        elif t == "PARTITION_RECORD":
            st["parts"][(v["topicId"], v["partitionId"])] = {
                "replicas": v["replicas"], "isr": v["isr"], "leader": v["leader"]}
        elif t == "PARTITION_CHANGE_RECORD":
            p = st["parts"].get((v["topicId"], v["partitionId"]))
            check(p is not None, case, f"PartitionChangeRecord at {r['offset']} for an unknown partition")
            if p is None:
                continue
            if v.get("leader", -2) != -2:
                p["leader"] = v["leader"]
            for k in ("isr", "replicas"):
                if v.get(k) is not None:
                    p[k] = v[k]
        elif t == "CONFIG_RECORD":
            key = (v["resourceType"], v["resourceName"])
            if v.get("value") is None:
                st["configs"].get(key, {}).pop(v["name"], None)
            else:
                st["configs"].setdefault(key, {})[v["name"]] = v["value"]
        elif t == "FEATURE_LEVEL_RECORD":
            st["features"][v["name"]] = v["featureLevel"]
        elif t == "REGISTER_BROKER_RECORD":
            st["brokers"][v["brokerId"]] = v
    return st, snap["file"] if snap else None


def check_metadata_files(case, d, logdir, cm):
    mdir = os.path.join(d, logdir, "__cluster_metadata-0")
    on_disk = sorted(n for n in os.listdir(mdir) if n.endswith(".log") or n.endswith(".checkpoint"))
    check(sorted(f["file"] for f in cm["files"] if f["kind"] != "bootstrap") == on_disk, case,
          f"{logdir}: cluster-metadata.json files != .log/.checkpoint files on disk")
    snaps = [f for f in cm["files"] if f["kind"] == "snapshot"]
    segs = [f for f in cm["files"] if f["kind"] == "segment"]
    check(any(f["snapshot_end_offset"] > 0 for f in snaps), case, f"{logdir}: no metadata snapshot besides bootstrap")
    boot = os.path.exists(os.path.join(d, logdir, "bootstrap.checkpoint"))
    check(boot == any(f["kind"] == "bootstrap" for f in cm["files"]), case,
          f"{logdir}/bootstrap.checkpoint and cluster-metadata.json disagree")
    for f in cm["files"]:
        where = f"{logdir}/__cluster_metadata-0/{f['file']}"
        if f["kind"] == "bootstrap":
            where = f"{logdir}/{f['file']}"
        # DumpLogSegments (4.4.0, 4.3.1) starts its offset-continuity check at -1, so every
        # segment not based at 0 gets "-1 is followed by <base>": the tool's quirk, not a gap.
        err = f.get("stderr", [])
        quirk = [f"Non-consecutive offsets in {logdir}/__cluster_metadata-0/{f['file']}",
                 f"  -1 is followed by {f['batches'][0]['base_offset'] if f['batches'] else '?'}"]
        check("exception" not in f and err in ([], quirk) and "other_output" not in f, case,
              f"{where}: DumpLogSegments complained: {err[:3]}")
        check(all(b["is_valid"] for b in f["batches"]), case, f"{where}: a batch failed its CRC")
        pos = 0
        for b in f["batches"]:
            check(b["position"] == pos, case, f"{where}: batch at {b['position']} expected {pos}")
            pos += b["size"]
        check(pos == f["file_size"], case, f"{where}: batches cover {pos} of {f['file_size']} bytes")
        n = sum(b["count"] for b in f["batches"])
        check(n == len(f["records"]) + len(f["control_records"]), case, f"{where}: {n} records in batches, "
              f"{len(f['records'])} + {len(f['control_records'])} decoded")
        check(all(r["type"] is not None for r in f["records"] + f["control_records"]), case,
              f"{where}: a record Kafka could not decode")
        for r in f["records"]:
            b = batch_of(f["batches"], r["offset"])
            check(b is not None and not b["is_control"], case, f"{where}: record {r['offset']} outside data batches")
        if f["kind"] == "bootstrap":
            cr = f["control_records"]
            check(len(cr) >= 2 and cr[0]["type"] == "SnapshotHeader" and cr[-1]["type"] == "SnapshotFooter", case,
                  f"{where}: not SnapshotHeader ... SnapshotFooter")
        if f["kind"] == "snapshot":
            name = f["file"][:-len(".checkpoint")].split("-")
            check(int(name[0]) == f["snapshot_end_offset"] and int(name[1]) == f["snapshot_epoch"], case,
                  f"{where}: snapshot id != file name")
            cr = f["control_records"]
            check(len(cr) >= 2 and cr[0]["type"] == "SnapshotHeader" and cr[-1]["type"] == "SnapshotFooter", case,
                  f"{where}: not SnapshotHeader ... SnapshotFooter")
    if snaps and segs:
        newest = max(f["snapshot_end_offset"] for f in snaps)
        last = max((b["last_offset"] for f in segs for b in f["batches"]), default=-1)
        check(last >= newest, case, f"{logdir}: no metadata log records at or after the newest snapshot ({newest})")


def check_cluster_context(case, d, logdir, cj, node_ids=(1,)):
    cm = load(d, "cluster-metadata.json")
    cl = load(d, "cluster.json")
    check_metadata_files(case, d, logdir, cm)
    st, snap = metadata_replay(case, cm, cl["read_at_ms"])
    check(snap is not None, case, "no snapshot older than cluster.json")

    check(cl["cluster_id"] == cj["cluster_id"], case, "cluster.json cluster_id != case.json")
    with open(os.path.join(d, logdir, "meta.properties")) as f:
        mp = dict(l.strip().split("=", 1) for l in f if "=" in l and not l.startswith("#"))
    check(mp.get("cluster.id") == cl["cluster_id"], case, "meta.properties cluster.id != DescribeCluster")
    for n, v in cl["broker_versions"].items():
        check(v["version"] == cj["kafka_version"], case, f"node {n} runs {v['version']}, harness {cj['kafka_version']}")
        check(int(n) in st["brokers"], case, f"no RegisterBrokerRecord for node {n}")
    check(sorted(cl["node_ids"]) == sorted(node_ids), case, f"DescribeCluster nodes {cl['node_ids']}")

    # DescribeTopics against the replayed TopicRecords / PartitionRecords / PartitionChangeRecords.
    names = {name: tid for tid, name in st["topics"].items()}
    dt = cl["describe_topics"]
    check(sorted(dt) == sorted(names), case, f"DescribeTopics {sorted(dt)} != metadata topics {sorted(names)}")
    for t, td in dt.items():
        tid = names.get(t)
        check(tid == td["topic_id"], case, f"{t}: topic id {td['topic_id']} != TopicRecord {tid}")
        nparts = len([k for k in st["parts"] if k[0] == tid])
        check(nparts == len(td["partitions"]), case, f"{t}: {len(td['partitions'])} partitions, records {nparts}")
        for pi in td["partitions"]:
            p = st["parts"].get((tid, pi["partition"]))
            if p is None:
                continue
            for k in ("replicas", "isr", "leader"):
                want = pi[k] if k != "leader" or pi[k] is not None else -1
                check(p[k] == want, case, f"{t}-{pi['partition']}: {k} {pi[k]} != metadata {p[k]}")

    # DescribeConfigs against the replayed ConfigRecords, per source.
    dc = cl["describe_configs"]
    for t, cfg in dc["topics"].items():
        dyn = {k: v["value"] for k, v in cfg.items() if v["source"] == "DYNAMIC_TOPIC_CONFIG"}
        check(dyn == st["configs"].get((TOPIC, t), {}), case,
              f"{t}: DYNAMIC_TOPIC_CONFIG {dyn} != ConfigRecords {st['configs'].get((TOPIC, t), {})}")
    for b, cfg in dc["brokers"].items():
        for src, res in (("DYNAMIC_BROKER_CONFIG", b), ("DYNAMIC_DEFAULT_BROKER_CONFIG", "")):
            dyn = {k: v["value"] for k, v in cfg.items() if v["source"] == src}
            rec = {k: v for k, v in st["configs"].get((BROKER, res), {}).items() if k in cfg}
            # A key set both per broker and cluster-wide shows only the per-broker one as source.
            if src == "DYNAMIC_DEFAULT_BROKER_CONFIG":
                rec = {k: v for k, v in rec.items() if k not in st["configs"].get((BROKER, b), {})}
            check(dyn == rec, case, f"broker {b}: {src} {dyn} != ConfigRecords {rec}")
    if dc.get("broker_default") is not None:
        dyn = {k: v["value"] for k, v in dc["broker_default"].items() if v["source"] == "DYNAMIC_DEFAULT_BROKER_CONFIG"}
        check(dyn == st["configs"].get((BROKER, ""), {}), case, "BROKER '' DescribeConfigs != ConfigRecords")
    props = {}
    prop_files = ["server.properties"] if os.path.exists(os.path.join(d, "server.properties")) else \
        [f"server-{n}.properties" for n in node_ids]
    for pf in prop_files:
        with open(os.path.join(d, pf)) as f:
            props = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l and not l.startswith("#"))
        check(props.get("log.dirs", "").startswith("LOGDIR"), case, f"{pf}: log.dirs is not the placeholder")
        n = props["node.id"]
        for k, v in props.items():
            e = dc["brokers"][n].get(k)
            if e is not None and e["value"] is not None and k not in ("log.dirs", "rsm.config.dir"):
                check(e["source"] == "STATIC_BROKER_CONFIG" or any(
                    s["source"] == "STATIC_BROKER_CONFIG" and s["value"] == v for s in e["synonyms"]), case,
                    f"{pf}: {k}={v} not a STATIC_BROKER_CONFIG of node {n} ({e['source']})")

    # Finalized feature levels against the replayed FeatureLevelRecords.
    fin = {k: v["max_version_level"] for k, v in cl["features"]["finalized"].items()}
    check(fin == st["features"], case, f"finalized features {fin} != FeatureLevelRecords {st['features']}")


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
