#!/usr/bin/python3
"""Writes the record-batch and codec test vectors of tests/test_batch.c and
tests/test_codec.c into tests/vectors/.

The bytes come from kafka-python's own encoders (kafka.record builders, kafka.codec) and
from the compression CLI tools; every expected value in vectors.json is read back with
kafka-python's READER (kafka.record.MemoryRecords), never computed by segscan. Run with
Debian's /usr/bin/python3 (python3-kafka; python3-snappy, python3-lz4, python3-zstandard
and python3-xxhash for the optional codecs). Deterministic: running it twice gives the
same files, except for the CLI-tool streams, which are only rewritten when missing.
"""
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

from kafka import codec as kcodec
from kafka.record import MemoryRecords
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.util import calc_crc32c

HERE = os.path.dirname(os.path.abspath(__file__))
CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
HAVE = {
    "none": True,
    "gzip": kcodec.has_gzip(),
    "snappy": kcodec.has_snappy(),
    "lz4": kcodec.has_lz4(),
    "zstd": kcodec.has_zstd(),
}
TS0 = 1700000000000


def payload(i, n):
    return (b"value-%05d-" % i) + bytes((i * 7 + j) % 26 + 97 for j in range(n))


def v2_batch(codec, nrec, base, epoch=5, txn=False, pid=-1, pepoch=-1, seq=-1,
             headers=False, log_append=False, ts_step=3):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=CODECS[codec],
                                  is_transactional=txn, producer_id=pid,
                                  producer_epoch=pepoch, base_sequence=seq,
                                  batch_size=1 << 30)
    for i in range(nrec):
        key = None if i % 3 == 0 else b"key-%d" % i
        val = None if i % 5 == 4 else payload(i, 40 + i % 50)
        hdrs = [("h%d" % j, None if j == 1 else b"hv%d" % j) for j in range(i % 3)] if headers else []
        # timestamps jump around so max != last and deltas go negative
        ts = TS0 + base * 10 + ((i * ts_step) % 7) * 1000 - 2000
        assert b.append(i, timestamp=ts, key=key, value=val, headers=hdrs) is not None
    buf = bytearray(b.build())
    # What the broker does on append, outside the CRC: base offset and leader epoch.
    struct.pack_into(">q", buf, 0, base)
    struct.pack_into(">i", buf, 12, epoch)
    if log_append:
        # LogAppendTime: attribute bit 3 (inside the CRC) and maxTimestamp = append time
        # (also inside). Re-sign with kafka-python's CRC-32C.
        attrs = struct.unpack_from(">h", buf, 21)[0] | 0x08
        struct.pack_into(">h", buf, 21, attrs)
        struct.pack_into(">q", buf, 35, TS0 + 999999)
        struct.pack_into(">I", buf, 17, calc_crc32c(bytes(buf[21:])))
    return bytes(buf)


def legacy(magic, codec, nrec, base):
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=CODECS[codec], batch_size=1 << 30)
    rel = codec != "none" and magic == 1  # v1 wrappers hold relative inner offsets
    for i in range(nrec):
        off = i if rel else base + i
        key = None if i % 2 else b"k%d" % i
        assert b.append(off, timestamp=TS0 + base + (i * 5) % 4, key=key,
                        value=payload(i, 30)) is not None
    buf = bytearray(b.build())
    if codec != "none":
        # the broker sets the wrapper offset to the absolute last inner offset (outside the CRC)
        struct.pack_into(">q", buf, 0, base + nrec - 1)
        if magic == 1:
            # and a CreateTime wrapper's timestamp to the max inner one (kafka-python's
            # builder leaves 0); it is inside the CRC-32, so re-sign with zlib's
            struct.pack_into(">q", buf, 18, max(TS0 + base + (i * 5) % 4 for i in range(nrec)))
            struct.pack_into(">I", buf, 12, zlib.crc32(bytes(buf[16:])) & 0xffffffff)
    return bytes(buf)


