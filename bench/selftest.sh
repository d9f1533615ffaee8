#!/usr/bin/env bash
# Checks the benchmark's own tools against independent answers on a tiny generated tree, with
# the C helpers built under ASan+UBSan. Not part of `make test` (it needs a built segscan and
# libsegscan.a); run it after changing anything in bench/ or scripts/profile-* / flamegraph*.
#
# usage: bash bench/selftest.sh        (B=build by default; SEGSCAN overrides the binary)
#
# Every check can fail: each compares a tool's output with a value computed another way
# (find/stat, /usr/bin/python3, a hand-written expectation), never with the tool itself.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
B="${B:-build}"
SEGSCAN="${SEGSCAN:-$ROOT/$B/segscan}"
LIBA="$ROOT/$B/libsegscan.a"
T="$(mktemp -d "${TMPDIR:-/tmp}/segscan-bench-selftest.XXXXXX")"
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
pass=0 fail=0

ok()   { pass=$((pass + 1)); echo "[       OK ] $1"; }
bad()  { fail=$((fail + 1)); echo "[  FAILED  ] $1: $2"; }
check() { # name, condition (evaluated), detail on failure
    if eval "$2"; then ok "$1"; else bad "$1" "$3"; fi
}

[ -x "$SEGSCAN" ] && [ -f "$LIBA" ] || { echo "selftest: build segscan first (make${B:+ B=$B} all)" >&2; exit 2; }

PKGS="liburing numa jemalloc jansson libmicrohttpd zlib liblz4 libzstd"
LIBS="$(pkg-config --libs $PKGS 2>/dev/null | sed 's/-ljemalloc//') -lsnappy -lpthread -lm"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CF="-std=gnu11 -g -O1 -D_GNU_SOURCE -Iinclude -Isrc -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter"
for n in evict tailfloor; do
    gcc $CF $SAN "bench/$n.c" -o "$T/$n" -lpthread || { echo "selftest: cannot build bench/$n.c" >&2; exit 1; }
done
# evalbench and reusebench link the release library (jemalloc inside): no ASan there, but
# -O2 warnings still count
for n in evalbench reusebench; do
    gcc ${CF/-O1/-O2} "bench/$n.c" -o "$T/$n" "$LIBA" $(pkg-config --libs $PKGS) -lsnappy -lpthread -lm \
        || { echo "selftest: cannot build bench/$n.c" >&2; exit 1; }
done
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1

# a tiny tree: 2 log dirs, segments above and below the 64 KiB cut-off
"$SEGSCAN" gen "$T/d/ld0" --topics=2 --partitions=3 --segments=4 --segment-bytes=96KiB \
    --records-per-batch=4 --value-bytes=100 --seed=3 -q || { echo "selftest: gen failed" >&2; exit 1; }
"$SEGSCAN" gen "$T/d/ld1" --topics=1 --partitions=2 --segments=5 --segment-bytes=16KiB --seed=4 \
    --topic-prefix=x- -q || { echo "selftest: gen failed" >&2; exit 1; }
D="$T/d/ld0 $T/d/ld1"

# ---- tailfloor: segments and bytes against find + awk -------------------------------------------
segs=$(find $D -regextype posix-extended -regex '.*/[0-9]{20}\.log' | wc -l)
want_bytes=$(find $D -regextype posix-extended -regex '.*/[0-9]{20}\.(log|index)' -printf '%f %s\n' |
    awk '{ cap = ($1 ~ /index$/) ? 4096 : 8192; n += ($2 < cap ? $2 : cap) } END { printf "%.0f\n", n }')
out=$("$T/tailfloor" -t 3 $D 2>&1)
check tailfloor_segments "[[ \"\$out\" == *\"tailfloor: $segs segments\"* ]]" "want $segs segments, got: $out"
check tailfloor_bytes "[[ \"\$out\" == *\" $want_bytes bytes read\"* ]]" "want $want_bytes bytes, got: $out"
check tailfloor_syscalls "[[ \"\$out\" == *\" $((segs * 8)) syscalls\"* ]]" "want $((segs * 8)) syscalls, got: $out"
out1=$("$T/tailfloor" -t 1 -i 100 -l 200 $D 2>&1)
want_small=$(find $D -regextype posix-extended -regex '.*/[0-9]{20}\.(log|index)' -printf '%f %s\n' |
    awk '{ cap = ($1 ~ /index$/) ? 100 : 200; n += ($2 < cap ? $2 : cap) } END { printf "%.0f\n", n }')
