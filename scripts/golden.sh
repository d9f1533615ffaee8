#!/usr/bin/env bash
# Golden outputs for a restructuring: every fixture log dir (tests/fixtures/kafka/*) and a few
# generated shape trees, scanned in every format with the option sets that reach every source
# (local metadata, --remote-state, --topic-config, --server-properties, off switches), plus
# `dump` of every fixture file in every format. A refactoring that changes no behaviour leaves
# every byte (stdout, stderr and the exit code) the same.
#
#   scripts/golden.sh capture DIR [SEGSCAN]   write the outputs under DIR
#   scripts/golden.sh compare DIR [SEGSCAN]   capture again into DIR.new and diff against DIR
set -u
mode=${1:?capture|compare}; out=${2:?DIR}; SEGSCAN=${3:-build/segscan}
[ "$mode" = compare ] && { ref=$out; out=$out.new; }
rm -rf "$out"; mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

run() { # NAME ARGS... : stdout, stderr and the exit code of one segscan run
    local name=$1; shift
    "$SEGSCAN" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
    echo $? >"$out/$name.rc"
}

scan_all() { # NAME ARGS... : the scan in every format
    local name=$1 f; shift
    for f in table json ndjson prom; do run "$name.$f" scan -q --threads=2 -f "$f" "$@"; done
}

for d in tests/fixtures/kafka/*/; do
    c=$(basename "$d")
    now=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['capture_time_ms'])" "$d/case.json")
    lds=$(ls -d "$d"logdir* | sort)
    scan_all "$c.default" --now="$now" $lds
    scan_all "$c.verify" --now="$now" --verify $lds
    scan_all "$c.off" --now="$now" --remote-metadata=off --cluster-metadata=off --broker-process=off $lds
    [ -f "$d/remote-state.ndjson" ] &&
        scan_all "$c.rstate" --now="$now" --remote-state="$d/remote-state.ndjson" $lds
    [ -f "$d/topic-config.txt" ] &&
        scan_all "$c.tcfg" --now="$now" --topic-config="$d/topic-config.txt" --cluster-metadata=off $lds
    if [ -f "$d/server.properties" ]; then
        sed "s|LOGDIR|$PWD/${d}logdir|g; s|REMOTEDIR|$tmp/remote|g" "$d/server.properties" >"$tmp/$c.properties"
        scan_all "$c.sprops" --now="$now" --server-properties="$tmp/$c.properties"
    fi
    scan_all "$c.filter" --now="$now" --findings-only --topic='[a-m].*' $lds
    # dump: every file of the fixture, in every format, with and without records
    find $lds -type f | sort >"$tmp/files"
    for f in text json ndjson; do
        xargs -a "$tmp/files" -d '\n' "$SEGSCAN" dump -f "$f" >"$out/$c.dump.$f.out" 2>"$out/$c.dump.$f.err"
        echo $? >"$out/$c.dump.$f.rc"
        xargs -a "$tmp/files" -d '\n' "$SEGSCAN" dump -r -f "$f" >"$out/$c.dumpr.$f.out" 2>"$out/$c.dumpr.$f.err"
        echo $? >"$out/$c.dumpr.$f.rc"
    done
done

# generated shape trees (bench shapes, small): the tree's bytes and its scans
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

# the temporary directory's name appears in messages, and wall-clock times in the table,
# prom and gen lines: make them stable (nothing else may differ)
grep -rl "$tmp" "$out" 2>/dev/null | xargs -r sed -i "s|$tmp|TMP|g"
sed -i -E 's/^(  scan: .*threads, )[0-9.]+ s,/\1T s,/; s/^(segscan_scan_duration_seconds) [0-9.e+-]+$/\1 T/' "$out"/*.out
sed -i -E 's/ in [0-9.]+ s \([0-9.]+ segments\/s\)/ in T s/' "$out"/gen.*.err

if [ "$mode" = compare ]; then
    if diff -r "$ref" "$out" >"$out.diff"; then
        echo "golden: identical ($(ls "$ref" | wc -l) files)"; rm -f "$out.diff"
    else
        echo "golden: DIFFERENT, see $out.diff"; head -40 "$out.diff"; exit 1
    fi
else
    echo "golden: captured $(ls "$out" | wc -l) files in $out"
fi
