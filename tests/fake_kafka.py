#!/usr/bin/env python3
"""A fake Kafka broker on 127.0.0.1 for the live-cluster source's hostile-peer tests
(tests/cluster_peer.sh): one node (id 0) leading every partition of __remote_log_metadata,
speaking just enough of the protocol for librdkafka's simple consumer (ApiVersions v3,
Metadata v1, ListOffsets v1, Fetch v4; FindCoordinator v0 is advertised and refused, so a
client that looks up a group coordinator shows in the log).

The records it serves are real: the .log segments of a Kafka broker's own
__remote_log_metadata-N directories (a fixture's log dir), batch bytes as the broker wrote
them. What it can lie about:

  --flip P         flip one bit in the middle of partition P's first batch (inside the range
                   its CRC-32C covers), as a disk or a hostile peer would
  --stream P --hwm N
                   claim a high watermark of N for partition P and, past its real records,
                   keep serving its real batches again with their base offsets rewritten to
                   follow on (the CRC does not cover the base offset, so they stay valid)
  --stall-fetch    never answer a Fetch (connections stay open)
  --stall-describe-configs
                   advertise DescribeConfigs (v0-v1) and never answer one

Every request is logged to --log as one line, "<api_key> <version>", and each Fetch of a
partition as "fetch <partition> <offset>"; the chosen port is written to --port-file once the
socket listens. It serves until killed.
"""
import argparse
import os
import socket
import socketserver
import struct
import sys
import threading
import time

TOPIC = b"__remote_log_metadata"
API_PRODUCE, API_FETCH, API_LIST_OFFSETS, API_METADATA = 0, 1, 2, 3
API_FIND_COORDINATOR, API_VERSIONS, API_DESCRIBE_CONFIGS = 10, 18, 32
# advertised ranges: Produce 3 and Fetch 4 make librdkafka use message format v2
VERSIONS = [(API_PRODUCE, 0, 3), (API_FETCH, 0, 4), (API_LIST_OFFSETS, 0, 1), (API_METADATA, 0, 1),
            (API_FIND_COORDINATOR, 0, 0), (API_VERSIONS, 0, 3)]


def batches_of(data):
    """[(base_offset, last_offset, bytes)] of a segment file's v2 batches."""
    out, pos = [], 0
    while pos + 61 <= len(data):
        base, blen = struct.unpack_from(">qi", data, pos)
        size = 12 + blen
        if blen < 49 or pos + size > len(data):
            break
        delta = struct.unpack_from(">i", data, pos + 23)[0]
        out.append((base, base + delta, data[pos:pos + size]))
        pos += size
    return out


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.log = open(args.log, "a", buffering=1)
        self.parts = {}
        for p in range(args.partitions):
            d = os.path.join(args.logdir, "__remote_log_metadata-%d" % p)
            bs = []
            if os.path.isdir(d):
                for name in sorted(os.listdir(d)):
                    if name.endswith(".log"):
                        with open(os.path.join(d, name), "rb") as f:
                            bs += batches_of(f.read())
            if p == args.flip and bs:
                base, last, b = bs[0]
                b = bytearray(b)
                b[61 + (len(b) - 61) // 2] ^= 0x10
                bs[0] = (base, last, bytes(b))
            self.parts[p] = bs

    def hwm(self, p):
        if p == self.args.stream:
            return self.args.hwm
        bs = self.parts.get(p, [])
        return bs[-1][1] + 1 if bs else 0

    def fetch(self, p, offset, max_bytes):
        bs = self.parts.get(p, [])
        out, size = [], 0
        for base, last, b in bs:
            if last >= offset and (not out or size + len(b) <= max_bytes):
                out.append(b)
                size += len(b)
        if p == self.args.stream and bs and not out and offset < self.args.hwm:
            # past the real records: the real batches again, renumbered from `offset`
            cur, i = offset, 0
            while size < min(max_bytes, 256 * 1024) and cur < self.args.hwm:
                base, last, b = bs[i % len(bs)]
                nb = struct.pack(">q", cur) + b[8:]
                out.append(nb)
                size += len(nb)
                cur += last - base + 1
                i += 1
        return b"".join(out)

    def note(self, line):
        with self.lock:
            self.log.write(line + "\n")


def s16(v): return struct.pack(">h", v)
def s32(v): return struct.pack(">i", v)
def s64(v): return struct.pack(">q", v)
def kstr(b): return s16(len(b)) + b
def arr(items): return s32(len(items)) + b"".join(items)


def uvarint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


class Reader:
    def __init__(self, b, pos=0):
        self.b, self.pos = b, pos

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.pos)
        self.pos += struct.calcsize(fmt)
        return v[0]

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        s = self.b[self.pos:self.pos + n]
        self.pos += n
        return s


