#!/usr/bin/env bash
# Sample a scan with perf (cpu-clock, call graphs) and draw a flame graph with
# scripts/flamegraph.py (no download). See docs/profiling.md.
#
# usage: scripts/profile-perf.sh [--out DIR] [--freq HZ] [--dwarf] [--repeat N] [SCAN OPTIONS] LOGDIR...
#
#   SCAN OPTIONS  passed to `segscan scan` (output goes to /dev/null; default -f ndjson)
#   --out DIR     perf.data, perf script text, folded stacks, flame graph SVG and the top
#                 of `perf report` (default build/profile)
#   --freq HZ     sampling frequency (default 4999)
#   --dwarf       unwind with DWARF (--call-graph=dwarf): full stacks from a binary built
#                 without frame pointers, at the price of large perf.data files
#   --repeat N    scan N times in one recording (more samples from a short scan)
#   Environment: SEGSCAN (default build/segscan). For cheap, complete frame-pointer
#   stacks build a profiling tree first:
#       make B=build/prof CFLAGS=-fno-omit-frame-pointer all
#       SEGSCAN=build/prof/segscan scripts/profile-perf.sh LOGDIR
#
# Needs perf (Debian: linux-perf) and kernel.perf_event_paranoid <= 2 (1 or lower, or
# root, for kernel frames).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN="${SEGSCAN:-$ROOT/build/segscan}"
OUT="$ROOT/build/profile"
FREQ=4999
CG="-g"
REPEAT=1

die() { echo "profile-perf: $*" >&2; exit 1; }

args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="${2:?--out needs a directory}"; shift ;;
        --out=*) OUT="${1#--out=}" ;;
        --freq) FREQ="${2:?--freq needs a number}"; shift ;;
        --freq=*) FREQ="${1#--freq=}" ;;
        --dwarf) CG="--call-graph=dwarf,16384" ;;
        --repeat) REPEAT="${2:?--repeat needs a number}"; shift ;;
        --repeat=*) REPEAT="${1#--repeat=}" ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) args+=("$1") ;;
    esac
    shift
done
[ ${#args[@]} -gt 0 ] || die "usage: $0 [--out DIR] [--freq HZ] [--dwarf] [SCAN OPTIONS] LOGDIR... (try --help)"
command -v perf >/dev/null || die "perf not found (Debian: apt-get install linux-perf)"
[ -x "$SEGSCAN" ] || die "$SEGSCAN not found: run make first (or set SEGSCAN)"
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || die "--repeat wants a positive number"
paranoid="$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)"
if [ "$(id -u)" -ne 0 ] && [ "$paranoid" -gt 2 ]; then
    die "kernel.perf_event_paranoid is $paranoid: run 'sudo sysctl kernel.perf_event_paranoid=1' or profile as root"
fi
PY="$(command -v python3 || true)"
[ -n "$PY" ] || die "python3 not found (needed for scripts/flamegraph.py)"
mkdir -p "$OUT"

stamp="$(date +%Y%m%d-%H%M%S)"
data="$OUT/perf.$stamp.data"
# a tiny driver so --repeat records several scans in one perf.data
driver="$OUT/perf.$stamp.sh"
{
    echo '#!/usr/bin/env bash'
    echo "for i in \$(seq $REPEAT); do"
    printf '  %q scan -q -f ndjson' "$SEGSCAN"
    printf ' %q' "${args[@]}"
    echo ' >/dev/null || exit $?'
    echo 'done'
} >"$driver"

echo "profile-perf: perf record -e cpu-clock -F $FREQ $CG: $SEGSCAN scan ${args[*]} (x$REPEAT)" >&2
perf record -e cpu-clock -F "$FREQ" $CG -o "$data" -- bash "$driver" 2>"$OUT/perf.$stamp.record.log" || {
    tail -5 "$OUT/perf.$stamp.record.log" >&2
    die "perf record failed (log: $OUT/perf.$stamp.record.log)"
}
perf script -i "$data" 2>/dev/null >"$OUT/perf.$stamp.txt"
"$PY" "$ROOT/scripts/flamegraph.py" --collapse "$OUT/perf.$stamp.txt" >"$OUT/perf.$stamp.folded"
"$PY" "$ROOT/scripts/flamegraph.py" --folded --title "segscan scan ${args[*]}" "$OUT/perf.$stamp.folded" \
    >"$OUT/flame.$stamp.svg"
perf report -i "$data" --no-children -g none --percent-limit 0.5 --sort comm,dso,symbol --stdio 2>/dev/null | grep -v '^$' | head -60 \
    >"$OUT/report.$stamp.txt" || true
rm -f "$driver"

samples=$(awk '{ n += $NF } END { print n + 0 }' "$OUT/perf.$stamp.folded")
echo "profile-perf: $samples samples" >&2
echo "  flame graph     $OUT/flame.$stamp.svg" >&2
echo "  top functions   $OUT/report.$stamp.txt" >&2
echo "  folded stacks   $OUT/perf.$stamp.folded" >&2
echo "  raw             $data (perf report -i $data)" >&2
head -25 "$OUT/report.$stamp.txt"
