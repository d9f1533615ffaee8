#!/usr/bin/env bash
# Tiering health against a real Kafka 4.3.1 cluster (tests/harness_lib.sh, docs/conformance.md
# "Scenario clusters"): 2 brokers, Kafka's own LocalTieredStorage with the stalling transferer,
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
#
# usage: bash tests/health_real.sh RESULTS
set -u
RESULTS=${1:?usage: health_real.sh RESULTS}
: >"$RESULTS"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN=${SEGSCAN:-$ROOT/build/segscan}
case "$SEGSCAN" in /*) ;; *) SEGSCAN="$ROOT/$SEGSCAN" ;; esac
CASES="stuck_copy stuck_released metadata_at_risk horizon_time"
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

sc_start "$WORK" --brokers 2 --rsm local-tiered-storage --topic orders:2:1 --rounds 2 \
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
sc_stop