check tailfloor_tail_sizes "[[ \"\$out1\" == *\" $want_small bytes read\"* ]]" "want $want_small, got: $out1"
"$T/tailfloor" "$T/nonexistent" >/dev/null 2>&1
check tailfloor_missing_dir "[ $? -ne 0 ]" "exit 0 for a missing log dir"

# ---- evict: resident pages before and after (mincore, through evict -c) -------------------------
find $D -type f -name '*.log' -exec cat {} + >/dev/null
out=$("$T/evict" -c $D 2>&1)
before=$(sed -n 's/.*resident before \([0-9.]*\) MiB.*/\1/p' <<<"$out")
after=$(sed -n 's/.*after \([0-9.]*\) MiB.*/\1/p' <<<"$out")
nfiles=$(find $D -type f | wc -l)
check evict_files "[[ \"\$out\" == \"evict: $nfiles files,\"* ]]" "want $nfiles files: $out"
check evict_was_resident "awk -v b='$before' 'BEGIN { exit !(b > 0.5) }'" "nothing resident before: $out"
check evict_dropped "[ '$after' = 0.0 ]" "still resident after: $out"
"$T/evict" -q "$T/nonexistent" 2>/dev/null
check evict_missing_dir "[ $? -eq 1 ]" "a missing path must exit 1"

# ---- reusebench: the second scan takes over every closed segment --------------------------------
closed=$((segs - $(find $D -mindepth 1 -maxdepth 2 -type d -name '*-[0-9]*' | wc -l)))
out=$("$T/reusebench" -r 1 -o threads=2 $D 2>&1)
reuse_line=$(grep '^reusebench reuse' <<<"$out")
check reuse_segments "[ \"\$(awk '{print \$5, \$6}' <<<\"\$reuse_line\")\" = '$segs $closed' ]" \
    "want '$segs segments, $closed reused', got: $out"
full_bytes=$(awk '/^reusebench full/ {print $7}' <<<"$out")
reuse_bytes=$(awk '{print $7}' <<<"$reuse_line")
check reuse_reads_less "[ \"${reuse_bytes:-x}\" -lt \"${full_bytes:-0}\" ] 2>/dev/null" "bytes: full $full_bytes, reuse $reuse_bytes"
"$T/reusebench" -r 1 -o nosuchoption=1 $D >/dev/null 2>&1
check reuse_bad_option "[ $? -ne 0 ]" "an unknown option must fail"

# ---- evalbench: small counts, each measurement reported once per repetition ---------------------
out=$("$T/evalbench" -e 20000 -p 2000 -r 2 2>/dev/null)
for m in replay_synthetic replay_ndjson evaluate; do
    n=$(grep -c "^evalbench $m [01] [0-9.]* " <<<"$out")
    check "evalbench_$m" "[ $n -eq 2 ]" "want 2 lines for $m, got: $out"
done
check evalbench_counts "[ \"\$(awk '\$2 == \"evaluate\" {print \$6}' <<<\"\$out\" | sort -u)\" = 2000 ]" "partitions: $out"
"$T/evalbench" -m evaluate -r 1 -p 0 >/dev/null 2>&1
check evalbench_usage "[ $? -eq 2 ]" "-p 0 must be a usage error"

# ---- the Python peer against segscan, and against its own reading of the batches -----------------
if "$PY" -c 'import kafka' 2>/dev/null; then
    "$PY" bench/peer_kafka_python.py --out "$T/peer.txt" $D 2>/dev/null
    "$SEGSCAN" scan -q -f ndjson $D >"$T/scan.ndjson" 2>/dev/null
    agree=$("$PY" - "$T/scan.ndjson" "$T/peer.txt" <<'EOF'
import json, sys
seg = {}
for line in open(sys.argv[1]):
    p = json.loads(line)
    for s in p["segments"]:
        seg[(p["dir"], s["base_offset"])] = (s["last_offset"] if s["last_offset"] is not None else -1, s["max_timestamp_ms"])
rows = [l.split() for l in open(sys.argv[2])]
same = sum(1 for d, b, l, t in rows if seg.get((d, int(b))) == (int(l), int(t)))
print(same, len(rows))
EOF
)
    check peer_python_agrees "[ \"\$agree\" = '$segs $segs' ]" "segscan and kafka-python agree on '$agree' (want $segs of $segs)"
else
    echo "[  SKIPPED ] peer_python_agrees: kafka-python not importable by $PY"
fi

