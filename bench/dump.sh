#!/usr/bin/env bash
# segscan dump's benchmark (issue 12), page cache warm, median of BENCH_REPS runs:
#  1. batch level: `segscan dump` of a 1 GiB uncompressed segment (every byte read and
#     CRC-checked) against `cat FILE > /dev/null`, the floor of reading it;
#  2. record level: `segscan dump --records` and `--print-data` of a zstd segment against
#     Kafka's DumpLogSegments --deep-iteration (and --print-data-log) on the same file,
#     in records per second (the oracle's jars: scripts/kafka-oracle, build/kafka-oracle).
#
#   bash bench/dump.sh          (B=build dir, default build; BENCH_DATA, BENCH_REPS)
#
# Writes bench/results/dump-latest.md. Output goes to /dev/null in every run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
B="${B:-build}"
SEGSCAN="${SEGSCAN:-$ROOT/$B/segscan}"
DATA="${BENCH_DATA:-$ROOT/build/bench/dump-data}"
REPS="${BENCH_REPS:-3}"
KV="${KAFKA_VERSION:-4.4.0}"
KD="$ROOT/build/kafka-oracle/kafka-$KV"
OUT="${BENCH_RESULTS:-$ROOT/bench/results}/dump-latest.md"
mkdir -p "$DATA" "$(dirname "$OUT")"

gen() { # dir, extra gen args...
    local d="$1"; shift
    [ -f "$d/STAMP" ] && [ "$(cat "$d/STAMP")" = "$*" ] && return 0
    rm -rf "$d"
    "$SEGSCAN" gen "$d" --topics=1 --partitions=1 --segments=2 --active-batches=0 --seed=7 "$@" >/dev/null
    echo "$*" >"$d/STAMP"
}
gen "$DATA/plain" --segment-bytes=1g --records-per-batch=64 --value-bytes=1000
gen "$DATA/zstd" --segment-bytes=64m --records-per-batch=16 --value-bytes=200 --compression=zstd
big=$(ls -S "$DATA"/plain/*-0/*.log | head -1)
zst=$(ls -S "$DATA"/zstd/*-0/*.log | head -1)

# median wall seconds of REPS runs of "$@" (stdout to /dev/null)
med() {
    local t=()
    for _ in $(seq "$REPS"); do
        local s e
        s=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        e=$(date +%s.%N)
        t+=("$(echo "$e - $s" | bc -l)")
    done
    printf '%s\n' "${t[@]}" | sort -g | sed -n "$(( (REPS + 1) / 2 ))p"
}
mibs() { echo "scale=0; $1 / 1048576 / $2" | bc -l; }
rps() { echo "scale=0; $1 / $2" | bc -l; }

cat "$big" >/dev/null; cat "$zst" >/dev/null   # warm the page cache
size=$(stat -c %s "$big")
t_cat=$(med cat "$big")
t_text=$(med "$SEGSCAN" dump "$big")
t_nd=$(med "$SEGSCAN" dump -f ndjson "$big")
batches=$("$SEGSCAN" dump -f ndjson "$big" | grep -c '"type":"batch"')

records=$("$SEGSCAN" dump -f ndjson "$zst" | grep -o '"count":[0-9]*' | cut -d: -f2 | paste -sd+ | bc)
zsize=$(stat -c %s "$zst")
t_rec=$(med "$SEGSCAN" dump --records "$zst")
t_recnd=$(med "$SEGSCAN" dump --records -f ndjson "$zst")
t_data=$(med "$SEGSCAN" dump --print-data "$zst")
dls="n/a"; dlsd="n/a"
if [ -d "$KD/lib" ] && command -v java >/dev/null; then
    j() { java -Xmx1g -cp "$KD/target/classes:$KD/lib/*" -Dlog4j2.configurationFile="$ROOT/scripts/kafka-oracle/log4j2-oracle.properties" \
          org.apache.kafka.tools.DumpLogSegments --files "$zst" "$@"; }
    dls=$(med j --deep-iteration)
    dlsd=$(med j --deep-iteration --print-data-log)
fi

{
    echo "# segscan dump benchmark ($(date -u +%Y-%m-%d), $(nproc) cores, page cache warm, median of $REPS)"
    echo
    echo "## Batch level: a $(mibs "$size" 1) MiB uncompressed segment ($batches batches)"
    echo
    echo "| command | seconds | MiB/s |"
    echo "|---|---|---|"
    echo "| \`cat FILE > /dev/null\` (floor) | $t_cat | $(mibs "$size" "$t_cat") |"
    echo "| \`segscan dump FILE\` (text) | $t_text | $(mibs "$size" "$t_text") |"
    echo "| \`segscan dump -f ndjson FILE\` | $t_nd | $(mibs "$size" "$t_nd") |"
    echo
    echo "## Record level: a $(mibs "$zsize" 1) MiB zstd segment, $records records"
    echo
    echo "| command | seconds | records/s |"
    echo "|---|---|---|"
    echo "| \`segscan dump --records FILE\` (text) | $t_rec | $(rps "$records" "$t_rec") |"
    echo "| \`segscan dump --records -f ndjson FILE\` | $t_recnd | $(rps "$records" "$t_recnd") |"
    echo "| \`segscan dump --print-data FILE\` (text) | $t_data | $(rps "$records" "$t_data") |"
    if [ "$dls" != "n/a" ]; then
        echo "| Kafka $KV DumpLogSegments \`--deep-iteration\` | $dls | $(rps "$records" "$dls") |"
        echo "| Kafka $KV DumpLogSegments \`--deep-iteration --print-data-log\` | $dlsd | $(rps "$records" "$dlsd") |"
        echo
        echo "Ratio, records/s, segscan --records / DumpLogSegments --deep-iteration: $(echo "scale=1; $dls / $t_rec" | bc -l)x;"
        echo "--print-data / --print-data-log: $(echo "scale=1; $dlsd / $t_data" | bc -l)x."
    fi
} | tee "$OUT"
