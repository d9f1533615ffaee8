#!/usr/bin/python3
"""Record batches of a __remote_log_metadata topic for tests/test_remote_topic.c.

The batches are built by kafka-python's DefaultRecordBatchBuilder (an implementation of
the v2 batch format independent of segscan's); the record values are the hand-built RLMM
vectors of tests/test_rlmm.c (also the fuzz seeds in tests/fuzz/corpus/fuzz_rlmm/).
Run from the repository root with /usr/bin/python3 (kafka-python 2.0.2).
"""
import os
import struct
from kafka.record.default_records import DefaultRecordBatchBuilder

CORPUS = "tests/fuzz/corpus/fuzz_rlmm"
OUT = "tests/vectors/rlmm"


def val(name):
    with open(os.path.join(CORPUS, name), "rb") as f:
        return f.read()


def batch(base_offset, values, compression=0):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=compression, is_transactional=0,
                                  producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 20)
    for i, v in enumerate(values):
        b.append(i, timestamp=1700000000000 + i, key=None, value=v, headers=[])
    out = bytearray(b.build())
    # baseOffset is outside the CRC (which starts at the attributes): set it directly
    struct.pack_into(">q", out, 0, base_offset)
    return bytes(out)


seg = val("v0_segment")
upd = val("v0_update")
upd_ds = val("v1_update_tags")          # DELETE_SEGMENT_STARTED for the same segment
pdel = val("v0_partition_delete")
unknown = bytearray(upd)
unknown[3 + 4 + 16 + 4 + 1 + 15] ^= 0xff  # last byte of the segment id: never added
garbage = b"\x01\x00"                    # frame version 1, apiKey 0, then nothing

files = {
    # metadata partition 38 is where foo-2 (topic id ASNFZ4mrze_-3LqYdlQyEA) belongs of 50
    "p38_00000000000000000000.log": batch(0, [seg]) + batch(1, [upd], compression=1),
    "p38_00000000000000000002.log": batch(2, [garbage, upd_ds]) + batch(4, [bytes(unknown)])
                                    + batch(5, [seg])[:30],
    # and a partition delete record misplaced in partition 0
    "p0_00000000000000000000.log": batch(0, [pdel]),
}
for name, data in files.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    print(name, len(data))
