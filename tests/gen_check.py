#!/usr/bin/python3
"""Independent checker for the log dirs `segscan gen` writes.

Decodes every segment with kafka-python's record classes (kafka.record.MemoryRecords,
DefaultRecordBatch: CRC-32C, record framing, offsets, timestamps), re-derives what Kafka
would have written into the index files, snapshots and checkpoints from the decoded
batches (docs/kafka-format.md §1-5), and checks the remote-state NDJSON against the log
dir. Nothing here shares code with the generator.

Usage: /usr/bin/python3 tests/gen_check.py LOGDIR [--remote-state FILE] [--topic-config FILE]
Prints a JSON summary on stdout; exit 0 if every check passed, 1 if not, 2 on usage.
Batches compressed with a codec whose Python module is missing are CRC-checked and
framed but their records are not decoded (listed in "skipped_codecs").
"""
import argparse
import base64
import json
import os
import re
import struct
import sys

try:
    from kafka.record.memory_records import MemoryRecords
    from kafka.record.default_records import DefaultRecordBatch
    from kafka.record.util import calc_crc32c
    import kafka.codec as kcodec
except ImportError as e:  # the C test skips when kafka-python is missing
    print(json.dumps({"ok": False, "errors": ["kafka-python unavailable: %s" % e]}))
    sys.exit(3)

INDEX_INTERVAL = 4096
OFFSET_PREALLOC = 10485760
TIME_PREALLOC = 10485756
CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
CODEC_AVAILABLE = {0: True, 1: kcodec.has_gzip(), 2: kcodec.has_snappy(),
                   3: kcodec.has_lz4(), 4: kcodec.has_zstd()}
B64URL = re.compile(r"[A-Za-z0-9_-]{22}")
LEGAL_STATES = {
    None: {"COPY_SEGMENT_STARTED"},
    "COPY_SEGMENT_STARTED": {"COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED", "DANGLING",
                             "DELETE_SEGMENT_STARTED"},
    "COPY_SEGMENT_FINISHED": {"COPY_SEGMENT_FINISHED", "DELETE_SEGMENT_STARTED"},
    "DANGLING": {"DANGLING", "DELETE_SEGMENT_STARTED"},
    "DELETE_SEGMENT_STARTED": {"DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED", "DANGLING"},
    "DELETE_SEGMENT_FINISHED": set(),
}


class Checker:
    def __init__(self):
        self.errors = []
        self.skipped_codecs = set()

    def err(self, msg):
        self.errors.append(msg)

    def check(self, cond, msg):
        if not cond:
            self.err(msg)
        return cond


def uuid_bytes(text):
    return base64.urlsafe_b64decode(text + "==")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def parse_offset_checkpoint(ck, path):
    """§1.2: '0', count, then '<topic> <partition> <offset>' lines."""
    out = {}
    try:
        text = read(path).decode("utf-8")
    except OSError as e:
        ck.err("%s: %s" % (path, e))
        return out
    lines = text.split("\n")
    if not ck.check(text.endswith("\n"), "%s: last line not terminated" % path):
        return out
    lines = lines[:-1]
    if not ck.check(len(lines) >= 2 and lines[0] == "0", "%s: bad version line" % path):
        return out
    n = int(lines[1])
    ck.check(n == len(lines) - 2, "%s: count %d but %d entries" % (path, n, len(lines) - 2))
    for ln in lines[2:]:
        parts = re.split(r"\s+", ln)
        if not ck.check(len(parts) == 3, "%s: bad entry %r" % (path, ln)):
            continue
        key = (parts[0], int(parts[1]))
        ck.check(key not in out, "%s: duplicate entry %r" % (path, ln))
        out[key] = int(parts[2])
    return out


def parse_epochs(ck, path):
    text = read(path).decode("utf-8")
    lines = text.split("\n")
    ck.check(text.endswith("\n") and lines[0] == "0", "%s: bad header" % path)
    lines = lines[:-1]
    n = int(lines[1])
    ck.check(n == len(lines) - 2, "%s: count mismatch" % path)
    eps = []
    for ln in lines[2:]:
        e, s = ln.split(" ")
        eps.append((int(e), int(s)))
    for a, b in zip(eps, eps[1:]):
        ck.check(a[0] < b[0] and a[1] < b[1], "%s: entries not increasing: %r %r" % (path, a, b))
    return eps


