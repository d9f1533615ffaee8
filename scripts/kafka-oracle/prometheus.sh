#!/usr/bin/env bash
# A real Prometheus (Debian's `prometheus`, installed by scripts/install-deps.sh) for conformance
# tests: on 127.0.0.1 only, on a free port, with a scrape config (generated from --target, or the
# caller's --config) and rule files, bounded in every wait and in its lifetime. See
# docs/conformance.md ("Prometheus").
#
# usage: prometheus.sh start STATE_DIR [--target JOB=HOST:PORT[/PATH]]... [--config FILE]
#                                      [--rules FILE]... [--interval DURATION] [--wait-for PROMQL]...
#            --target: a generated config scraping HOST:PORT (path default /metrics) every
#              DURATION ($PROMETHEUS_INTERVAL, default 2s); several targets may share a JOB (told
#              apart by the `instance` label = HOST:PORT).
#            --config FILE: the caller's prometheus.yml instead (copied to STATE_DIR/prometheus.yml,
#              so paths in it must be absolute); --target then adds nothing, and --rules only when
#              FILE has no rule_files of its own.
#            --rules FILE: a rule file (recording and alerting rules); promtool checks the config
#              and every rule file before the start.
#            Starts Prometheus (TSDB in STATE_DIR/data) and waits, bounded by
#            $PROMETHEUS_START_TIMEOUT s (default 120), until it is ready (/-/ready), every active
#            target has been scraped up once (at least one, with scrape configs), every rule group
#            has been evaluated once, and every --wait-for expression returns at least one
#            series. Prints the URL; also in
#            STATE_DIR/url (pid in STATE_DIR/pid, log in STATE_DIR/log). A port taken between the
#            choice and the bind is retried with another (3 tries). Prometheus is killed after
#            $PROMETHEUS_LIFETIME s (default 1800) whatever happens to the caller.
#            Exit 2: prometheus not installed (a SKIP for tests); 1: it did not start or get ready.
#        prometheus.sh query STATE_DIR PROMQL
#            an instant query; prints the API's JSON answer ({"status":"success","data":...}).
#        prometheus.sh values STATE_DIR PROMQL
#            an instant query; one line per series: `VALUE {label="v",...}` (sorted). Exit 1 on an error.
#        prometheus.sh wait STATE_DIR PROMQL SECONDS
#            until the query returns at least one series (bounded); prints the answer. Exit 1 on time out.
#        prometheus.sh rules|alerts|targets STATE_DIR
#            the API's /api/v1/rules, /api/v1/alerts, /api/v1/targets JSON.
#        prometheus.sh stop STATE_DIR
#            SIGTERM, then SIGKILL after 15 s; only the process this script started (STATE_DIR/pid).
set -u
die() { echo "prometheus.sh: $*" >&2; exit 1; }

free_port() {
    python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()"
}

api() { # STATE PATH [curl args]: GET of an API path
    local s=$1 p=$2; shift 2
    curl -sf --max-time 10 "$@" "$(cat "$s/url")$p"
}

query() { # STATE PROMQL
    api "$1" /api/v1/query --get --data-urlencode "query=$2"
}

# has_series JSON: 0 when the answer is a success with at least one result
has_series() {
    python3 -c 'import json,sys
d=json.loads(sys.argv[1]); sys.exit(0 if d.get("status")=="success" and d["data"]["result"] else 1)' "$1" 2>/dev/null
}

values() { # STATE PROMQL
    local ans
    ans=$(query "$1" "$2") || die "query failed: $2"
    python3 - "$ans" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
if d.get('status') != 'success':
    sys.exit('prometheus.sh: %s' % d.get('error'))
r = d['data']['result']
if d['data']['resultType'] == 'scalar':
    print(r[1]); sys.exit(0)
out = []
for s in r:
    m = s['metric']
    out.append('%s {%s}' % (s['value'][1], ','.join('%s="%s"' % (k, m[k]) for k in sorted(m))))
print('\n'.join(sorted(out)))
EOF
}