# ---- flamegraph.py: folding a hand-written perf script ---------------------------------------------
cat >"$T/perf.txt" <<'EOF'
segscan 100 [000]  10.000001:     250000 cpu-clock:pppH: 
	    7f0000000010 leaf_a+0x10 (/usr/lib/libc.so.6)
	    55000000001f mid+0x1f (/work/segscan)
	    550000000020 main+0x20 (/work/segscan)

segscan 100 [001]  10.000002:     250000 cpu-clock:pppH: 
	    7f0000000010 leaf_a+0x11 (/usr/lib/libc.so.6)
	    55000000001f mid+0x2f (/work/segscan)
	    550000000020 main+0x20 (/work/segscan)

iou-wrk-101 101 [001]  10.000003:     250000 cpu-clock:pppH: 
	    ffffffff81000000 io_statx+0x5 ([kernel.kallsyms])
	    0 [unknown] (/work/segscan)

EOF
folded=$("$PY" scripts/flamegraph.py --collapse "$T/perf.txt")
want=$'iou-wrk-101;[segscan];io_statx 1\nsegscan;main;mid;leaf_a 2'
check flamegraph_collapse "[ \"\$folded\" = \"\$want\" ]" "got: $folded"
"$PY" scripts/flamegraph.py "$T/perf.txt" >"$T/flame.svg"
# 9 rectangles: the background, "all", and the 7 frames; the leaf's tooltip carries its share
check flamegraph_svg "$PY -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); t = [x.firstChild.data for x in d.getElementsByTagName(\"title\")]; sys.exit(len(d.getElementsByTagName(\"rect\")) != 9 or \"leaf_a (2 samples, 66.67%)\" not in t)' '$T/flame.svg'" \
    "want 9 rects and the tooltip 'leaf_a (2 samples, 66.67%)' in $T/flame.svg"

# ---- profile-callgrind.sh --annotate-only on a real profile -----------------------------------------
if command -v valgrind >/dev/null 2>&1; then
    valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$SEGSCAN" scan -q -f ndjson --threads=1 $D \
        >/dev/null 2>&1
    table=$(bash scripts/profile-callgrind.sh --annotate-only "$T/cg.out" "$segs" 2>&1)
    total=$(sed -n 's/^summary: *//p' "$T/cg.out")
    check callgrind_total "[[ \"\$table\" == *\"| **program total** | | $total | 100% |\"* ]]" "total $total not in: $table"
    workers=$(awk -F'|' '/`worker_main`/ {gsub(/ /, "", $4); print $4}' <<<"$table")
    check callgrind_workers "[ \"${workers:-0}\" -gt 0 ] && [ \"${workers:-0}\" -lt \"$total\" ]" "worker_main Ir '$workers' of $total"
else
    echo "[  SKIPPED ] callgrind checks: valgrind not installed"
fi

# ---- probes.h: notes with <sys/sdt.h>, none without -------------------------------------------------
cat >"$T/probe.c" <<'EOF'
#include "common/probes.h"
int main(int argc, char **argv)
{
	unsigned long long seg = (unsigned long long)argc;
	long long bytes = (long long)(argv != 0);
	SS_PROBE_SEGMENT_SUBMITTED(seg, 0);
	SS_PROBE_SEGMENT_PARSED(seg, bytes);
	SS_PROBE_RING_FULL(1, seg);
	SS_PROBE_PARTITION_EVALUATED(seg, 25);
	SS_PROBE_SCAN_START(1, 2);
	SS_PROBE_SCAN_DONE(seg, 0);
	return 0;
}
EOF
if echo '#include <sys/sdt.h>' | gcc -E -x c - >/dev/null 2>&1; then
    gcc $CF -O2 "$T/probe.c" -o "$T/probe" && "$T/probe"
    names=$(readelf -n "$T/probe" | sed -n 's/^ *Name: //p' | sort | tr '\n' ' ')
    check probes_present "[ \"\$names\" = 'partition__evaluated ring__full scan__done scan__start segment__parsed segment__submitted ' ]" "notes: $names"
else
    echo "[  SKIPPED ] probes_present: no <sys/sdt.h> (systemtap-sdt-dev)"
fi
gcc $CF -O2 -DSS_NO_PROBES "$T/probe.c" -o "$T/probe0" && "$T/probe0"
check probes_compiled_out "[ \"\$(readelf -n '$T/probe0' | grep -c stapsdt)\" = 0 ]" "stapsdt notes with -DSS_NO_PROBES"

echo "selftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
