#!/usr/bin/env bash
# Measurements for docs/serve.md: the cost of an incremental rescan of an unchanged tree
# against the first (full) scan, and scrape throughput of `segscan serve` on loopback.
#
#   tests/serve_load.sh [SEGSCAN_BINARY]        (default build/segscan)
#
# Environment:
#   SEGSCAN_LOAD_SECONDS  duration of the 500/s run (default 30) and of the max-rate run
#                         (a third of it, at least 5 s)
#   SERVE_TOPICS, SERVE_PARTITIONS, SERVE_SEGMENTS, SERVE_SEGMENT_BYTES
#                         size of the generated log dir (default 8 x 8 x 16 x 256KiB)
#   STRACE=1              also count every syscall of the first and second scan (strace -f)
#   PORT                  listen port (default: random in 20000-40000)
#
# Exit status 0 when the 500/s run had no errors and the server's RSS stayed flat.
set -euo pipefail
bin=${1:-build/segscan}
secs=${SEGSCAN_LOAD_SECONDS:-30}
topics=${SERVE_TOPICS:-8} parts=${SERVE_PARTITIONS:-8} segs=${SERVE_SEGMENTS:-16}
segbytes=${SERVE_SEGMENT_BYTES:-256KiB}
port=${PORT:-$((20000 + RANDOM % 20000))}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/segscan-serve-load.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

cc=${CC:-cc}
$cc -std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread "$here/serve_load.c" -o "$tmp/serve_load"

"$bin" gen "$tmp/logdir" --topics="$topics" --partitions="$parts" --segments="$segs" \
    --segment-bytes="$segbytes" --seed=5 --remote-state="$tmp/remote.ndjson" >/dev/null
echo "log dir: $(du -sh "$tmp/logdir" | cut -f1), $((topics * parts)) partitions, $((topics * parts * segs)) segments"

args=(serve --listen=127.0.0.1:$port --interval=2 --stats --remote-state="$tmp/remote.ndjson" "$tmp/logdir")
if [ "${STRACE:-0}" = 1 ]; then
  strace -f -qq -s 300 -o "$tmp/strace.out" "$bin" "${args[@]}" 2>"$tmp/serve.log" &
  tracer=$!
  for _ in $(seq 100); do pid=$(pgrep -P "$tracer" || true); [ -n "$pid" ] && break; sleep 0.05; done
else
  "$bin" "${args[@]}" 2>"$tmp/serve.log" &
  pid=$!
fi

gen() { curl -s "http://127.0.0.1:$port/healthz" | sed -n 's/.*"generation":\([0-9]*\).*/\1/p'; }
for _ in $(seq 600); do g=$(gen || true); [ -n "$g" ] && [ "$g" -ge 2 ] && break; sleep 0.1; done
[ "${g:-0}" -ge 2 ] || { echo "serve did not publish two scans"; cat "$tmp/serve.log"; exit 1; }

echo
echo "== first (full) scan vs second scan of the unchanged tree"
grep 'msg="scan complete" generation=[12] ' "$tmp/serve.log" | sed 's/^ts=[^ ]* //'
grep 'msg="scan stats" generation=[12] ' "$tmp/serve.log" | sed 's/\\n/\n/g' |
  grep -E 'generation=|bytes read|syscalls|reused|total  ' || true
if [ "${STRACE:-0}" = 1 ]; then
  python3 - "$tmp/strace.out" <<'EOF'
import collections, re, sys
lines = open(sys.argv[1]).read().splitlines()
def count(g):
    s = e = None
    for i, l in enumerate(lines):
        if 'msg=\\"scan started\\" generation=%d ' % g in l or ('scan started' in l and 'generation=%d ' % g in l):
            s = i
        if 'scan complete' in l and 'generation=%d ' % g in l:
            e = i
    c = collections.Counter(m.group(1) for l in lines[s + 1:e] for m in [re.match(r'\d+\s+(\w+)\(', l)] if m)
    return sum(c.values()), c.most_common(6)
for g in (1, 2):
    n, top = count(g)
    print("strace: scan %d: %d syscalls, top: %s" % (g, n, ", ".join("%s %d" % t for t in top)))
EOF
  kill "$pid"; wait "$tracer" || true; pid=
  exit 0
fi

rss() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
echo
echo "== 500 scrapes/s of /metrics for ${secs}s over 8 keep-alive connections (rescans every 2 s)"
"$tmp/serve_load" 127.0.0.1 "$port" /metrics 8 500 3 segscan_build_info >/dev/null
before=$(rss)
out=$("$tmp/serve_load" 127.0.0.1 "$port" /metrics 8 500 "$secs" segscan_build_info) && ok=1 || ok=0
after=$(rss)
echo "$out"
echo "server RSS: ${before} KiB before, ${after} KiB after"
flat=1
if [ "$after" -gt $((before + 8192)) ] && [ "$after" -gt $((before * 11 / 10)) ]; then flat=0; fi

maxs=$((secs / 3)); [ "$maxs" -lt 5 ] && maxs=5
echo
echo "== as fast as possible for ${maxs}s, 8 connections"
"$tmp/serve_load" 127.0.0.1 "$port" /metrics 8 0 "$maxs" segscan_build_info || ok=0
echo "== /v1/partitions (json report), as fast as possible for ${maxs}s, 8 connections"
"$tmp/serve_load" 127.0.0.1 "$port" /v1/partitions 8 0 "$maxs" '"partitions"' || ok=0

t0=$(date +%s.%N)
kill -TERM "$pid"
wait "$pid" && rc=0 || rc=$?
pid=
echo
echo "SIGTERM to exit: $(echo "$(date +%s.%N) - $t0" | bc) s, exit status $rc"
[ "$ok" = 1 ] && [ "$flat" = 1 ] && [ "$rc" = 0 ]
