#!/usr/bin/env bash
# Golden outputs for a restructuring: everything segscan says over inputs nobody here wrote
# and over damaged copies of them, captured before a change and compared after it. A
# refactoring that changes no behaviour leaves every byte (stdout, stderr and the exit code)
# the same.
#
#   scripts/golden.sh capture DIR [SEGSCAN]   write the outputs under DIR
#   scripts/golden.sh compare DIR [SEGSCAN]   capture again into DIR.new and diff against DIR
#
# What it runs (one file set per run: NAME.out, NAME.err, NAME.rc):
#  - every fixture log dir (tests/fixtures/kafka/*, written by real brokers), scanned in every
#    format with the option sets that reach every source (local metadata, --remote-state,
#    --topic-config, --server-properties, the off switches, a filter) and through every engine
#    (--verify with io_uring, --io=mmap and --io=pread);
#  - `dump` of every fixture file (log dirs and remote stores) in every format, with each of
#    eight option sets (records, data, --decode, --verify-index, --index-sanity-check, an
#    offset range, --max-bytes);
#  - damaged copies of one fixture (scripts/golden-damage.py: torn, zero and sparse tails,
#    zeros then data, CRC flips, corrupt headers in __remote_log_metadata,
#    __cluster_metadata and a user topic), scanned through every engine, the damaged files
#    dumped with the eight option sets: the .log readers' verdicts, which healthy fixtures
#    never reach;
#  - generated shape trees (the bench shapes, small; preallocated, unclean, compressed and
#    single-record tails): the tree's bytes and its scans and dumps.
# Wall-clock times and the temporary directory's name are masked; nothing else may differ.
# Capture and compare in the same checkout: an empty segment's max timestamp is its file's
# mtime (as Kafka reports it), and each checkout has its own.
# A few minutes on a loaded 2-core machine.
set -u
mode=${1:?capture|compare}; out=${2:?DIR}; SEGSCAN=${3:-build/segscan}
[ "$mode" = capture ] || [ "$mode" = compare ] || { echo "golden.sh: capture or compare, not $mode" >&2; exit 2; }
[ "$mode" = compare ] && { ref=$out; out=$out.new; }
rm -rf "$out"; mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
unset COLUMNS   # the table's width is the terminal's: none here

run() { # NAME ARGS... : stdout, stderr and the exit code of one segscan run
    local name=$1; shift
    "$SEGSCAN" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
    echo $? >"$out/$name.rc"
}

scan_all() { # NAME ARGS... : the scan in every format
    local name=$1 f; shift
    for f in table json ndjson prom; do run "$name.$f" scan -q --threads=2 -f "$f" "$@"; done
}

engines() { # NAME ARGS... : --verify through each engine (the default, io_uring, in NAME.verify)
    local name=$1; shift
    scan_all "$name.verify-mmap" --verify --io=mmap "$@"
    scan_all "$name.verify-pread" --verify --io=pread "$@"
}

