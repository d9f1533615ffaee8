#!/usr/bin/env bash
# The remote-store audit (segscan audit --remote-store) against objects Kafka's own
# LocalTieredStorage wrote on a real 4.3.1 broker (the scenario harness, tests/harness_lib.sh;
# docs/conformance.md, "Scenario clusters"), and the same store served over S3 by a real
# versitygw on loopback. Every expectation comes from Kafka's own readings of the same cluster
# (`sc state`: ListOffsets and RemoteLogMetadataSerde over __remote_log_metadata; `sc jmx`:
# RemoteLogSizeBytes; its consumer) or from the files on disk, never from segscan. Run by
# tests/test_audit_real.c; one line per case to RESULTS:
#   PASS name (detail) | FAIL name: why | SKIP name: why
#
# One broker, LocalTieredStorage with delete.enable=false, topics
#   orders:2   orders-0 loses a segment's objects behind Kafka's back (missing), orders-1 gets a
#              copy of a fileset under an id Kafka never gave and a file no RSM writes (orphan)
#   expire:1   remote retention runs; the RSM deletes nothing, Kafka writes DELETE_SEGMENT_FINISHED
#   torn:1     a copy held by the harness's transferer after the .log, before the indexes
# and, before any damage, --deep over the store (file:// and through versitygw) healthy and with
# one byte of a .log flipped; after the LTS cases, the `aiven` layout in a second bucket of the
# same versitygw, its objects written by the test (aiven.py below) from the layout's documented
# rules over Kafka's bytes, for the segments the broker's own metadata names, then damaged.
#
# usage: bash tests/audit_real.sh RESULTS
set -u
RESULTS=${1:?usage: audit_real.sh RESULTS}
: >"$RESULTS"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN=${SEGSCAN:-$ROOT/build/segscan}
case "$SEGSCAN" in /*) ;; *) SEGSCAN="$ROOT/$SEGSCAN" ;; esac
# shellcheck source=tests/harness_lib.sh
[ -f "$ROOT/tests/harness_lib.sh" ] || { for c in clean deep_clean deep_flip missing kafka_fetch orphan expired torn s3_equal aiven_clean aiven_mismatch aiven_missing aiven_orphan aiven_torn s3_errors; do echo "SKIP $c: tests/harness_lib.sh (the scenario harness) is not in this tree" >>"$RESULTS"; done; exit 0; }
. "$ROOT/tests/harness_lib.sh"
CASES="clean deep_clean deep_flip missing kafka_fetch orphan expired torn s3_equal aiven_clean aiven_mismatch aiven_missing aiven_orphan aiven_torn s3_errors"
KV=${AUDIT_REAL_KAFKA:-4.3.1}
T0=$(date +%s)

res() { echo "$*" >>"$RESULTS"; echo "audit_real: $*" >&2; }
done_case() { grep -q "^[A-Z]* $1\b" "$RESULTS"; }
skip_rest() { for c in $CASES; do done_case "$c" || res "SKIP $c: $1"; done; exit 0; }
fail_rest() { for c in $CASES; do done_case "$c" || res "FAIL $c: $1"; done; exit 0; }
verdict() { case "$2" in ok*) res "PASS $1 (${2#ok })" ;; *) res "FAIL $1: $2" ;; esac; }

command -v python3 >/dev/null 2>&1 || fail_rest "python3 not found"
harness_build "$KV"; rc=$?
[ $rc -eq 2 ] && skip_rest "java 17+ or mvn not found (scripts/install-deps.sh installs them)"
[ $rc -ne 0 ] && fail_rest "the harness did not build against Kafka $KV (see build/kafka-oracle/harness-$KV.maven.log)"

WORK=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/audit-real.XXXXXX")
cleanup() { harness_cleanup; [ -z "${KEEP_HARNESS_WORK:-}" ] && rm -rf "$WORK"; }
trap cleanup EXIT

sc_start "$WORK" --brokers 1 --rsm local-tiered-storage --rsm-delete-enable false \
    --topic orders:2:1 --topic expire:1:1 --topic torn:1:1 --rounds 3 ||
    fail_rest "the scenario cluster did not start, twice: $ANS (work dir $WORK, stderr $WORK/sc.err)"
H=$WORK/hello.json
PROPS=$(jget "$H" "d['nodes'][0]['server_properties']")
RDIR=$(jget "$H" "d['remote_dir']")       # LocalTieredStorage's dir: the store is RDIR/kafka-tiered-storage
STORE=$(jget "$H" "d['remote_store']")
echo "audit_real: cluster up in $(( $(date +%s) - T0 ))s, store $STORE" >&2

# audit NAME [OPTIONS...]: segscan audit on the live broker, as an operator runs it; the report
# in $WORK/NAME.json, its exit status in $WORK/NAME.rc, stderr in $WORK/NAME.err (bounded)
audit() {
    local name=$1; shift
    timeout 300 "$SEGSCAN" audit -f json --server-properties="$PROPS" "$@" >"$WORK/$name.json" 2>"$WORK/$name.err"
    echo $? >"$WORK/$name.rc"
}

# The checks, in Python over Kafka's state (sc state), the files on disk and segscan's report.
cat >"$WORK/check.py" <<'EOF'
import json, os, sys

REMOTE_CODES = ('MISSING_REMOTE_OBJECT', 'ORPHAN_REMOTE_OBJECT', 'TORN_REMOTE_UPLOAD', 'REMOTE_SIZE_MISMATCH')

def load(p):
    return json.load(open(p))

def parts(report):
    return {(p['topic'], p['partition']): p for p in report['partitions']}

def remote_findings(p):
    return [f for f in p.get('findings', []) if f['code'] in REMOTE_CODES]

def disk(store, topic, part, tid):
    """files and bytes under the partition's directory, read from the filesystem"""
    d = os.path.join(store, '%s-%d-%s' % (topic, part, tid))
    n = b = 0
    for f in os.listdir(d) if os.path.isdir(d) else []:
        n += 1
        b += os.lstat(os.path.join(d, f)).st_size
    return n, b

def state_parts(st):
    return {(p['topic'], p['partition']): p for p in st['partitions']}

def finished(sp):
    return [s for s in sp['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED']

def check_clean(report, st, jmx, store, rc):
    """no remote-store finding; per partition objects/stored_bytes = the files on disk,
    accounted_bytes = the finished segments' sizes (RemoteLogMetadataSerde) = per topic
    RemoteLogSizeBytes (JMX); every .log object of its metadata size"""
    bad = []
    if rc != 0:
        bad.append('exit %d' % rc)
    ps, sps = parts(report), state_parts(st)
    topics = {}
    for key, sp in sorted(sps.items()):
        p = ps.get(key)
        if p is None:
            bad.append('%s-%d not in the report' % key); continue
        rs = p.get('remote_store')
        if rs is None:
            bad.append('%s-%d not compared: %s' % (key + (p.get('remote_store_reason'),))); continue
        n, b = disk(store, key[0], key[1], sp['topic_id'])
        fin = finished(sp)
        acc = sum(s['size_bytes'] for s in fin)
        topics[key[0]] = topics.get(key[0], 0) + acc
        want = {'objects': n, 'stored_bytes': b, 'accounted_bytes': acc, 'orphan_objects': 0, 'orphan_bytes': 0,
                'missing_objects': 0, 'unrecognised': 0}
        got = {k: rs.get(k) for k in want}
        if got != want:
            bad.append('%s-%d: remote_store %r, disk and Kafka say %r' % (key + (got, want)))
        if not fin:
            bad.append('%s-%d: Kafka has no finished remote segment (nothing tested)' % key)
        for s in fin:
            f = os.path.join(store, '%s-%d-%s' % (key[0], key[1], sp['topic_id']),
                             '%020d-%s.log' % (s['start_offset'], s['segment_id']))
            if os.path.getsize(f) != s['size_bytes']:
                bad.append('%s: %d bytes, metadata %d' % (f, os.path.getsize(f), s['size_bytes']))
        if remote_findings(p):
            bad.append('%s-%d: %r' % (key + ([f['code'] for f in remote_findings(p)],)))
    for t, acc in topics.items():
        g = jmx['nodes'][0].get('topics', {}).get(t, {}).get('RemoteLogSizeBytes')
        if g != acc:
            bad.append('topic %s: RemoteLogSizeBytes %r, finished segments %d' % (t, g, acc))
    tot = report['summary'].get('remote_store') or {}
    if not tot.get('complete') or tot.get('orphan_objects') or tot.get('missing_objects') or tot.get('unrecognised'):
        bad.append('summary remote_store %r' % {k: tot.get(k) for k in ('complete', 'orphan_objects', 'missing_objects', 'unrecognised')})
    if bad:
        return 'FAIL ' + '; '.join(bad[:6])
    return 'ok %d partitions, %d bytes stored = the files on disk; accounted = RemoteLogSizeBytes %r' % (
        len(sps), tot.get('stored_bytes', -1), topics)

def expect(report, rc, spec):
    """spec {"T-P": {CODE: [segment ids]}}: exactly these remote-store findings in the whole
    report (each code once per partition, with exactly these ids), nothing else"""
    bad, seen = [], set()
    if rc != 0:
        bad.append('exit %d' % rc)
    for k, p in parts(report).items():
        name = '%s-%d' % k
        for f in remote_findings(p):
            want = spec.get(name, {}).get(f['code'])
            if want is None or (name, f['code']) in seen:
                bad.append('unexpected %s on %s: %s' % (f['code'], name, f['message']))
                continue
            seen.add((name, f['code']))
            if sorted(f.get('segment_ids', [])) != sorted(want):
                bad.append('%s on %s: segment_ids %r, expected %r' % (f['code'], name, f.get('segment_ids'), sorted(want)))
    for o in (report['summary'].get('remote_store') or {}).get('other_partitions', []) or []:
        for f in o.get('findings', []):
            bad.append('unexpected %s on a partition not scanned: %s' % (f['code'], f['message']))
    for name, codes in spec.items():
        for c in codes:
            if (name, c) not in seen:
                bad.append('no %s on %s' % (c, name))
    return bad

def rs_of(report, name):
    t, _, n = name.rpartition('-')
    return parts(report)[(t, int(n))].get('remote_store') or {}

def finding(report, name, code):
    t, _, n = name.rpartition('-')
    return [f for f in remote_findings(parts(report)[(t, int(n))]) if f['code'] == code][0]

def verdict(bad, ok):
    return 'FAIL ' + '; '.join(bad[:6]) if bad else 'ok ' + ok


def errors_of(report):
    return [e for e in report.get('errors', []) or []]

def check_deep(report, rc, clean, flip):
    """--deep over the store: flip null, a healthy store: exit 0, no error, no remote-store
    finding, the same partitions' remote_store as the audit without --deep; flip {key, batch}:
    exit 1, one error naming that key and the batch's position, nothing else"""
    bad = []
    fs = [(k, f['code']) for k, p in parts(report).items() for f in remote_findings(p)]
    if fs:
        bad.append('findings %r' % fs)
    errs = errors_of(report)
    if flip is None:
        if rc != 0:
            bad.append('exit %d' % rc)
        if errs:
            bad.append('errors %r' % [(e.get('path'), e.get('message')) for e in errs][:3])
    else:
        if rc != 1:
            bad.append('exit %d' % rc)
        hit = [e for e in errs if e.get('path') == flip['path']]
        if len(errs) != 1 or len(hit) != 1:
            bad.append('errors %r, expected one for %s' % ([(e.get('path'), e.get('message')) for e in errs][:3], flip['path']))
        elif 'the first at byte %d' % flip['batch'] not in (hit[0].get('message') or ''):
            bad.append('message %r does not name byte %d' % (hit[0].get('message'), flip['batch']))
    for k, p in parts(clean).items():
        a, b = p.get('remote_store'), parts(report).get(k, {}).get('remote_store')
        if a != b:
            bad.append('%s-%d remote_store %r, without --deep %r' % (k + (b, a)))
    return bad

def deep_errors(report):
    """the --deep errors by the object's last two key components (its partition's directory
    and name: the file:// path and the s3:// one differ before them), with their messages"""
    return sorted(('/'.join(e.get('path', '').rsplit('/', 2)[-2:]), e.get('message')) for e in errors_of(report))

def check_aiven_clean(report, rc, st, plan, listing):
    """no remote-store finding, exit 0; per partition objects and stored_bytes = the server's
    own listing, accounted_bytes = the finished segments' sizes; every manifest read; some
    compressed and encrypted .log objects not of the metadata's size (the manifest explains)"""
    bad = []
    if rc != 0:
        bad.append('exit %d' % rc)
    ps = parts(report)
    for sp in st['partitions']:
        key = (sp['topic'], sp['partition'])
        p = ps.get(key)
        rs = p and p.get('remote_store')
        if rs is None:
            bad.append('%s-%d not compared: %r' % (key + ((p or {}).get('remote_store_reason'),))); continue
        pre = 'tiered/%s-%s/%d/' % (sp['topic'], sp['topic_id'], sp['partition'])
        objs = [(k, n) for k, n in listing if k.startswith(pre)]
        want = {'objects': len(objs), 'stored_bytes': sum(n for _, n in objs),
                'accounted_bytes': sum(s['size_bytes'] for s in finished(sp)), 'orphan_objects': 0,
                'missing_objects': 0, 'unrecognised': 0}
        got = {k: rs.get(k) for k in want}
        if got != want:
            bad.append('%s-%d: remote_store %r, the listing and Kafka say %r' % (key + (got, want)))
        if remote_findings(p):
            bad.append('%s-%d: %r' % (key + ([f['message'] for f in remote_findings(p)],)))
    tot = report['summary'].get('remote_store') or {}
    if tot.get('manifests') != len(plan) or tot.get('manifest_errors'):
        bad.append('manifests %r (errors %r), %d written' % (tot.get('manifests'), tot.get('manifest_errors'), len(plan)))
    if len(listing) != 3 * len(plan):
        bad.append('%d objects listed, %d written' % (len(listing), 3 * len(plan)))
    odd = {m: sum(1 for s in plan if s['mode'] == m and s['stored_log'] != s['size_bytes']) for m in ('zstd', 'aes', 'zstd+aes')}
    if not all(odd.values()):
        bad.append('not every transform changed a .log object\'s size: %r' % odd)
    return verdict(bad, '%d segments (%s), %d objects, %d bytes stored, %d accounted' % (
        len(plan), ', '.join('%s %d' % (m, sum(1 for s in plan if s['mode'] == m)) for m in ('plain', 'zstd', 'aes', 'zstd+aes')),
        tot.get('objects', -1), tot.get('stored_bytes', -1), tot.get('accounted_bytes', -1)))

if __name__ == '__main__':
    what = sys.argv[1]
    a = sys.argv[2:]
    if what == 'clean':
        print(check_clean(load(a[0]), load(a[1]), load(a[2]), a[3], int(a[4])))
    elif what == 'expect':
        # REPORT RC SPEC [NAME OBJECTS_FIELD VALUE]...: the findings, then remote_store fields
        r, spec = load(a[0]), json.loads(a[2])
        bad = expect(r, int(a[1]), spec)
        rest = a[3:]
        for i in range(0, len(rest), 3):
            got = rs_of(r, rest[i]).get(rest[i + 1])
            if got != int(rest[i + 2]):
                bad.append('%s remote_store.%s %r, expected %s' % (rest[i], rest[i + 1], got, rest[i + 2]))
        print(verdict(bad, '; '.join('%s %s %s' % (n, c, ids) for n, cs in spec.items() for c, ids in cs.items())))
    elif what == 'keys':
        # REPORT NAME CODE DELETED_JSON: the finding names exactly the deleted files
        r = load(a[0])
        f = finding(r, a[1], a[2])
        got = sorted(os.path.basename(k) for k in f.get('object_keys', []))
        want = sorted(os.path.basename(x) for x in json.loads(a[3]))
        print(verdict([] if got == want else ['object_keys %r, deleted %r' % (got, want)], '%d object keys' % len(got)))
    elif what == 'pending':
        # default --dangling-after: a copy in flight is not judged
        r, key = load(a[0]), (a[1], int(a[2]))
        p = parts(r)[key]
        rs = p.get('remote_store') or {}
        fs = remote_findings(p)
        print('FAIL %r with the copy in flight' % [f['code'] for f in fs] if fs else
              'FAIL pending_objects %r' % rs.get('pending_objects') if not rs.get('pending_objects') else
              'ok pending_objects %d' % rs['pending_objects'])
    elif what == 'deep':
        # REPORT RC CLEAN_REPORT FLIP_JSON|null [PATH: the object's name the error must give]
        flip = json.loads(a[3])
        if flip is not None:
            flip['path'] = a[4]
        print(verdict(check_deep(load(a[0]), int(a[1]), load(a[2]), flip), 'checked'))
    elif what == 'deep_same':
        x, y = deep_errors(load(a[0])), deep_errors(load(a[1]))
        print(verdict([] if x == y else ['file:// %r, s3 %r' % (x, y)], '%d errors equal' % len(x)))
    elif what == 'aiven_clean':
        # REPORT RC STATE PLAN LISTING("KEY SIZE" lines)
        lst = [(l.split()[0], int(l.split()[1])) for l in open(a[4]) if l.strip()]
        print(check_aiven_clean(load(a[0]), int(a[1]), load(a[2]), load(a[3]), lst))
    elif what == 'same':
        # the S3 audit equals the file:// one object for object (the file:// keys carry the root
        # directory kafka-tiered-storage/, the bucket's do not)
        f3, s3 = load(a[0]), load(a[1])
        def norm(r):
            out = {}
            for k, p in parts(r).items():
                rs = dict(p.get('remote_store') or {})
                rs.pop('prefix', None)
                rs['unrecognised_keys'] = [x.split('kafka-tiered-storage/', 1)[-1] for x in rs.get('unrecognised_keys', [])]
                fs = sorted((f['code'], tuple(sorted(f.get('segment_ids', []))),
                             tuple(sorted(x.split('kafka-tiered-storage/', 1)[-1] for x in f.get('object_keys', []))))
                            for f in remote_findings(p))
                out['%s-%d' % k] = (rs, fs)
            t = dict(r['summary'].get('remote_store') or {})
            out['summary'] = {k: t.get(k) for k in ('complete', 'objects', 'stored_bytes', 'accounted_bytes', 'orphan_objects',
                                                    'orphan_bytes', 'missing_objects', 'unrecognised', 'torn_objects')}
            return out
        x, y = norm(f3), norm(s3)
        diff = [k for k in sorted(set(x) | set(y)) if x.get(k) != y.get(k)]
        if diff:
            print('FAIL differ in %s: file %r, s3 %r' % (diff[0], x.get(diff[0]), y.get(diff[0])))
        elif not any(fs for k, (rs, fs) in ((k, v) for k, v in x.items() if k != 'summary')):
            print('FAIL the file:// audit had no finding to compare')
        else:
            print('ok %d partitions and the summary equal, %d findings' % (len(x) - 1, sum(len(v[1]) for k, v in x.items() if k != 'summary')))
EOF
CK="python3 $WORK/check.py"

cat >"$WORK/aiven.py" <<'EOF'
# Objects in the `aiven` layout (Aiven-Open/tiered-storage-for-apache-kafka), written to
# versitygw through its S3 API from the layout's documented rules, with the bytes of the
# filesets Kafka's LocalTieredStorage wrote: ObjectKeyFactory's keys
# <prefix><topic>-<topicId>/<partition>/<offset 20d>-<segmentId>.{log,indexes,rsm-manifest};
# the .log chunked (KafkaRemoteStorageManager.transformation: BaseTransformChunkEnumeration,
# then CompressionChunkEnumeration (zstd per chunk), then EncryptionChunkEnumeration (AES/GCM:
# the 12-byte IV, then the ciphertext and its 16-byte tag)); the .indexes the five indexes one
# after the other, each encrypted whole when encryption is on (transformIndex); the manifest
# SegmentManifestV1's JSON (a fixed chunk index without compression, a variable one with:
# transformedChunks base64(zstd(ChunkSizesBinaryCodec))).
#   build STATE SRCDIRS MODES ONLY     filesets for segments; prints the plan (JSON)
#   put BUCKET PREFIX PLAN             PUT the plan's objects (CreateBucket first)
#   delete BUCKET KEY...
#   damage KIND BUCKET PREFIX PLAN STATE SRCDIRS SPEC
#                                      one kind of damage (mismatch missing orphan torn) done to
#                                      the store; SPEC (the findings expected so far, JSON) updated;
#                                      prints the remote_store fields to check: NAME FIELD VALUE...
# Environment: S3_URL S3_AK S3_SK.
import base64, ctypes, hashlib, json, os, struct, subprocess, sys, tempfile
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

CHUNK = 128    # the RSM's chunk.size (any positive int; small: the segments here are a few hundred bytes)
ZSTD = ctypes.CDLL('libzstd.so.1')
ZSTD.ZSTD_compressBound.restype = ctypes.c_size_t
ZSTD.ZSTD_compress.restype = ctypes.c_size_t
ZSTD.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
ZSTD.ZSTD_isError.argtypes = [ctypes.c_size_t]

def zstd(b):
    """one frame with its content size, as zstd-jni's Zstd.compress(byte[]) writes"""
    cap = ZSTD.ZSTD_compressBound(len(b))
    out = ctypes.create_string_buffer(cap)
    n = ZSTD.ZSTD_compress(out, cap, b, len(b), 3)
    if ZSTD.ZSTD_isError(n):
        sys.exit('zstd failed')
    return out.raw[:n]

KEY, AAD = os.urandom(32), os.urandom(32)

def encrypt(b):
    iv = os.urandom(12)
    return iv + AESGCM(KEY).encrypt(iv, b, AAD)

def chunk_sizes_codec(sizes):
    """ChunkSizesBinaryCodec.encode"""
    if len(sizes) == 1:
        return struct.pack('>ii', 1, sizes[0])
    body, last = sizes[:-1], sizes[-1]
    base = min(body)
    span = max(body) - base
    bpv = 1 if span < 1 << 8 else 2 if span < 1 << 16 else 3 if span < 1 << 24 else 4
    out = struct.pack('>iiB', len(sizes), base, bpv)
    for v in body:
        out += (v - base).to_bytes(bpv, 'big')
    return out + struct.pack('>i', last)

def transform_log(data, mode):
    """the stored .log and its chunkIndex"""
    chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)]
    comp, enc = 'zstd' in mode, 'aes' in mode
    out = []
    for c in chunks:
        if comp:
            c = zstd(c)
        if enc:
            c = encrypt(c)
        out.append(c)
    if comp:
        ci = {'type': 'variable', 'originalChunkSize': CHUNK, 'originalFileSize': len(data),
              'transformedChunks': base64.b64encode(zstd(chunk_sizes_codec([len(c) for c in out]))).decode()}
    else:
        t = CHUNK + 28 if enc else CHUNK
        ci = {'type': 'fixed', 'originalChunkSize': CHUNK, 'originalFileSize': len(data),
              'transformedChunkSize': t, 'finalTransformedChunkSize': len(out[-1]) if out else 0}
    return b''.join(out), ci

def fileset(src, stem):
    for d in src:
        if os.path.exists(os.path.join(d, stem + '.log')):
            return d
    return None

def build(st, srcdirs, modes, only):
    """only: {"T-P": [segment ids]} or null (every COPY_SEGMENT_FINISHED segment); modes cycle
    over the segments in order; an id in only that the state lacks is taken as "NEWID<-OLDID"
    (a fileset under an id Kafka never gave, from OLDID's files)"""
    plan, n = [], 0
    for p in sorted(st['partitions'], key=lambda x: (x['topic'], x['partition'])):
        name = '%s-%d' % (p['topic'], p['partition'])
        segs = {s['segment_id']: s for s in p['remote_segments']}
        if only is None:
            want = [(s['segment_id'], s) for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED']
        else:
            want = []
            for x in only.get(name, []):
                new, _, old = x.partition('<-')
                want.append((new, segs[old or new]))
        for sid, s in want:
            stem = '%020d-%s' % (s['start_offset'], s['segment_id'])
            src = [os.path.join(d, '%s-%s' % (name, p['topic_id'])) for d in srcdirs]
            d = fileset(src, stem)
            if d is None:
                sys.exit('no fileset %s of %s in %s' % (stem, name, srcdirs))
            f = lambda ext: os.path.join(d, stem + ext)
            mode = modes[n % len(modes)]
            n += 1
            data = open(f('.log'), 'rb').read()
            log, ci = transform_log(data, mode)
            idx, pos, si = b'', 0, {}
            for k, ext in (('offset', '.index'), ('timestamp', '.timeindex'), ('producerSnapshot', '.snapshot'),
                           ('leaderEpoch', '.leader_epoch_checkpoint'), ('transaction', '.txnindex')):
                if not os.path.exists(f(ext)):
                    si[k] = None   # no transaction index
                    continue
                b = open(f(ext), 'rb').read()
                if b and 'aes' in mode:
                    b = encrypt(b)
                si[k] = {'position': pos, 'size': len(b)}
                idx += b
                pos += len(b)
            man = {'version': '1', 'chunkIndex': ci, 'segmentIndexes': si, 'compression': 'zstd' in mode,
                   'remoteLogSegmentMetadata': {
                       'remoteLogSegmentId': {'topicIdPartition': {'topicId': p['topic_id'],
                                                                   'topicPartition': {'topic': p['topic'], 'partition': p['partition']}},
                                              'id': sid},
                       'startOffset': s['start_offset'], 'endOffset': s['end_offset'],
                       'segmentSizeInBytes': s['size_bytes']}}
            if 'aes' in mode:
                man['encryption'] = {'dataKey': 'segscan-test-key:' + base64.b64encode(os.urandom(256)).decode(),
                                     'aad': base64.b64encode(AAD).decode()}
            stem2 = '%s-%s/%d/%020d-%s' % (p['topic'], p['topic_id'], p['partition'], s['start_offset'], sid)
            objs = {stem2 + '.log': log, stem2 + '.indexes': idx,
                    stem2 + '.rsm-manifest': json.dumps(man).encode()}
            plan.append({'partition': name, 'segment_id': sid, 'mode': mode, 'size_bytes': s['size_bytes'],
                         'stored_log': len(log), 'objects': {k: base64.b64encode(v).decode() for k, v in objs.items()}})
    return plan

def curl(method, path, body=b''):
    with tempfile.NamedTemporaryFile() as t:
        t.write(body)
        t.flush()
        args = ['curl', '-s', '-o', '/dev/stderr', '-w', '%{http_code}', '--max-time', '20', '-X', method,
                '--aws-sigv4', 'aws:amz:us-east-1:s3', '--user', '%s:%s' % (os.environ['S3_AK'], os.environ['S3_SK']),
                '-H', 'x-amz-content-sha256: ' + hashlib.sha256(body).hexdigest()]
        if method == 'PUT':
            args += ['--data-binary', '@' + t.name, '-H', 'Content-Type: application/octet-stream']
        r = subprocess.run(args + [os.environ['S3_URL'] + path], capture_output=True, timeout=30)
    code = r.stdout.decode()
    if not code.startswith('2'):
        sys.exit('%s %s: HTTP %s %s' % (method, path, code, r.stderr.decode(errors='replace')[:300]))


def new_id():
    return base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip('=')   # Uuid.toString()'s form

def put_plan(bucket, prefix, plan, only_ext=None):
    for s in plan:
        for k, v in sorted(s['objects'].items()):
            if only_ext is None or any(k.endswith(e) for e in only_ext):
                curl('PUT', '/%s/%s%s' % (bucket, prefix, k), base64.b64decode(v))

def add(spec, name, code, sid):
    spec.setdefault(name, {}).setdefault(code, []).append(sid)

def damage(kind, bucket, prefix, plan, st, srcdirs, spec):
    """the damage of one kind, on the segments of the plan (Kafka's finished ones)"""
    if kind == 'mismatch':
        # a transformed .log one byte short: neither the metadata nor the manifest explains it
        s = [x for x in plan if x['mode'] != 'plain'][0]
        k = [k for k in s['objects'] if k.endswith('.log')][0]
        curl('PUT', '/%s/%s%s' % (bucket, prefix, k), base64.b64decode(s['objects'][k])[:-1])
        add(spec, s['partition'], 'REMOTE_SIZE_MISMATCH', s['segment_id'])
        # and, on another partition, a manifest whose originalFileSize is not the metadata's
        # size (its chunk index consistent with the .log object: only the metadata disagrees)
        m = [x for x in plan if x['partition'] != s['partition'] and x['mode'] == 'plain'][0]
        k = [k for k in m['objects'] if k.endswith('.rsm-manifest')][0]
        man = json.loads(base64.b64decode(m['objects'][k]))
        ci = man['chunkIndex']
        ci['originalFileSize'] += 1
        n = -(-ci['originalFileSize'] // ci['originalChunkSize'])
        ci['finalTransformedChunkSize'] = m['stored_log'] - (n - 1) * ci['transformedChunkSize']
        if not 0 <= ci['finalTransformedChunkSize'] <= ci['transformedChunkSize']:
            sys.exit('the manifest of %s cannot be made consistent with its .log' % m['segment_id'])
        curl('PUT', '/%s/%s%s' % (bucket, prefix, k), json.dumps(man).encode())
        add(spec, m['partition'], 'REMOTE_SIZE_MISMATCH', m['segment_id'])
        return []
    if kind == 'missing':
        # a segment's .indexes gone (the RSM reads every index through it)
        taken = {i for v in spec.values() for ids in v.values() for i in ids}
        cand = [x for x in plan if x['segment_id'] not in taken]
        other = [x for x in cand if x['partition'] not in spec] or cand
        s = other[0]
        k = [k for k in s['objects'] if k.endswith('.indexes')][0]
        curl('DELETE', '/%s/%s%s' % (bucket, prefix, k))
        add(spec, s['partition'], 'MISSING_REMOTE_OBJECT', s['segment_id'])
        return [s['partition'], 'missing_objects', '1', 'KEY', prefix + k]
    if kind == 'orphan':
        # a whole fileset under an id Kafka never gave (orders-1), and the fileset of a segment
        # Kafka says DELETE_SEGMENT_FINISHED (expire-0, if retention ran)
        s = [x for x in plan if x['partition'] == 'orders-1'][0]
        nid = new_id()
        o = build(st, srcdirs, ['aes'], {'orders-1': ['%s<-%s' % (nid, s['segment_id'])]})
        put_plan(bucket, prefix, o)
        add(spec, 'orders-1', 'ORPHAN_REMOTE_OBJECT', nid)
        nb = sum(len(base64.b64decode(v)) for v in o[0]['objects'].values())
        out = ['orders-1', 'orphan_objects', '3', 'orders-1', 'orphan_bytes', str(nb)]
        ex = [p for p in st['partitions'] if p['topic'] == 'expire']
        dels = [x['segment_id'] for x in ex[0]['remote_segments'] if x['state'] == 'DELETE_SEGMENT_FINISHED'] if ex else []
        if dels:
            o = build(st, srcdirs, ['zstd'], {'expire-0': [dels[0]]})
            put_plan(bucket, prefix, o)
            add(spec, 'expire-0', 'ORPHAN_REMOTE_OBJECT', dels[0])
            out += ['expire-0', 'orphan_objects', '3', 'expire-0', 'accounted_bytes', '0']
        return out
    if kind == 'torn':
        # an upload that stopped before its manifest (the RSM writes .log, .indexes, then the
        # manifest), under an id the metadata does not know (orders-0)
        s = [x for x in plan if x['partition'] == 'orders-0'][0]
        nid = new_id()
        o = build(st, srcdirs, ['plain'], {'orders-0': ['%s<-%s' % (nid, s['segment_id'])]})
        put_plan(bucket, prefix, o, ('.log', '.indexes'))
        add(spec, 'orders-0', 'TORN_REMOTE_UPLOAD', nid)
        return ['orders-0', 'torn_objects', '2']
    sys.exit('unknown damage ' + kind)

if __name__ == '__main__':
    what, a = sys.argv[1], sys.argv[2:]
    if what == 'build':
        only = json.loads(a[3]) if len(a) > 3 else None
        print(json.dumps(build(json.load(open(a[0])), a[1].split(':'), a[2].split(','), only)))
    elif what == 'put':
        bucket, prefix, plan = a[0], a[1], json.load(open(a[2]))
        if len(a) > 3 and a[3] == 'create':
            curl('PUT', '/' + bucket)
        put_plan(bucket, prefix, plan)
    elif what == 'delete':
        for k in a[1:]:
            curl('DELETE', '/%s/%s' % (a[0], k))
    elif what == 'damage':
        kind, bucket, prefix, plan, st, src, specf = a[:7]
        spec = json.load(open(specf)) if os.path.getsize(specf) else {}
        fields = damage(kind, bucket, prefix, json.load(open(plan)), json.load(open(st)), src.split(':'), spec)
        json.dump(spec, open(specf, 'w'))
        print(' '.join(fields))
EOF
AIV="python3 $WORK/aiven.py"

# ---- clean: the store Kafka wrote, untouched ----
sc state || fail_rest "state: $ANS"
echo "$ANS" >"$WORK/state0.json"
# RemoteLogSizeBytes is updated by the broker's own tasks: read it until it equals the finished
# segments' sizes or 60 reads have passed (the check then says what differs)
for _ in $(seq 1 60); do
    sc jmx || break
    echo "$ANS" >"$WORK/jmx0.json"
    python3 - "$WORK/state0.json" "$WORK/jmx0.json" <<'EOF' && break
import json, sys
st, jx = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = {}
for p in st['partitions']:
    want[p['topic']] = want.get(p['topic'], 0) + sum(s['size_bytes'] for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED')
got = {t: jx['nodes'][0].get('topics', {}).get(t, {}).get('RemoteLogSizeBytes') for t in want}
sys.exit(0 if got == want else 1)
EOF
    sleep 1
done
audit clean --remote-store="file://$RDIR"
verdict clean "$($CK clean "$WORK/clean.json" "$WORK/state0.json" "$WORK/jmx0.json" "$STORE" "$(cat "$WORK/clean.rc")")"

# The store as Kafka wrote it, before any damage: the aiven cases take their bytes from it
cp -a "$STORE" "$WORK/lts-clean"

# versitygw serving RDIR (its sub-directory kafka-tiered-storage is a bucket) from here to
# s3_errors: the --deep cases, s3_equal and the aiven cases use it
s3_start "$RDIR"; S3_RC=$?
case $S3_RC in
    0) S3_WHY="" ;;
    2) S3_WHY="SKIP Go 1.25+ not found (versitygw is a Go module)" ;;
    *) S3_WHY="FAIL versitygw did not start" ;;
esac
s3_none() { for c in "$@"; do res "${S3_WHY%% *} $c: ${S3_WHY#* }"; done; }
S3URI="s3://kafka-tiered-storage?endpoint=${S3_URL:-}&region=us-east-1&max-keys=7"
export AWS_SHARED_CREDENTIALS_FILE=/dev/null S3_URL S3_AK S3_SK
unset AWS_SESSION_TOKEN AWS_PROFILE
s3audit() { AWS_ACCESS_KEY_ID=$S3_AK AWS_SECRET_ACCESS_KEY=$S3_SK audit "$@"; }
req() { jget "$WORK/$1.json" "d['summary']['remote_store'].get('requests')" 2>/dev/null; }

# ---- deep_clean: --deep over the untouched store, file:// and s3://: every finished
# segment's .log read whole (one more request each: a file opened, a GET), no error, no
# finding, the same remote_store as without --deep ----
NLOG=$(jget "$WORK/state0.json" "sum(1 for p in d['partitions'] for s in p['remote_segments'] if s['state']=='COPY_SEGMENT_FINISHED')")
if [ $S3_RC -ne 0 ]; then s3_none deep_clean deep_flip
else
    audit deep-file --deep --remote-store="file://$RDIR"
    s3audit s3-nodeep --remote-store="$S3URI"
    s3audit deep-s3 --deep --remote-store="$S3URI"
    # the server's own page count at 7 keys a page
    pages=$(s3_list kafka-tiered-storage "" 7 2>&1 >/dev/null | sed -n 's/^# pages //p')
    v=$($CK deep "$WORK/deep-file.json" "$(cat "$WORK/deep-file.rc")" "$WORK/clean.json" null)
    case "$v" in ok*) v=$($CK deep "$WORK/deep-s3.json" "$(cat "$WORK/deep-s3.rc")" "$WORK/s3-nodeep.json" null | sed 's/^FAIL /FAIL s3: /') ;; *) v="FAIL file: ${v#FAIL }" ;; esac
    case "$v" in ok*)
        rf0=$(req clean) rf=$(req deep-file) rs0=$(req s3-nodeep) rs=$(req deep-s3)
        if [ "$rs0" != "$pages" ] || [ "$rs" != $(( pages + NLOG )) ]; then
            v="FAIL s3 requests $rs0 without --deep, $rs with, for $pages pages and $NLOG .log objects"
        elif [ "$rf" != $(( rf0 + NLOG )) ]; then
            v="FAIL file:// requests $rf0 without --deep, $rf with, for $NLOG .log objects"
        else
            v="ok $NLOG .log objects read and verified; s3 requests $pages pages + $NLOG GETs = $rs; file:// $rf0 + $NLOG = $rf"
        fi ;;
    esac
    verdict deep_clean "$v"

    # ---- deep_flip: one byte of orders-1's first .log flipped inside a batch's records
    # (its CRC covers them; the size is unchanged): exit 1, one error naming the object and
    # the batch's position, file:// and s3:// alike; the byte is put back after ----
    flip=$(python3 - "$WORK/state0.json" "$STORE" <<'PYEOF'
import json, os, struct, sys
st, store = json.load(open(sys.argv[1])), sys.argv[2]
p = [x for x in st['partitions'] if x['topic'] == 'orders' and x['partition'] == 1][0]
s = [x for x in p['remote_segments'] if x['state'] == 'COPY_SEGMENT_FINISHED'][0]
rel = 'orders-1-%s/%020d-%s.log' % (p['topic_id'], s['start_offset'], s['segment_id'])
f = os.path.join(store, rel)
b = open(f, 'rb').read()
starts, at = [], 0
while at + 12 <= len(b):        # the framing: baseOffset int64, batchLength int32
    starts.append(at)
    at += 12 + struct.unpack('>i', b[at + 8:at + 12])[0]
start = starts[1] if len(starts) > 1 else starts[0]
end = start + 12 + struct.unpack('>i', b[start + 8:start + 12])[0]
pos = start + 61 + (end - start - 61) // 2      # inside the records (the v2 header is 61 bytes)
print(json.dumps({'key': 'kafka-tiered-storage/' + rel, 'batch': start, 'pos': pos, 'file': f}))
PYEOF
)
    ffile=$(echo "$flip" | jget - "d['file']")
    fpos=$(echo "$flip" | jget - "d['pos']")
    flipbyte() { python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(int(sys.argv[2])); c=f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([c[0]^0xff]))" "$ffile" "$fpos"; }
    sum0=$(sha256sum "$ffile")
    flipbyte
    audit deep-flip-file --deep --remote-store="file://$RDIR"
    s3audit deep-flip-s3 --deep --remote-store="$S3URI"
    flipbyte
    # the object as each store names it: file:// DIR/KEY; s3:// the bucket, then the key
    fkey=$(echo "$flip" | jget - "d['key']")
    v=$($CK deep "$WORK/deep-flip-file.json" "$(cat "$WORK/deep-flip-file.rc")" "$WORK/clean.json" "$flip" "file://$RDIR/$fkey")
    case "$v" in ok*) v=$($CK deep "$WORK/deep-flip-s3.json" "$(cat "$WORK/deep-flip-s3.rc")" "$WORK/s3-nodeep.json" "$flip" \
        "s3://$fkey" | sed 's/^FAIL /FAIL s3: /') ;; *) v="FAIL file: ${v#FAIL }" ;; esac
    case "$v" in ok*) v=$($CK deep_same "$WORK/deep-flip-file.json" "$WORK/deep-flip-s3.json") ;; esac
    [ "$(sha256sum "$ffile")" = "$sum0" ] || v="FAIL the flipped byte was not put back in $ffile"
    case "$v" in ok*) v="ok $(jget "$WORK/deep-flip-s3.json" "d['errors'][0]['path'] + ': ' + d['errors'][0]['message']")" ;; esac
    verdict deep_flip "$v"
fi

# ---- missing: orders-0's oldest segment loses every object behind Kafka's back; its local copy
# gone first (local retention 1 s), so Kafka's consumer must read that range from the store ----
sc alter-topic orders local.retention.ms=1000 || fail_rest "alter-topic: $ANS"
ok=""
for _ in $(seq 1 240); do
    sc state orders || break
    el=$(echo "$ANS" | jget - "[x for x in d['partitions'] if x['partition']==0][0]['earliest_local']")
    lt=$(echo "$ANS" | jget - "[x for x in d['partitions'] if x['partition']==0][0]['latest_tiered']")
    [ "$el" -gt "$lt" ] && { ok=1; break; }
    sleep 0.5
done
[ -n "$ok" ] || res "FAIL kafka_fetch: local segments of orders-0 not deleted (earliest_local ${el:-?}, latest_tiered ${lt:-?})"
if sc delete-remote orders-0 oldest; then
    echo "$ANS" >"$WORK/deleted.json"
    gone=$(jget "$WORK/deleted.json" "json.dumps(d['segment_ids'])")
    deleted=$(jget "$WORK/deleted.json" "json.dumps(d['deleted'])")
    audit missing --remote-store="file://$RDIR"
    ndel=$(jget "$WORK/deleted.json" "len(d['deleted'])")
    SPEC="{\"orders-0\": {\"MISSING_REMOTE_OBJECT\": $gone}}"
    v=$($CK expect "$WORK/missing.json" "$(cat "$WORK/missing.rc")" "$SPEC" orders-0 missing_objects "$ndel")
    case "$v" in ok*) v=$($CK keys "$WORK/missing.json" orders-0 MISSING_REMOTE_OBJECT "$deleted" | sed "s/^ok /ok $ndel objects deleted, /") ;; esac
    verdict missing "$v"
    if [ -n "$ok" ]; then
        # Kafka's own side: its consumer reads nothing from the segment's start offset and the
        # broker counts remote fetch errors (its consumer raises nothing: docs/conformance.md)
        start=$(jget "$WORK/state0.json" "[s['start_offset'] for p in d['partitions'] if p['topic']=='orders' and p['partition']==0 for s in p['remote_segments'] if s['segment_id'] in $gone][0]")
        sc fetch orders-0 "$start" 10000 || true
        echo "$ANS" >"$WORK/fetch.json"
        n=$(jget "$WORK/fetch.json" "d.get('records', -1)")
        sc jmx || true
        errs=$(echo "$ANS" | jget - "sum(n.get('topics',{}).get('orders',{}).get('RemoteFetchErrorsPerSec',0) for n in d['nodes'])")
        if [ "$n" != 0 ]; then verdict kafka_fetch "$n records fetched from offset $start after its objects were deleted"
        elif [ "$errs" -le 0 ]; then verdict kafka_fetch "no RemoteFetchErrorsPerSec after the failed fetch"
        else verdict kafka_fetch "ok Kafka's consumer read 0 records from offset $start, RemoteFetchErrorsPerSec $errs"
        fi
    fi
else
    res "FAIL missing: delete-remote: $ANS"
    done_case kafka_fetch || res "FAIL kafka_fetch: nothing deleted"
fi

# ---- orphan: a copy of one of orders-1's filesets under an id Kafka never gave (what a copy
# whose metadata was lost leaves), and a file no RSM writes ----
orph=$(python3 - "$WORK/state0.json" "$STORE" <<'EOF'
import base64, json, os, shutil, sys
st, store = json.load(open(sys.argv[1])), sys.argv[2]
p = [x for x in st['partitions'] if x['topic'] == 'orders' and x['partition'] == 1][0]
s = [x for x in p['remote_segments'] if x['state'] == 'COPY_SEGMENT_FINISHED'][0]
d = os.path.join(store, 'orders-1-%s' % p['topic_id'])
new = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip('=')   # Uuid.toString()'s form
stem = '%020d-%s' % (s['start_offset'], s['segment_id'])
n = b = 0
for f in sorted(os.listdir(d)):
    if f.startswith(stem + '.'):
        dst = os.path.join(d, '%020d-%s%s' % (s['start_offset'], new, f[len(stem):]))
        shutil.copyfile(os.path.join(d, f), dst)
        n += 1
        b += os.path.getsize(dst)
open(os.path.join(d, 'README.txt'), 'w').write('not an object LocalTieredStorage writes\n')
print(json.dumps([new]), n, b)
EOF
)
read -r orph_ids orph_n orph_b <<<"$orph"
audit orphan --remote-store="file://$RDIR"
SPEC="{\"orders-0\": {\"MISSING_REMOTE_OBJECT\": $gone}, \"orders-1\": {\"ORPHAN_REMOTE_OBJECT\": $orph_ids}}"
verdict orphan "$($CK expect "$WORK/orphan.json" "$(cat "$WORK/orphan.rc")" "$SPEC" \
    orders-1 orphan_objects "$orph_n" orders-1 orphan_bytes "$orph_b" orders-1 unrecognised 1)"

# ---- expired: remote retention on `expire` (23 h; its records are 24 h old) with the RSM's
# delete.enable=false: Kafka deletes through the RSM, which keeps every file, and writes
# DELETE_SEGMENT_FINISHED: those ids, exactly, are orphans ----
del_ids="[]"
exp_ids=$(jget "$WORK/state0.json" "json.dumps([s['segment_id'] for p in d['partitions'] if p['topic']=='expire' for s in p['remote_segments'] if s['state']=='COPY_SEGMENT_FINISHED'])")
nexp=$(echo "$exp_ids" | jget - "len(d)")
if ! sc alter-topic expire retention.ms=82800000; then res "FAIL expired: alter-topic: $ANS"
elif ! sc wait-remote expire-0 DELETE_SEGMENT_FINISHED "$nexp"; then res "FAIL expired: $ANS"
else
    # Retention also rolls the active segment (its records are as old), which is then copied and
    # deleted in turn: wait until Kafka is done, every remote segment DELETE_SEGMENT_FINISHED
    # and they reach the log end (the new active segment is empty; nothing more can happen)
    quiet=""
    for _ in $(seq 1 240); do
        sc state expire || break
        echo "$ANS" >"$WORK/state-exp.json"
        jget "$WORK/state-exp.json" "1/0 if [1 for p in d['partitions'] if not p['remote_segments'] or any(s['state'] != 'DELETE_SEGMENT_FINISHED' for s in p['remote_segments']) or max(s['end_offset'] for s in p['remote_segments']) != p['latest'] - 1] else 0" >/dev/null 2>&1 && { quiet=1; break; }
        sleep 0.5
    done
    # Kafka's own reading: the ids now DELETE_SEGMENT_FINISHED
    del_ids=$(jget "$WORK/state-exp.json" "json.dumps([s['segment_id'] for p in d['partitions'] for s in p['remote_segments'] if s['state']=='DELETE_SEGMENT_FINISHED'])")
    audit expired --remote-store="file://$RDIR"
    SPEC="{\"orders-0\": {\"MISSING_REMOTE_OBJECT\": $gone}, \"orders-1\": {\"ORPHAN_REMOTE_OBJECT\": $orph_ids}, \"expire-0\": {\"ORPHAN_REMOTE_OBJECT\": $del_ids}}"
    v=$($CK expect "$WORK/expired.json" "$(cat "$WORK/expired.rc")" "$SPEC" expire-0 accounted_bytes 0)
    [ "$(echo "$del_ids" | jget - "set($exp_ids) <= set(d)")" = True ] ||
        v="FAIL Kafka deleted $del_ids, finished before were $exp_ids"
    [ -n "$quiet" ] || v="FAIL Kafka's retention of expire-0 did not finish within 240 reads of its state (last: $(head -c 600 "$WORK/state-exp.json"))"
    verdict expired "$v"
fi

# ---- torn: a copy of torn-0 held after its .log was written, before the indexes
# (segscan.oracle.lts.StallingTransferer): COPY_SEGMENT_STARTED with part of the fileset. Recent,
# it is in flight (pending, no finding); past --dangling-after, TORN_REMOTE_UPLOAD for that id ----
torn_id=""
SPEC0="{\"orders-0\": {\"MISSING_REMOTE_OBJECT\": $gone}, \"orders-1\": {\"ORPHAN_REMOTE_OBJECT\": $orph_ids}"
[ "$del_ids" != "[]" ] && SPEC0="$SPEC0, \"expire-0\": {\"ORPHAN_REMOTE_OBJECT\": $del_ids}"
if ! sc stall point=after-log partition=torn-0; then res "FAIL torn: stall: $ANS"
elif ! sc produce torn 1; then res "FAIL torn: produce: $ANS"
elif ! sc wait-stalled 1; then res "FAIL torn: wait-stalled: $ANS"
elif ! sc state torn; then res "FAIL torn: state: $ANS"
else
    echo "$ANS" >"$WORK/state-torn.json"
    torn_id=$(jget "$WORK/state-torn.json" "json.dumps([s['segment_id'] for p in d['partitions'] for s in p['remote_segments'] if s['state']=='COPY_SEGMENT_STARTED'])")
    audit inflight --remote-store="file://$RDIR"
    audit torn --remote-store="file://$RDIR" --dangling-after=1
    SPEC="$SPEC0, \"torn-0\": {\"TORN_REMOTE_UPLOAD\": $torn_id}}"
    v=$($CK expect "$WORK/inflight.json" "$(cat "$WORK/inflight.rc")" "$SPEC0}")
    case "$v" in
        ok*) pend=$(jget "$WORK/inflight.json" "[p['remote_store']['pending_objects'] for p in d['partitions'] if p['topic']=='torn'][0]")
             [ "$pend" -ge 1 ] 2>/dev/null || v="FAIL the copy in flight: pending_objects $pend"
             [ "$(echo "$torn_id" | jget - "len(d)")" = 1 ] || v="FAIL Kafka's STARTED segments of torn-0: $torn_id" ;;
        *) v="FAIL with the copy in flight and the default --dangling-after: ${v#FAIL }" ;;
    esac
    case "$v" in ok*) v=$($CK expect "$WORK/torn.json" "$(cat "$WORK/torn.rc")" "$SPEC") ;; esac
    verdict torn "$v"
fi

# ---- s3_equal: versitygw serving the same directory (bucket kafka-tiered-storage), 7 keys a
# page: the S3 audit equals the file:// audit of the same moment, object for object ----
if [ $S3_RC -ne 0 ]; then s3_none s3_equal aiven_clean aiven_mismatch aiven_missing aiven_orphan aiven_torn s3_errors
else
    audit file-now --remote-store="file://$RDIR"
    AWS_ACCESS_KEY_ID=$S3_AK AWS_SECRET_ACCESS_KEY=$S3_SK audit s3 --remote-store="$S3URI"
    v=$($CK same "$WORK/file-now.json" "$WORK/s3.json")
    req=$(jget "$WORK/s3.json" "d['summary']['remote_store'].get('requests')" 2>/dev/null)
    objs=$(jget "$WORK/s3.json" "d['summary']['remote_store'].get('objects')" 2>/dev/null)
    case "$v" in ok*) [ "$req" -gt $(( objs / 7 )) ] 2>/dev/null || v="FAIL $req requests for $objs objects at 7 a page" ;; esac
    [ "$(cat "$WORK/s3.rc")" = 0 ] || v="FAIL s3 audit exit $(cat "$WORK/s3.rc"): $(head -c 400 "$WORK/s3.err")"
    verdict s3_equal "${v/#ok /ok $objs objects in $req requests; }"

    # ---- aiven_*: the `aiven` layout (Aiven's tiered-storage-for-apache-kafka) in bucket
    # aiven-tiered under key.prefix "tiered/", written through versitygw's S3 API by aiven.py
    # from the layout's documented rules with the bytes of Kafka's filesets, for the segments
    # Kafka's metadata now says COPY_SEGMENT_FINISHED, the .log objects by turns stored plain,
    # zstd-compressed, AES-GCM-encrypted, both (no Aiven-written store can be produced here:
    # docs/conformance.md). Then damage, case by case, each audit expecting exactly the damage
    # so far. The metadata is the broker's own: the segment ids and sizes are Kafka's ----
    AURI="s3://aiven-tiered/tiered/?endpoint=$S3_URL&region=us-east-1&max-keys=7"
    ASRC="$WORK/lts-clean:$STORE"
    : >"$WORK/aiven-spec.json"
    aiven_none() { for c in aiven_clean aiven_mismatch aiven_missing aiven_orphan aiven_torn; do done_case $c || res "FAIL $c: $1"; done; }
    if ! sc state; then aiven_none "state: $ANS"
    elif ! echo "$ANS" >"$WORK/state-aiven.json" ||
         ! $AIV build "$WORK/state-aiven.json" "$ASRC" plain,zstd,aes,zstd+aes >"$WORK/aiven-plan.json" 2>"$WORK/aiven.err" ||
         ! $AIV put aiven-tiered tiered/ "$WORK/aiven-plan.json" create 2>>"$WORK/aiven.err"; then
        aiven_none "the objects were not written: $(head -c 400 "$WORK/aiven.err")"
    else
        s3audit aiven-clean --remote-layout=aiven --remote-store="$AURI"
        s3_list aiven-tiered tiered/ 1000 >"$WORK/aiven-list.txt" 2>/dev/null
        verdict aiven_clean "$($CK aiven_clean "$WORK/aiven-clean.json" "$(cat "$WORK/aiven-clean.rc")" \
            "$WORK/state-aiven.json" "$WORK/aiven-plan.json" "$WORK/aiven-list.txt")"
        for kind in mismatch missing orphan torn; do
            if ! out=$($AIV damage $kind aiven-tiered tiered/ "$WORK/aiven-plan.json" "$WORK/state-aiven.json" "$ASRC" \
                       "$WORK/aiven-spec.json" 2>"$WORK/aiven.err"); then
                res "FAIL aiven_$kind: the damage was not done: $(head -c 400 "$WORK/aiven.err")"; continue
            fi
            fields=${out% KEY *}
            s3audit aiven-$kind --remote-layout=aiven --remote-store="$AURI"
            # shellcheck disable=SC2086  # fields: NAME FIELD VALUE triples
            v=$($CK expect "$WORK/aiven-$kind.json" "$(cat "$WORK/aiven-$kind.rc")" "$(cat "$WORK/aiven-spec.json")" $fields)
            case "$out" in *" KEY "*) case "$v" in ok*)
                v=$($CK keys "$WORK/aiven-$kind.json" "${fields%% *}" MISSING_REMOTE_OBJECT "[\"${out##* KEY }\"]") ;; esac ;;
            esac
            verdict aiven_$kind "${v/#ok /ok $(cat "$WORK/aiven-spec.json"); }"
        done
    fi

    # ---- s3_errors: each a clear error naming the store, in bounded time, exit 1, no
    # partition compared and no finding of the store ----
    err=""
    t=$(date +%s)
    AWS_ACCESS_KEY_ID=$S3_AK AWS_SECRET_ACCESS_KEY=wrong-secret audit s3-creds --remote-store="$S3URI"
    AWS_ACCESS_KEY_ID=$S3_AK AWS_SECRET_ACCESS_KEY=$S3_SK audit s3-bucket \
        --remote-store="s3://no-such-bucket?endpoint=$S3_URL&region=us-east-1"
    s3_stop
    AWS_ACCESS_KEY_ID=$S3_AK AWS_SECRET_ACCESS_KEY=$S3_SK audit s3-down --remote-store="$S3URI"
    for n in s3-creds s3-bucket s3-down; do
        e=$(python3 - "$WORK/$n.json" "$(cat "$WORK/$n.rc")" <<'EOF'
import json, sys
rc = int(sys.argv[2])
try:
    r = json.load(open(sys.argv[1]))
except Exception as x:
    print('no report (exit %d): %s' % (rc, x)); sys.exit()
t = r['summary'].get('remote_store') or {}
cmp = [p['topic'] for p in r['partitions'] if p.get('remote_store') is not None]
codes = [f['code'] for p in r['partitions'] for f in p.get('findings', []) if 'REMOTE_OBJECT' in f['code'] or 'REMOTE_UPLOAD' in f['code']]
if rc != 1: print('exit %d' % rc)
elif t.get('complete') is not False or not t.get('error'): print('summary remote_store %r' % t)
elif cmp: print('compared %r after a refused listing' % cmp)
elif codes: print('findings %r after a refused listing' % codes)
else: print('ok ' + t['error'][:160])
EOF
)
        case "$e" in ok*) echo "audit_real: $n: ${e#ok }" >&2 ;; *) err="$err $n: $e;" ;; esac
        grep -q "s3://" "$WORK/$n.err" || err="$err $n: stderr names no store ($(head -c 200 "$WORK/$n.err"));"
    done
    if [ -n "$err" ]; then verdict s3_errors "FAIL$err"
    else verdict s3_errors "ok wrong secret, unknown bucket, a stopped server: exit 1, the store named, nothing compared, $(( $(date +%s) - t ))s"
    fi
fi

[ -n "$torn_id" ] && sc release >/dev/null
sc_stop
echo "audit_real: all cases in $(( $(date +%s) - T0 ))s" >&2
exit 0
