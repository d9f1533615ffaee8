#!/usr/bin/env bash
# KAFKA-21098 on real brokers (tests/harness_lib.sh, docs/conformance.md "Scenario clusters"): the
# same workload on Kafka 4.3.1 (the bug) and 4.4.0 (the fix, apache/kafka#23471), 2 brokers each,
# Kafka's own LocalTieredStorage with held deletes (Scenario --delete-stall: lts.DeleteStallingLts;
# 4.4.0 has no kafka-storage test jar on Maven Central, so its broker runs 4.3.1's
# LocalTieredStorage: build.sh KAFKA_LTS_FROM=4.3.1), the real JMX exporter on every broker. Run
# by tests/test_dellag_real.c; one line per case to RESULTS: PASS name [detail] | FAIL name: why |
# SKIP name: why
#
# The workload: topic dl, 1 partition on brokers [1, 2] (leader 1); 7 segments of records 24 h
# old and 3 of records minutes old copied to remote storage; then retention.ms 23 h. Broker 1's
# expiration pass picks the 7 old segments (RemoteDeleteLagSegments 7) and its first delete is
# held inside the RSM. The leadership moves to broker 2 (reassignment to [2, 1], preferred-leader
# election): Kafka cancels broker 1's task, interrupts its thread and removes broker 1's gauges.
# Broker 2's own pass is held at its first delete (the segment broker 1 left DELETE_SEGMENT_STARTED),
# then broker 1's held delete is released and its pass goes on past the move; then broker 2's.
#
#   gauge_latched      4.3.1: broker 1's gauges, read through its JMX exporter, are 7 while its
#                      pass runs, gone with the move, then back at 6 segments (and the bytes of the
#                      6) once the pass went on, and still there after broker 2 deleted every
#                      expired segment and reports 0: a delete lag for a topic broker 1 no longer
#                      leads any partition of
#   gauge_not_latched  4.4.0: the same workload (the pass went on past the move, as above) leaves
#                      broker 1's gauges at 0
#   prometheus_rule    contrib/prometheus/segscan.rules.yml in a real Prometheus scraping a segscan
#                      serve per broker and the brokers' JMX exporters (labelled with node_id):
#                      4.3.1: cluster_node_topic:segscan_phantom_delete_lag_segments:max of broker 1
#                      = its latched gauge (bytes too) and SegscanPhantomRemoteDeleteLag pending
#                      for it; 4.4.0: 0 and nothing pending; broker 2 (the leader) 0 where segscan
#                      exports its delete lag, no series where it does not (unknown)
#   phantom_finding    segscan scan of broker 1's log dir with --broker-metrics=<its exporter>:
#                      PHANTOM_DELETE_LAG for dl naming the gauge's 6 segments and bytes on 4.3.1;
#                      none on 4.4.0
#   true_lag           segscan's delete_lag of dl-0 on broker 2 equals what broker 2's expiration
#                      task reports: while its pass is held, 7 segments, and the bytes Kafka counts
#                      plus those of the retried DELETE_SEGMENT_STARTED segment (Kafka counts that
#                      segment without its bytes; segscan's size_bytes with them, docs/contract.md);
#                      after it has run, (0, 0); on both releases. SKIP while this segscan reports
#                      no delete_lag
#
# usage: bash tests/dellag_real.sh RESULTS
set -u
RESULTS=${1:?usage: dellag_real.sh RESULTS}
: >"$RESULTS"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN=${SEGSCAN:-$ROOT/build/segscan}
case "$SEGSCAN" in /*) ;; *) SEGSCAN="$ROOT/$SEGSCAN" ;; esac
CASES="gauge_latched gauge_not_latched prometheus_rule phantom_finding true_lag"
OLD=${DELLAG_REAL_BUGGY:-4.3.1}
NEW=${DELLAG_REAL_FIXED:-4.4.0}
T=dl

res() { echo "$*" >>"$RESULTS"; echo "dellag_real: $*" >&2; }
done_case() { grep -q "^[A-Z]* $1\b" "$RESULTS"; }
skip_rest() { for c in $CASES; do done_case "$c" || res "SKIP $c: $1"; done; exit 0; }
fail_rest() { for c in $CASES; do done_case "$c" || res "FAIL $c: $1"; done; exit 0; }

[ -f "$ROOT/tests/harness_lib.sh" ] || skip_rest "the scenario-cluster harness (tests/harness_lib.sh) is not in this tree"
# shellcheck source=tests/harness_lib.sh
. "$ROOT/tests/harness_lib.sh"
command -v python3 >/dev/null 2>&1 || fail_rest "python3 not found"
command -v curl >/dev/null 2>&1 || fail_rest "curl not found"
{ command -v java && command -v mvn; } >/dev/null 2>&1 || skip_rest "java 17+ or mvn not found (scripts/install-deps.sh installs them)"

WORK=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/dellag-real.XXXXXX")
cleanup() { stop_serves; harness_cleanup; [ -z "${KEEP_HARNESS_WORK:-}" ] && rm -rf "$WORK"; }
trap cleanup EXIT

# What this segscan can say: --broker-metrics (the broker's gauges) and delete_lag (issue 27).
HAVE_BM=0; "$SEGSCAN" scan --help 2>&1 | grep -q -- '--broker-metrics' && HAVE_BM=1

node_of() { jget "$H" "[n['$2'] for n in d['nodes'] if n['id'] == $1][0]"; }

# bm NODE: --broker-metrics=<the node's exporter> where this segscan has the option
bm() { [ $HAVE_BM -eq 1 ] && echo "--broker-metrics=$(node_of "$1" metrics_url)"; }

# exporter NODE OUT: the node's JMX exporter page (Prometheus text), as an operator's scrape gets it
exporter() { curl -s --max-time 60 "$(node_of "$1" metrics_url)" >"$2"; }

# scan NODE OUT [OPTIONS...]: segscan on node NODE as its operator would run it
scan() {
	local node=$1 out=$2
	shift 2
	timeout 180 "$SEGSCAN" scan -q -f json --server-properties="$(node_of "$node" server_properties)" \
		--bootstrap-server="$BOOT" "$@" >"$out" 2>"$out.err"
}

# step NAME COMMAND...: one harness command; on failure the release's run stops with why
step() {
	local what=$1; shift
	sc "$@" && return 0
	echo "$what: $ANS" >"$D/error"
	return 1
}

# run_release VERSION TAG [LTS_FROM]: the workload; what it read lands in $WORK/TAG/
run_release() {
	local kv=$1 tag=$2 lts=${3:-} n0 n1
	D=$WORK/$tag
	mkdir -p "$D"
	KAFKA_LTS_FROM=$lts harness_build "$kv" ||
		{ echo "the harness did not build against Kafka $kv${lts:+ with LocalTieredStorage $lts}" >"$D/error"; return 1; }
	sc_start "$D/sc" --brokers 2 --rsm local-tiered-storage --delete-stall --topic "$T:1:2" --rounds 7 ||
		{ echo "the scenario cluster did not start, twice: $ANS" >"$D/error"; return 1; }
	H=$D/sc/hello.json
	BOOT=$(jget "$H" "d['bootstrap']")
	STALL=$(jget "$H" "d['stall_dir']")
	jget "$H" "d['kafka_version']" >"$D/kafka_version"
	# 3 segments of records minutes old after the 7 of a day ago (each record rolls one: segment.ms
	# is 60 s of record time), so broker 2 keeps remote segments after the deletes and its next
	# pass sets its gauges to 0 (Kafka sets them only while the partition has remote segments)
	step append append "$T-0" 4 100 now-600000 120000 || return 1
	step wait-tiered wait-tiered "$T-0" "$(($(echo "$ANS" | jget - "d['last_offset']") - 1))" || return 1
	step state state "$T" || return 1
	echo "$ANS" >"$D/state0.json"
	step stall-delete-1 stall-delete 1 "partition=$T-0" || return 1
	step alter-topic alter-topic "$T" retention.ms=82800000 || return 1
	step wait-delete-stalled-1 wait-delete-stalled 1 || return 1
	echo "$ANS" >"$D/held1.json"
	step gauge-before gauge 1 "$T" RemoteDeleteLagSegments present || return 1
	exporter 1 "$D/node1-held.prom"
	# broker 2 holds its first delete too, so its gauge can be read while its pass runs
	step stall-delete-2 stall-delete 2 "partition=$T-0" || return 1
	step reassign reassign "$T-0" 2,1 || return 1
	step elect elect "$T-0" || return 1
	echo "$ANS" >"$D/elect.json"
	step gauge-removed gauge 1 "$T" RemoteDeleteLagSegments zero || return 1
	exporter 1 "$D/node1-moved.prom"
	step wait-delete-stalled-2 wait-delete-stalled 2 || return 1
	echo "$ANS" >"$D/held2.json"
	step gauge-2 gauge 2 "$T" RemoteDeleteLagSegments present || return 1
	exporter 2 "$D/node2-held.prom"
	step state state "$T" || return 1
	echo "$ANS" >"$D/state-held2.json"
	scan 2 "$D/scan2-held.json" $(bm 2)
	# broker 1's pass goes on past the move: its held delete finishes, the rest are skipped
	# (Kafka logs "could not be deleted" for them, after the loop that re-publishes the gauge)
	n0=$(grep -c 'could not be deleted' "$(node_of 1 server_log)")
	step release-delete-1 release-delete 1 || return 1
	echo "$ANS" >"$D/released1.json"
	for _ in $(seq 1 480); do
		n1=$(grep -c 'could not be deleted' "$(node_of 1 server_log)")
		[ "$n1" -gt "$n0" ] && break
		sleep 0.25
	done
	[ "$n1" -gt "$n0" ] || { echo "broker 1's pass never went on past the move: no \"could not be deleted\" within 120 s" >"$D/error"; return 1; }
	grep 'could not be deleted' "$(node_of 1 server_log)" | tail -n 1 >"$D/node1-skipped.log"
	exporter 1 "$D/node1-after.prom"
	[ $HAVE_BM -eq 1 ] && scan 1 "$D/scan1-after.json" --broker-metrics="$(node_of 1 metrics_url)"
	# broker 2 goes on: every expired segment deleted, then a pass with nothing to delete
	step release-delete-2 release-delete 2 || return 1
	step deleted wait-remote "$T-0" DELETE_SEGMENT_FINISHED "$(jget "$D/state0.json" \
		"len([s for p in d['partitions'] for s in p['remote_segments'] if s['max_timestamp_ms'] < d['taken_ms'] - 82800000])")" || return 1
	step drained-segments gauge 2 "$T" RemoteDeleteLagSegments =0 || return 1
	step drained-bytes gauge 2 "$T" RemoteDeleteLagBytes =0 || return 1
	step state state "$T" || return 1
	echo "$ANS" >"$D/state-end.json"
	exporter 1 "$D/node1-end.prom"
	exporter 2 "$D/node2-end.prom"
	[ $HAVE_BM -eq 1 ] && scan 1 "$D/scan1-end.json" $(bm 1)
	scan 2 "$D/scan2-end.json" $(bm 2)
	cp -r "$STALL" "$D/stall"
	prom_rules_case
	sc_stop
	return 0
}

# prom_rules_case: one segscan serve per broker and Prometheus over them and the brokers' JMX
# exporters (each exporter target labelled with its broker's node_id, as the rules ask), with the
# shipped rules; what the KAFKA-21098 rules record, into $D/prom-*.txt
prom_rules_case() {
	local n props port log pid up ports="" jmx=""
	command -v prometheus >/dev/null 2>&1 || { echo "prometheus not installed" >"$D/prom-skip"; return 0; }
	grep -q 'name: segscan-kafka-21098' "$ROOT/contrib/prometheus/segscan.rules.yml" ||
		{ echo "contrib/prometheus/segscan.rules.yml has no KAFKA-21098 group yet" >"$D/prom-skip"; return 0; }
	for n in 1 2; do
		props=$(node_of "$n" server_properties); log=$D/serve-$n.log; up=""
		for _ in 1 2 3 4 5; do
			port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()")
			: >"$log"
			"$SEGSCAN" serve --listen="127.0.0.1:$port" --interval=1 --metrics-extra --server-properties="$props" \
				--bootstrap-server="$BOOT" 2>"$log" &
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
		[ -n "$up" ] || { echo "segscan serve for node $n did not become healthy: $(tail -c 300 "$log")" >"$D/prom-error"; stop_serves; return 0; }
		SERVE_PIDS+=("$pid")
		ports="$ports'127.0.0.1:$port',"
		jmx="$jmx      - targets: ['$(node_of "$n" metrics_url | sed 's|^http://||; s|/metrics$||')']
        labels: {cluster: dl-real, node_id: '$n'}
"
	done
	{
		echo "global: {scrape_interval: 2s, evaluation_interval: 1s, scrape_timeout: 2s}"
		echo "scrape_configs:"
		echo "  - job_name: segscan"
		echo "    static_configs:"
		echo "      - targets: [${ports%,}]"
		echo "        labels: {cluster: dl-real}"
		echo "  - job_name: kafka-jmx"
		echo "    scrape_interval: 5s"
		echo "    scrape_timeout: 5s"
		echo "    static_configs:"
		printf '%s' "$jmx"
	} >"$D/prometheus.yml"
	if ! prom_start --config "$D/prometheus.yml" --rules "$ROOT/contrib/prometheus/segscan.rules.yml" \
		--wait-for "cluster_node_topic:kafka_remote_delete_lag_segments:max{topic=\"$T\"}" \
		--wait-for "segscan_partition_leader{topic=\"$T\"}" >/dev/null; then
		echo "Prometheus did not start, scrape the serves and exporters or evaluate the rules" >"$D/prom-error"
		stop_serves; return 0
	fi
	# every series the rules need, then one more evaluation of them
	prom_wait "count(segscan_partition_leader{topic=\"$T\"}) == 2" 60 >/dev/null
	local seen
	seen=$(prom_values "max(timestamp(cluster_node_topic:kafka_remote_delete_lag_segments:max))" | awk '{print $1}')
	prom_wait "min(timestamp(cluster_node_topic:kafka_remote_delete_lag_segments:max)) > ${seen:-0}" 60 >/dev/null
	for r in kafka_remote_delete_lag_segments:max segscan_remote_delete_lag_segments:sum segscan_phantom_delete_lag_segments:max \
		segscan_phantom_delete_lag_bytes:max; do
		prom_values "cluster_node_topic:$r{topic=\"$T\"}" >"$D/prom-$r.txt"
	done
	prom_values "segscan_remote_delete_lag_segments{topic=\"$T\"}" >"$D/prom-raw-lag.txt"
	prom_alerts >"$D/prom-alerts.json"
	prom_stop
	stop_serves
}

SERVE_PIDS=()
stop_serves() {
	local p
	for p in "${SERVE_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	SERVE_PIDS=()
}

# 4.4.0 has no kafka-storage test jar on Maven Central: its broker runs 4.3.1's LocalTieredStorage
lts_for() { [ "$1" = 4.4.0 ] && echo 4.3.1; }
run_release "$OLD" old "$(lts_for "$OLD")" || sc_stop
run_release "$NEW" new "$(lts_for "$NEW")" || sc_stop

python3 - "$WORK" "$RESULTS" "$HAVE_BM" "$T" <<'EOF'
import json, os, re, sys
work, results, have_bm, topic = sys.argv[1], sys.argv[2], sys.argv[3] == '1', sys.argv[4]
out = open(results, 'a')

def res(line):
    out.write(line + '\n')
    sys.stderr.write('dellag_real: ' + line + '\n')

def rd(tag, name):
    p = os.path.join(work, tag, name)
    return open(p).read() if os.path.exists(p) else None

def js(tag, name):
    t = rd(tag, name)
    try:
        return json.loads(t) if t else None
    except ValueError:
        return None

def gauges(tag, name):
    """The exporter's per-topic delete-lag series for the topic: (segments, bytes); None = no series."""
    t = rd(tag, name)
    if t is None:
        return None
    g = {}
    for line in t.splitlines():
        m = re.match(r'kafka_server_brokertopicmetrics_remotedeletelag(segments|bytes)\{([^}]*)\}\s+(\S+)', line)
        if m and re.search(r'(^|,)topic="%s"' % re.escape(topic), m.group(2)):
            g[m.group(1)] = int(float(m.group(3)))
    return (g.get('segments'), g.get('bytes'))

def expired(tag):
    st = js(tag, 'state0.json')
    segs = [s for p in st['partitions'] for s in p['remote_segments'] if s['state'] == 'COPY_SEGMENT_FINISHED']
    segs.sort(key=lambda s: s['start_offset'])
    return [s for s in segs if s['max_timestamp_ms'] < st['taken_ms'] - 82800000]

def error(tag):
    e = rd(tag, 'error')
    return e.strip() if e else None

def version(tag):
    v = rd(tag, 'kafka_version')
    return v.strip() if v else '?'

def leads(tag, node):
    st = js(tag, 'state-end.json')
    return [p['partition'] for p in st['partitions'] if p['leader'] == node]

def gauge_case(tag, name, want_latched):
    e = error(tag)
    if e:
        res('FAIL %s: Kafka %s: %s' % (name, version(tag), e[:600]))
        return
    exp = expired(tag)
    bad = []
    if len(exp) < 3:
        bad.append('%d expired remote segments (the case proves nothing)' % len(exp))
    held, moved, after, end = (gauges(tag, f) for f in ('node1-held.prom', 'node1-moved.prom', 'node1-after.prom', 'node1-end.prom'))
    all_bytes = sum(s['size_bytes'] for s in exp)
    # the segment broker 1's pass held (and deleted once released): Kafka's first, the oldest
    held_ids = list((js(tag, 'held1.json') or {}).get('stalled', {}).keys())
    first = [s for s in exp if s['segment_id'] in held_ids]
    if len(first) != 1:
        bad.append('broker 1 held %r, not one of the expired segments %r' % (held_ids, [s['segment_id'] for s in exp]))
        first = exp[:1]
    rest = (len(exp) - 1, all_bytes - first[0]['size_bytes'])
    if held != (len(exp), all_bytes):
        bad.append('broker 1 reported %r while its pass ran, Kafka chose %d segments of %d bytes' % (held, len(exp), all_bytes))
    if moved not in ((0, 0), (None, None)):
        bad.append('broker 1 still reported %r right after the move (Kafka removes the gauges)' % (moved,))
    if leads(tag, 1):
        bad.append('broker 1 still leads %s' % leads(tag, 1))
    rel = js(tag, 'released1.json') or {}
    if not rel.get('interrupted'):
        bad.append('Kafka did not interrupt broker 1\'s held delete (the move did not cancel its pass)')
    end2 = gauges(tag, 'node2-end.prom')
    if end2 != (0, 0):
        bad.append('broker 2 (the leader, after its pass) reports %r, want (0, 0)' % (end2,))
    if want_latched:
        for when, g in (('once its pass went on', after), ('after broker 2 deleted everything', end)):
            if g != rest:
                bad.append('broker 1 reports %r %s; the latch KAFKA-21098 describes is (%d, %d)' % (g, when, rest[0], rest[1]))
    else:
        for when, g in (('once its pass went on', after), ('at the end', end)):
            if g not in ((0, 0), (None, None)):
                bad.append('broker 1 reports %r %s (a release with the fix)' % (g, when))
    skipped = (rd(tag, 'node1-skipped.log') or '').count('RemoteLogSegmentId{')
    if bad:
        res('FAIL %s: Kafka %s: %s' % (name, version(tag), '; '.join(bad)))
    elif want_latched:
        res('PASS %s (Kafka %s: broker 1 reported %d seg/%d B while its pass ran, none after the move, '
            '%d seg/%d B once the pass went on past it, still %d seg/%d B with broker 2 at 0/0 and broker 1 '
            'leading no partition of %s)' % (name, version(tag), held[0], held[1], rest[0], rest[1], end[0], end[1], topic))
    else:
        res('PASS %s (Kafka %s: broker 1 reported %d seg/%d B while its pass ran; after the move and its pass '
            'going on past it (its held delete done, %d skipped) it reports %r, broker 2 0/0)' % (name, version(tag), held[0], held[1], skipped, end))

gauge_case('old', 'gauge_latched', True)
gauge_case('new', 'gauge_not_latched', False)

def prom(tag, name):
    """prom_values output: {(node_id): value}."""
    t = rd(tag, 'prom-%s.txt' % name)
    if t is None:
        return None
    r = {}
    for line in t.splitlines():
        m = re.match(r'(\S+)\s+\{(.*)\}', line)
        if m:
            n = re.search(r'node_id="(\d+)"', m.group(2))
            r[int(n.group(1)) if n else None] = float(m.group(1))
    return r

def prom_case():
    bad, said = [], []
    for tag, latched in (('old', True), ('new', False)):
        if error(tag):
            bad.append('Kafka %s: %s' % (version(tag), error(tag)[:300]))
            continue
        if rd(tag, 'prom-skip'):
            return res('SKIP prometheus_rule: %s' % rd(tag, 'prom-skip').strip())
        if rd(tag, 'prom-error'):
            bad.append('Kafka %s: %s' % (version(tag), rd(tag, 'prom-error').strip()[:300]))
            continue
        g = gauges(tag, 'node1-end.prom')
        seg, byt = prom(tag, 'segscan_phantom_delete_lag_segments:max'), prom(tag, 'segscan_phantom_delete_lag_bytes:max')
        raw = prom(tag, 'raw-lag') or {}
        alerts = json.loads(rd(tag, 'prom-alerts.json') or '{}').get('data', {}).get('alerts', [])
        mine = [a for a in alerts if a['labels'].get('alertname') == 'SegscanPhantomRemoteDeleteLag' and a['labels'].get('topic') == topic]
        want1 = (g[0], g[1]) if latched else (0, 0)
        if latched and not (g[0] or 0) > 0:
            bad.append('Kafka %s: broker 1\'s gauge reads %r: no latch to record (the case proves nothing)' % (version(tag), g))
        if (seg.get(1), byt.get(1)) != want1:
            bad.append('Kafka %s: broker 1 phantom %r seg / %r B recorded, want %r (its gauge reads %r)' % (version(tag), seg.get(1), byt.get(1), want1, g))
        if 2 in raw and seg.get(2) != 0:
            bad.append('Kafka %s: broker 2 (leader, true lag %r) phantom %r, want 0' % (version(tag), raw.get(2), seg.get(2)))
        if 2 not in raw and 2 in seg:
            bad.append('Kafka %s: broker 2\'s delete lag is unknown to segscan, yet a phantom %r is recorded' % (version(tag), seg.get(2)))
        states = [(a['labels'].get('node_id'), a['state']) for a in mine]
        if latched and states != [('1', 'pending')]:
            bad.append('Kafka %s: SegscanPhantomRemoteDeleteLag for %s: %r, want broker 1 pending (for: 30m)' % (version(tag), topic, states))
        if not latched and states:
            bad.append('Kafka %s: SegscanPhantomRemoteDeleteLag for %s: %r, want none' % (version(tag), topic, states))
        fmt = lambda v: 'none' if v is None else '%g' % v
        said.append('%s: broker 1 phantom %s seg/%s B, broker 2 %s, alert %s' % (version(tag), fmt(seg.get(1)), fmt(byt.get(1)),
                    fmt(seg[2]) if 2 in seg else 'unknown (no segscan delete lag)', states or 'none'))
    res('FAIL prometheus_rule: ' + '; '.join(bad) if bad else 'PASS prometheus_rule (%s)' % '; '.join(said))

prom_case()

def findings(rep, code):
    """Every finding with this code anywhere in a report (partition or report level)."""
    got = []
    def walk(x):
        if isinstance(x, dict):
            if x.get('code') == code:
                got.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(rep)
    return got

def part(rep, p=0):
    for x in rep.get('partitions', []):
        if x.get('topic') == topic and x.get('partition') == p:
            return x
    return None

def phantom_case():
    if not have_bm:
        return res('SKIP phantom_finding: this segscan has no --broker-metrics (issue 27: it reads the broker\'s gauges)')
    # segscan compares the broker's delete lag with its own only where it computes delete_lag
    # (summary.broker_topics, issue 27 items 1 and 3): before that, nothing to judge
    reps = [js(t, f) for t in ('old', 'new') for f in ('scan1-after.json', 'scan1-end.json')]
    if reps and all(r is not None and 'broker_topics' not in r.get('summary', {}) for r in reps):
        return res('SKIP phantom_finding: this segscan reads --broker-metrics but does not compare the broker\'s '
                   'delete lag with its own (no summary.broker_topics: PHANTOM_DELETE_LAG, issue 27)')
    bad, said = [], []
    for tag, latched in (('old', True), ('new', False)):
        if error(tag):
            bad.append('Kafka %s: %s' % (version(tag), error(tag)[:300]))
            continue
        g = gauges(tag, 'node1-end.prom')
        for f in ('scan1-after.json', 'scan1-end.json'):
            rep = js(tag, f)
            if rep is None:
                bad.append('Kafka %s: %s: no report (%s)' % (version(tag), f, (rd(tag, f + '.err') or '')[:200]))
                continue
            fs = findings(rep, 'PHANTOM_DELETE_LAG')
            if not latched:
                if fs:
                    bad.append('Kafka %s (fixed): PHANTOM_DELETE_LAG on broker 1 (%s): %s' % (version(tag), f, fs[0].get('message', '')[:200]))
                continue
            if not fs:
                bad.append('Kafka %s: no PHANTOM_DELETE_LAG on broker 1 (%s) with the broker reporting %r' % (version(tag), f, g))
                continue
            m = fs[0].get('message', '')
            nums = set(re.findall(r'\d+', m))
            if str(g[0]) not in nums or str(g[1]) not in nums:
                bad.append('Kafka %s: PHANTOM_DELETE_LAG does not name the gauge\'s %d segments and %d bytes: %s' % (version(tag), g[0], g[1], m[:300]))
            said.append('%s: %s' % (version(tag), m[:160]))
    res('FAIL phantom_finding: ' + '; '.join(bad) if bad else
        'PASS phantom_finding (%s; none on the fixed release)' % ('; '.join(said[:1])))

def true_lag_case():
    bad, said, seen = [], [], False
    for tag in ('old', 'new'):
        if error(tag):
            bad.append('Kafka %s: %s' % (version(tag), error(tag)[:300]))
            continue
        for f, prom in (('scan2-held.json', 'node2-held.prom'), ('scan2-end.json', 'node2-end.prom')):
            rep = js(tag, f)
            p = part(rep) if rep else None
            if p is None:
                bad.append('Kafka %s: %s: no %s-0 in the report (%s)' % (version(tag), f, topic, (rd(tag, f + '.err') or '')[:200]))
                continue
            if 'delete_lag' not in p:
                continue
            seen = True
            dl = p.get('delete_lag')
            g = gauges(tag, prom)
            # Kafka (4.0+) counts a re-queued DELETE_SEGMENT_STARTED segment in the segments and
            # not in the bytes; segscan's size_bytes counts its bytes (docs/contract.md, "delete lag")
            retried = 0
            if 'held' in f:
                st = js(tag, 'state-held2.json')
                retried = sum(s['size_bytes'] for x in st['partitions'] for s in x['remote_segments']
                              if s['state'] == 'DELETE_SEGMENT_STARTED')
            if not isinstance(dl, dict) or dl.get('segments') != g[0] or dl.get('size_bytes') != g[1] + retried:
                bad.append('Kafka %s: segscan\'s delete_lag %r on broker 2 (%s), its expiration task reports %r '
                           '(+ %d B of DELETE_SEGMENT_STARTED)' % (version(tag), dl, f, g, retried))
            else:
                said.append('%s %s: %d seg/%d B (the broker %d B%s)' % (version(tag), 'held' if 'held' in f else 'after its pass',
                            dl['segments'], dl['size_bytes'], g[1], ', without the retried segment\'s' if retried else ''))
    if not seen and not bad:
        return res('SKIP true_lag: this segscan reports no delete_lag (issue 27)')
    res('FAIL true_lag: ' + '; '.join(bad) if bad else 'PASS true_lag (segscan on broker 2 = its expiration task: %s)' % ', '.join(said))

phantom_case()
true_lag_case()
EOF
