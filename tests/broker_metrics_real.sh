#!/usr/bin/env bash
# --broker-metrics against a real Kafka 4.3.1 broker and its real JMX exporter (tests/harness_lib.sh,
# docs/conformance.md "Scenario clusters"): one broker, Kafka's LocalTieredStorage, topics orders
# (2 partitions) and single (segment.ms 60 s). Run by tests/test_broker_metrics_real.c; one line per
# case to RESULTS: PASS name [detail] | FAIL name: why | SKIP name: why
#
#   gauges_read   single-0 gets 6 records 61 s apart in record time, one per segment (the KAFKA-20977
#                 shape); once the closed ones are copied the broker's RemoteCopyLagSegments counts
#                 the copied single-record segment at the highest remote offset. `segscan scan
#                 --broker-metrics=<the exporter's URL>` reports, per topic, exactly the four values
#                 the exporter serves (scraped before and after the scan, equal) and Kafka's own JMX
#                 reads (the harness's `jmx`), and beside them segscan's 4.3.1 reproduction
#                 (broker_copy_lag over the partitions led) equals the broker's copy lag;
#                 PHANTOM_COPY_LAG on single-0.
#   names_label   the same endpoint with --broker-metrics-names naming other series: no topic's gauge
#                 (absent, not 0); an endpoint nobody listens on: ok false, a warning
#
# usage: bash tests/broker_metrics_real.sh RESULTS
set -u
RESULTS=${1:?usage: broker_metrics_real.sh RESULTS}
: >"$RESULTS"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN=${SEGSCAN:-$ROOT/build/segscan}
case "$SEGSCAN" in /*) ;; *) SEGSCAN="$ROOT/$SEGSCAN" ;; esac
CASES="gauges_read names_label"
KV=${BROKER_METRICS_REAL_KAFKA:-4.3.1}

res() { echo "$*" >>"$RESULTS"; echo "broker_metrics_real: $*" >&2; }
done_case() { grep -q "^[A-Z]* $1\b" "$RESULTS"; }
skip_rest() { for c in $CASES; do done_case "$c" || res "SKIP $c: $1"; done; exit 0; }
fail_rest() { for c in $CASES; do done_case "$c" || res "FAIL $c: $1"; done; exit 0; }
verdict() { case "$2" in ok*) res "PASS $1 (${2#ok })" ;; *) res "FAIL $1: $2" ;; esac; }

[ -f "$ROOT/tests/harness_lib.sh" ] || skip_rest "the scenario-cluster harness (tests/harness_lib.sh) is not in this tree"
# shellcheck source=tests/harness_lib.sh
. "$ROOT/tests/harness_lib.sh"
command -v python3 >/dev/null 2>&1 || fail_rest "python3 not found"
command -v curl >/dev/null 2>&1 || fail_rest "curl not found"
harness_build "$KV"; rc=$?
[ $rc -eq 2 ] && skip_rest "java 17+ or mvn not found (scripts/install-deps.sh installs them)"
[ $rc -ne 0 ] && fail_rest "the harness did not build against Kafka $KV"

WORK=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/bmetrics-real.XXXXXX")
cleanup() { harness_cleanup; [ -z "${KEEP_HARNESS_WORK:-}" ] && rm -rf "$WORK"; }
trap cleanup EXIT

sc_start "$WORK" --brokers 1 --rsm local-tiered-storage --topic orders:2:1 --topic single:1:1:segment.ms=60000 ||
    fail_rest "the scenario cluster did not start, twice: $ANS (work dir $WORK)"
H=$WORK/hello.json
URL=$(jget "$H" "d['nodes'][0]['metrics_url']")
PROPS=$(jget "$H" "d['nodes'][0]['server_properties']")
sc wait-copied || fail_rest "wait-copied: $ANS"
sc append single-0 6 64 now-3600000 61000 || fail_rest "append: $ANS"
LAST=$(echo "$ANS" | jget - "d['last_offset']")
sc wait-tiered single-0 $((LAST - 1)) || fail_rest "wait-tiered single-0 $((LAST - 1)): $ANS"

# scrape URL OUT: the exporter's four series per topic, as JSON {topic: [cs, cb, ds, db]}
scrape() {
    curl -sf --max-time 20 "$URL" -o "$2.txt" || return 1
    python3 - "$2.txt" >"$2" <<'PY'
import json, re, sys
names = ['remotecopylagsegments', 'remotecopylagbytes', 'remotedeletelagsegments', 'remotedeletelagbytes']
out = {}
for line in open(sys.argv[1]):
    m = re.match(r'kafka_server_brokertopicmetrics_(\w+)\{topic="([^"]*)",?\} (\S+)$', line.strip())
    if m and m.group(1) in names:
        out.setdefault(m.group(2), [None] * 4)[names.index(m.group(1))] = int(float(m.group(3)))
print(json.dumps(out, sort_keys=True))
PY
}

# the broker's copy task publishes its gauge on its next pass: wait for the phantom (bounded)
seen=""
for _ in $(seq 1 90); do
    scrape "$URL" "$WORK/s0.json" && seen=$(jget "$WORK/s0.json" "d.get('single', [None])[0]")
    [ "$seen" = 1 ] && break
    sleep 2
done

# ---- gauges_read ----
out=""
for attempt in 1 2 3; do
    scrape "$URL" "$WORK/before.json" || { out="the exporter did not answer"; continue; }
    timeout 120 "$SEGSCAN" scan -q -f json --server-properties="$PROPS" --broker-metrics="$URL" \
        >"$WORK/scan.json" 2>"$WORK/scan.err"
    src=$?
    sc jmx 1 && echo "$ANS" >"$WORK/jmx.json"
    scrape "$URL" "$WORK/after.json" || { out="the exporter did not answer"; continue; }
    if ! cmp -s "$WORK/before.json" "$WORK/after.json"; then out="the gauges moved during the scan"; continue; fi
    out=$(python3 - "$WORK" "$src" "$URL" <<'PY'
import json, sys
w, rc, url = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if rc not in (0, 1):
    print('segscan exit %d: %s' % (rc, open(w + '/scan.err').read()[-400:])); sys.exit()
scr = json.load(open(w + '/before.json'))
d = json.load(open(w + '/scan.json'))
bm = d['summary'].get('broker_metrics') or []
if len(bm) != 1 or not bm[0]['ok'] or bm[0]['url'] != url:
    print('broker_metrics: %r' % bm); sys.exit()
got = {t['topic']: [t['copy_lag']['segments'], t['copy_lag']['size_bytes'], t['delete_lag']['segments'],
                    t['delete_lag']['size_bytes']] for t in bm[0]['topics']}
if got != scr:
    print('segscan read %r, the exporter serves %r' % (got, scr)); sys.exit()
jmx = json.load(open(w + '/jmx.json'))['nodes'][0]['topics']
kj = {t: [v.get('RemoteCopyLagSegments'), v.get('RemoteCopyLagBytes'), v.get('RemoteDeleteLagSegments'),
          v.get('RemoteDeleteLagBytes')] for t, v in jmx.items() if 'RemoteCopyLagSegments' in v}
if kj != scr:
    print("Kafka's JMX %r, the exporter %r" % (kj, scr)); sys.exit()
bad = []
for t in bm[0]['topics']:
    if t['topic'] not in ('orders', 'single'):
        continue
    rep = t['segscan_copy_lag']
    if rep is None or [rep['segments'], rep['size_bytes']] != [t['copy_lag']['segments'], t['copy_lag']['size_bytes']]:
        bad.append('%s: the broker says %r, segscan reproduces %r' % (t['topic'], t['copy_lag'], rep))
p = [x for x in d['partitions'] if x['topic'] == 'single' and x['partition'] == 0][0]
if not any(f['code'] == 'PHANTOM_COPY_LAG' for f in p['findings']):
    bad.append('no PHANTOM_COPY_LAG on single-0 (broker_copy_lag %r, copy_lag %r)' % (p['broker_copy_lag'], p['copy_lag']))
if bad:
    print('; '.join(bad)); sys.exit()
print('ok per topic [copy segs, bytes, delete segs, bytes]: %s, = the exporter = Kafka JMX; single: the '
      'phantom %d segment, segscan 4.3.1 reproduction equal' % (json.dumps(got, sort_keys=True), got['single'][0]))
PY
)
    case "$out" in ok*|segscan*|broker_metrics*) break ;; esac
done
verdict gauges_read "$out"

# ---- names_label ----
timeout 120 "$SEGSCAN" scan -q -f json --server-properties="$PROPS" --broker-metrics="$URL" \
    --broker-metrics-names=a_cs,a_cb,a_ds,a_db >"$WORK/names.json" 2>/dev/null
timeout 120 "$SEGSCAN" scan -q -f json --server-properties="$PROPS" --broker-metrics="http://127.0.0.1:1/metrics" \
    >"$WORK/down.json" 2>"$WORK/down.err"
out=$(python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
n = json.load(open(w + '/names.json'))['summary']['broker_metrics'][0]
if not n['ok'] or n['topics']:
    print('other names: %r' % n); sys.exit()
d = json.load(open(w + '/down.json'))['summary']['broker_metrics'][0]
err = open(w + '/down.err').read()
if d['ok'] or 'warning: --broker-metrics' not in err:
    print('an endpoint nobody serves: %r, stderr %r' % (d, err[-300:])); sys.exit()
print('ok other names: no gauge; nobody listening: unknown with a warning')
PY
)
verdict names_label "$out"