dump_all() { # NAME FILE... : dump in every format with each option set
    local name=$1 f i o; shift
    [ $# -gt 0 ] || return 0
    for f in text json ndjson; do
        i=0
        for o in "" "--records" "--print-data" "--decode=auto --print-data" "--verify-index" \
            "--index-sanity-check" "--offsets=5..20 --records" "--max-bytes=1000 --records"; do
            # shellcheck disable=SC2086
            run "$name.dump.$f.$i" dump -f "$f" $o "$@"
            i=$((i + 1))
        done
    done
}

for d in tests/fixtures/kafka/*/; do
    c=$(basename "$d")
    now=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['capture_time_ms'])" "$d/case.json")
    lds=$(ls -d "$d"logdir* | sort)
    # shellcheck disable=SC2086
    {
    scan_all "$c.default" --now="$now" $lds
    scan_all "$c.verify" --now="$now" --verify $lds
    engines "$c" --now="$now" --broker-process=off $lds
    scan_all "$c.off" --now="$now" --remote-metadata=off --cluster-metadata=off --broker-process=off $lds
    if [ -f "$d/remote-state.ndjson" ]; then
        scan_all "$c.rstate" --now="$now" --remote-state="$d/remote-state.ndjson" $lds
        scan_all "$c.rstate-only" --now="$now" --remote-state="$d/remote-state.ndjson" --remote-metadata=off $lds
    fi
    [ -f "$d/topic-config.txt" ] &&
        scan_all "$c.tcfg" --now="$now" --topic-config="$d/topic-config.txt" --cluster-metadata=off $lds
    if [ -f "$d/server.properties" ]; then
        sed "s|LOGDIR|$PWD/${d}logdir|g; s|REMOTEDIR|$tmp/remote|g" "$d/server.properties" >"$tmp/$c.properties"
        scan_all "$c.sprops" --now="$now" --server-properties="$tmp/$c.properties"
    fi
    scan_all "$c.filter" --now="$now" --findings-only --topic='[a-m].*' $lds
    }
    # dump: every file of each log dir and of the remote store
    for l in $lds; do
        mapfile -t files < <(find "$l" -type f | sort)
        dump_all "$c.$(basename "$l")" "${files[@]}"
    done
    if [ -d "$d/remote" ]; then
        mapfile -t files < <(find "$d/remote" -type f | sort)
        dump_all "$c.remote" "${files[@]}"
    fi
done

# damaged copies of one fixture: the files the damage touched are newer than the fixture
mkdir -p "$tmp/damaged"
python3 "$(dirname "$0")/golden-damage.py" "$tmp/damaged" >/dev/null ||
    { echo "golden.sh: golden-damage.py failed" >&2; exit 1; }
copied=tests/fixtures/kafka/cluster-meta/case.json   # not $ref: that is the capture compared against
for t in "$tmp"/damaged/*; do
    tn=damaged.$(basename "$t")
    scan_all "$tn" --now=1796117024711 --broker-process=off "$t"
    scan_all "$tn.verify" --now=1796117024711 --broker-process=off --verify "$t"
    engines "$tn" --now=1796117024711 --broker-process=off "$t"
    mapfile -t files < <(find "$t" -type f -newer "$copied" \( -name '*.log' -o -name '*.checkpoint' \) | sort)
    dump_all "$tn" "${files[@]}"
done

# generated shape trees: the tree's bytes, its scans and (a few shapes) its dumps
gen() { # NAME GEN-ARGS...
    local name=$1; shift
    "$SEGSCAN" gen "$tmp/$name" "$@" >/dev/null 2>"$out/gen.$name.err"
    (cd "$tmp/$name" && find . -type f | sort | xargs sha256sum) >"$out/gen.$name.tree"
    scan_all "gen.$name" --now=1700000000000 "$tmp/$name"
    scan_all "gen.$name.verify" --now=1700000000000 --verify "$tmp/$name"
}
gen many --topics=3 --partitions=10 --segments=25 --segment-bytes=96KiB --records-per-batch=4 --value-bytes=100 --seed=11
gen zstd --topics=2 --partitions=5 --segments=10 --segment-bytes=96KiB --records-per-batch=16 --value-bytes=200 --compression=zstd --seed=12
gen tail --topics=3 --partitions=4 --segments=6 --segment-bytes=256KiB --single-record-tail=2 --seed=42 --remote-state="$tmp/rs.ndjson"
cp "$tmp/rs.ndjson" "$out/gen.tail.remote-state"
scan_all "gen.tail.rstate" --now=1700000000000 --remote-state="$tmp/rs.ndjson" "$tmp/tail"
"$SEGSCAN" gen "$tmp/tcfg" --topics=3 --partitions=4 --segments=6 --segment-bytes=256KiB --seed=42 \
    --remote-state="$tmp/rs2.ndjson" >/dev/null 2>&1
[ -f "$tmp/tcfg/../topic-config.txt" ] && cp "$tmp/tcfg/../topic-config.txt" "$out/gen.topic-config"
gen a --topics=3 --partitions=2 --segments=4 --segment-bytes=64KiB --seed=7 --remote-state="$tmp/a.ndjson"
scan_all "gen.a.rstate" --now=1700000000000 --remote-state="$tmp/a.ndjson" "$tmp/a"
gen prealloc --topics=2 --partitions=2 --segments=3 --segment-bytes=256KiB --seed=9 --preallocate \
    --no-clean-shutdown --compression=zstd
gen gzip --topics=2 --partitions=1 --segments=3 --segment-bytes=128KiB --seed=3 --compression=gzip \
    --single-record-tail=1
for t in a prealloc gzip; do
    engines "gen.$t" --now=1700000000000 --broker-process=off "$tmp/$t"
    mapfile -t files < <(find "$tmp/$t" -type f | sort | head -60)
    dump_all "gen.$t" "${files[@]}"
done

# the temporary directory's name appears in messages, and wall-clock times in the table,
# prom and gen lines: make them stable (nothing else may differ)
grep -rl "$tmp" "$out" 2>/dev/null | xargs -r sed -i "s|$tmp|TMP|g"
sed -i -E 's/^(  scan: .*threads, )[0-9.]+ s,/\1T s,/; s/^(segscan_scan_duration_seconds) [0-9.e+-]+$/\1 T/' "$out"/*.out
sed -i -E 's/ in [0-9.]+ s \([0-9.]+ segments\/s\)/ in T s/' "$out"/gen.*.err

if [ "$mode" = compare ]; then
    [ -d "$ref" ] || { echo "golden.sh: no capture in $ref" >&2; exit 2; }
    if diff -r "$ref" "$out" >"$out.diff" 2>&1; then
        echo "golden: identical ($(ls "$ref" | wc -l) files)"; rm -f "$out.diff"
    else
        echo "golden: DIFFERENT, see $out.diff"; head -40 "$out.diff"; exit 1
    fi
else
    echo "golden: captured $(ls "$out" | wc -l) files in $out"
fi