# ready_check STATE: 0 when every active target is up (at least one, if any is configured) and
# every rule group has been evaluated once; else prints what is missing.
ready_check() {
    local t r
    api "$1" /-/ready -o /dev/null || { echo "not ready (/-/ready)"; return 1; }
    t=$(api "$1" /api/v1/targets) || { echo "no answer from /api/v1/targets"; return 1; }
    r=$(api "$1" /api/v1/rules) || { echo "no answer from /api/v1/rules"; return 1; }
    python3 - "$t" "$r" "$2" "$3" <<'EOF'
import json, sys
t, r = json.loads(sys.argv[1])['data'], json.loads(sys.argv[2])['data']
want_targets, want_groups = int(sys.argv[3]), int(sys.argv[4])
act = t.get('activeTargets', [])
bad = ['%s %s: %s %s' % (a['labels'].get('job'), a['scrapeUrl'], a['health'], a.get('lastError', ''))
       for a in act if a['health'] != 'up']
if len(act) < want_targets:
    bad.append('%d active targets, %d configured' % (len(act), want_targets))
groups = r.get('groups', [])
if len(groups) < want_groups:
    bad.append('%d rule groups loaded, want at least %d' % (len(groups), want_groups))
bad += ['rule group %s not evaluated yet' % g['name'] for g in groups
        if g.get('lastEvaluation', '').startswith('0001-')]
bad += ['rule %s: %s' % (x.get('name'), x['lastError']) for g in groups for x in g.get('rules', []) if x.get('lastError')]
print('; '.join(bad[:4]))
sys.exit(1 if bad else 0)
EOF
}