def epochs_in_range(eps, start, end_excl):
    """LeaderEpochFileCache.epochEntriesInRange(start, end) (§5.2.3)."""
    below = [e for e in eps if e[1] <= start]
    out = []
    if below:
        out.append((below[-1][0], start))
    out += [e for e in eps if start < e[1] < end_excl]
    return out


def scan_framing(data):
    """Batch boundaries by the size field; stops at a zero-size entry (preallocated tail)."""
    pos, spans = 0, []
    while pos + 12 <= len(data):
        size = struct.unpack_from(">i", data, pos + 8)[0]
        if size == 0 and not any(data[pos:]):
            return spans, len(data) - pos
        if size < 14 or pos + 12 + size > len(data):
            return spans, -1
        spans.append((pos, pos + 12 + size))
        pos += 12 + size
    return spans, (0 if pos == len(data) else -1)


def check_segment(ck, pdir, base, active, state, prealloc_ok):
    """Decodes one .log; returns its facts. state carries offsets and producer sequences."""
    name = "%020d" % base
    path = os.path.join(pdir, name + ".log")
    data = read(path)
    spans, tail = scan_framing(data)
    ck.check(tail >= 0, "%s: framing error or truncated batch" % path)
    if tail > 0:
        ck.check(active and prealloc_ok, "%s: zero tail of %d bytes on a segment that is not a preallocated active one" % (path, tail))
    valid = data[:len(data) - tail] if tail > 0 else data
    # kafka-python's own iterator must see the same batches
    mr = MemoryRecords(valid)
    n_mr = 0
    while mr.has_next():
        b = mr.next_batch()
        if b is None:
            break
        n_mr += 1
    ck.check(n_mr == len(spans), "%s: MemoryRecords saw %d batches, framing %d" % (path, n_mr, len(spans)))
    ck.check(mr.valid_bytes() == len(valid), "%s: MemoryRecords valid_bytes %d != %d" % (path, mr.valid_bytes(), len(valid)))

    seg = {"base_offset": base, "size_bytes": len(data), "batches": 0, "records": 0,
           "last_offset": None, "max_timestamp_ms": -1, "active": active, "codecs": set()}
    batch_facts = []
    max_ts, max_off = -1, base
    for (s, e) in spans:
        raw = data[s:e]
        (boff, blen, ple, magic, crc, attrs, lod, fts, mts, pid, pep, bseq, cnt) = \
            struct.unpack_from(">qiibIhiqqqhii", raw, 0)
        where = "%s@%d" % (path, s)
        if not ck.check(magic == 2, "%s: magic %d" % (where, magic)):
            continue
        batch = DefaultRecordBatch(raw)
        ck.check(batch.validate_crc(), "%s: CRC-32C mismatch" % where)
        ck.check(crc == calc_crc32c(raw[21:]), "%s: stored CRC differs from CRC-32C over [21,end)" % where)
        ck.check(boff == state["next_offset"], "%s: base offset %d, expected %d" % (where, boff, state["next_offset"]))
        ck.check(cnt == lod + 1 and cnt >= 1, "%s: records %d vs lastOffsetDelta %d" % (where, cnt, lod))
        ck.check((attrs & 0x38) == 0, "%s: unexpected attributes 0x%x" % (where, attrs))
        last = boff + lod
        codec = attrs & 7
        seg["codecs"].add(CODEC_NAMES.get(codec, str(codec)))
        if CODEC_AVAILABLE.get(codec):
            offs, tss = [], []
            for rec in batch:
                offs.append(rec.offset)
                tss.append(rec.timestamp)
                ck.check(rec.value is not None, "%s: null value" % where)
            ck.check(offs == list(range(boff, last + 1)), "%s: record offsets not contiguous" % where)
            ck.check(len(offs) == cnt, "%s: %d records decoded, header says %d" % (where, len(offs), cnt))
            if tss:
                ck.check(tss[0] == fts and max(tss) == mts,
                         "%s: timestamps: base %d max %d, records %d..%d" % (where, fts, mts, tss[0], max(tss)))
        else:
            ck.skipped_codecs.add(CODEC_NAMES.get(codec, str(codec)))
        # the partition leader epoch must be the epoch the checkpoint gives for its offset
        eps = state["epochs"]
        if eps and boff >= eps[0][1]:
            want = [ep for (ep, so) in eps if so <= boff][-1]
            ck.check(ple == want, "%s: leader epoch %d, checkpoint says %d" % (where, ple, want))
        elif eps:
            ck.check(ple <= eps[0][0], "%s: leader epoch %d above the first checkpoint epoch" % (where, ple))
        # idempotent producer: sequences continue per producer id
        if pid >= 0:
            prev = state["producers"].get(pid)
            if prev is not None:
                ck.check(bseq == (prev["last_seq"] + 1) & 0x7FFFFFFF,
                         "%s: base sequence %d after %d" % (where, bseq, prev["last_seq"]))
            state["producers"][pid] = {"epoch": pep, "last_seq": (bseq + lod) & 0x7FFFFFFF,
                                       "last_offset": last, "offset_delta": lod, "timestamp": mts}
        else:
            ck.check(pep == -1 and bseq == -1, "%s: sequence without producer id" % where)
        state["next_offset"] = last + 1
        state["batches_by_offset"].append((last + 1, dict(state["producers"])))
        if mts > max_ts:
            max_ts, max_off = mts, last
        batch_facts.append((s, last, mts, e - s))
        seg["batches"] += 1
        seg["records"] += cnt
        seg["last_offset"] = last
    seg["max_timestamp_ms"] = max_ts
    seg["valid_bytes"] = len(valid)

    # the index files Kafka's LogSegment.append would have written for these batches
    since, mt, mo, last_t = 0, -1, base, -1
    want_idx, want_tidx = [], []
    for (pos, last, bmax, size) in batch_facts:
        if bmax > mt:
            mt, mo = bmax, last
        if since > INDEX_INTERVAL:
            want_idx.append((last - base, pos))
            if mt > last_t:
                want_tidx.append((mt, mo - base))
                last_t = mt
            since = 0
        since += size
    if not active and batch_facts and mt > last_t:
        want_tidx.append((mt, mo - base))

    idx = read(os.path.join(pdir, name + ".index"))
    tidx = read(os.path.join(pdir, name + ".timeindex"))
    if active:
        ck.check(len(idx) == OFFSET_PREALLOC, "%s.index: active index is %d bytes, want %d" % (name, len(idx), OFFSET_PREALLOC))
        ck.check(len(tidx) == TIME_PREALLOC, "%s.timeindex: active time index is %d bytes, want %d" % (name, len(tidx), TIME_PREALLOC))
        ck.check(not any(idx[8 * len(want_idx):]), "%s/%s.index: preallocated tail not zero" % (pdir, name))
        ck.check(not any(tidx[12 * len(want_tidx):]), "%s/%s.timeindex: preallocated tail not zero" % (pdir, name))
        idx, tidx = idx[:8 * len(want_idx)], tidx[:12 * len(want_tidx)]
    else:
        ck.check(len(idx) % 8 == 0 and len(tidx) % 12 == 0, "%s: index length not whole entries" % name)
    got_idx = [struct.unpack_from(">ii", idx, i) for i in range(0, len(idx) - len(idx) % 8, 8)]
    got_tidx = [struct.unpack_from(">qi", tidx, i) for i in range(0, len(tidx) - len(tidx) % 12, 12)]
    ck.check(got_idx == want_idx, "%s/%s.index: %d entries, Kafka's append rule gives %d (first difference %s)"
             % (pdir, name, len(got_idx), len(want_idx),
                next(((a, b) for a, b in zip(got_idx, want_idx) if a != b), None)))
    ck.check(got_tidx == want_tidx, "%s/%s.timeindex: entries differ from Kafka's append rule" % (pdir, name))
    # the properties a reader relies on, checked directly
    last_by_pos = {pos: last for (pos, last, _, _) in batch_facts}
    for rel, pos in got_idx:
        ck.check(last_by_pos.get(pos) == base + rel,
                 "%s.index entry (%d, %d) does not point at a batch ending at %d" % (name, rel, pos, base + rel))
    for a, b in zip(got_tidx, got_tidx[1:]):
        ck.check(a[0] < b[0] and a[1] <= b[1], "%s.timeindex entries not increasing" % name)
    if not active and batch_facts:
        ck.check(got_tidx and got_tidx[-1][0] == max_ts,
                 "%s.timeindex: last entry is not the segment max timestamp %d" % (name, max_ts))
    seg["index_entries"] = len(got_idx)
    seg["timeindex_entries"] = len(got_tidx)
    seg["codecs"] = sorted(seg["codecs"])
    return seg