class Handler(socketserver.BaseRequestHandler):
    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.request.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    def handle(self):
        st = self.server.state
        try:
            while True:
                size = struct.unpack(">i", self.recv_exact(4))[0]
                req = self.recv_exact(size)
                r = Reader(req)
                key, ver, corr = r.take(">h"), r.take(">h"), r.take(">i")
                r.string()   # client id
                st.note("%d %d" % (key, ver))
                if key == API_VERSIONS:
                    body = self.api_versions(ver)
                elif key == API_METADATA:
                    body = self.metadata(r, ver)
                elif key == API_LIST_OFFSETS:
                    body = self.list_offsets(r)
                elif key == API_FETCH:
                    if st.args.stall_fetch:
                        continue   # never answered
                    body = self.fetch(r)
                elif key == API_DESCRIBE_CONFIGS and st.args.stall_describe_configs:
                    continue   # never answered
                elif key == API_FIND_COORDINATOR:
                    body = s16(15) + s32(-1) + kstr(b"") + s32(-1)   # COORDINATOR_NOT_AVAILABLE
                else:
                    return   # not spoken here: drop the connection
                resp = s32(corr) + body
                self.request.sendall(s32(len(resp)) + resp)
        except (EOFError, ConnectionError, OSError):
            return

    def api_versions(self, ver):
        VERSIONS = globals()["VERSIONS"] + ([(API_DESCRIBE_CONFIGS, 0, 1)]
                                            if self.server.state.args.stall_describe_configs else [])
        if ver >= 3:
            items = b"".join(s16(k) + s16(lo) + s16(hi) + uvarint(0) for k, lo, hi in VERSIONS)
            return s16(0) + uvarint(len(VERSIONS) + 1) + items + s32(0) + uvarint(0)
        items = [s16(k) + s16(lo) + s16(hi) for k, lo, hi in VERSIONS]
        return s16(0) + arr(items) + (s32(0) if ver >= 1 else b"")

    def metadata(self, r, ver):
        st = self.server.state
        n = r.take(">i")
        names = [r.string() for _ in range(n)] if n > 0 else []
        host, port = self.server.server_address
        brokers = arr([s32(0) + kstr(host.encode()) + s32(port) + s16(-1)])
        topics = []
        want_all = n < 0 or (n == 0 and ver == 0)
        for name in ([TOPIC] if want_all else names):
            if name != TOPIC:
                topics.append(s16(3) + kstr(name) + b"\x00" + arr([]))
                continue
            parts = [s16(0) + s32(p) + s32(0) + arr([s32(0)]) + arr([s32(0)]) for p in range(st.args.partitions)]
            topics.append(s16(0) + kstr(TOPIC) + b"\x01" + arr(parts))
        return brokers + s32(0) + arr(topics)

    def list_offsets(self, r):
        st = self.server.state
        r.take(">i")   # replica id
        out = []
        for _ in range(r.take(">i")):
            name = r.string()
            parts = []
            for _ in range(r.take(">i")):
                p, ts = r.take(">i"), r.take(">q")
                if name != TOPIC or p >= st.args.partitions:
                    parts.append(s32(p) + s16(3) + s64(-1) + s64(-1))
                else:
                    parts.append(s32(p) + s16(0) + s64(-1) + s64(0 if ts == -2 else st.hwm(p)))
            out.append(kstr(name) + arr(parts))
        return arr(out)

    def fetch(self, r):
        st = self.server.state
        r.take(">i")
        max_wait = r.take(">i")
        r.take(">i"); r.take(">i"); r.take(">b")
        out, empty = [], True
        for _ in range(r.take(">i")):
            name = r.string()
            parts = []
            for _ in range(r.take(">i")):
                p, off, maxb = r.take(">i"), r.take(">q"), r.take(">i")
                if name != TOPIC or p >= st.args.partitions:
                    parts.append(s32(p) + s16(3) + s64(-1) + s64(-1) + s32(-1) + s32(-1))
                    continue
                st.note("fetch %d %d" % (p, off))
                hw = st.hwm(p)
                if off > hw or off < 0:   # as Kafka: OFFSET_OUT_OF_RANGE
                    parts.append(s32(p) + s16(1) + s64(hw) + s64(hw) + s32(-1) + s32(-1))
                    continue
                recs = st.fetch(p, off, maxb)
                empty = empty and not recs
                parts.append(s32(p) + s16(0) + s64(hw) + s64(hw) + s32(-1) + s32(len(recs)) + recs)
            out.append(kstr(name) + arr(parts))
        if empty:   # as a broker does: nothing new, so wait (up to max_wait_ms) before answering
            time.sleep(min(max(max_wait, 0), 500) / 1000.0)
        return s32(0) + arr(out)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--logdir", required=True)
    ap.add_argument("--partitions", type=int, default=5)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--flip", type=int, default=-1)
    ap.add_argument("--stream", type=int, default=-1)
    ap.add_argument("--hwm", type=int, default=0)
    ap.add_argument("--stall-fetch", action="store_true")
    ap.add_argument("--stall-describe-configs", action="store_true")
    args = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.state = State(args)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
