#!/usr/bin/env bash
# Instruction counts of one scan under callgrind, split by pipeline stage: the inclusive
# cost of each stage's entry point (discovery ss_discover, remote state ss_scan_load_remote,
# workers worker_main, batch parsing ss_walk_feed inside them, the evaluator
# ss_evaluate_partition, output segscan_write), in total, as a share of the program and
# per segment. Instruction counts barely move on a noisy machine, unlike time.
# See docs/profiling.md.
#
# usage: scripts/profile-callgrind.sh [--out DIR] [--keep] [SCAN OPTIONS] LOGDIR...
#        scripts/profile-callgrind.sh --annotate-only CALLGRIND.OUT [SEGMENTS]
#
#   SCAN OPTIONS  passed to `segscan scan` (default: --threads=1 -f ndjson; --threads=1
#                 keeps callgrind's serialised threads from adding scheduling noise)
#   --out DIR     where callgrind.out.* and the annotation go (default build/profile)
#   Environment: SEGSCAN (default build/segscan).
#
# Then browse the full profile with: callgrind_annotate --inclusive=yes FILE | less
#                                or: kcachegrind FILE
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SEGSCAN="${SEGSCAN:-$ROOT/build/segscan}"
OUT="$ROOT/build/profile"

die() { echo "profile-callgrind: $*" >&2; exit 1; }

# stage label | function(s) as callgrind names them: the largest inclusive cost among
# comma-separated alternatives counts (discovery's entry point was renamed when it went
# multi-threaded; with --threads=1 its lister runs inline, so the cost stays inclusive)
STAGES=(
    "discovery|ss_discover_mt,ss_discover"
    "remote state|ss_scan_load_remote"
    "workers (I/O + parsing)|worker_main"
    "  of which batch parsing|ss_walk_feed"
    "  of which index tail search|tf_feed"
    "  of which path formatting|ss_seg_relpath"
    "evaluator|ss_evaluate_partition"
    "output|segscan_write"
)

annotate() { # callgrind.out segments
    local f="$1" segs="${2:-0}" total
    command -v callgrind_annotate >/dev/null || die "callgrind_annotate not found (Debian: valgrind)"
    total=$(sed -n 's/^summary: *//p' "$f" | head -1)
    [ -n "$total" ] || die "$f: no summary line (did callgrind finish?)"
    local ann
    ann="$(callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null)"
    printf '| stage | function | inclusive Ir | share | Ir per segment |\n|---|---|---:|---:|---:|\n'
    local line label fn ir
    for line in "${STAGES[@]}"; do
        IFS='|' read -r label fn <<<"$line"
        # the function's own entry is the one naming its object file: "[.../segscan]";
        # inlined copies appear without it
        ir=$(awk -v fns="$fn" '
            BEGIN { n = split(fns, want, ",") }
            { for (i = 1; i <= NF; i++) for (k = 1; k <= n; k++)
                  if ($i ~ ("[:]" want[k] "$") && $(i+1) ~ /^\[/) { v = $1; gsub(",", "", v); if (v + 0 > best) best = v + 0 } }
            END { printf "%.0f\n", best }' <<<"$ann")
        printf '| %s | `%s` | %s | %.1f%% | %s |\n' "$label" "${fn//,/\` or \`}" "$ir" \
            "$(awk -v a="$ir" -v t="$total" 'BEGIN { print t ? 100 * a / t : 0 }')" \
            "$(awk -v a="$ir" -v s="$segs" 'BEGIN { if (s > 0) printf "%.0f", a / s; else print "-" }')"
    done
    printf '| **program total** | | %s | 100%% | %s |\n' "$total" \
        "$(awk -v a="$total" -v s="$segs" 'BEGIN { if (s > 0) printf "%.0f", a / s; else print "-" }')"
}

if [ "${1:-}" = "--annotate-only" ]; then
    [ $# -ge 2 ] || die "usage: $0 --annotate-only CALLGRIND.OUT [SEGMENTS]"
    annotate "$2" "${3:-0}"
    exit 0
fi

keep=0
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="${2:?--out needs a directory}"; shift ;;
        --out=*) OUT="${1#--out=}" ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) args+=("$1") ;;
    esac
    shift
done
[ ${#args[@]} -gt 0 ] || die "usage: $0 [--out DIR] [SCAN OPTIONS] LOGDIR... (try --help)"
command -v valgrind >/dev/null || die "valgrind not found (Debian: apt-get install valgrind)"
[ -x "$SEGSCAN" ] || die "$SEGSCAN not found: run make first (or set SEGSCAN)"
mkdir -p "$OUT"

# segments = live <20 digits>.log files under the LOGDIR arguments (the non-option ones)
segs=0
for a in "${args[@]}"; do
    if [ "${a#-}" = "$a" ] && [ -d "$a" ]; then
        segs=$((segs + $(find "$a" -regextype posix-extended -regex '.*/[0-9]{20}\.log' | wc -l)))
    fi
done

stamp="$(date +%Y%m%d-%H%M%S)"
cg="$OUT/callgrind.out.$stamp"
echo "profile-callgrind: valgrind --tool=callgrind $SEGSCAN scan --threads=1 -q -f ndjson ${args[*]}" >&2
valgrind --tool=callgrind --callgrind-out-file="$cg" "$SEGSCAN" scan --threads=1 -q -f ndjson "${args[@]}" \
    >"$OUT/scan-output.$stamp" 2>"$OUT/valgrind.$stamp.log" || {
    tail -5 "$OUT/valgrind.$stamp.log" >&2
    die "the scan under callgrind failed (full log: $OUT/valgrind.$stamp.log)"
}
[ $keep = 1 ] || rm -f "$OUT/scan-output.$stamp"
annotate "$cg" "$segs" | tee "$OUT/stages.$stamp.md"
echo "profile-callgrind: $segs segments; profile $cg; table $OUT/stages.$stamp.md" >&2