def read_entries(data):
    """Everything segscan is checked against, as kafka-python reads it."""
    out = []
    mr = MemoryRecords(data)
    pos = 0
    while mr.has_next():
        batch = mr.next_batch()
        size = struct.unpack_from(">i", data, pos + 8)[0] + 12
        magic = data[pos + 16]
        crc_ok = bool(batch.validate_crc())
        recs = list(batch)
        e = {
            "pos": pos,
            "size": size,
            "magic": magic,
            "codec": batch.compression_type,
            "crc_valid": crc_ok,
            "records": len(recs),
            "base_offset": recs[0].offset if recs else None,
        }
        if magic == 2:
            e["last_offset"] = batch.base_offset + batch.last_offset_delta
            e["max_timestamp"] = batch.max_timestamp
            e["attributes"] = batch.attributes
            e["detail"] = [{
                "offset": r.offset,
                "timestamp": r.timestamp,
                "key": None if r.key is None else r.key.hex(),
                "value": None if r.value is None else r.value.hex(),
                "headers": len(r.headers),
            } for r in recs]
        else:
            e["last_offset"] = recs[-1].offset
            e["max_timestamp"] = max(r.timestamp for r in recs) if magic == 1 else -1
        out.append(e)
        pos += size
    assert pos == len(data), "kafka-python stopped at %d of %d" % (pos, len(data))
    return out


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def make_batches():
    specs = []  # (file name, builder)
    off = 0

    def add(name, fn, nrec):
        nonlocal off
        specs.append((name, fn(off)))
        off += nrec

    for c in ("none", "gzip", "snappy", "lz4", "zstd"):
        if HAVE[c]:
            add("v2_%s.bin" % c, lambda b, c=c: v2_batch(c, 12, b, headers=True), 12)
    add("v2_txn.bin", lambda b: v2_batch("none", 3, b, txn=True, pid=4242, pepoch=7, seq=100), 3)
    add("v2_logappend.bin", lambda b: v2_batch("gzip", 4, b, log_append=True), 4)
    add("v2_single.bin", lambda b: v2_batch("none", 1, b), 1)
    for m in (0, 1):
        for c in ("none", "gzip", "snappy", "lz4"):
            if HAVE[c] and not (c == "lz4" and m == 0 and kcodec.xxhash is None):
                n = 3 if c == "none" else 5
                add("v%d_%s.bin" % (m, c), lambda b, m=m, c=c, n=n: legacy(m, c, n, b), n)
    segment = b""
    files = []
    for name, data in specs:
        write(os.path.join(HERE, name), data)
        files.append({"name": name, "pos": len(segment), "size": len(data)})
        segment += data
    write(os.path.join(HERE, "segment.bin"), segment)
    entries = read_entries(segment)
    for f in files:
        f["entries"] = [i for i, e in enumerate(entries) if f["pos"] <= e["pos"] < f["pos"] + f["size"]]
    return {
        "segment": "segment.bin",
        "segment_size": len(segment),
        "segment_base": 0,
        "files": files,
        "entries": entries,
        "totals": {
            "batches": len(entries),
            "records": sum(e["records"] for e in entries),
            "last_offset": entries[-1]["last_offset"],
            "max_timestamp": max(e["max_timestamp"] for e in entries),
            "first_base": entries[0]["base_offset"],
        },
    }


def plaintext():
    lines = []
    i = 0
    while sum(len(l) for l in lines) < 100000:
        lines.append(b"record %06d: key=user-%d value={\"n\":%d,\"s\":\"%s\"}\n"
                     % (i, i % 97, i * i % 10007, bytes((i * 13 + j) % 26 + 65 for j in range(i % 23))))
        i += 1
    return b"".join(lines)


def make_codecs():
    d = os.path.join(HERE, "codec")
    os.makedirs(d, exist_ok=True)
    plain = plaintext()
    write(os.path.join(d, "plain.txt"), plain)
    made = {}

    def put(name, data):
        write(os.path.join(d, name), data)
        made[name] = len(data)

    # python encoders (deterministic)
    put("py.gzip", gzip.compress(plain, mtime=0))
    put("py2members.gzip", gzip.compress(plain[:70000], mtime=0) + gzip.compress(plain[70000:], mtime=0))
    if HAVE["snappy"]:
        put("xerial.snappy", kcodec.snappy_encode(plain))            # kafka-python's xerial framing
        put("raw.snappy", kcodec.snappy_encode(plain, xerial_compatible=False))
    if HAVE["lz4"]:
        put("kafka.lz4", kcodec.lz4_encode(plain))
        import lz4.frame as lz4f
        put("checksums.lz4", lz4f.compress(plain, block_linked=True, content_checksum=True,
                                           block_checksum=True, store_size=True,
                                           block_size=lz4f.BLOCKSIZE_MAX256KB))
        if kcodec.xxhash is not None:
            put("oldkafka.lz4", kcodec.lz4_encode_old_kafka(plain))
    if HAVE["zstd"]:
        import zstandard
        put("sized.zstd", zstandard.ZstdCompressor(level=3).compress(plain))
        put("unsized.zstd", zstandard.ZstdCompressor(level=3, write_content_size=False).compress(plain))
        put("2frames.zstd", zstandard.ZstdCompressor().compress(plain[:50000]) +
            zstandard.ZstdCompressor().compress(plain[50000:]))

    # CLI tools: their output depends on the tool version, so keep what is committed
    src = os.path.join(d, "plain.txt")
    for name, cmd in (("cli.gzip", ["gzip", "-n", "-c", "-9"]),
                      ("cli.zstd", ["zstd", "-q", "-c", "-19"]),
                      ("cli.lz4", ["lz4", "-q", "-c", "-9"])):
        path = os.path.join(d, name)
        if not os.path.exists(path) and shutil.which(cmd[0]):
            with open(path, "wb") as f:
                subprocess.run(cmd + [src], stdout=f, check=True)
        if os.path.exists(path):
            made[name] = os.path.getsize(path)
    return {"plain": "plain.txt", "plain_size": len(plain), "streams": [
        {"name": n, "codec": n.rsplit(".", 1)[1]} for n in sorted(made)]}


def main():
    out = {"generator": "tests/vectors/make_vectors.py (kafka-python %s)" % __import__("kafka").__version__,
           "batches": make_batches(), "codec": make_codecs()}
    with open(os.path.join(HERE, "vectors.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    missing = [c for c, ok in HAVE.items() if not ok]
    if missing:
        print("make_vectors: no python module for %s; those vectors were skipped" % ", ".join(missing),
              file=sys.stderr)


if __name__ == "__main__":
    main()
