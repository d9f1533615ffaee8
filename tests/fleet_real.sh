#!/usr/bin/env bash
# Issue 22's proof on a real cluster: a fleet's sums equal Kafka's own answers, each partition
# counted once whatever its replication factor. One 3-broker Kafka 4.3.1 scenario cluster
# (tests/harness_lib.sh) with Kafka's own LocalTieredStorage, tiered topics at RF 1, 2 and 3
# (3 partitions each, partition p led by node p+1), __remote_log_metadata at RF 3 (Kafka's
# default: every broker holds every metadata partition, as on an operator's cluster), one copy
# held in each topic so copy lag is not 0; one `segscan serve` per broker on its own
# server.properties, a real Prometheus scraping the three with the shipped
# contrib/prometheus/segscan.rules.yml. Run by tests/test_fleet_real.c; one line per case to
# RESULTS:
#   PASS name (detail) | FAIL name: why | SKIP name: why
#
# Kafka's answers, per topic, each partition once: remote bytes = the brokers' RemoteLogSizeBytes
# over JMX summed (each broker's per-topic gauge covers the partitions it leads) = the
# COPY_SEGMENT_FINISHED bytes (RemoteLogMetadataSerde over the metadata topic) = the .log files
# LocalTieredStorage wrote; remote segments = the finished segments = those .log files; copy lag =
# the closed segment files in the leader's log dir above ListOffsets LATEST_TIERED (the leader is
# the one replica that copies); the broker's copy lag = its formula over those files (base offset
# >= LATEST_TIERED) while the copies are held (Kafka refreshes its RemoteCopyLag* gauges only when
# a copy task's run ends, so a held copy freezes them: 0 here while a segment waits), and
# RemoteCopyLagSegments/Bytes over JMX summed once the copies are let go (prometheus_released).
# Kafka's readings are taken before and after segscan's, and the comparison is tried again
# (bounded) while they move or disagree among themselves.
#
# usage: bash tests/fleet_real.sh RESULTS
set -u
RESULTS=${1:?usage: fleet_real.sh RESULTS}
: >"$RESULTS"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN=${SEGSCAN:-$ROOT/build/segscan}
case "$SEGSCAN" in /*) ;; *) SEGSCAN="$ROOT/$SEGSCAN" ;; esac
# shellcheck source=tests/harness_lib.sh
. "$ROOT/tests/harness_lib.sh"
CASES="prometheus_rules node_labels merge topic_level prometheus_released"
KV=${FLEET_REAL_KAFKA:-4.3.1}
TOPICS="fl-rf1 fl-rf2 fl-rf3"
HELD="fl-rf1-0 fl-rf2-1 fl-rf3-2"   # one copy held per topic, each led by another node
T0=$(date +%s)

res() { echo "$*" >>"$RESULTS"; echo "fleet_real: $*" >&2; }
done_case() { grep -q "^[A-Z]* $1\b" "$RESULTS"; }
skip_rest() { for c in $CASES; do done_case "$c" || res "SKIP $c: $1"; done; exit 0; }
fail_rest() { for c in $CASES; do done_case "$c" || res "FAIL $c: $1"; done; exit 0; }
secs() { echo $(( $(date +%s) - $1 )); }

command -v python3 >/dev/null 2>&1 || fail_rest "python3 not found"
command -v curl >/dev/null 2>&1 || fail_rest "curl not found"
command -v prometheus >/dev/null 2>&1 ||
    skip_rest "prometheus not installed (scripts/install-deps.sh installs it)"
harness_build "$KV"; rc=$?
[ $rc -eq 2 ] && skip_rest "java 17+ or mvn not found (scripts/install-deps.sh installs them)"
[ $rc -ne 0 ] && fail_rest "the harness did not build against Kafka $KV (see build/kafka-oracle/harness-$KV.maven.log)"

WORK=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/fleet-real.XXXXXX")
SERVE_PIDS=()
cleanup() {
    local p
    for p in "${SERVE_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    harness_cleanup
    [ -z "${KEEP_HARNESS_WORK:-}" ] && rm -rf "$WORK"
}
trap cleanup EXIT

t=$(date +%s)
topics=()
for tp in $TOPICS; do topics+=(--topic "$tp:3:${tp#fl-rf}"); done
sc_start "$WORK" --brokers 3 "${topics[@]}" \
    --broker-config rlmm.config.remote.log.metadata.topic.replication.factor=3 ||
    fail_rest "the scenario cluster did not start, twice: $ANS (work dir $WORK, stderr $WORK/sc.err)"
H=$WORK/hello.json
echo "fleet_real: cluster up in $(secs "$t")s: $(jget "$H" "d['bootstrap']") Kafka $(jget "$H" "d['kafka_version']")" >&2

# ---- a copy held in each topic: one more round, every other partition's segment copied ----
stall=()
for p in $HELD; do stall+=("partition=$p"); done
sc stall "${stall[@]}" || fail_rest "stall: $ANS"
sc produce || fail_rest "produce: $ANS"
sc wait-stalled 3 || fail_rest "wait-stalled 3: $ANS"
copied=""
for _ in $(seq 1 240); do
    sc state || fail_rest "state: $ANS"
    copied=$(echo "$ANS" | python3 -c '
import json, sys
d, held = json.load(sys.stdin), sys.argv[1].split()
late = ["%s-%d" % (p["topic"], p["partition"]) for p in d["partitions"]
        if "%s-%d" % (p["topic"], p["partition"]) not in held and p["latest_tiered"] < p["closed_end"]]
print(" ".join(late) if late else "ok")' "$HELD")
    [ "$copied" = ok ] && break
    sleep 0.5
done
[ "$copied" = ok ] || fail_rest "the partitions not held were not copied within 120 s: $copied"

# ---- one segscan serve per broker, on its own server.properties, each on a free port ----
free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()"; }
NODE_PORTS=""
for n in $(jget "$H" "' '.join('%d:%s' % (n['id'], n['server_properties']) for n in d['nodes'])"); do
    id=${n%%:*}; props=${n#*:}; log=$WORK/serve-$id.log; up=""
    for try in 1 2 3 4 5; do
        port=$(free_port)
        : >"$log"
        "$SEGSCAN" serve --listen="127.0.0.1:$port" --interval=1 --metrics-extra \
            --server-properties="$props" 2>"$log" &
        pid=$!
        for _ in $(seq 1 400); do   # 100 s: the first scan of a live broker on a loaded machine
            curl -sf --max-time 5 "http://127.0.0.1:$port/healthz" -o /dev/null && { up=1; break; }
            grep -q 'cannot listen' "$log" && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
        [ -n "$up" ] && break
        kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    done
    [ -n "$up" ] || fail_rest "segscan serve for node $id did not become healthy (log: $(tail -c 300 "$log"))"
    SERVE_PIDS+=("$pid")
    NODE_PORTS="$NODE_PORTS $id:$port"
done
echo "fleet_real: serve per node (node:port):$NODE_PORTS" >&2

# ---- Prometheus over the three, with the shipped rules ----
{
    echo "global: {scrape_interval: 1s, evaluation_interval: 1s, scrape_timeout: 1s}"
    echo "scrape_configs:"
    echo "  - job_name: segscan"
    echo "    static_configs:"
    echo "      - targets: [$(for np in $NODE_PORTS; do printf "'127.0.0.1:%s'," "${np#*:}"; done | sed 's/,$//')]"
    echo "        labels: {cluster: fleet-real}"
} >"$WORK/prometheus.yml"
t=$(date +%s)
prom_start --config "$WORK/prometheus.yml" --rules "$ROOT/contrib/prometheus/segscan.rules.yml" \
    --wait-for 'cluster:segscan_remote_size_bytes:sum' >/dev/null ||
    fail_rest "Prometheus did not start, scrape the three serves or evaluate the rules"
echo "fleet_real: prometheus up in $(secs "$t")s" >&2

cat >"$WORK/check.py" <<'EOF'
# check.py WORK NODE_PORTS TOPICS PHASE: one verdict line per case ("PASS c (..)", "FAIL c: ..")
# or a single "unstable: why" while Kafka's own readings move or disagree among themselves.
# PHASE held: a copy is held in each topic. Kafka refreshes its RemoteCopyLag* gauges only when a
# copy task's run ends (RemoteLogManager's recordLagStats in its finally), so a held copy freezes
# them at their last value: the broker's copy lag is then its own formula over the leader's files
# (closed segments with base offset >= highestOffsetInRemoteStorage = LATEST_TIERED), the JMX
# reading only shown. PHASE released: every copy done, the gauges current: the broker's copy lag
# is RemoteCopyLagSegments/Bytes over JMX, and they must equal the formula (else unstable).
import glob, json, os, re, sys
work, node_ports, topics, phase = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4]
J = lambda n: json.load(open(os.path.join(work, n)))
hello, st0, st1, jmx = J('hello.json'), J('k-state0.json'), J('k-state1.json'), J('k-jmx.json')
port_node = {'127.0.0.1:' + np.split(':')[1]: int(np.split(':')[0]) for np in node_ports}
nodes = {n['id']: n for n in hello['nodes']}
store = hello['remote_store']
tids = {t['name']: t['topic_id'] for t in hello['topics']}
FIGS = ('remote_size_bytes', 'remote_segments', 'remote_copy_lag_segments', 'remote_copy_lag_bytes',
        'broker_reported_copy_lag_segments', 'broker_reported_copy_lag_bytes')

def view(st):
    return {(p['topic'], p['partition']): (p['leader'], tuple(p['replicas']), p['latest_tiered'],
            sorted(s['segment_id'] for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED'),
            p['remote_finished_bytes']) for p in st['partitions'] if p['topic'] in topics}
if view(st0) != view(st1):
    print('unstable: Kafka state changed during the readings'); sys.exit(0)
parts = view(st1)

# ---- Kafka's answers ----
K = {t: dict.fromkeys(FIGS, 0) for t in topics}
K_state_bytes = {t: 0 for t in topics}
K_lts = {t: [0, 0] for t in topics}
K_ge = {t: [0, 0] for t in topics}   # the broker's formula (base >= highest) over the files
for (t, p), (leader, reps, lt, fin, fbytes) in parts.items():
    K_state_bytes[t] += fbytes
    K[t]['remote_segments'] += len(fin)
    logs = glob.glob(os.path.join(store, '%s-%d-%s' % (t, p, tids[t]), '*.log'))
    K_lts[t][0] += len(logs); K_lts[t][1] += sum(os.path.getsize(f) for f in logs)
    d = os.path.join(nodes[leader]['log_dir'], '%s-%d' % (t, p))
    segs = sorted((int(f[:-4]), os.path.getsize(os.path.join(d, f))) for f in os.listdir(d) if re.fullmatch(r'\d{20}\.log', f))
    closed = segs[:-1]   # the highest base is the active segment
    lag = [s for s in closed if s[0] > lt]
    K[t]['remote_copy_lag_segments'] += len(lag); K[t]['remote_copy_lag_bytes'] += sum(s[1] for s in lag)
    ge = [s for s in closed if s[0] >= lt]
    K_ge[t][0] += len(ge); K_ge[t][1] += sum(s[1] for s in ge)
J_lag = {t: [0, 0] for t in topics}
for n in jmx['nodes']:
    for t, ms in n.get('topics', {}).items():
        if t in K:
            K[t]['remote_size_bytes'] += ms.get('RemoteLogSizeBytes', 0)
            J_lag[t][0] += ms.get('RemoteCopyLagSegments', 0)
            J_lag[t][1] += ms.get('RemoteCopyLagBytes', 0)
for t in topics:
    if K[t]['remote_size_bytes'] != K_state_bytes[t] or K_lts[t] != [K[t]['remote_segments'], K_state_bytes[t]]:
        print('unstable: %s: RemoteLogSizeBytes %d, finished bytes %d, LocalTieredStorage files %r'
              % (t, K[t]['remote_size_bytes'], K_state_bytes[t], K_lts[t])); sys.exit(0)
    if phase == 'released' and J_lag[t] != K_ge[t]:
        print('unstable: %s: RemoteCopyLag %r over JMX, the leaders\' files %r' % (t, J_lag[t], K_ge[t])); sys.exit(0)
    K[t]['broker_reported_copy_lag_segments'], K[t]['broker_reported_copy_lag_bytes'] = J_lag[t] if phase == 'released' else K_ge[t]
weak = [t for t in topics if K[t]['remote_size_bytes'] <= 0 or (phase == 'held' and K[t]['remote_copy_lag_segments'] <= 0)]
if phase == 'released' and any(K[t]['remote_copy_lag_segments'] for t in topics):
    print('unstable: copy lag left after the release: %r' % {t: K[t]['remote_copy_lag_segments'] for t in topics}); sys.exit(0)
KC = {f: sum(K[t][f] for t in topics) for f in FIGS}
kshow = ' '.join('%s=%d/%d/%d' % (t, K[t]['remote_size_bytes'], K[t]['remote_segments'], K[t]['remote_copy_lag_segments'])
                 for t in topics)

def verdict(case, bad, ok):
    if weak:
        bad = bad + ['no remote bytes or no copy lag in %s (the case proves nothing)' % weak]
    print('FAIL %s: %s' % (case, '; '.join(bad[:4])) if bad else 'PASS %s (%s)' % (case, ok))

def prom(name):
    d = J('p-%s.json' % name)
    return [(r['metric'], float(r['value'][1])) for r in d['data']['result']]

# ---- prometheus_rules: the shipped rules' per-topic and cluster figures ----
bad = []
for f in FIGS:
    got = {m.get('topic'): v for m, v in prom('cluster_topic:segscan_%s:sum' % f) if m.get('cluster') == 'fleet-real'}
    for t in topics:
        if got.get(t) != K[t][f]:
            bad.append('cluster_topic:segscan_%s:sum{topic="%s"} %r, Kafka %d' % (f, t, got.get(t), K[t][f]))
    c = [v for m, v in prom('cluster:segscan_%s:sum' % f) if m.get('cluster') == 'fleet-real']
    if c != [KC[f]]:
        bad.append('cluster:segscan_%s:sum %r, Kafka %d' % (f, c, KC[f]))
# the raw series exist once per replica: a plain sum would count RF times (what the rules avoid)
raw = {}
for m, v in prom('segscan_remote_size_bytes'):
    raw.setdefault(m.get('topic'), []).append(v)
for t in topics:
    rf = int(t[len('fl-rf'):])
    if len(raw.get(t, [])) != 3 * rf or sum(raw.get(t, [])) != rf * K[t]['remote_size_bytes']:
        bad.append('%s: %d segscan_remote_size_bytes series summing to %r, want %d replicas and %d x %d'
                   % (t, len(raw.get(t, [])), sum(raw.get(t, [])), 3 * rf, rf, K[t]['remote_size_bytes']))
if phase == 'released':
    verdict('prometheus_released', bad, 'every copy done: per topic and cluster = Kafka, the broker-reported copy lag '
            '= RemoteCopyLagSegments/Bytes over JMX (remote bytes/segments/copy lag segments per topic: %s; broker-reported '
            '%d segments); the raw replicas sum RF times' % (kshow, KC['broker_reported_copy_lag_segments']))
    sys.exit(0)
verdict('prometheus_rules', bad, 'per topic and cluster, each partition once, = Kafka (remote bytes/segments/copy lag '
        'segments per topic: %s; cluster remote %d B, copy lag %d B, broker-reported %d B by the leaders\' files; JMX '
        'RemoteCopyLagSegments frozen by the held copies at %r); the raw replicas sum RF times'
        % (kshow, KC['remote_size_bytes'], KC['remote_copy_lag_bytes'], KC['broker_reported_copy_lag_bytes'],
           {t: J_lag[t][0] for t in topics}))

# ---- node_labels: every series names the node it came from; the leader series is Kafka's leader ----
bad = []
series = prom('partition_series')
for m, v in series:
    want = port_node.get(m.get('instance'))
    if m.get('node_id') != str(want):
        bad.append('%s{topic="%s",partition="%s"} from node %s has node_id %r'
                   % (m['__name__'], m.get('topic'), m.get('partition'), want, m.get('node_id')))
        break
lead = {}
for m, v in prom('segscan_partition_leader'):
    if m.get('topic') in topics:
        lead.setdefault((m['topic'], int(m['partition'])), []).append((int(m['node_id']), v))
for (t, p), (leader, reps, *_x) in parts.items():
    got = sorted(lead.get((t, p), []))
    want = sorted((r, 1.0 if r == leader else 0.0) for r in reps)
    if got != want:
        bad.append('%s-%d: segscan_partition_leader (node, value) %r, Kafka: leader %d of %r' % (t, p, got, leader, list(reps)))
info = {port_node.get(m.get('instance')): m for m, v in prom('segscan_broker_info') if v == 1}
for nid in nodes:
    m = info.get(nid)
    if not m or m.get('node_id') != str(nid) or m.get('cluster_id') != hello['cluster_id'] or \
       m.get('kafka_version') not in (None, '', '4.3', '4.3.1'):
        bad.append('node %d: segscan_broker_info %r, Kafka: node %d of cluster %s, release 4.3.1' % (nid, m, nid, hello['cluster_id']))
ex = {port_node.get(m.get('instance')): v for m, v in prom('segscan_scan_exit_code')}
if ex != {nid: 0.0 for nid in nodes}:
    bad.append('segscan_scan_exit_code per node %r' % ex)
verdict('node_labels', bad, '%d partition series each with its broker\'s node_id; segscan_partition_leader 1 exactly on '
        'Kafka\'s leader of each of the %d partitions; segscan_broker_info node and cluster id = Kafka\'s'
        % (len(series), len(parts)))

# ---- merge: segscan merge of the three serve endpoints ----
bad = []
try:
    mg = J('merge.json')
except Exception as e:
    mg = None
    bad.append('segscan merge wrote no json: %s (exit %s)' % (e, open(os.path.join(work, 'merge.rc')).read().strip()))
if mg is not None:
    rc = open(os.path.join(work, 'merge.rc')).read().strip()
    s = mg['summary']
    if rc != '0' or not s.get('complete'):
        bad.append('exit %s, complete %r, incomplete %r' % (rc, s.get('complete'), s.get('incomplete')))
    if s.get('cluster_id') != hello['cluster_id']:
        bad.append('cluster_id %r, Kafka %r' % (s.get('cluster_id'), hello['cluster_id']))
    mt = {x['topic']: x for x in mg['topics']}
    mf = {'remote_bytes': 'remote_size_bytes', 'remote_segments': 'remote_segments',
          'copy_lag_segments': 'remote_copy_lag_segments', 'copy_lag_bytes': 'remote_copy_lag_bytes'}
    for t in topics:
        for a, b in mf.items():
            if (mt.get(t) or {}).get(a) != K[t][b]:
                bad.append('topic %s %s %r, Kafka %d' % (t, a, (mt.get(t) or {}).get(a), K[t][b]))
    for a, b in mf.items():
        other = sum((x.get(a) or 0) for x in mg['topics'] if x['topic'] not in topics)
        if s.get(a) is None or s.get(a) - other != KC[b]:
            bad.append('summary %s %r (other topics %d), Kafka %d' % (a, s.get(a), other, KC[b]))
    for mp in mg['partitions']:
        key = (mp['topic'], mp['partition'])
        if key not in parts:
            continue
        leader, reps, lt, fin, fbytes = parts[key]
        r = mp.get('remote') or {}
        if mp.get('leader') != leader or (r.get('segments'), r.get('size_bytes'), r.get('highest_offset')) != (len(fin), fbytes, lt):
            bad.append('%s-%d: leader %r, remote %r; Kafka: leader %d, %d finished, %d bytes, LATEST_TIERED %d'
                       % (key + (mp.get('leader'), r, leader, len(fin), fbytes, lt)))
        if mp.get('findings'):
            bad.append('%s-%d: finding %s on a healthy cluster' % (key + (mp['findings'][0].get('code'),)))
verdict('merge', bad, 'the three serve endpoints merged, complete: per topic and cluster remote bytes, segments and '
        'copy lag = Kafka\'s; each partition\'s leader and remote state = Kafka\'s')

# ---- topic_level: --metrics-level=topic on each broker, summed over the brokers ----
bad = []
tfig = {'remote_size_bytes': 'segscan_topic_remote_size_bytes', 'remote_segments': 'segscan_topic_remote_segments',
        'remote_copy_lag_segments': 'segscan_topic_remote_copy_lag_segments',
        'remote_copy_lag_bytes': 'segscan_topic_remote_copy_lag_bytes',
        'broker_reported_copy_lag_segments': 'segscan_topic_broker_reported_copy_lag_segments',
        'broker_reported_copy_lag_bytes': 'segscan_topic_broker_reported_copy_lag_bytes'}
tsum, led, nser = {}, {}, 0
for nid in nodes:
    for line in open(os.path.join(work, 'topic-%d.prom' % nid)):
        m = re.match(r'(segscan_topic_\w+)\{topic="([^"]*)",node_id="(\d+)"\} (\S+)$', line.strip())
        if not m or m.group(2) not in topics:
            continue
        nser += 1
        if int(m.group(3)) != nid:
            bad.append('node %d wrote %s with node_id %s' % (nid, m.group(1), m.group(3)))
        tsum[(m.group(1), m.group(2))] = tsum.get((m.group(1), m.group(2)), 0) + float(m.group(4))
for t in topics:
    for f, name in tfig.items():
        if tsum.get((name, t)) != K[t][f]:
            bad.append('sum over brokers of %s{topic="%s"} %r, Kafka %d' % (name, t, tsum.get((name, t)), K[t][f]))
    if tsum.get(('segscan_topic_leader_partitions', t)) != 3:
        bad.append('%s: segscan_topic_leader_partitions sum %r, 3 partitions' % (t, tsum.get(('segscan_topic_leader_partitions', t))))
verdict('topic_level', bad, '%d per-topic series from the three brokers; their sums = Kafka\'s per topic' % nser)
EOF

# ---- the comparison: Kafka's readings around segscan's (tried again while Kafka's move) ----
PORTS=$(for np in $NODE_PORTS; do printf '%s ' "${np#*:}"; done)
# compare PHASE FIRST_CASE: reads Kafka, waits for segscan's scans after it, reads Prometheus,
# merge and the topic level, reads Kafka again, and prints check.py's verdicts (bounded tries)
compare() {
    local phase=$1 first=$2 out="" try f q p n
    for try in $(seq 1 15); do
        sc state || { out="FAIL state: $ANS"; break; }
        echo "$ANS" >"$WORK/k-state0.json"
        sc jmx || { out="FAIL jmx: $ANS"; break; }
        echo "$ANS" >"$WORK/k-jmx.json"
        since=$(date +%s.%N)
        # every serve has published a scan that started after Kafka's reading, and the rules
        # were evaluated on a scrape of it (bounded)
        prom_wait "count(segscan_scan_last_success_timestamp_seconds - segscan_scan_duration_seconds > $since) == 3" 90 >/dev/null ||
            { out="FAIL no scan after Kafka's reading published by all three serves within 90 s"; continue; }
        seen=$(date +%s.%N)
        prom_wait "min(timestamp(cluster:segscan_remote_size_bytes:sum)) > $seen" 60 >/dev/null ||
            { out="FAIL the rules were not evaluated within 60 s"; continue; }
        for f in remote_size_bytes remote_segments remote_copy_lag_segments remote_copy_lag_bytes \
                 broker_reported_copy_lag_segments broker_reported_copy_lag_bytes; do
            prom_q "cluster_topic:segscan_$f:sum" >"$WORK/p-cluster_topic:segscan_$f:sum.json"
            prom_q "cluster:segscan_$f:sum" >"$WORK/p-cluster:segscan_$f:sum.json"
        done
        for q in segscan_remote_size_bytes segscan_partition_leader segscan_broker_info segscan_scan_exit_code; do
            prom_q "$q" >"$WORK/p-$q.json"
        done
        prom_q '{job="segscan",topic=~"fl-.*",__name__=~"segscan_.*"}' >"$WORK/p-partition_series.json"
        if [ "$phase" = held ]; then
            urls=()
            for p in $PORTS; do urls+=("http://127.0.0.1:$p"); done
            rm -f "$WORK/merge.json"
            timeout 120 "$SEGSCAN" merge -f json "${urls[@]}" >"$WORK/merge.json" 2>"$WORK/merge.err"
            echo $? >"$WORK/merge.rc"
            for n in $(jget "$H" "' '.join('%d:%s' % (n['id'], n['server_properties']) for n in d['nodes'])"); do
                timeout 120 "$SEGSCAN" scan -q -f prom --metrics-level=topic --server-properties="${n#*:}" \
                    >"$WORK/topic-${n%%:*}.prom" 2>"$WORK/topic-${n%%:*}.err"
            done
        fi
        sc state || { out="FAIL state: $ANS"; break; }
        echo "$ANS" >"$WORK/k-state1.json"
        out=$(python3 "$WORK/check.py" "$WORK" "$NODE_PORTS" "$TOPICS" "$phase" 2>&1)
        echo "fleet_real: $phase, try $try: $(echo "$out" | cut -c1-240 | tr '\n' '|')" >&2
        # a FAIL is tried again a few times: a follower's replica of a metadata partition may
        # still be behind its leader when Kafka's readings already agree
        case "$out" in unstable*) sleep 1 ;; *FAIL*) [ "$try" -lt 4 ] && sleep 2 || break ;; *) break ;; esac
    done
    case "$out" in
        unstable*) res "FAIL $first: Kafka's own readings did not settle in 15 tries: $out" ;;
        "PASS $first"*|"FAIL $first"*) echo "$out" | while IFS= read -r l; do res "$l"; done ;;
        *) res "FAIL $first: ${out#FAIL }" ;;
    esac
}
compare held prometheus_rules
for c in node_labels merge topic_level; do done_case "$c" || res "FAIL $c: no verdict (see prometheus_rules)"; done

# ---- every copy let go: Kafka's gauges current again, the same sums with JMX's copy lag ----
if sc release && sc wait-copied; then
    compare released prometheus_released
else
    res "FAIL prometheus_released: release / wait-copied: $ANS"
fi
sc_stop
echo "fleet_real: all cases in $(secs "$T0")s" >&2
exit 0