# gen_config CONFIG INTERVAL NRULES RULES... TARGETS...: the prometheus.yml on stdout
gen_config() {
    local config=$1 interval=$2 nr=$3; shift 3
    local rules=("${@:1:$nr}") targets=("${@:$((nr + 1))}") r
    if [ -n "$config" ]; then
        cat "$config"
        echo
    else
        echo "# written by scripts/kafka-oracle/prometheus.sh"
        echo "global:"
        echo "  scrape_interval: $interval"
        echo "  evaluation_interval: $interval"
        echo "  scrape_timeout: $interval"
    fi
    if [ "$nr" -gt 0 ]; then
        echo "rule_files:"
        for r in "${rules[@]}"; do
            case "$r" in /*) ;; *) r="$PWD/$r" ;; esac
            echo "  - '$r'"
        done
    fi
    [ -z "$config" ] && [ ${#targets[@]} -gt 0 ] || return 0
    echo "scrape_configs:"
    # one job per distinct JOB, its targets listed under it
    local jobs=() t j
    for t in "${targets[@]}"; do
        j=${t%%=*}
        case " ${jobs[*]} " in *" $j "*) ;; *) jobs+=("$j") ;; esac
    done
    for j in "${jobs[@]}"; do
        local path=/metrics addrs=()
        for t in "${targets[@]}"; do
            [ "${t%%=*}" = "$j" ] || continue
            local a=${t#*=}
            a=${a#http://}
            case "$a" in */*) path="/${a#*/}"; a=${a%%/*} ;; esac
            addrs+=("'$a'")
        done
        echo "  - job_name: '$j'"
        echo "    metrics_path: '$path'"
        echo "    static_configs:"
        echo "      - targets: [$(IFS=,; echo "${addrs[*]}")]"
    done
}

start() {
    local state=${1:?usage: prometheus.sh start STATE_DIR [--target JOB=ADDR]... [--config FILE] [--rules FILE]...}
    shift
    command -v prometheus >/dev/null 2>&1 || { echo "prometheus.sh: prometheus not found (scripts/install-deps.sh installs Debian's prometheus)" >&2; exit 2; }
    local interval=${PROMETHEUS_INTERVAL:-2s} targets=() rules=() config="" waits=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --target) targets+=("${2:?--target JOB=HOST:PORT}"); shift ;;
            --rules) rules+=("${2:?--rules FILE}"); shift ;;
            --config) config=${2:?--config FILE}; shift ;;
            --interval) interval=${2:?--interval DURATION}; shift ;;
            --wait-for) waits+=("${2:?--wait-for PROMQL}"); shift ;;
            *) die "unknown argument $1" ;;
        esac
        shift
    done
    [ -z "$config" ] || [ ${#targets[@]} -eq 0 ] || die "--config and --target exclude each other (put the targets in the config)"
    [ -z "$config" ] || [ -r "$config" ] || die "cannot read --config $config"
    local r
    for r in "${rules[@]}"; do [ -r "$r" ] || die "cannot read rule file $r"; done
    mkdir -p "$state/data"
    if [ -n "$config" ] && [ ${#rules[@]} -gt 0 ] && grep -q '^rule_files:' "$config"; then
        die "$config has rule_files of its own: list the rules there or with --rules, not both"
    fi
    local cfg="$state/prometheus.yml" want_targets=${#targets[@]} want_groups=0
    gen_config "$config" "$interval" "${#rules[@]}" "${rules[@]}" "${targets[@]}" >"$cfg" || die "cannot write $cfg"
    # Ready means every active target up and every rule group evaluated once; these are the
    # least counts that rules out "nothing listed yet": the generated targets; one target for a
    # caller's config with scrape configs (its targets are listed once service discovery has
    # run); one group per rule file that has any (a file may hold several).
    for r in "${rules[@]}"; do
        grep -q '^\s*- *name:' "$r" && want_groups=$((want_groups + 1))
    done
    [ -n "$config" ] && grep -q '^scrape_configs:' "$config" && want_targets=1
    if command -v promtool >/dev/null 2>&1; then
        promtool check config "$cfg" >"$state/check.log" 2>&1 ||
            { cat "$state/check.log" >&2; die "the config or a rule file does not check: $cfg"; }
    fi
    local try port pid
    for try in 1 2 3; do
        port=$(free_port)
        echo "http://127.0.0.1:$port" >"$state/url"
        # timeout: a test that dies without `stop` leaves no Prometheus behind for long
        timeout --kill-after=15 "${PROMETHEUS_LIFETIME:-1800}" prometheus --config.file="$cfg" \
            --storage.tsdb.path="$state/data" --web.listen-address="127.0.0.1:$port" \
            --storage.tsdb.retention.time=1d --query.timeout=30s >"$state/log" 2>&1 </dev/null &
        pid=$!
        echo "$pid" >"$state/pid"
        # The bind happens within the first second or so; a lost race exits at once.
        local k=0
        while [ $k -lt 20 ] && kill -0 "$pid" 2>/dev/null && ! api "$state" /-/healthy -o /dev/null 2>/dev/null; do
            sleep 0.25; k=$((k + 1))
        done
        if ! kill -0 "$pid" 2>/dev/null && grep -q 'address already in use' "$state/log"; then
            echo "prometheus.sh: port $port was taken meanwhile; another" >&2
            continue
        fi
        break
    done
    local end=$(( $(date +%s) + ${PROMETHEUS_START_TIMEOUT:-120} )) why=""
    while :; do
        kill -0 "$pid" 2>/dev/null || { tail -n 20 "$state/log" >&2; die "prometheus exited during startup (log: $state/log)"; }
        why=$(ready_check "$state" "$want_targets" "$want_groups") && break
        if [ "$(date +%s)" -gt "$end" ]; then
            stop "$state"
            die "prometheus not ready within ${PROMETHEUS_START_TIMEOUT:-120} s: $why (log: $state/log)"
        fi
        sleep 0.25
    done
    local w left
    for w in "${waits[@]}"; do
        left=$(( end - $(date +%s) )); [ $left -lt 1 ] && left=1
        wait_q "$state" "$w" "$left" >/dev/null || { stop "$state"; die "no series for --wait-for '$w' within ${PROMETHEUS_START_TIMEOUT:-120} s"; }
    done
    cat "$state/url"
}

wait_q() { # STATE PROMQL SECONDS
    local end=$(( $(date +%s) + ${3:?SECONDS} )) ans=""
    while [ "$(date +%s)" -le $end ]; do
        if ans=$(query "$1" "$2") && has_series "$ans"; then echo "$ans"; return 0; fi
        sleep 0.5
    done
    echo "${ans:-}"
    return 1
}

stop() {
    local state=${1:?usage: prometheus.sh stop STATE_DIR} pid
    pid=$(cat "$state/pid" 2>/dev/null) || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null   # timeout(1) passes SIGTERM on to Prometheus
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        if kill -0 "$pid" 2>/dev/null; then
            # Prometheus itself (the child of this timeout(1)) first: a SIGKILL to timeout alone
            # would leave it running
            local child; child=$(pgrep -P "$pid")
            [ -n "$child" ] && kill -9 $child 2>/dev/null
            kill -9 "$pid" 2>/dev/null
        fi
    fi
    rm -f "$state/pid"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    query) shift; query "${1:?STATE_DIR}" "${2:?PROMQL}" ;;
    values) shift; values "${1:?STATE_DIR}" "${2:?PROMQL}" ;;
    wait) shift; wait_q "${1:?STATE_DIR}" "${2:?PROMQL}" "${3:?SECONDS}" ;;
    rules) shift; api "${1:?STATE_DIR}" /api/v1/rules ;;
    alerts) shift; api "${1:?STATE_DIR}" /api/v1/alerts ;;
    targets) shift; api "${1:?STATE_DIR}" /api/v1/targets ;;
    stop) shift; stop "$@" ;;
    *) sed -n '2,37p' "$0" >&2; exit 2 ;;
esac