def read_snapshot(ck, path):
    """§3.6: int16 version 1, uint32 CRC-32C of [6,end), int32 count, 46-byte entries."""
    data = read(path)
    if not ck.check(len(data) >= 10, "%s: too short" % path):
        return {}
    ver, crc, n = struct.unpack_from(">hIi", data, 0)
    ck.check(ver == 1, "%s: version %d" % (path, ver))
    ck.check(crc == calc_crc32c(data[6:]), "%s: CRC-32C mismatch" % path)
    if not ck.check(len(data) == 10 + 46 * n, "%s: %d entries but %d bytes" % (path, n, len(data))):
        return {}
    got = {}
    for i in range(n):
        pid, ep, lseq, loff, odelta, ts, coord, txn = struct.unpack_from(">qhiqiqiq", data, 10 + 46 * i)
        got[pid] = {"epoch": ep, "last_seq": lseq, "last_offset": loff, "offset_delta": odelta, "timestamp": ts}
        ck.check(coord == -1 and txn == -1, "%s: unexpected transaction state" % path)
    return got


def check_snapshot(ck, path, offset, state):
    got = read_snapshot(ck, path)
    # producer state after every batch below `offset`
    prods = {}
    for (end, p) in state["batches_by_offset"]:
        if end <= offset:
            prods = p
    ck.check(got == prods, "%s: producer entries %r, the log says %r" % (path, got, prods))


