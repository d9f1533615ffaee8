# Real-broker test infrastructure for segscan's conformance tests, to be sourced by a test script
# (bash). docs/conformance.md ("Scenario clusters") has the protocol and a worked example.
#
#   harness_build VERSION            build scripts/kafka-oracle against a Kafka release (H_DIR, H_CP,
#                                    H_AGENT, H_RULES); returns 2 when java/mvn are missing
#   sc_start WORK [Scenario args]    start a scenario cluster (segscan.oracle.Scenario) with the
#                                    real JMX exporter on every broker; waits for its hello line
#                                    ($SC_WORK/hello.json); returns 1 if it did not start (twice)
#   sc COMMAND [TIMEOUT_S]           one command; its JSON answer in $ANS; 0 iff "ok": true
#   sc_stop                          quit: SIGTERM to every broker, the harness JVM exits
#   jget FILE|- EXPR                 python expression over the JSON document d
#   s3_start DIR / s3_stop           versitygw serving DIR's sub-directories as buckets ($S3_URL,
#                                    $S3_AK, $S3_SK); s3_start returns 2 when Go is missing
#   s3_list BUCKET [PREFIX] [MAX_KEYS]  ListObjectsV2 over every page: "KEY SIZE" lines
#   prom_start ARGS                  Prometheus (scripts/kafka-oracle/prometheus.sh start: --target
#                                    JOB=HOST:PORT... | --config FILE, --rules FILE..., --wait-for
#                                    PROMQL...); $PROM_URL, $PROM_STATE; returns 2 when not installed
#   prom_q PROMQL / prom_values PROMQL / prom_wait PROMQL SECONDS / prom_alerts / prom_rules / prom_stop
#   harness_cleanup                  stops whatever of the above still runs (trap it on EXIT)
#
# Every server listens on 127.0.0.1 on a port chosen at run time; every wait is bounded.
HARNESS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HARNESS_KO="$HARNESS_ROOT/scripts/kafka-oracle"

harness_build() { # VERSION
    local d rc
    d=$(bash "$HARNESS_KO/build.sh" "$1"); rc=$?
    [ $rc -ne 0 ] && return $rc
    H_DIR=$d
    H_CP="$d/target/classes:$d/lib/*"
    H_AGENT="$d/agent/jmx_prometheus_javaagent.jar"
    H_RULES="$HARNESS_KO/jmx-exporter/kafka-kraft-3_0_0.yml"
    H_VERSION=$1
    return 0
}

SC_PID=""
_sc_launch() { # WORK ARGS...
    local work=$1; shift
    rm -rf "$work/cluster" "$work/sc.in"
    mkdir -p "$work"
    mkfifo "$work/sc.in"
    : >"$work/sc.out"
    : >"$work/sc.err"
    timeout --kill-after=20 "${SC_TOTAL_TIMEOUT:-1200}" java -Xmx384m -cp "$H_CP" \
        -Dlog4j2.configurationFile="$HARNESS_KO/log4j2-oracle.properties" -Doracle.log.dir="$work" \
        segscan.oracle.Scenario --work "$work/cluster" --timeout-ms "${SC_TIMEOUT_MS:-180000}" \
        --jmx-exporter "$H_AGENT" --jmx-rules "$H_RULES" "$@" <"$work/sc.in" >"$work/sc.out" 2>"$work/sc.err" &
    SC_PID=$!
    exec {SC_IN}>"$work/sc.in"
    SC_LINES=0
}

# _sc_wait LIMIT_S: the next answer line into $ANS (bounded); 0 iff "ok": true
_sc_wait() {
    local limit=$1 i=0
    while [ "$(wc -l <"$SC_WORK/sc.out")" -le "$SC_LINES" ]; do
        kill -0 "$SC_PID" 2>/dev/null || { ANS='{"ok": false, "error": "the scenario harness exited"}'; return 1; }
        i=$((i + 1)); [ $i -gt $((limit * 4)) ] && { ANS="{\"ok\": false, \"error\": \"no answer within ${limit} s\"}"; return 1; }
        sleep 0.25
    done
    SC_LINES=$((SC_LINES + 1))
    ANS=$(sed -n "${SC_LINES}p" "$SC_WORK/sc.out")
    case "$ANS" in *'"ok": true'*) return 0 ;; *) return 1 ;; esac
}

_sc_kill() {
    [ -n "$SC_PID" ] || return 0
    # EOF: the harness stops its brokers and exits. The group keeps the 2>/dev/null to this one
    # close: on a bare `exec` a redirection stays for the rest of the shell, and silenced every
    # later message of the caller's script.
    if [ -n "${SC_IN:-}" ]; then { exec {SC_IN}>&-; } 2>/dev/null; fi
    for _ in $(seq 1 120); do kill -0 "$SC_PID" 2>/dev/null || break; sleep 0.5; done
    kill "$SC_PID" 2>/dev/null    # SIGTERM: its shutdown hook kills the broker JVMs
    wait "$SC_PID" 2>/dev/null
    SC_PID=""
}

sc_start() { # WORK [Scenario args...]
    SC_WORK=$1; shift
    [ -n "${H_CP:-}" ] || { echo "sc_start: harness_build first" >&2; return 1; }
    _sc_launch "$SC_WORK" "$@"
    if ! _sc_wait "${SC_START_TIMEOUT:-420}"; then
        # One more try: on a loaded 2-core machine a broker can lose its first controller election.
        echo "sc_start: the scenario cluster did not start ($ANS); its stderr, then one more try:" >&2
        tail -n 20 "$SC_WORK/sc.err" >&2
        _sc_kill
        _sc_launch "$SC_WORK" "$@"
        if ! _sc_wait "${SC_START_TIMEOUT:-420}"; then
            tail -n 20 "$SC_WORK/sc.err" >&2
            for f in "$SC_WORK"/cluster/node-*/broker.out; do [ -f "$f" ] && tail -n 5 "$f" >&2; done
            _sc_kill
            return 1
        fi
    fi
    echo "$ANS" >"$SC_WORK/hello.json"
    return 0
}

