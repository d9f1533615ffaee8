#!/usr/bin/env bash
# A real S3-compatible server for conformance tests: versitygw (github.com/versity/versitygw, a Go
# module) with its posix backend, on 127.0.0.1 only, serving a directory whose sub-directories are
# buckets (object key a/b/c = file <dir>/<bucket>/a/b/c). See docs/conformance.md.
#
# usage: versitygw.sh install
#            builds versitygw $VERSITYGW_VERSION into $BUILD/tools/bin (BUILD: build/ of this checkout)
#            with `go install`; a second run finds the binary and does nothing (offline). A copy
#            is kept in ~/.cache/segscan-tools/versitygw-VERSION ($VERSITYGW_CACHE) for fresh build
#            trees; Go's own module and build caches make even a rebuild offline. Prints the path. Exit 2: Go missing or older
#            than the module needs (a SKIP for tests), 1: the build failed.
#        versitygw.sh start STATE_DIR ROOT_DIR [ACCESS_KEY SECRET_KEY] [-- EXTRA_FLAGS...]
#            starts it on a free port on 127.0.0.1 serving ROOT_DIR, waits (bounded,
#            $VERSITYGW_START_TIMEOUT s, default 60) until it answers, and writes STATE_DIR/url,
#            STATE_DIR/port, STATE_DIR/pid, STATE_DIR/access, STATE_DIR/secret, STATE_DIR/log.
#            Prints the URL. Keys default to segscan-test / segscan-test-secret; region us-east-1.
#        versitygw.sh stop STATE_DIR
#            SIGTERM, then SIGKILL after 10 s; only the process this script started (STATE_DIR/pid).
#
# ListObjectsV2 with curl (7.75+): the SigV4 scope must be given in full ("aws:amz:REGION:s3", else
# curl derives region and service from the host name 127.0.0.1), and curl 7.88 sends no
# x-amz-content-sha256 by itself (versitygw requires it):
#   curl -s --aws-sigv4 aws:amz:us-east-1:s3 --user "$AK:$SK" \
#        -H 'x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' \
#        "$URL/BUCKET?list-type=2&max-keys=1000&prefix=P"
# (query parameters sorted by name and percent-encoded: curl 7.88 signs the query as given).
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD=${BUILD:-$ROOT/build}
VERSITYGW_VERSION=${VERSITYGW_VERSION:-v1.7.0}
BIN_DIR="$BUILD/tools/bin"
BIN="$BIN_DIR/versitygw"
STAMP="$BIN_DIR/versitygw.version"

die() { echo "versitygw.sh: $*" >&2; exit 1; }

# A copy of each built binary outside the build tree, so a fresh clone or `rm -rf build` on the
# same machine (CI runs in a fresh clone) copies it instead of building again.
CACHE=${VERSITYGW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/segscan-tools}/versitygw-$VERSITYGW_VERSION

install() {
    if [ -x "$BIN" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$VERSITYGW_VERSION" ]; then
        echo "$BIN"; return 0
    fi
    mkdir -p "$BIN_DIR"
    if [ -x "$CACHE/versitygw" ] && cp "$CACHE/versitygw" "$BIN.tmp" && mv "$BIN.tmp" "$BIN"; then
        echo "$VERSITYGW_VERSION" >"$STAMP"
        echo "$BIN"; return 0
    fi
    command -v go >/dev/null 2>&1 || { echo "versitygw.sh: go not found (versitygw is a Go module; it needs Go 1.25+)" >&2; exit 2; }
    local gv; gv=$(go env GOVERSION 2>/dev/null | sed 's/^go//')
    case "$gv" in
        1.2[5-9]*|1.[3-9][0-9]*|[2-9].*) ;;
        *) echo "versitygw.sh: Go ${gv:-?} is too old: versitygw $VERSITYGW_VERSION needs Go 1.25+" >&2; exit 2 ;;
    esac
    mkdir -p "$BIN_DIR"
    local log="$BIN_DIR/versitygw-install.log"
    # Offline first, from Go's module cache used as a file proxy (GOPROXY=off fails: `go install
    # pkg@version` looks the module's deprecation up), then the module proxy. The modules were
    # checked against the checksum database when they were first downloaded. GOTOOLCHAIN=local:
    # never download a Go toolchain.
    local modcache; modcache=$(go env GOMODCACHE)
    if ! GOBIN="$BIN_DIR" GOPROXY="file://$modcache/cache/download" GOSUMDB=off GOTOOLCHAIN=local \
            timeout 900 go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >"$log" 2>&1; then
        echo "versitygw.sh: building versitygw $VERSITYGW_VERSION (first time: downloads its modules)..." >&2
        GOBIN="$BIN_DIR" GOTOOLCHAIN=local timeout 1200 \
            go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >>"$log" 2>&1 ||
            { tail -n 20 "$log" >&2; die "go install of versitygw $VERSITYGW_VERSION failed (full log: $log)"; }
    fi
    echo "$VERSITYGW_VERSION" >"$STAMP"
    mkdir -p "$CACHE" && cp "$BIN" "$CACHE/versitygw.tmp" && mv "$CACHE/versitygw.tmp" "$CACHE/versitygw" ||
        echo "versitygw.sh: could not keep a copy in $CACHE (the next fresh build tree builds again)" >&2
    echo "$BIN"
}

free_port() {
    python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()"
}

start() {
    local state=${1:?usage: versitygw.sh start STATE_DIR ROOT_DIR [AK SK] [-- FLAGS]} dir=${2:?ROOT_DIR}
    shift 2
    local ak=segscan-test sk=segscan-test-secret
    if [ $# -ge 2 ] && [ "$1" != "--" ]; then ak=$1; sk=$2; shift 2; fi
    [ "${1:-}" = "--" ] && shift
    [ -x "$BIN" ] || die "versitygw not installed: run versitygw.sh install first"
    [ -d "$dir" ] || die "no directory $dir to serve"
    mkdir -p "$state"
    local port; port=$(free_port)
    # --port 127.0.0.1:PORT: the default (:7070) listens on every interface.
    ROOT_ACCESS_KEY="$ak" ROOT_SECRET_KEY="$sk" "$BIN" --port "127.0.0.1:$port" --region us-east-1 \
        --health /healthz "$@" posix "$dir" >"$state/log" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$state/pid"
    echo "$port" >"$state/port"
    echo "$ak" >"$state/access"
    echo "$sk" >"$state/secret"
    echo "http://127.0.0.1:$port" >"$state/url"
    local limit=$(( ${VERSITYGW_START_TIMEOUT:-60} * 4 )) i=0
    until curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/healthz"; do
        kill -0 "$pid" 2>/dev/null || { tail -n 20 "$state/log" >&2; die "versitygw exited during startup (log: $state/log)"; }
        i=$((i + 1))
        [ $i -gt $limit ] && { stop "$state"; die "versitygw did not answer within ${VERSITYGW_START_TIMEOUT:-60} s (log: $state/log)"; }
        sleep 0.25
    done
    echo "http://127.0.0.1:$port"
}

stop() {
    local state=${1:?usage: versitygw.sh stop STATE_DIR} pid
    pid=$(cat "$state/pid" 2>/dev/null) || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    fi
    rm -f "$state/pid"
}

case "${1:-}" in
    install) install ;;
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    *) sed -n '2,27p' "$0" >&2; exit 2 ;;
esac
