#!/usr/bin/env bash
# Tiering health against a real Kafka 4.3.1 cluster (tests/harness_lib.sh, docs/conformance.md
# "Scenario clusters"): 2 brokers, one cluster for every case, Kafka's own LocalTieredStorage with the stalling transferer,
# __remote_log_metadata created by Kafka with retention.ms=60000 (and RF 2, min.insync.replicas 2:
# Kafka 4.3's own). Run by tests/test_health_real.c; one line per case to RESULTS:
#   PASS name [detail] | FAIL name: why | SKIP name: why
#
#   stuck_copy         a copy held inside the RSM: COPY_SEGMENT_STARTED in Kafka's metadata; segscan
#                      on the leader raises STUCK_REMOTE_COPY with that segment id, the broker that
#                      started it (Kafka's broker_id) and the age --now minus Kafka's started_ms;
#                      none with --stuck-after above that age; none on the partitions that copy
#   stuck_released     released, the copy finishes: no STUCK_* finding anywhere, with the default
#                      --stuck-after and with --stuck-after=1ms
#   metadata_at_risk   every tiered partition of both brokers gets REMOTE_METADATA_AT_RISK naming the metadata
#                      topic's retention.ms 60000 and the tiered topic's unlimited retention, and
#                      nothing about its replication factor or min.insync.replicas (both 2)
#   horizon_time       --horizon=30s forecasts the remote segments time retention deletes; after the
#                      horizon Kafka's own metadata shows exactly those due deleted
#   horizon_size       --horizon=30s with retention.bytes and local.retention.bytes (a what-if, then
#                      Kafka's) on sized-0, three segments waiting for upload behind a held copy:
#                      the forecast's remote and local deletes (segments and bytes) and copies are
#                      exactly what Kafka's metadata and log dir show after the horizon; nothing is
#                      written to sized-0 meanwhile (the forecast's assumption), sized-1 is
#   size_double_count  KAFKA-20977 in Kafka's size retention: single-0's highest copied segment holds
#                      one offset, so 4.3.1 counts it twice in its size total; with retention.bytes
#                      (a what-if, then Kafka's) between the strict and the doubled walk, Kafka deletes
#                      4 remote segments and segscan --kafka-version=4.3.1 names exactly those; as the
#                      metadata log gives the release (the 4.3 line) segscan says unknown
#   undeletable_local  KAFKA-20609 on topic future (RF 2, local.retention.ms 1 h, segments rolled by
#                      size): future-0 gets one record 30 min after the clock between records 20 h old;
#                      once everything closed is copied and both brokers' local retention has passed
#                      the blocking segment again (Kafka's own "contains future timestamp(s)" warning),
#                      segscan on the leader and on the follower raises UNDELETABLE_LOCAL_SEGMENT for
#                      exactly the copied segments behind it that Kafka keeps (their files and bytes);
#                      future-1, written alike without that record, is freed by its leader and stays
#                      silent, and so does every other partition
#   jittered_followers Aiven #562 on jitter-0 (RF 2, segment.jitter.ms 50 s): written led by node 1,
#                      leadership moved to node 2, written again; the replicas' boundaries differ;
#                      with local.retention.ms cut to 1 s (a what-if, then Kafka's) segscan on each
#                      replica names for local retention exactly the closed segments whose every
#                      offset is in remote storage, Kafka frees every one of them on both, and no
#                      UNDELETABLE_LOCAL_SEGMENT is raised, before or after
#
# usage: bash tests/health_real.sh RESULTS
set -u
RESULTS=${1:?usage: health_real.sh RESULTS}
: >"$RESULTS"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN=${SEGSCAN:-$ROOT/build/segscan}
case "$SEGSCAN" in /*) ;; *) SEGSCAN="$ROOT/$SEGSCAN" ;; esac
CASES="stuck_copy stuck_released metadata_at_risk horizon_time horizon_size size_double_count undeletable_local jittered_followers"
KV=${HEALTH_REAL_KAFKA:-4.3.1}

res() { echo "$*" >>"$RESULTS"; echo "health_real: $*" >&2; }
done_case() { grep -q "^[A-Z]* $1\b" "$RESULTS"; }
skip_rest() { for c in $CASES; do done_case "$c" || res "SKIP $c: $1"; done; exit 0; }
fail_rest() { for c in $CASES; do done_case "$c" || res "FAIL $c: $1"; done; exit 0; }
verdict() { case "$2" in ok*) res "PASS $1 (${2#ok })" ;; *) res "FAIL $1: $2" ;; esac; }

[ -f "$ROOT/tests/harness_lib.sh" ] || skip_rest "the scenario-cluster harness (tests/harness_lib.sh) is not in this tree"
# shellcheck source=tests/harness_lib.sh
. "$ROOT/tests/harness_lib.sh"

command -v python3 >/dev/null 2>&1 || fail_rest "python3 not found"
harness_build "$KV"; rc=$?
[ $rc -eq 2 ] && skip_rest "java 17+ or mvn not found (scripts/install-deps.sh installs them)"
[ $rc -ne 0 ] && fail_rest "the harness did not build against Kafka $KV"

WORK=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/health-real.XXXXXX")
cleanup() { harness_cleanup; [ -z "${KEEP_HARNESS_WORK:-}" ] && rm -rf "$WORK"; }
trap cleanup EXIT

sc_start "$WORK" --brokers 2 --rsm local-tiered-storage --topic orders:2:1 \
    --topic future:2:2:local.retention.ms=3600000 \
    --topic sized:2:1 --topic single:1:1 --topic jitter:1:2:segment.jitter.ms=50000 --rounds 2 \
    --broker-config rlmm.config.remote.log.metadata.topic.retention.ms=60000 \
    --broker-config rlmm.config.remote.log.metadata.topic.replication.factor=2 ||
    fail_rest "the scenario cluster did not start, twice: $ANS (work dir $WORK)"
H=$WORK/hello.json
BOOT=$(jget "$H" "d['bootstrap']")

# scan NODE OUT [OPTIONS...]: segscan on node NODE as its operator would run it (its
# server.properties), remote metadata from the cluster (whichever node holds its partition)
scan() {
    local node=$1 out=$2 props
    shift 2
    props=$(jget "$H" "[n['server_properties'] for n in d['nodes'] if n['id'] == $node][0]")
    timeout 120 "$SEGSCAN" scan -q -f json --server-properties="$props" --bootstrap-server="$BOOT" "$@" \
        >"$out" 2>"$out.err"
}

# ---- stuck_copy ----
P=orders-0
st=""
if ! sc state orders; then st="state: $ANS"
else
    LEADER=$(echo "$ANS" | jget - "[x for x in d['partitions'] if x['partition'] == 0][0]['leader']")
    if ! sc stall partition=$P; then st="stall: $ANS"
    elif ! sc produce orders; then st="produce: $ANS"
    elif ! sc wait-stalled 1; then st="wait-stalled: $ANS"
    elif ! sc state orders; then st="state: $ANS"
    else
        echo "$ANS" >"$WORK/state-stalled.json"
        sc jmx >/dev/null && echo "$ANS" >"$WORK/jmx-stalled.json"
        # Kafka's own reading of the held copy: its id, the broker that started it, when
        read -r SID BROKER STARTED < <(jget "$WORK/state-stalled.json" \
            "' '.join(str(v) for v in [[s for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_STARTED'][0][k] for p in d['partitions'] if p['partition'] == 0 for k in ('segment_id', 'broker_id', 'started_ms')])")
        AGE=60000
        NOW=$((STARTED + AGE))
        if [ -z "${SID:-}" ]; then st="no COPY_SEGMENT_STARTED segment in Kafka's metadata"
        elif ! scan "$LEADER" "$WORK/stuck.json" --now="$NOW" --stuck-after=59999; then
            st="segscan scan (stuck-after below the age): exit $?: $(head -c 300 "$WORK/stuck.json.err")"
        elif ! scan "$LEADER" "$WORK/not-stuck.json" --now="$NOW" --stuck-after=60000; then
            st="segscan scan (stuck-after at the age): exit $?: $(head -c 300 "$WORK/not-stuck.json.err")"
        else
            st=$(python3 - "$WORK/stuck.json" "$WORK/not-stuck.json" "$SID" "$BROKER" "$AGE" "$WORK/jmx-stalled.json" <<'EOF'
import json, sys
stuck, clear = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sid, broker, age = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
try:
    jmx = json.load(open(sys.argv[6]))
    lag = sum(n.get('topics', {}).get('orders', {}).get('RemoteCopyLagSegments', 0) for n in jmx['nodes'])
except Exception:
    lag = None
def finds(rep, code):
    return {(p['topic'], p['partition']): [f for f in p['findings'] if f['code'] == code] for p in rep['partitions']}
bad = []
s = finds(stuck, 'STUCK_REMOTE_COPY')
mine = s.get(('orders', 0), [])
if len(mine) != 1:
    bad.append('orders-0: %d STUCK_REMOTE_COPY findings, want 1' % len(mine))
else:
    f = mine[0]
    if f.get('segment_ids') != [sid]:
        bad.append('segment_ids %r, Kafka holds %s' % (f.get('segment_ids'), sid))
    if 'by broker %d' % broker not in f['message']:
        bad.append('the broker that started it (Kafka: %d) not in: %s' % (broker, f['message'][:200]))
    if 'for %d ms' % age not in f['message']:
        bad.append('age %d ms not in: %s' % (age, f['message'][:200]))
    if f.get('segments') != 1:
        bad.append('segments %r, want 1' % f.get('segments'))
for k, v in s.items():
    if k != ('orders', 0) and v:
        bad.append('%s-%d: STUCK_REMOTE_COPY on a partition that copies: %s' % (k[0], k[1], v[0]['message'][:160]))
c = finds(clear, 'STUCK_REMOTE_COPY')
if any(c.values()):
    bad.append('--stuck-after equal to the age still raises STUCK_REMOTE_COPY')
print('FAIL ' + '; '.join(bad) if bad else
      'ok STUCK_REMOTE_COPY for %s (broker %d, %d ms) and none at --stuck-after=%d; the brokers\' '
      'RemoteCopyLagSegments for orders read %s meanwhile' % (sid, broker, age, age, lag))
EOF
)
        fi
    fi
fi
verdict stuck_copy "$st"

# ---- stuck_released ----
rl=""
if ! sc release; then rl="release: $ANS"
elif ! sc wait-copied orders; then rl="wait-copied: $ANS"
elif ! sc wait-remote $P COPY_SEGMENT_FINISHED 2; then rl="wait-remote: $ANS"
else
    for n in $(jget "$H" "' '.join(str(n['id']) for n in d['nodes'])"); do
        scan "$n" "$WORK/released-$n.json" || { rl="segscan scan on node $n: exit $?: $(head -c 300 "$WORK/released-$n.json.err")"; break; }
        scan "$n" "$WORK/released-$n-1ms.json" --stuck-after=1ms ||
            { rl="segscan scan --stuck-after=1ms on node $n: exit $?"; break; }
    done
    if [ -z "$rl" ]; then
        rl=$(python3 - "$WORK"/released-*.json <<'EOF'
import json, sys
bad, n = [], 0
for a in sys.argv[1:]:
    if a.endswith('.err'):
        continue
    for p in json.load(open(a))['partitions']:
        n += 1
        for f in p['findings']:
            if f['code'] in ('STUCK_REMOTE_COPY', 'STUCK_REMOTE_DELETE', 'EPOCH_LINEAGE_GAP'):
                bad.append('%s: %s-%d: %s %s' % (a.rsplit('/', 1)[-1], p['topic'], p['partition'], f['code'], f['message'][:160]))
print('FAIL ' + '; '.join(bad[:3]) if bad else 'ok no STUCK_* or EPOCH_LINEAGE_GAP in %d partition replicas once copies finish' % n)
EOF
)
    fi
fi
verdict stuck_released "$rl"

# ---- metadata_at_risk ----
mr=""
if [ ! -s "$WORK/released-1.json" ] || [ ! -s "$WORK/released-2.json" ]; then mr="no scan of the nodes to read"
else
    mr=$(python3 - "$WORK/released-1.json" "$WORK/released-2.json" <<'EOF'
import json, sys
bad, n = [], 0
for p in [p for a in sys.argv[1:] for p in json.load(open(a))['partitions']]:
    fs = [f for f in p['findings'] if f['code'] == 'REMOTE_METADATA_AT_RISK']
    if p.get('remote_storage') is not True:
        if fs:
            bad.append('%s-%d (not tiered): %s' % (p['topic'], p['partition'], fs[0]['message'][:160]))
        continue
    n += 1
    if len(fs) != 1:
        bad.append('%s-%d: %d REMOTE_METADATA_AT_RISK, want 1' % (p['topic'], p['partition'], len(fs))); continue
    m = fs[0]['message']
    for want in ('retention.ms is 60000 ms (1m 0s) (DYNAMIC_TOPIC_CONFIG)', "this topic's retention.ms unlimited (-1)"):
        if want not in m:
            bad.append('%s-%d: "%s" not in: %s' % (p['topic'], p['partition'], want, m[:240]))
    for not_want in ('replication factor', 'min.insync.replicas', 'retention.bytes'):
        if not_want in m:
            bad.append('%s-%d: "%s" in: %s' % (p['topic'], p['partition'], not_want, m[:240]))
if n == 0:
    bad.append('no tiered partition on the nodes (the case proves nothing)')
print('FAIL ' + '; '.join(bad[:3]) if bad else 'ok %d tiered partition replicas on 2 brokers: the metadata topic\'s retention.ms 60000 (DYNAMIC_TOPIC_CONFIG) against unlimited, no RF or min.insync.replicas clause' % n)
EOF
)
fi
verdict metadata_at_risk "$mr"

# ---- horizon_time: segscan's forecast of remote time retention against what Kafka deletes.
# retention.ms is set so that orders-0's second remote segment expires half-way through a 30 s
# horizon; segscan forecasts at t0; after the horizon (and two expiration passes) Kafka's own
# metadata must show deleted exactly the remote segments whose max timestamp is below
# t0 + horizon - retention.ms, and segscan's count must be theirs ----
hz=""
HZ=30000
if ! sc produce orders 2; then hz="produce: $ANS"
elif ! sc wait-copied orders; then hz="wait-copied: $ANS"
elif ! sc state orders; then hz="state: $ANS"
else
    echo "$ANS" >"$WORK/state-hz0.json"
    T0=$(date +%s%3N)
    R=$(jget "$WORK/state-hz0.json" "(lambda f: $T0 + $HZ // 2 - f[1]['max_timestamp_ms'] if len(f) >= 3 else -1)(sorted([s for p in d['partitions'] if p['partition'] == 0 for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED'], key=lambda s: s['start_offset']))")
    # segscan forecasts first, with the new retention.ms as a --topic-config what-if (the
    # brokers run their expiration task every second: once Kafka has the new value it deletes
    # what is already due before any scan could see it); then Kafka gets it
    echo "orders retention.ms=$R" >"$WORK/topic-config.txt"
    if [ "$R" -le 0 ]; then hz="fewer than 3 finished remote segments in orders-0 (the case proves nothing)"
    elif ! scan "$LEADER" "$WORK/horizon.json" --now="$T0" --horizon="${HZ}ms" --topic-config="$WORK/topic-config.txt"; then
        hz="segscan scan --horizon: exit $?: $(head -c 300 "$WORK/horizon.json.err")"
    elif ! sc alter-topic orders retention.ms="$R"; then hz="alter-topic: $ANS"
    else
        P=$(jget "$WORK/horizon.json" "[p['forecast']['remote_delete_segments'] for p in d['partitions'] if p['topic'] == 'orders' and p['partition'] == 0][0]")
        # several expiration passes after the horizon (the harness's brokers run the task every
        # second: remote.log.manager.task.interval.ms=1000)
        while [ "$(date +%s%3N)" -lt $((T0 + HZ + 10000)) ]; do sleep 1; done
        if ! sc state orders; then hz="state: $ANS"
        else
            echo "$ANS" >"$WORK/state-hz1.json"
            hz=$(python3 - "$WORK/state-hz0.json" "$WORK/state-hz1.json" "$P" "$T0" "$HZ" "$R" <<'EOF'
import json, sys
st0, st1 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
pred, t0, hz, r = (int(a) for a in sys.argv[3:7])
def part(st):
    return [x for x in st['partitions'] if x['topic'] == 'orders' and x['partition'] == 0][0]
cut = t0 + hz - r
# what was in remote storage at t0 and due by t0 + horizon (Kafka's max timestamps)
due = [s for s in part(st0)['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED' and s['max_timestamp_ms'] < cut]
after = {s['segment_id']: s['state'] for s in part(st1)['remote_segments']}
kept = [s['segment_id'] for s in due if after.get(s['segment_id'], 'DELETE_SEGMENT_FINISHED') != 'DELETE_SEGMENT_FINISHED']
bad = []
if len(due) != pred:
    bad.append('segscan forecast %d remote deletes within %d ms; by Kafka\'s max timestamps %d were due' % (pred, hz, len(due)))
if kept:
    bad.append('Kafka has not deleted %r, due by then' % kept)
if pred < 1:
    bad.append('nothing forecast (the case proves nothing)')
print('FAIL ' + '; '.join(bad) if bad else 'ok forecast %d remote deletes of orders-0 within %d ms (retention.ms %d); Kafka deleted exactly those due by then' % (pred, hz, r))
EOF
)
        fi
    fi
fi
verdict horizon_time "$hz"

# ---- horizon_size: segscan's forecast of size retention (retention.bytes, local.retention.bytes)
# against what Kafka deletes. sized-0 (RF 1, on node 1) gets 8 segments of known sizes, two records
# each, rolled by time (segments 100 s apart in record time, segment.ms 60 s); the last three closed ones wait for
# their copy behind a stalled upload when segscan forecasts. The limits are chosen from Kafka's own
# numbers so that remote size retention deletes the 4 oldest remote segments only when the total
# counts the bytes still waiting for upload (RemoteLogManager: onlyLocalLogSegmentsSize + remote
# size), and local size retention deletes 7 segments, one of them copied only after the forecast.
# Nothing is written to sized-0 in the horizon (the forecast's assumption); sized-1 is written at a
# known rate meanwhile. ----
node_of() { jget "$H" "[n['$2'] for n in d['nodes'] if n['id'] == $1][0]"; }
seg_listing() { # NODE PARTITION-DIR: "BASE_OFFSET SIZE" per .log file, oldest first (a file
    # Kafka deletes between the listing and its stat is left out: it is gone)
    (cd "$(node_of "$1" log_dir)/$2" && for f in $(ls | grep '\.log$' | sort); do
        sz=$(stat -c %s "$f" 2>/dev/null) && echo "$((10#${f%.log})) $sz"
    done)
}
hs=""
HS=30000
HS_SIZES="50000 60000 70000 80000 40000 45000 55000 1000"
hs_append() { # I SIZE: segment I of sized-0, two records of SIZE/2 bytes 1 s apart, 100 s after
    # the one before in record time (two: a copied segment of one offset, base == highest offset in
    # remote storage, is counted as only-local too by 3.6.0 to 4.3.1 (KAFKA-20977), see docs)
    sc append sized-0 2 $(($2 / 2)) $((HS_T + $1 * 100000)) 1000
}
HS_T=$(( $(date +%s%3N) - 72000000 ))
i=0
for sz in $HS_SIZES; do
    i=$((i + 1))
    if [ $i -eq 6 ]; then
        # the copy of the segment record 5 closes is held; records 7 and 8 close two more behind it
        sc stall partition=sized-0 || { hs="stall: $ANS"; break; }
    fi
    hs_append $i "$sz" || { hs="append sized-0 record $i: $ANS"; break; }
    echo "$ANS" >"$WORK/hs-append-$i.json"
    if [ $i -eq 5 ]; then
        # everything before record 5 in remote storage
        sc wait-tiered sized-0 $(( $(jget "$WORK/hs-append-5.json" "d['first_offset']") - 1 )) || { hs="wait-tiered: $ANS"; break; }
    fi
    if [ $i -eq 6 ]; then
        sc wait-stalled 1 || { hs="wait-stalled: $ANS"; break; }
    fi
done
if [ -z "$hs" ] && ! sc state sized; then hs="state: $ANS"; fi
if [ -z "$hs" ]; then
    echo "$ANS" >"$WORK/state-hs0.json"
    seg_listing 1 sized-0 >"$WORK/hs0.ls"
    # the limits, from Kafka's own sizes: RETENTION_BYTES LOCAL_RETENTION_BYTES
    read -r RB LB < <(python3 - "$WORK/state-hs0.json" "$WORK/hs0.ls" <<'EOF'
import json, sys
st = json.load(open(sys.argv[1]))
p = [x for x in st['partitions'] if x['partition'] == 0][0]
fin = sorted([s for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED'], key=lambda s: s['start_offset'])
local = [tuple(int(v) for v in l.split()) for l in open(sys.argv[2])]
h = p['latest_tiered']
only_local = sum(sz for base, sz in local if base > h)
total = only_local + sum(s['size_bytes'] for s in fin)
# remote: the 4 oldest go (breach = their bytes + 1)
rb = total - (sum(s['size_bytes'] for s in fin[:4]) + 1)
# local: the 7 oldest go (the next, 45 KB, is more than the 1000 bytes left over)
lb = sum(sz for _, sz in local) - sum(sz for _, sz in local[:7]) - 1000
print(rb, lb)
EOF
)
    echo "sized retention.bytes=$RB local.retention.bytes=$LB" >"$WORK/topic-config-hs.txt"
    T0=$(date +%s%3N)
    if [ -z "${RB:-}" ] || [ -z "${LB:-}" ]; then hs="could not compute the limits from Kafka's state"
    elif ! scan 1 "$WORK/horizon-size.json" --now="$T0" --horizon="${HS}ms" --stuck-after=1h \
            --topic-config="$WORK/topic-config-hs.txt"; then
        hs="segscan scan --horizon: exit $?: $(head -c 300 "$WORK/horizon-size.json.err")"
    elif ! sc alter-topic sized retention.bytes="$RB" local.retention.bytes="$LB"; then hs="alter-topic: $ANS"
    elif ! sc release; then hs="release: $ANS"
    else
        # sized-1 written at a known rate through the horizon: 1 record of 10000 bytes a second
        n1=0
        while [ "$(date +%s%3N)" -lt $((T0 + HS)) ]; do
            sc append sized-1 1 10000 now-1000 || { hs="append sized-1: $ANS"; break; }
            n1=$((n1 + 1))
            sleep 1
        done
        # the copies the forecast counts on, then several retention passes (the brokers run
        # both every second: log.retention.check.interval.ms, remote.log.manager.task.interval.ms)
        if [ -z "$hs" ] && ! sc wait-tiered sized-0 $(( $(jget "$WORK/hs-append-8.json" "d['first_offset']") - 1 )); then
            hs="wait-tiered after the horizon: $ANS"
        fi
        if [ -z "$hs" ]; then
            t1=$(date +%s%3N)
            while [ "$(date +%s%3N)" -lt $((t1 + 10000)) ]; do sleep 1; done
            if ! sc state sized; then hs="state: $ANS"; else echo "$ANS" >"$WORK/state-hs1.json"; fi
            seg_listing 1 sized-0 >"$WORK/hs1.ls"
        fi
        if [ -z "$hs" ]; then
            hs=$(python3 - "$WORK" "$RB" "$LB" "$HS" "$n1" <<'EOF'
import json, sys
work, rb, lb, hz, n1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def part(f, n=0):
    return [x for x in json.load(open(f))['partitions'] if x['topic'] == 'sized' and x['partition'] == n][0]
p0, p1 = part(work + '/state-hs0.json'), part(work + '/state-hs1.json')
fc = part(work + '/horizon-size.json')['forecast']
def listing(f):
    return {int(l.split()[0]): int(l.split()[1]) for l in open(f)}
l0, l1 = listing(work + '/hs0.ls'), listing(work + '/hs1.ls')
fin0 = {s['segment_id']: s for s in p0['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED'}
st1 = {s['segment_id']: s['state'] for s in p1['remote_segments']}
rdel = [s for i, s in fin0.items() if st1.get(i, 'DELETE_SEGMENT_FINISHED') != 'COPY_SEGMENT_FINISHED']
ldel = [b for b in l0 if b not in l1]
pending = [b for b in l0 if b > p0['latest_tiered'] and b != max(l0)]
copied = [s for i, s in {s['segment_id']: s for s in p1['remote_segments']}.items() if i not in fin0 and s['state'] == 'COPY_SEGMENT_FINISHED']
got = {'remote_delete_segments': len(rdel), 'remote_delete_bytes': sum(s['size_bytes'] for s in rdel),
       'local_delete_segments': len(ldel), 'local_delete_bytes': sum(l0[b] for b in ldel), 'copy_segments': len(copied)}
bad = []
if fc is None:
    bad.append('no forecast for sized-0')
else:
    for k, v in got.items():
        if fc.get(k) != v:
            bad.append('%s: segscan forecast %r, Kafka %d' % (k, fc.get(k), v))
if len(rdel) < 1 or len(pending) < 1 or not any(b > p0['latest_tiered'] for b in ldel):
    bad.append('the case proves nothing: %d remote deletes, %d segments waiting for upload at the forecast, local deletes %s' % (len(rdel), len(pending), ldel))
print('FAIL ' + '; '.join(bad) if bad else
      'ok retention.bytes %d, local.retention.bytes %d, %d segments waiting for upload at the forecast: segscan forecast and Kafka '
      'deleted %d remote segments (%d bytes) and %d local ones (%d bytes) and copied %d within %d ms; sized-1 written meanwhile '
      '(%d records of 10000 bytes)' % (rb, lb, len(pending), got['remote_delete_segments'], got['remote_delete_bytes'],
                                        got['local_delete_segments'], got['local_delete_bytes'], got['copy_segments'], hz, n1))
EOF
)
        fi
    fi
fi
sc release >/dev/null 2>&1
verdict horizon_size "$hs"

# ---- size_double_count: KAFKA-20977 in Kafka's own size retention. single-0 (RF 1, on node 1)
# gets five one-record segments (rolled by time) after the harness's two rounds; once they are in
# remote storage the highest copied segment holds one offset, and Kafka 4.3.1's
# onlyLocalLogSegmentsSize (baseOffset >= highestOffsetInRemoteStorage) counts it a second time.
# retention.bytes is chosen from Kafka's sizes so that the strict total deletes 3 remote segments
# and the broker's 4; segscan (with it as a what-if) must name exactly the ones Kafka deletes.
# Nothing moves the highest offset meanwhile (no writes), so the broker's total is fixed. With
# the release only as the metadata log gives it (the 4.3 line) segscan must say unknown. ----
sd=""
SD_T=$(( $(date +%s%3N) - 72000000 ))
i=0
for sz in 10000 20000 30000 40000 50000 1000; do
    i=$((i + 1))
    sc append single-0 1 "$sz" $((SD_T + i * 100000)) || { sd="append single-0: $ANS"; break; }
    echo "$ANS" >"$WORK/sd-append-$i.json"
done
if [ -z "$sd" ] && ! sc wait-tiered single-0 $(( $(jget "$WORK/sd-append-6.json" "d['first_offset']") - 1 )); then sd="wait-tiered: $ANS"; fi
if [ -z "$sd" ] && ! sc state single; then sd="state: $ANS"; fi
if [ -z "$sd" ]; then
    echo "$ANS" >"$WORK/state-sd0.json"
    seg_listing 1 single-0 >"$WORK/sd0.ls"
    SRB=$(python3 - "$WORK/state-sd0.json" "$WORK/sd0.ls" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))['partitions'][0]
fin = sorted([s for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED'], key=lambda s: s['start_offset'])
local = [tuple(int(v) for v in l.split()) for l in open(sys.argv[2])]
h = p['latest_tiered']
total = sum(sz for b, sz in local if b > h) + sum(s['size_bytes'] for s in fin)
print(total - (sum(s['size_bytes'] for s in fin[:3]) + 1))   # strict breach: the 3 oldest + 1 byte
EOF
)
    echo "single retention.bytes=$SRB" >"$WORK/topic-config-sd.txt"
    # with the release the operator knows, and as the metadata log alone gives it (the 4.3 line,
    # whose 4.3.2 nobody checked: which total applies is unknown)
    if ! scan 1 "$WORK/sd.json" --topic-config="$WORK/topic-config-sd.txt" --kafka-version="$KV"; then
        sd="segscan scan: exit $?: $(head -c 300 "$WORK/sd.json.err")"
    elif ! scan 1 "$WORK/sd-line.json" --topic-config="$WORK/topic-config-sd.txt"; then
        sd="segscan scan (no --kafka-version): exit $?: $(head -c 300 "$WORK/sd-line.json.err")"
    elif ! sc alter-topic single retention.bytes="$SRB"; then sd="alter-topic: $ANS"
    elif ! sc wait-remote single-0 DELETE_SEGMENT_FINISHED 3; then sd="wait-remote: $ANS"
    else
        # several more expiration passes (remote.log.manager.task.interval.ms=1000) for a fourth
        t1=$(date +%s%3N)
        while [ "$(date +%s%3N)" -lt $((t1 + 5000)) ]; do sleep 1; done
        if ! sc state single; then sd="state: $ANS"
        else
            echo "$ANS" >"$WORK/state-sd1.json"
            sd=$(python3 - "$WORK" "$SRB" <<'EOF'
import json, sys
work, rb = sys.argv[1], int(sys.argv[2])
p0 = json.load(open(work + '/state-sd0.json'))['partitions'][0]
p1 = json.load(open(work + '/state-sd1.json'))['partitions'][0]
fin0 = sorted([s for s in p0['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED'], key=lambda s: s['start_offset'])
st1 = {s['segment_id']: s['state'] for s in p1['remote_segments']}
gone = [s['segment_id'] for s in fin0 if st1.get(s['segment_id'], 'DELETE_SEGMENT_FINISHED') != 'COPY_SEGMENT_FINISHED']
row = [x for x in json.load(open(work + '/sd.json'))['partitions'] if x['topic'] == 'single' and x['partition'] == 0][0]
size = row['retention']['size']
top = fin0[-1]
bad = []
if top['start_offset'] != top['end_offset'] or top['end_offset'] != p0['latest_tiered']:
    bad.append('the highest copied segment is %d..%d (LATEST_TIERED %d): the case proves nothing' % (top['start_offset'], top['end_offset'], p0['latest_tiered']))
if len(gone) != 4:
    bad.append('Kafka deleted %d remote segments, the broker\'s total should delete 4' % len(gone))
if size.get('delete_segment_ids') != gone:
    bad.append('segscan\'s size retention deletes %r (%s), Kafka deleted %r' % (size.get('delete_segment_ids'), size.get('reason'), gone))
notes = [n for n in row.get('notes', []) if 'KAFKA-20977' in str(n)]
line = [x for x in json.load(open(work + '/sd-line.json'))['partitions'] if x['topic'] == 'single' and x['partition'] == 0][0]
ls = line['retention']['size']
if ls.get('evaluated') is not False or 'KAFKA-20977' not in str(ls.get('reason')):
    bad.append('without --kafka-version (the 4.3 line) size retention is %r, not unknown naming KAFKA-20977' % {k: ls.get(k) for k in ('evaluated', 'reason', 'delete_segment_ids')})
print('FAIL ' + '; '.join(bad) if bad else
      'ok retention.bytes %d: Kafka deleted the %d remote segments segscan named (the strict total, %d bytes, deletes 3; '
      'the broker counts the one-offset segment %d..%d, %d bytes, twice); unknown for the 4.3 line%s' %
      (rb, len(gone), size.get('total_bytes'), top['start_offset'], top['end_offset'], top['size_bytes'], '' if notes else ' [no note in the row]'))
EOF
)
        fi
    fi
fi
verdict size_double_count "$sd"

# ---- undeletable_local: a record timestamped after the brokers' clock stops Kafka's local time
# retention at its segment (UnifiedLog.deleteRetentionMsBreachedSegments); the copied segments
# behind it, 20 h old against local.retention.ms 1 h, stay. Segments roll by size (1 MiB) here:
# a roll by time needs rising timestamps, so a held segment older than its blocker can only come
# from size rolls, as on a broker with the default segment.ms ----
future_warnings() { grep -c 'contains future timestamp' "$(node_of "$1" server_log)" 2>/dev/null; }
active_base() { # NODE PARTITION-DIR: the highest base offset among its .log files
    local f
    f=$(ls "$(node_of "$1" log_dir)/$2" 2>/dev/null | grep '\.log$' | sort | tail -n 1)
    [ -n "$f" ] && echo $((10#${f%.log}))
}
ul=""
if ! sc alter-topic future segment.ms=604800000; then ul="alter-topic: $ANS"
else
    for p in 0 1; do
        sc append future-$p 10 100000 now-72000000 1000 || { ul="append future-$p: $ANS"; break; }
        if [ $p -eq 0 ]; then
            sc append future-0 1 1000 now+1800000 || { ul="append future-0 (the future record): $ANS"; break; }
            echo "$ANS" >"$WORK/future-record.json"
        fi
        sc append future-$p 40 100000 now-71000000 1000 || { ul="append future-$p: $ANS"; break; }
    done
fi
if [ -z "$ul" ]; then
    for p in 0 1; do
        ab=$(active_base 1 future-$p)
        [ -n "$ab" ] || { ul="no segment of future-$p on node 1"; break; }
        sc wait-tiered future-$p $((ab - 1)) || { ul="wait-tiered future-$p: $ANS"; break; }
    done
fi
if [ -z "$ul" ]; then
    # a whole retention pass of each broker after the copies: two more of Kafka's warnings about
    # the blocking segment (every log.retention.check.interval.ms = 1 s), bounded
    w1=$(future_warnings 1); w2=$(future_warnings 2)
    for _ in $(seq 1 240); do
        [ "$(future_warnings 1)" -ge $((w1 + 2)) ] && [ "$(future_warnings 2)" -ge $((w2 + 2)) ] && break
        sleep 0.5
    done
    if [ "$(future_warnings 1)" -lt $((w1 + 2)) ] || [ "$(future_warnings 2)" -lt $((w2 + 2)) ]; then
        ul="Kafka never warned of the future timestamp again within 120 s (node 1: $w1 -> $(future_warnings 1), node 2: $w2 -> $(future_warnings 2))"
    fi
fi
if [ -z "$ul" ]; then
    # the control partition: its leader frees every copied segment of future-1 (bounded)
    for _ in $(seq 1 60); do
        sc state future || break
        echo "$ANS" >"$WORK/state-ul.json"
        L1=$(jget "$WORK/state-ul.json" "[p['leader'] for p in d['partitions'] if p['partition'] == 1][0]")
        [ "$(jget "$WORK/state-ul.json" "[p['earliest_local'] for p in d['partitions'] if p['partition'] == 1][0]")" = "$(active_base "$L1" future-1)" ] && break
        sleep 1
    done
    for n in 1 2; do
        scan "$n" "$WORK/ul-$n.json" || { ul="segscan scan on node $n: exit $?: $(head -c 300 "$WORK/ul-$n.json.err")"; break; }
        # the partition directories as Kafka left them, right after the scan: "NAME SIZE" lines
        for p in 0 1; do
            (cd "$(node_of "$n" log_dir)/future-$p" && for f in $(ls | grep '\.log$' | sort); do echo "$f $(stat -c %s "$f")"; done) \
                >"$WORK/ul-$n-future-$p.ls"
        done
    done
fi
if [ -z "$ul" ]; then
    ul=$(python3 - "$WORK" "$(jget "$WORK/future-record.json" "d['first_offset']")" <<'EOF'
import json, sys
work, fut = sys.argv[1], int(sys.argv[2])
st = json.load(open(work + '/state-ul.json'))
kp = {p['partition']: p for p in st['partitions']}
bad, said = [], []
def listing(n, p):
    return [(int(l.split()[0][:-4]), l.split()[0], int(l.split()[1])) for l in open('%s/ul-%d-future-%d.ls' % (work, n, p))]
for n in (1, 2):
    rep = json.load(open('%s/ul-%d.json' % (work, n)))
    segs = listing(n, 0)
    # the segment with the future record, and the closed ones behind it in remote storage
    # (Kafka's LATEST_TIERED), which Kafka still keeps
    blk = [s for s in segs if s[0] <= fut][-1]
    held = [s for i, s in enumerate(segs[:-1]) if s[0] > blk[0] and segs[i + 1][0] - 1 <= kp[0]['latest_tiered']]
    if segs[0][0] != blk[0]:
        bad.append('node %d: Kafka kept future-0 segments before the blocking one: %s' % (n, [s[1] for s in segs if s[0] < blk[0]]))
    if len(held) < 2:
        bad.append('node %d: %d copied segments behind the blocking one (the case proves nothing)' % (n, len(held)))
    for p in rep['partitions']:
        fs = [f for f in p['findings'] if f['code'] == 'UNDELETABLE_LOCAL_SEGMENT']
        if (p['topic'], p['partition']) != ('future', 0):
            if fs:
                bad.append('node %d: %s-%d: %s' % (n, p['topic'], p['partition'], fs[0]['message'][:200]))
            continue
        if len(fs) != 1:
            bad.append('node %d: future-0: %d UNDELETABLE_LOCAL_SEGMENT, want 1' % (n, len(fs)))
            continue
        f = fs[0]
        if f.get('ref') != 'KAFKA-20609':
            bad.append('node %d: ref %r' % (n, f.get('ref')))
        if f.get('segments') != len(held) or f.get('bytes') != sum(s[2] for s in held):
            bad.append('node %d: %r segments / %r bytes, Kafka keeps %d (%d bytes): %s' % (n, f.get('segments'), f.get('bytes'), len(held), sum(s[2] for s in held), [s[1] for s in held]))
        for s in held + [blk]:
            if s[1] not in f['message']:
                bad.append('node %d: %s not named in: %s' % (n, s[1], f['message'][:300]))
        if 'highest offset in remote storage %d' % kp[0]['latest_tiered'] not in f['message']:
            bad.append('node %d: Kafka\'s LATEST_TIERED %d not in: %s' % (n, kp[0]['latest_tiered'], f['message'][:300]))
        said.append('node %d: %d segments, %d bytes' % (n, f['segments'], f['bytes']))
    # the control: written alike without the future record; its leader freed every copied segment
    ctl = listing(n, 1)
    if n == kp[1]['leader'] and (len(ctl) != 1 or kp[1]['earliest_local'] != ctl[0][0]):
        bad.append('node %d: Kafka kept future-1 segments %s (EARLIEST_LOCAL %d): the control proves nothing' % (n, [s[1] for s in ctl], kp[1]['earliest_local']))
if kp[0]['earliest_local'] != [s for s in listing(kp[0]['leader'], 0) if s[0] <= fut][-1][0]:
    bad.append('Kafka\'s EARLIEST_LOCAL of future-0 is %d, not the blocking segment\'s base' % kp[0]['earliest_local'])
print('FAIL ' + '; '.join(bad[:4]) if bad else
      'ok UNDELETABLE_LOCAL_SEGMENT for exactly the copied segments Kafka keeps behind the future record (%s); '
      'future-1, freed by Kafka, and every other partition silent' % ', '.join(said))
EOF
)
fi
verdict undeletable_local "$ul"

# ---- jittered_followers: Aiven tiered-storage #562 (followers said to keep local segments whose
# boundaries differ from the leader's uploaded ones). jitter-0 (RF 2, segment.ms 60 s,
# segment.jitter.ms 50 s: each replica draws its own roll point per segment) gets 200 records 1 s
# apart in record time led by node 1, then leadership moves to node 2 (reassignment to 2,1 and a
# preferred-leader election) and 200 more; once LATEST_TIERED covers every closed segment of the
# new leader, the boundaries of the two replicas are compared (they must differ), local retention
# is cut to 1 s (the records are 20 h old) and Kafka is left to run it. Each replica must free
# every closed segment whose offsets are all in remote storage (bounded wait); then segscan on
# each broker's log dir must raise no UNDELETABLE_LOCAL_SEGMENT and find no local segment left
# for local retention (what Kafka kept, it keeps for a reason segscan knows too). ----
jf=""
jf_closed_copied() { # NODE LATEST_TIERED: closed segments of jitter-0 on NODE with every offset copied
    seg_listing "$1" jitter-0 | python3 -c "
import sys
b = [int(l.split()[0]) for l in sys.stdin]
print(sum(1 for i in range(len(b) - 1) if b[i + 1] - 1 <= $2))"
}
JF_T=$(( $(date +%s%3N) - 72000000 ))
if ! sc append jitter-0 200 2000 "$JF_T" 1000; then jf="append (led by node 1): $ANS"
elif ! sc reassign jitter-0 2,1; then jf="reassign: $ANS"
elif ! sc elect jitter-0; then jf="elect: $ANS"
elif [ "$(echo "$ANS" | jget - "d['leaders']['jitter-0']")" != 2 ]; then jf="leadership did not move: $ANS"
elif ! sc append jitter-0 200 2000 $((JF_T + 200000)) 1000; then jf="append (led by node 2): $ANS"
else
    ab=$(active_base 2 jitter-0)
    if [ -z "$ab" ]; then jf="no segment of jitter-0 on node 2"
    elif ! sc wait-tiered jitter-0 $((ab - 1)); then jf="wait-tiered: $ANS"
    elif ! sc state jitter; then jf="state: $ANS"
    else
        echo "$ANS" >"$WORK/state-jf0.json"
        # segscan on each replica before Kafka gets the new local.retention.ms (a what-if), then Kafka
        echo "jitter local.retention.ms=1000" >"$WORK/topic-config-jf.txt"
        for n in 1 2; do
            seg_listing $n jitter-0 >"$WORK/jf0-$n.ls"
            scan "$n" "$WORK/jf0-$n.json" --topic-config="$WORK/topic-config-jf.txt" ||
                { jf="segscan scan (what-if) on node $n: exit $?: $(head -c 300 "$WORK/jf0-$n.json.err")"; break; }
        done
        if [ -z "$jf" ] && ! sc alter-topic jitter local.retention.ms=1000; then jf="alter-topic: $ANS"; fi
    fi
fi
if [ -z "$jf" ]; then
    LT=$(jget "$WORK/state-jf0.json" "d['partitions'][0]['latest_tiered']")
    for _ in $(seq 1 240); do
        [ "$(jf_closed_copied 1 "$LT")" = 0 ] && [ "$(jf_closed_copied 2 "$LT")" = 0 ] && break
        sleep 0.5
    done
    # two more retention passes (log.retention.check.interval.ms=1000) for anything else Kafka frees
    sleep 2
    if ! sc state jitter; then jf="state: $ANS"
    else
        echo "$ANS" >"$WORK/state-jf1.json"
        for n in 1 2; do
            scan "$n" "$WORK/jf-$n.json" || { jf="segscan scan on node $n: exit $?: $(head -c 300 "$WORK/jf-$n.json.err")"; break; }
            seg_listing $n jitter-0 >"$WORK/jf1-$n.ls"
        done
    fi
fi
if [ -z "$jf" ]; then
    jf=$(python3 - "$WORK" <<'EOF'
import json, sys
work = sys.argv[1]
st0, st1 = json.load(open(work + '/state-jf0.json')), json.load(open(work + '/state-jf1.json'))
p0, p1 = st0['partitions'][0], st1['partitions'][0]
lt = p1['latest_tiered']
def listing(f):
    return [tuple(int(v) for v in l.split()) for l in open(f)]
bad, said = [], []
b0 = {n: [b for b, _ in listing('%s/jf0-%d.ls' % (work, n))] for n in (1, 2)}
only = {n: sorted(set(b0[n]) - set(b0[3 - n])) for n in (1, 2)}
if not only[1] and not only[2]:
    bad.append('the two replicas rolled at the same offsets (%s): the case proves nothing' % b0[1])
rem = sorted((s['start_offset'], s['end_offset'], s['broker_id']) for s in p0['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED')
for n in (1, 2):
    before, after = listing('%s/jf0-%d.ls' % (work, n)), listing('%s/jf1-%d.ls' % (work, n))
    ab = [b for b, _ in after]
    kept = [ab[i] for i in range(len(ab) - 1) if ab[i + 1] - 1 <= lt]
    freed = [b for b, _ in before if b not in ab]
    if kept:
        bad.append('node %d: Kafka kept closed segments with every offset in remote storage (LATEST_TIERED %d): %s' % (n, lt, kept))
    if len(freed) < 2:
        bad.append('node %d: Kafka freed %d segments (the case proves nothing)' % (n, len(freed)))
    straddle = [ab[i] for i in range(len(ab) - 1) if ab[i] <= lt < ab[i + 1] - 1]
    # before: segscan with the new local.retention.ms as a what-if names for local retention exactly
    # the closed segments with every offset copied (Kafka's isSegmentEligibleForDeletion), which
    # Kafka then freed, and calls none of them undeletable
    bb = [b for b, _ in before]
    lt0 = p0['latest_tiered']
    due = [bb[i] for i in range(len(bb) - 1) if bb[i + 1] - 1 <= lt0]
    w = [p for p in json.load(open('%s/jf0-%d.json' % (work, n)))['partitions'] if p['topic'] == 'jitter' and p['partition'] == 0]
    if len(w) != 1:
        bad.append('node %d: %d jitter-0 rows in segscan\'s what-if scan' % (n, len(w))); continue
    wl = (w[0].get('retention') or {}).get('local') or {}
    if wl.get('delete_base_offsets') != due:
        bad.append('node %d: segscan\'s local retention (what-if local.retention.ms=1000) deletes %r; the closed segments with every offset in remote storage (LATEST_TIERED %d) are %r' % (n, wl.get('delete_base_offsets'), lt0, due))
    if [b for b in due if b in ab]:
        bad.append('node %d: Kafka kept %r, which segscan forecast deleted' % (n, [b for b in due if b in ab]))
    fw = [f for f in w[0]['findings'] if f['code'] == 'UNDELETABLE_LOCAL_SEGMENT']
    if fw:
        bad.append('node %d (what-if): UNDELETABLE_LOCAL_SEGMENT on segments Kafka then freed: %s' % (n, fw[0]['message'][:300]))
    rep = json.load(open('%s/jf-%d.json' % (work, n)))
    jp = [p for p in rep['partitions'] if p['topic'] == 'jitter' and p['partition'] == 0]
    if len(jp) != 1:
        bad.append('node %d: %d jitter-0 rows in segscan\'s scan' % (n, len(jp))); continue
    jp = jp[0]
    fs = [f for f in jp['findings'] if f['code'] == 'UNDELETABLE_LOCAL_SEGMENT']
    if fs:
        bad.append('node %d: UNDELETABLE_LOCAL_SEGMENT where Kafka freed everything: %s' % (n, fs[0]['message'][:300]))
    loc = (jp.get('retention') or {}).get('local') or {}
    if not loc.get('evaluated') or loc.get('delete_segments') != []:
        bad.append('node %d: segscan\'s local retention %r where Kafka left nothing to delete' % (n, {k: loc.get(k) for k in ('evaluated', 'reason', 'delete_segments', 'delete_base_offsets')}))
    said.append('node %d (%s): %d closed segments due by segscan, %d freed by Kafka, %d left%s' % (n, 'leader' if p1['leader'] == n else 'follower', len(due), len(freed), len(ab),
                 ', one straddling LATEST_TIERED (%d) kept until the next upload' % straddle[0] if straddle else ''))
print('FAIL ' + '; '.join(bad[:4]) if bad else
      'ok boundaries differ (only node 1: %d bases, only node 2: %d; %d remote segments by brokers %s); %s; '
      'segscan: no UNDELETABLE_LOCAL_SEGMENT and nothing due for local retention on either' %
      (len(only[1]), len(only[2]), len(rem), sorted(set(r[2] for r in rem)), '; '.join(said)))
EOF
)
fi
verdict jittered_followers "$jf"
sc_stop