sc() { # COMMAND WORDS... (answer within $SC_CMD_TIMEOUT s, default 300)
    [ -n "$SC_PID" ] || { ANS='{"ok": false, "error": "no scenario cluster running"}'; return 1; }
    echo "$*" >&"$SC_IN"
    _sc_wait "${SC_CMD_TIMEOUT:-300}"
}

sc_stop() {
    [ -n "$SC_PID" ] || return 0
    echo quit >&"$SC_IN" 2>/dev/null
    _sc_kill
}

jget() { # FILE|- EXPR: python expression over d
    python3 -c "import json,sys; d=json.load(sys.stdin if sys.argv[1]=='-' else open(sys.argv[1])); print($2)" "$1"
}

# ---- S3: versitygw ----
S3_STATE=""
s3_start() { # DIR
    local bin rc
    bin=$(bash "$HARNESS_KO/versitygw.sh" install); rc=$?
    [ $rc -ne 0 ] && return $rc
    S3_STATE=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/versitygw.XXXXXX")
    S3_URL=$(bash "$HARNESS_KO/versitygw.sh" start "$S3_STATE" "$1") || { S3_STATE=""; return 1; }
    S3_AK=$(cat "$S3_STATE/access")
    S3_SK=$(cat "$S3_STATE/secret")
    return 0
}

s3_stop() {
    [ -n "$S3_STATE" ] || return 0
    bash "$HARNESS_KO/versitygw.sh" stop "$S3_STATE"
    rm -rf "$S3_STATE"
    S3_STATE=""
}

# s3_get PATH_AND_QUERY: a SigV4-signed GET (query sorted and percent-encoded by the caller)
s3_get() {
    curl -s --max-time 20 --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_AK:$S3_SK" \
        -H 'x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' \
        "$S3_URL$1"
}

s3_list() { # BUCKET [PREFIX] [MAX_KEYS]: every page of ListObjectsV2, "KEY SIZE" per object
    python3 - "$1" "${2:-}" "${3:-1000}" "$S3_URL" "$S3_AK:$S3_SK" <<'EOF'
import subprocess, sys, urllib.parse, xml.etree.ElementTree as ET
bucket, prefix, maxkeys, url, cred = sys.argv[1:6]
ns = '{http://s3.amazonaws.com/doc/2006-03-01/}'
q = lambda v: urllib.parse.quote(v, safe='-_.~')
token, pages = None, 0
while True:
    params = {'list-type': '2', 'max-keys': maxkeys}
    if prefix: params['prefix'] = prefix
    if token: params['continuation-token'] = token
    qs = '&'.join('%s=%s' % (q(k), q(v)) for k, v in sorted(params.items()))
    # curl 7.88 signs the query as given (so: sorted, encoded) and sends no payload hash itself
    body = subprocess.run(['curl', '-s', '--max-time', '20', '--aws-sigv4', 'aws:amz:us-east-1:s3', '--user', cred,
                           '-H', 'x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
                           '%s/%s?%s' % (url, bucket, qs)], capture_output=True, timeout=30).stdout
    root = ET.fromstring(body)
    if root.tag.endswith('Error'):
        sys.exit('ListObjectsV2: ' + body.decode(errors='replace')[:400])
    pages += 1
    for c in root.findall(ns + 'Contents'):
        print(c.find(ns + 'Key').text, c.find(ns + 'Size').text)
    if root.findtext(ns + 'IsTruncated') != 'true':
        break
    token = root.findtext(ns + 'NextContinuationToken')
    if pages > 100000:
        sys.exit('ListObjectsV2: more than 100000 pages')
print('# pages %d' % pages, file=sys.stderr)
EOF
}

# ---- Prometheus ----
PROM_STATE=""
prom_start() { # ARGS of prometheus.sh start (--target JOB=HOST:PORT ... --rules FILE ...)
    PROM_STATE=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/prometheus.XXXXXX")
    PROM_URL=$(bash "$HARNESS_KO/prometheus.sh" start "$PROM_STATE" "$@")
    local rc=$?
    [ $rc -ne 0 ] && { rm -rf "$PROM_STATE"; PROM_STATE=""; }
    return $rc
}
prom_q() { bash "$HARNESS_KO/prometheus.sh" query "$PROM_STATE" "$1"; }
prom_values() { bash "$HARNESS_KO/prometheus.sh" values "$PROM_STATE" "$1"; }
prom_wait() { bash "$HARNESS_KO/prometheus.sh" wait "$PROM_STATE" "$1" "$2"; }
prom_alerts() { bash "$HARNESS_KO/prometheus.sh" alerts "$PROM_STATE"; }
prom_rules() { bash "$HARNESS_KO/prometheus.sh" rules "$PROM_STATE"; }
prom_stop() {
    [ -n "$PROM_STATE" ] || return 0
    bash "$HARNESS_KO/prometheus.sh" stop "$PROM_STATE"
    rm -rf "$PROM_STATE"
    PROM_STATE=""
}

harness_cleanup() {
    prom_stop
    s3_stop
    sc_stop
}