def check_partition(ck, logdir, dname, topic, part, ckpts, clean_shutdown, tiered_topics):
    pdir = os.path.join(logdir, dname)
    out = {"topic": topic, "partition": part, "dir": dname}
    md = read(os.path.join(pdir, "partition.metadata")).decode("utf-8")
    m = re.fullmatch(r"version: 0\ntopic_id: ([A-Za-z0-9_-]{22})", md)
    if ck.check(m is not None, "%s/partition.metadata: %r is not Kafka's exact format" % (dname, md)):
        out["topic_id"] = m.group(1)
        ck.check(any(uuid_bytes(m.group(1))), "%s: zero topic id" % dname)
    eps = parse_epochs(ck, os.path.join(pdir, "leader-epoch-checkpoint"))
    files = sorted(os.listdir(pdir))
    bases = sorted(int(f[:20]) for f in files if f.endswith(".log"))
    snaps = sorted(int(f[:20]) for f in files if f.endswith(".snapshot"))
    for f in files:
        ck.check(re.fullmatch(r"\d{20}\.(log|index|timeindex|snapshot)|partition\.metadata|leader-epoch-checkpoint", f),
                 "%s: unexpected file %s" % (dname, f))
    for b in bases:
        for suf in (".index", ".timeindex"):
            ck.check(("%020d" % b) + suf in files, "%s: %020d%s missing" % (dname, b, suf))
    if not ck.check(bases, "%s: no segments" % dname):
        return out
    state = {"next_offset": bases[0], "epochs": eps, "producers": {}, "batches_by_offset": []}
    if bases[0] > 0 and bases[0] in snaps:
        # older data is gone: like Kafka at load, start from the snapshot at the first
        # segment; the sequence checks then verify that it continues into the log
        seeded = read_snapshot(ck, os.path.join(pdir, "%020d.snapshot" % bases[0]))
        for pid, e in seeded.items():
            ck.check(e["last_offset"] < bases[0], "%s: first snapshot refers to offset %d" % (dname, e["last_offset"]))
        state["producers"] = dict(seeded)
        state["batches_by_offset"].append((bases[0], dict(seeded)))
    segs = []
    for i, b in enumerate(bases):
        if state["next_offset"] != b:
            ck.err("%s: segment %d starts at %d but the previous one ended at %d" % (dname, b, b, state["next_offset"]))
            state["next_offset"] = b
        segs.append(check_segment(ck, pdir, b, i == len(bases) - 1, state, True))
    for i, s in enumerate(segs):
        s["end_offset"] = bases[i + 1] - 1 if i + 1 < len(bases) else s["last_offset"]
        if i + 1 < len(bases):
            ck.check(s["last_offset"] == bases[i + 1] - 1, "%s: gap after segment %d" % (dname, s["base_offset"]))
    leo = state["next_offset"]
    # producer snapshots: one per rolled boundary, one at the log end after a clean shutdown
    want_snaps = [b for b in bases if b > 0]
    if clean_shutdown and leo > bases[-1]:
        want_snaps.append(leo)
    ck.check(snaps == sorted(set(want_snaps)), "%s: snapshots %r, expected %r" % (dname, snaps, want_snaps))
    for o in snaps:
        check_snapshot(ck, os.path.join(pdir, "%020d.snapshot" % o), o, state)

    key = (topic, part)
    rec, hw, lso_ck = ckpts
    ck.check(rec.get(key) == leo, "%s: recovery point %r, log end offset %d" % (dname, rec.get(key), leo))
    ck.check(hw.get(key) == leo, "%s: high watermark %r, log end offset %d" % (dname, hw.get(key), leo))
    tiered = tiered_topics is not None and topic in tiered_topics
    if key in lso_ck:
        lso = lso_ck[key]
        if tiered_topics is not None and not tiered:
            ck.check(lso > bases[0], "%s: log-start-offset-checkpoint lists a non-tiered partition whose log start %d is not above its first segment %d" % (dname, lso, bases[0]))
        ck.check(lso <= leo, "%s: log start above log end" % dname)
    else:
        lso = bases[0]
        ck.check(not tiered, "%s: tiered partition missing from log-start-offset-checkpoint" % dname)
    if eps:
        ck.check(eps[0][1] == lso, "%s: leader-epoch-checkpoint starts at %d, log start offset is %d" % (dname, eps[0][1], lso))
    out.update({"log_start_offset": lso, "log_end_offset": leo, "tiered": tiered, "epochs": eps,
                "segments": segs, "size_bytes": sum(s["size_bytes"] for s in segs)})
    return out


