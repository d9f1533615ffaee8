#!/usr/bin/env bash
# A real Prometheus (Debian's `prometheus`, installed by scripts/install-deps.sh) for conformance
# tests: on 127.0.0.1 only, a generated config scraping the given targets every 2 s and loading
# the given rule files. See docs/conformance.md.
#
# usage: prometheus.sh start STATE_DIR [--target JOB=HOST:PORT[/PATH]]... [--rules FILE]...
#                                      [--interval DURATION (default $PROMETHEUS_INTERVAL or 2s)]
#            writes STATE_DIR/prometheus.yml, starts Prometheus on a free port with its TSDB in
#            STATE_DIR/data, and waits (bounded, $PROMETHEUS_START_TIMEOUT s, default 120) until
#            its query API answers and every target has been scraped up once. Several targets may
#            share a JOB (one series per target, told apart by the `instance` label = HOST:PORT).
#            Prints the URL; also in STATE_DIR/url (pid in STATE_DIR/pid, log in STATE_DIR/log).
#            Exit 2: prometheus not installed (a SKIP for tests).
#        prometheus.sh query STATE_DIR PROMQL
#            an instant query; prints the API's JSON answer ({"status":"success","data":...}).
#        prometheus.sh wait STATE_DIR PROMQL SECONDS
#            until the query returns at least one series (bounded); prints the answer. Exit 1 on time out.
#        prometheus.sh stop STATE_DIR
#            SIGTERM, then SIGKILL after 15 s; only the process this script started.
set -u
die() { echo "prometheus.sh: $*" >&2; exit 1; }

free_port() {
    python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()"
}

query() { # STATE PROMQL
    curl -sf --max-time 10 --get --data-urlencode "query=$2" "$(cat "$1/url")/api/v1/query"
}

# has_series JSON: 0 when the answer is a success with at least one result
has_series() {
    python3 -c 'import json,sys
d=json.loads(sys.argv[1]); sys.exit(0 if d.get("status")=="success" and d["data"]["result"] else 1)' "$1" 2>/dev/null
}

start() {
    local state=${1:?usage: prometheus.sh start STATE_DIR [--target JOB=ADDR]... [--rules FILE]...}
    shift
    command -v prometheus >/dev/null 2>&1 || { echo "prometheus.sh: prometheus not found (scripts/install-deps.sh installs Debian's prometheus)" >&2; exit 2; }
    local interval=${PROMETHEUS_INTERVAL:-2s} targets=() rules=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --target) targets+=("${2:?--target JOB=HOST:PORT}"); shift ;;
            --rules) rules+=("${2:?--rules FILE}"); shift ;;
            --interval) interval=${2:?--interval DURATION}; shift ;;
            *) die "unknown argument $1" ;;
        esac
        shift
    done
    mkdir -p "$state/data"
    {
        echo "# written by scripts/kafka-oracle/prometheus.sh"
        echo "global:"
        echo "  scrape_interval: $interval"
        echo "  evaluation_interval: $interval"
        echo "  scrape_timeout: $interval"
        if [ ${#rules[@]} -gt 0 ]; then
            echo "rule_files:"
            for r in "${rules[@]}"; do
                case "$r" in /*) ;; *) r="$PWD/$r" ;; esac
                echo "  - '$r'"
            done
        fi
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
    } >"$state/prometheus.yml"
    if command -v promtool >/dev/null 2>&1; then
        promtool check config "$state/prometheus.yml" >"$state/check.log" 2>&1 ||
            { cat "$state/check.log" >&2; die "generated config does not check (rules?): $state/prometheus.yml"; }
    fi
    local port; port=$(free_port)
    prometheus --config.file="$state/prometheus.yml" --storage.tsdb.path="$state/data" \
        --web.listen-address="127.0.0.1:$port" --storage.tsdb.retention.time=1d \
        >"$state/log" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$state/pid"
    echo "http://127.0.0.1:$port" >"$state/url"
    local limit=$(( ${PROMETHEUS_START_TIMEOUT:-120} * 4 )) i=0 want=${#targets[@]} ans
    while :; do
        kill -0 "$pid" 2>/dev/null || { tail -n 20 "$state/log" >&2; die "prometheus exited during startup (log: $state/log)"; }
        # ready: the query API answers, and (with targets) each target was scraped up once
        if ans=$(query "$state" 'count(up == 1)' 2>/dev/null); then
            if [ "$want" -eq 0 ]; then break; fi
            local up; up=$(python3 -c 'import json,sys
r=json.loads(sys.argv[1])["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)' "$ans" 2>/dev/null)
            [ "${up:-0}" -ge "$want" ] && break
        fi
        i=$((i + 1))
        if [ $i -gt $limit ]; then
            local why; why=$(curl -sf --max-time 5 "$(cat "$state/url")/api/v1/targets" | head -c 800)
            stop "$state"
            die "prometheus not ready (every target up) within ${PROMETHEUS_START_TIMEOUT:-120} s: targets: $why (log: $state/log)"
        fi
        sleep 0.25
    done
    cat "$state/url"
}

wait_q() { # STATE PROMQL SECONDS
    local end=$(( $(date +%s) + ${3:?SECONDS} )) ans
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
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    fi
    rm -f "$state/pid"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    query) shift; query "${1:?STATE_DIR}" "${2:?PROMQL}" ;;
    wait) shift; wait_q "${1:?STATE_DIR}" "${2:?PROMQL}" "${3:?SECONDS}" ;;
    stop) shift; stop "$@" ;;
    *) sed -n '2,22p' "$0" >&2; exit 2 ;;
esac
