#!/usr/bin/env bash
# Smoke test of the real-broker test infrastructure (tests/harness_lib.sh): one 2-broker Kafka
# 4.3.1 scenario cluster with Kafka's own LocalTieredStorage, the real JMX exporter on each broker,
# versitygw serving the store over S3 and a real Prometheus scraping the exporters. Each case
# checks one piece against an independent reading of the same thing. Run by
# tests/test_harness_smoke.c; one line per case to RESULTS:
#   PASS name [detail] | FAIL name: why | SKIP name: why
#
# usage: bash tests/harness_smoke.sh RESULTS
set -u
RESULTS=${1:?usage: harness_smoke.sh RESULTS}
: >"$RESULTS"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN=${SEGSCAN:-$ROOT/build/segscan}
case "$SEGSCAN" in /*) ;; *) SEGSCAN="$ROOT/$SEGSCAN" ;; esac
# shellcheck source=tests/harness_lib.sh
. "$ROOT/tests/harness_lib.sh"
CASES="lts_copy segscan_scan s3_list prometheus_scrape stall_release leadership remote_delete_fetch"
KV=${HARNESS_SMOKE_KAFKA:-4.3.1}
T0=$(date +%s)

res() { echo "$*" >>"$RESULTS"; echo "harness_smoke: $*" >&2; }
done_case() { grep -q "^[A-Z]* $1\b" "$RESULTS"; }
skip_rest() { for c in $CASES; do done_case "$c" || res "SKIP $c: $1"; done; exit 0; }
fail_rest() { for c in $CASES; do done_case "$c" || res "FAIL $c: $1"; done; exit 0; }
verdict() { case "$2" in ok*) res "PASS $1 (${2#ok })" ;; *) res "FAIL $1: $2" ;; esac; }
secs() { echo $(( $(date +%s) - $1 )); }

command -v python3 >/dev/null 2>&1 || fail_rest "python3 not found"
command -v curl >/dev/null 2>&1 || fail_rest "curl not found"
harness_build "$KV"; rc=$?
[ $rc -eq 2 ] && skip_rest "java 17+ or mvn not found (scripts/install-deps.sh installs them)"
[ $rc -ne 0 ] && fail_rest "the harness did not build against Kafka $KV (see build/kafka-oracle/harness-$KV.maven.log)"
echo "harness_smoke: harness built in $(secs "$T0")s" >&2

WORK=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/harness-smoke.XXXXXX")
cleanup() { harness_cleanup; [ -z "${KEEP_HARNESS_WORK:-}" ] && rm -rf "$WORK"; }
trap cleanup EXIT

t=$(date +%s)
sc_start "$WORK" --brokers 2 --rsm local-tiered-storage ||
    fail_rest "the scenario cluster did not start, twice: $ANS (work dir $WORK, stderr $WORK/sc.err)"
H=$WORK/hello.json
echo "harness_smoke: cluster up in $(secs "$t")s: $(jget "$H" "d['bootstrap']") Kafka $(jget "$H" "d['kafka_version']")" >&2
STORE=$(jget "$H" "d['remote_store']")

# ---- lts_copy: every COPY_SEGMENT_FINISHED segment (RemoteLogMetadataSerde over the topic) is a
# LocalTieredStorage fileset on disk, its .log of the metadata's size; LATEST_TIERED = its end ----
sc state || fail_rest "state: $ANS"
echo "$ANS" >"$WORK/state1.json"
lts=$(python3 - "$WORK/state1.json" "$STORE" <<'EOF'
import json, os, sys
st, store = json.load(open(sys.argv[1])), sys.argv[2]
bad, n = [], 0
for p in st['partitions']:
    d = os.path.join(store, '%s-%d-%s' % (p['topic'], p['partition'], p['topic_id']))
    fin = [s for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED']
    if not fin:
        bad.append('%s-%d: no finished remote segment' % (p['topic'], p['partition'])); continue
    for s in fin:
        n += 1
        stem = os.path.join(d, '%020d-%s' % (s['start_offset'], s['segment_id']))
        for ext in ('.log', '.index', '.timeindex', '.snapshot', '.leader_epoch_checkpoint'):
            if not os.path.exists(stem + ext):
                bad.append('missing ' + stem + ext)
        if os.path.exists(stem + '.log') and os.path.getsize(stem + '.log') != s['size_bytes']:
            bad.append('%s.log: %d bytes, metadata %d' % (stem, os.path.getsize(stem + '.log'), s['size_bytes']))
    if p['latest_tiered'] != max(s['end_offset'] for s in fin):
        bad.append('%s-%d: LATEST_TIERED %d, highest finished end %d' % (p['topic'], p['partition'], p['latest_tiered'],
                                                                     max(s['end_offset'] for s in fin)))
print('FAIL ' + '; '.join(bad[:5]) if bad else 'ok %d finished segments on disk as LocalTieredStorage filesets' % n)
EOF
)
verdict lts_copy "$lts"

# ---- segscan_scan: segscan run on each broker as an operator would (its server.properties), once
# decoding the on-disk __remote_log_metadata-N (--remote-metadata=local) and once consuming that
# topic from the cluster (--bootstrap-server), against Kafka's own answers taken around the scans:
# ListOffsets LATEST_TIERED = remote.highest_offset, the COPY_SEGMENT_FINISHED segments
# (RemoteLogMetadataSerde) = remote.segments and remote.size_bytes, and per topic the leaders'
# RemoteLogSizeBytes over JMX = the leaders' remote.size_bytes (each partition once whatever its
# RF). No finding on this healthy cluster but REMOTE_STATE_UNKNOWN where a partition's metadata
# lives on the other broker and REMOTE_METADATA_AT_RISK naming the metadata topic's RF 1 (true:
# the scenario clusters create it so). ----
cat >"$WORK/scan_check.py" <<'EOF'
import json, os, sys
# scan_check.py STATE_BEFORE JMX STATE_AFTER HELLO SCANDIR: "ok ...", "unstable ..." or "FAIL ..."
before, jmx, after, hello = (json.load(open(a)) for a in sys.argv[1:5])
scandir = sys.argv[5]
def kafka(st):
    return {(p['topic'], p['partition']): (p['latest_tiered'], sorted(s['segment_id'] for s in p['remote_segments']
            if s['state'] == 'COPY_SEGMENT_FINISHED'), p['remote_finished_bytes'], p['leader']) for p in st['partitions']}
kb, ka = kafka(before), kafka(after)
if kb != ka:
    print('unstable: Kafka state changed during the scans'); sys.exit(0)
jsize = {}
for n in jmx['nodes']:
    for t, ms in n.get('topics', {}).items():
        if t.startswith('sc-') and 'RemoteLogSizeBytes' in ms:
            jsize[t] = jsize.get(t, 0) + ms['RemoteLogSizeBytes']
want_size = {}
for (t, _), v in ka.items():
    want_size[t] = want_size.get(t, 0) + v[2]
if jsize != want_size:
    # the leaders' expiration task (every second) has not caught up with the last copy yet
    print('unstable: RemoteLogSizeBytes %r, finished bytes %r' % (jsize, want_size)); sys.exit(0)
bad, checked, unknown, ssize = [], 0, 0, {}
for n in hello['nodes']:
    logdir = n['log_dir']
    here = set(int(x.split('-')[-1]) for x in os.listdir(logdir) if x.startswith('__remote_log_metadata-'))
    for mode in ('local', 'cluster'):
        scan = json.load(open(os.path.join(scandir, 'scan-%d-%s.json' % (n['id'], mode))))
        parts = {(p['topic'], p['partition']): p for p in scan['partitions']}
        for p in scan['partitions']:
            for f in p.get('findings', []):
                # true here: the scenario's __remote_log_metadata has RF 1 (Broker.java sets it)
                if f['code'] == 'REMOTE_METADATA_AT_RISK' and 'replication factor is 1' in f.get('message', ''):
                    continue
                if f['code'] != 'REMOTE_STATE_UNKNOWN':
                    bad.append('node %d %s: %s-%d: finding %s on a healthy cluster: %s'
                               % (n['id'], mode, p['topic'], p['partition'], f['code'], f.get('message', '')[:160]))
        for k in before['partitions']:
            if n['id'] not in k['replicas']:
                continue
            key = (k['topic'], k['partition']); p = parts.get(key)
            if p is None:
                bad.append('node %d %s: %s-%d missing from the scan' % ((n['id'], mode) + key)); continue
            lt, fin, fbytes, leader = ka[key]
            r = p.get('remote') or {}
            codes = [f['code'] for f in p.get('findings', [])]
            if mode == 'cluster' or k['metadata_partition'] in here:
                checked += 1
                src = 'cluster' if mode == 'cluster' else 'metadata-topic'
                got = (r.get('source'), r.get('highest_offset'), r.get('segments'), r.get('size_bytes'))
                if got != (src, lt, len(fin), fbytes):
                    bad.append('node %d %s: %s-%d: remote (source, highest_offset, segments, size_bytes) %r, Kafka (%r, '
                               'LATEST_TIERED %r, %d finished, %d bytes)' % ((n['id'], mode) + key + (got, src, lt, len(fin), fbytes)))
                if mode == 'cluster' and leader == n['id']:
                    ssize[k['topic']] = ssize.get(k['topic'], 0) + (r.get('size_bytes') or 0)
            else:
                unknown += 1
                if 'REMOTE_STATE_UNKNOWN' not in codes:
                    bad.append('node %d local: %s-%d (metadata partition %d on the other broker): no REMOTE_STATE_UNKNOWN, remote %r'
                               % ((n['id'],) + key + (k['metadata_partition'], r)))
if ssize != jsize:
    bad.append('per topic, the leaders\' remote.size_bytes %r, RemoteLogSizeBytes over JMX %r' % (ssize, jsize))
if checked == 0 or sum(jsize.values()) <= 0:
    bad.append('nothing tiered to compare (the case proves nothing)')
if unknown == 0:
    bad.append('every broker holds every metadata partition it needs: the local-only check proves nothing')
print('FAIL ' + '; '.join(bad[:4]) if bad else
      'ok %d partition replicas = LATEST_TIERED and the finished segments, %d unknown where their metadata is elsewhere; '
      'RemoteLogSizeBytes per topic %s = the leaders\' remote.size_bytes' % (checked, unknown, json.dumps(jsize, sort_keys=True)))
EOF
BOOT=$(jget "$H" "d['bootstrap']")
sv=""
for _ in $(seq 1 20); do
    sc state || { sv="FAIL state: $ANS"; break; }
    echo "$ANS" >"$WORK/scan-state0.json"
    sc jmx || { sv="FAIL jmx: $ANS"; break; }
    echo "$ANS" >"$WORK/scan-jmx.json"
    for n in $(jget "$H" "' '.join('%d:%s' % (n['id'], n['server_properties']) for n in d['nodes'])"); do
        id=${n%%:*}; props=${n#*:}
        for mode in local cluster; do
            opt=--remote-metadata=local
            [ $mode = cluster ] && opt=--bootstrap-server=$BOOT
            timeout 120 "$SEGSCAN" scan -f json "$opt" --server-properties="$props" \
                >"$WORK/scan-$id-$mode.json" 2>"$WORK/scan-$id-$mode.err"
            rc=$?
            [ $rc -eq 0 ] || { sv="FAIL segscan scan $opt on node $id: exit $rc: $(head -c 300 "$WORK/scan-$id-$mode.err")"; break 3; }
        done
    done
    sc state || { sv="FAIL state: $ANS"; break; }
    echo "$ANS" >"$WORK/scan-state1.json"
    sv=$(python3 "$WORK/scan_check.py" "$WORK/scan-state0.json" "$WORK/scan-jmx.json" "$WORK/scan-state1.json" "$H" "$WORK" 2>&1)
    case "$sv" in unstable*) sleep 1 ;; *) break ;; esac
done
case "$sv" in unstable*) sv="FAIL Kafka's own answers did not settle in 20 tries: $sv" ;; esac
case "$sv" in FAIL*) res "FAIL segscan_scan: ${sv#FAIL }" ;; *) verdict segscan_scan "$sv" ;; esac

# ---- s3_list: versitygw serves the store; ListObjectsV2 (2 keys a page) = the files on disk ----
t=$(date +%s)
s3_start "$(dirname "$STORE")"; rc=$?
if [ $rc -eq 2 ]; then
    res "SKIP s3_list: Go 1.25+ not found (versitygw is a Go module)"
elif [ $rc -ne 0 ]; then
    res "FAIL s3_list: versitygw did not install or start (see build/tools/bin/versitygw-install.log)"
else
    echo "harness_smoke: versitygw up in $(secs "$t")s at $S3_URL" >&2
    bucket=$(basename "$STORE")
    if ! s3_list "$bucket" "" 2 >"$WORK/s3.txt" 2>"$WORK/s3.err"; then
        res "FAIL s3_list: $(head -c 300 "$WORK/s3.err")"
    else
        (cd "$STORE" && find . -type f -printf '%P %s\n' | LC_ALL=C sort) >"$WORK/disk.txt"
        LC_ALL=C sort "$WORK/s3.txt" >"$WORK/s3.sorted"
        n=$(wc -l <"$WORK/disk.txt")
        if [ "$n" -lt 5 ]; then
            res "FAIL s3_list: only $n files in the store (the case proves nothing)"
        elif ! cmp -s "$WORK/disk.txt" "$WORK/s3.sorted"; then
            res "FAIL s3_list: listing differs from the disk: $(diff "$WORK/disk.txt" "$WORK/s3.sorted" | head -5 | tr '\n' ' ')"
        else
            wrong=$(curl -s --max-time 10 --aws-sigv4 aws:amz:us-east-1:s3 --user "$S3_AK:wrong-secret" \
                -H 'x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' \
                "$S3_URL/$bucket?list-type=2")
            case "$wrong" in
                *SignatureDoesNotMatch*) res "PASS s3_list ($n objects over $(sed -n 's/# pages //p' "$WORK/s3.err") pages, keys and sizes = the disk; a wrong secret: SignatureDoesNotMatch)" ;;
                *) res "FAIL s3_list: a wrong secret was not refused: $(echo "$wrong" | head -c 200)" ;;
            esac
        fi
    fi
fi

# ---- prometheus_scrape: Prometheus scrapes each broker's JMX exporter; the example rules' series
# equal the MBeans read over JMX at the same time, and a rule file's recording rule (the per-topic
# sum over brokers) equals their sum; its alert fires ----
t=$(date +%s)
targets=()
for u in $(jget "$H" "' '.join(n['metrics_url'] for n in d['nodes'])"); do
    a=${u#http://}; targets+=(--target "kafka=${a%%/*}")
done
cat >"$WORK/smoke.rules.yml" <<'EOF'
groups:
  - name: harness-smoke
    rules:
      - record: topic:kafka_remote_log_size_bytes:sum
        expr: sum by (topic) (kafka_server_brokertopicmetrics_remotelogsizebytes{topic=~"sc-.*"})
      - alert: HarnessSmokeRemoteBytes
        expr: sum(kafka_server_brokertopicmetrics_remotelogsizebytes{topic=~"sc-.*"}) > 0
EOF
prom_start "${targets[@]}" --rules "$WORK/smoke.rules.yml" --wait-for 'topic:kafka_remote_log_size_bytes:sum'; rc=$?
if [ $rc -eq 2 ]; then
    res "SKIP prometheus_scrape: prometheus not installed (scripts/install-deps.sh installs it)"
elif [ $rc -ne 0 ]; then
    res "FAIL prometheus_scrape: Prometheus did not start or scrape the exporters"
else
    echo "harness_smoke: prometheus up, both exporters scraped, in $(secs "$t")s" >&2
    # A fresh scrape after the JMX read: compare once both have settled (values change only with copies).
    ok=""
    for _ in $(seq 1 20); do
        sc jmx || break
        echo "$ANS" >"$WORK/jmx.json"
        # until every exporter was scraped, and the rule evaluated, after the JMX read (bounded)
        since=$(echo "$ANS" | jget - "d['taken_ms'] / 1000.0")
        prom_wait "(min(timestamp(kafka_server_brokertopicmetrics_remotelogsizebytes)) > $since) and
                   (min(timestamp(topic:kafka_remote_log_size_bytes:sum)) > $since)" 60 >/dev/null || continue
        prom_q '{__name__=~"kafka_server_brokertopicmetrics_remote(copylag|deletelag)(segments|bytes)|kafka_server_brokertopicmetrics_remotelogsizebytes|kafka_server_brokertopicmetrics_remotelogmetadatacount"}' >"$WORK/prom.json" || continue
        prom_q 'topic:kafka_remote_log_size_bytes:sum' >"$WORK/prom-rule.json" || continue
        prom_alerts >"$WORK/prom-alerts.json" || continue
        v=$(python3 - "$WORK/jmx.json" "$WORK/prom.json" "$H" "$WORK/prom-rule.json" "$WORK/prom-alerts.json" <<'EOF'
import json, sys
jmx, prom, hello, rule, alerts = (json.load(open(a)) for a in sys.argv[1:6])
port_node = {n['metrics_url'].split('/')[2]: n['id'] for n in hello['nodes']}
want = {}
for n in jmx['nodes']:
    for t, ms in n.get('topics', {}).items():
        for m in ('RemoteCopyLagSegments', 'RemoteCopyLagBytes', 'RemoteDeleteLagSegments', 'RemoteDeleteLagBytes',
                  'RemoteLogSizeBytes', 'RemoteLogMetadataCount'):
            if m in ms:
                want[(n['node'], 'kafka_server_brokertopicmetrics_' + m.lower(), t)] = float(ms[m])
got = {}
for r in prom['data']['result']:
    m = r['metric']
    got[(port_node.get(m['instance']), m['__name__'], m.get('topic'))] = float(r['value'][1])
topicless = [k for k in got if k[2] is None]
bad = []
for k, v in want.items():
    if got.get(k) != v:
        bad.append('node %s %s{topic="%s"}: Prometheus %r, JMX %r' % (k[0], k[1], k[2], got.get(k), v))
sizes = sum(v for k, v in want.items() if k[1].endswith('remotelogsizebytes') and k[2].startswith('sc-'))
if not want or sizes <= 0:
    bad.append('no RemoteLogSizeBytes > 0 over JMX (the case proves nothing)')
if not topicless:
    bad.append('no broker-wide (topic-less) series')
rec = {r['metric']['topic']: float(r['value'][1]) for r in rule['data']['result']}
jsum = {}
for k, v in want.items():
    if k[1].endswith('remotelogsizebytes') and k[2].startswith('sc-'):
        jsum[k[2]] = jsum.get(k[2], 0) + v
if rec != jsum:
    bad.append('recording rule topic:kafka_remote_log_size_bytes:sum %r, JMX per-topic sums %r' % (rec, jsum))
firing = [a for a in alerts['data']['alerts'] if a['labels'].get('alertname') == 'HarnessSmokeRemoteBytes' and a['state'] == 'firing']
if not firing:
    bad.append('alert HarnessSmokeRemoteBytes not firing: %r' % alerts['data']['alerts'][:2])
print('FAIL ' + '; '.join(bad[:4]) if bad else 'ok %d per-topic series equal to JMX, RemoteLogSizeBytes of the sc- topics %d (the recording rule per topic: %s), %d broker-wide series, the alert firing' % (len(want), sizes, json.dumps(rec, sort_keys=True), len(topicless)))
EOF
)
        case "$v" in ok*) ok=$v; break ;; esac
    done
    verdict prometheus_scrape "${ok:-$v}"
fi

# ---- stall_release: a copy held inside LocalTieredStorage (before its .log) stays
# COPY_SEGMENT_STARTED with nothing in the store; released, it finishes ----
P=sc-rf1-0
st=""
if ! sc stall partition=$P; then st="stall: $ANS"
elif ! sc produce sc-rf1; then st="produce: $ANS"
elif ! sc wait-stalled 1; then st="wait-stalled: $ANS"
else
    held=$(echo "$ANS" | jget - "d['stalled'][0]")
    sc state sc-rf1 || st="state: $ANS"
    echo "$ANS" >"$WORK/state-stalled.json"
    if [ -z "$st" ]; then
        st=$(python3 - "$WORK/state-stalled.json" "$held" "$P" <<'EOF'
import json, os, sys
st, held, P = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
p = [x for x in st['partitions'] if '%s-%d' % (x['topic'], x['partition']) == P][0]
started = [s for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_STARTED']
bad = []
if len(started) != 1:
    bad.append('%d COPY_SEGMENT_STARTED segments, want 1' % len(started))
elif not os.path.basename(held).startswith('%020d-%s' % (started[0]['start_offset'], started[0]['segment_id'])):
    bad.append('held %s is not the started segment %s' % (held, started[0]['segment_id']))
elif os.path.exists(held):
    bad.append('the held .log is already in the store')
if p['latest_tiered'] >= p['closed_end']:
    bad.append('LATEST_TIERED %d covers the held segment (closed end %d)' % (p['latest_tiered'], p['closed_end']))
print('; '.join(bad) if bad else 'held')
EOF
)
    fi
    if [ "$st" = held ]; then
        if ! sc release; then st="release: $ANS"
        elif ! sc wait-copied sc-rf1; then st="wait-copied after release: $ANS"
        elif ! sc wait-remote $P COPY_SEGMENT_FINISHED 2; then st="after release: $ANS"
        else st="ok segment $(basename "$held" .log) held as COPY_SEGMENT_STARTED, store empty for it; released: FINISHED"
        fi
    fi
fi
verdict stall_release "$st"

# ---- leadership: reassignment reorders sc-rf2-0's replicas, preferred election moves its leader ----
P=sc-rf2-0
ld=""
if ! sc state sc-rf2; then ld="state: $ANS"
else
    reps=$(echo "$ANS" | jget - "','.join(str(r) for r in [x for x in d['partitions'] if x['partition']==0][0]['replicas'])")
    was=$(echo "$ANS" | jget - "[x for x in d['partitions'] if x['partition']==0][0]['leader']")
    rev=$(echo "$reps" | tr ',' '\n' | tac | paste -sd,)
    if ! sc reassign $P "$rev"; then ld="reassign: $ANS"
    elif ! sc elect $P; then ld="elect: $ANS"
    else
        now=$(echo "$ANS" | jget - "d['leaders']['$P']")
        if [ "$now" = "${rev%%,*}" ] && [ "$now" != "$was" ]; then ld="ok leader of $P moved $was -> $now (replicas $reps -> $rev)"
        else ld="leader $was -> $now after reassigning $reps -> $rev"
        fi
    fi
fi
verdict leadership "$ld"

# ---- remote_delete_fetch: with local copies gone, objects deleted behind Kafka's back make
# Kafka's own consumer fetch of that range fail, while a range still in the store reads ----
P=sc-rf1-1
rd=""
if ! sc alter-topic sc-rf1 local.retention.ms=1000; then rd="alter-topic: $ANS"
else
    # local retention (1 s, records 24 h old) deletes the copied local segments
    ok=""
    for _ in $(seq 1 240); do
        sc state sc-rf1 || break
        el=$(echo "$ANS" | jget - "[x for x in d['partitions'] if x['partition']==1][0]['earliest_local']")
        lt=$(echo "$ANS" | jget - "[x for x in d['partitions'] if x['partition']==1][0]['latest_tiered']")
        [ "$el" -gt "$lt" ] && { ok=1; break; }
        sleep 0.5
    done
    if [ -z "$ok" ]; then rd="local segments of $P not deleted (earliest_local ${el:-?}, latest_tiered ${lt:-?})"
    elif ! sc fetch $P 0 20000; then rd="fetch before delete: $ANS"
    elif [ "$(echo "$ANS" | jget - "d['records']")" -eq 0 ]; then rd="fetch of offset 0 from the intact store read nothing: $ANS"
    elif ! sc delete-remote $P oldest; then rd="delete-remote: $ANS"
    else
        gone=$(echo "$ANS" | jget - "len(d['deleted'])")
        sc fetch $P 0 10000 || true
        echo "$ANS" >"$WORK/fetch-after.json"
        n=$(jget "$WORK/fetch-after.json" "d['records']")
        sc jmx || true
        errs=$(echo "$ANS" | jget - "sum(n.get('topics',{}).get('sc-rf1',{}).get('RemoteFetchErrorsPerSec',0) for n in d['nodes'])")
        if [ "$n" -ne 0 ]; then rd="$n records fetched from offset 0 after its objects were deleted"
        elif [ "$errs" -le 0 ]; then rd="no RemoteFetchErrorsPerSec on any broker after the failed fetch"
        else rd="ok $gone objects deleted; Kafka's consumer read 0 records from offset 0 ($(jget "$WORK/fetch-after.json" "d['error'] or 'no error raised, nothing returned'")), RemoteFetchErrorsPerSec $errs"
        fi
    fi
fi
verdict remote_delete_fetch "$rd"

sc_stop
echo "harness_smoke: all cases in $(secs "$T0")s" >&2
exit 0