def check_remote(ck, path, parts_by_key, segment_bytes):
    summary = {"events": 0, "segments_finished": 0, "dangling": 0, "deleted": 0, "partitions": 0}
    segs, last_ts = {}, {}
    with open(path, "r", encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            where = "%s:%d" % (path, lineno)
            try:
                ev = json.loads(line)
            except ValueError as e:
                ck.err("%s: bad JSON: %s" % (where, e))
                continue
            summary["events"] += 1
            key = (ev.get("topic"), ev.get("partition"))
            p = parts_by_key.get(key)
            if not ck.check(p is not None, "%s: unknown partition %r" % (where, key)):
                continue
            ts = ev.get("event_timestamp_ms")
            ck.check(isinstance(ts, int) and ts > last_ts.get(key, -1),
                     "%s: event timestamp %r not increasing for %r" % (where, ts, key))
            last_ts[key] = ts
            sid = ev.get("segment_id", "")
            ck.check(B64URL.fullmatch(sid or "") is not None, "%s: bad segment id %r" % (where, sid))
            state = ev.get("state")
            if ev.get("type") == "segment":
                ck.check(sid not in segs, "%s: segment %s added twice" % (where, sid))
                ck.check(state == "COPY_SEGMENT_STARTED", "%s: new segment in state %s" % (where, state))
                if "topic_id" in ev:
                    ck.check(ev["topic_id"] == p.get("topic_id"), "%s: topic_id differs from partition.metadata" % where)
                le = ev.get("leader_epochs", {})
                items = sorted((int(k), v) for k, v in le.items())
                ck.check(items and items[0][1] == ev["start_offset"] and all(ev["start_offset"] <= v <= ev["end_offset"] for _, v in items)
                         and [v for _, v in items] == sorted(v for _, v in items),
                         "%s: leader_epochs %r do not fit [%d, %d]" % (where, le, ev["start_offset"], ev["end_offset"]))
                segs[sid] = dict(ev, key=key, epochs=items, lineno=lineno)
            elif ev.get("type") == "update":
                s = segs.get(sid)
                if not ck.check(s is not None, "%s: update for unknown segment %s" % (where, sid)):
                    continue
                ck.check(s["key"] == key, "%s: update for another partition's segment" % where)
                ck.check(state in LEGAL_STATES.get(s["state"], set()),
                         "%s: illegal transition %s -> %s" % (where, s["state"], state))
                s["state"] = state
            else:
                ck.err("%s: unknown type %r" % (where, ev.get("type")))

    by_part = {}
    for s in segs.values():
        by_part.setdefault(s["key"], []).append(s)
    summary["partitions"] = len(by_part)
    for key, lst in by_part.items():
        p = parts_by_key[key]
        dname = p["dir"]
        locals_ = {s["base_offset"]: (i, s) for i, s in enumerate(p["segments"])}
        bases = [s["base_offset"] for s in p["segments"]]
        fin = sorted((s for s in lst if s["state"] == "COPY_SEGMENT_FINISHED"), key=lambda s: s["start_offset"])
        summary["segments_finished"] += len(fin)
        summary["dangling"] += sum(1 for s in lst if s["state"] == "COPY_SEGMENT_STARTED")
        dels = [s for s in lst if s["state"] == "DELETE_SEGMENT_FINISHED"]
        summary["deleted"] += len(dels)
        for s in dels:
            ck.check(s["end_offset"] < p["log_start_offset"],
                     "%s: deleted remote segment ends at %d, above the log start %d" % (dname, s["end_offset"], p["log_start_offset"]))
        if fin:
            ck.check(fin[0]["start_offset"] == p["log_start_offset"],
                     "%s: remote log starts at %d, log start offset is %d" % (dname, fin[0]["start_offset"], p["log_start_offset"]))
        for a, b in zip(fin, fin[1:]):
            ck.check(a["end_offset"] + 1 == b["start_offset"], "%s: remote segments %d-%d and %d-%d not contiguous"
                     % (dname, a["start_offset"], a["end_offset"], b["start_offset"], b["end_offset"]))
        for s in fin:
            if s["start_offset"] < bases[0]:
                # no local file to compare with: at least a plausible size
                ck.check(s["end_offset"] < bases[0], "%s: remote-only segment overlaps the local log" % dname)
                ck.check(s["size_bytes"] >= 61 + 7 * (s["end_offset"] - s["start_offset"] + 1) and
                         (segment_bytes is None or s["size_bytes"] <= segment_bytes),
                         "%s: remote-only segment %d-%d has an impossible size %d"
                         % (dname, s["start_offset"], s["end_offset"], s["size_bytes"]))
                continue
            loc = locals_.get(s["start_offset"])
            if not ck.check(loc is not None, "%s: finished remote segment at %d matches no local segment" % (dname, s["start_offset"])):
                continue
            i, seg = loc
            if not ck.check(i + 1 < len(bases), "%s: the active segment was copied" % dname):
                continue
            ck.check(s["end_offset"] == bases[i + 1] - 1, "%s: remote end_offset %d, next local base - 1 is %d"
                     % (dname, s["end_offset"], bases[i + 1] - 1))
            ck.check(s["size_bytes"] == seg["size_bytes"], "%s: remote size %d, .log is %d" % (dname, s["size_bytes"], seg["size_bytes"]))
            ck.check(s["max_timestamp_ms"] == seg["max_timestamp_ms"], "%s: remote max timestamp %d, segment max %d"
                     % (dname, s["max_timestamp_ms"], seg["max_timestamp_ms"]))
            want = epochs_in_range(p["epochs"], s["start_offset"], s["end_offset"] + 1)
            ck.check(s["epochs"] == want, "%s: leader_epochs %r, epochEntriesInRange gives %r" % (dname, s["epochs"], want))
        if fin and fin[-1]["end_offset"] >= bases[0]:
            # the copied local segments are a prefix of the closed ones
            ck.check(fin[-1]["end_offset"] < bases[-1], "%s: remote data reaches the active segment" % dname)
        elif fin:
            ck.check(fin[-1]["end_offset"] + 1 == bases[0], "%s: remote-only data does not reach the local log" % dname)
    for key, p in parts_by_key.items():
        if p["tiered"] and key not in by_part:
            ck.check(p["log_start_offset"] == p["segments"][0]["base_offset"],
                     "%s: tiered, starts above its log start, but has no remote segments" % p["dir"])
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("logdir")
    ap.add_argument("--remote-state")
    ap.add_argument("--topic-config")
    args = ap.parse_args()
    ck = Checker()
    logdir = args.logdir
    if not os.path.isdir(logdir):
        print(json.dumps({"ok": False, "errors": ["%s: not a directory" % logdir]}))
        return 2

    props = read(os.path.join(logdir, "meta.properties")).decode("utf-8").split("\n")
    ck.check(props[0] == "#" and props[1].startswith("#"), "meta.properties: no Properties.store header")
    kv = dict(ln.split("=", 1) for ln in props[2:] if ln)
    ck.check(kv.get("version") == "1", "meta.properties: version %r" % kv.get("version"))
    ck.check(B64URL.fullmatch(kv.get("cluster.id", "")) is not None, "meta.properties: cluster.id")
    ck.check(B64URL.fullmatch(kv.get("directory.id", "")) is not None, "meta.properties: directory.id")
    ck.check(kv.get("node.id", "").isdigit(), "meta.properties: node.id")
    clean = os.path.exists(os.path.join(logdir, ".kafka_cleanshutdown"))
    if clean:
        cs = read(os.path.join(logdir, ".kafka_cleanshutdown")).decode("utf-8")
        ck.check(re.fullmatch(r'\{"version":0,"brokerEpoch":\d+\}', cs) is not None, ".kafka_cleanshutdown: %r" % cs)
    ck.check(read(os.path.join(logdir, "cleaner-offset-checkpoint")) == b"0\n0\n", "cleaner-offset-checkpoint is not an empty list")
    rec = parse_offset_checkpoint(ck, os.path.join(logdir, "recovery-point-offset-checkpoint"))
    hw = parse_offset_checkpoint(ck, os.path.join(logdir, "replication-offset-checkpoint"))
    lso = parse_offset_checkpoint(ck, os.path.join(logdir, "log-start-offset-checkpoint"))

    tiered_topics, segment_bytes = None, None
    if args.topic_config:
        tiered_topics = set()
        for ln in open(args.topic_config, encoding="utf-8"):
            ln = ln.split("#", 1)[0].split()
            if len(ln) >= 2 and ln[0] != "*" and "remote.storage.enable=true" in ln[1:]:
                tiered_topics.add(ln[0])
            for kv in ln[1:]:
                if kv.startswith("segment.bytes="):
                    segment_bytes = max(segment_bytes or 0, int(kv.split("=", 1)[1]))

    parts = []
    for d in sorted(os.listdir(logdir)):
        if not os.path.isdir(os.path.join(logdir, d)):
            ck.check(d in ("meta.properties", ".kafka_cleanshutdown", "recovery-point-offset-checkpoint",
                           "log-start-offset-checkpoint", "replication-offset-checkpoint",
                           "cleaner-offset-checkpoint"), "unexpected file %s" % d)
            continue
        i = d.rfind("-")
        if not ck.check(i > 0 and d[i + 1:].isdigit(), "%s: not a partition directory" % d):
            continue
        topic, part = d[:i], int(d[i + 1:])
        ck.check(re.fullmatch(r"[a-zA-Z0-9._-]{1,249}", topic) is not None, "%s: illegal topic name" % d)
        parts.append(check_partition(ck, logdir, d, topic, part, (rec, hw, lso), clean, tiered_topics))
    keys = {(p["topic"], p["partition"]) for p in parts}
    for name, ckpt in (("recovery-point-offset-checkpoint", rec), ("replication-offset-checkpoint", hw),
                       ("log-start-offset-checkpoint", lso)):
        extra = set(ckpt) - keys
        ck.check(not extra, "%s: entries for missing partitions %r" % (name, sorted(extra)[:5]))

    summary = {"partitions": len(parts)}
    if args.remote_state:
        by_key = {(p["topic"], p["partition"]): p for p in parts if "segments" in p}
        if tiered_topics is None:
            for p in by_key.values():
                p["tiered"] = False
        summary["remote"] = check_remote(ck, args.remote_state, by_key, segment_bytes)
    for p in parts:
        p.pop("epochs", None)
    result = {"ok": not ck.errors, "error_count": len(ck.errors), "errors": ck.errors[:50],
              "skipped_codecs": sorted(ck.skipped_codecs), "summary": summary, "partitions": parts}
    json.dump(result, sys.stdout, indent=None, sort_keys=True)
    sys.stdout.write("\n")
    for e in ck.errors[:20]:
        sys.stderr.write("gen_check: %s\n" % e)
    return 0 if not ck.errors else 1


if __name__ == "__main__":
    sys.exit(main())
