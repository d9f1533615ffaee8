#!/usr/bin/env bash
# make bench: segscan against its floors and its peers, page cache warm and cold, on trees
# made by `segscan gen`. Writes bench/results/<date>-<scale>.md (+ latest.md), raw samples
# and PNG plots. Reports against the goals in docs/performance.md; never fails on them.
#
# usage: bash bench/run.sh            (what `make bench` runs)
#
# Environment:
#   BENCH_SCALE   small (default: a few minutes on 2 cores) | large (>= 1M segments)
#   BENCH_REPS    repetitions of every measurement (default 5); medians with min-max
#   BENCH_ONLY    comma-separated parts to run (default all): shapes,many,zstd,large,peers,
#                 callgrind,strace,eval,reuse,kraft,rescan,audit
#   BENCH_AUDIT_OBJECTS  objects in the audit part's store (default 100000 at small scale,
#                 1000000 at large)
#   BENCH_SHAPES  comma-separated shapes of the shapes part (default all of the scale)
#   BENCH_DATA    where generated trees live (default build/bench/data; reused between
#                 runs while their gen parameters are unchanged: see the STAMP files)
#   B / SEGSCAN   build dir (default build) / the binary (default $B/segscan)
#   BENCH_RESULTS output dir (default bench/results)
#
# Cold runs drop exactly the benchmark's own files from the page cache with
# posix_fadvise(DONTNEED) (bench/evict.c), never the whole machine's.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
B="${B:-build}"
SEGSCAN="${SEGSCAN:-$ROOT/$B/segscan}"
LIBA="$ROOT/$B/libsegscan.a"
SCALE="${BENCH_SCALE:-small}"
REPS="${BENCH_REPS:-5}"
ONLY="${BENCH_ONLY:-}"
DATA="${BENCH_DATA:-$ROOT/build/bench/data}"
RESULTS="${BENCH_RESULTS:-$ROOT/bench/results}"
TOOLS="$ROOT/$B/bench-tools"
NPROC="$(nproc)"
NOW_MS=1700000000000
PY=/usr/bin/python3            # Debian's python: has kafka-python (python3-kafka)
STAMP_VERSION=1                # bump when the workload definitions below change meaning
RUN_ID="$(date +%Y-%m-%dT%H%M)-$SCALE"
WORK="$ROOT/build/bench/runs/$RUN_ID"
RAW="$WORK/raw.tsv"
META="$WORK/meta.txt"

say() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }
want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
meta() { printf '%s\t%s\n' "$1" "$2" >>"$META"; }
logcmd() { printf '%s\n' "$*" >>"$WORK/cmds.txt"; }

case "$SCALE" in small|large) ;; *) die "BENCH_SCALE must be small or large (got '$SCALE')" ;; esac
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPS must be a positive integer"
[ -x "$SEGSCAN" ] || die "$SEGSCAN not found: run 'make' (or 'make B=... all') first"
[ -f "$LIBA" ] || die "$LIBA not found: run 'make' first"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian package 'time')"
[ -x "$PY" ] || die "$PY not found: the report and the Python peer need Debian's python3"

newer="$(find include src -name '*.h' -newer "$LIBA" -print -quit)"
[ -z "$newer" ] || die "$newer is newer than $LIBA: run 'make${B:+ B=$B} all' first (the helpers compile against the headers)"
mkdir -p "$WORK" "$RESULTS" "$DATA" "$TOOLS"
: >"$RAW"
: >"$META"

# ---- helper programs: built with the Makefile's flags against $B/libsegscan.a ----------------
PKGS="liburing numa jemalloc jansson libmicrohttpd zlib liblz4 libzstd rdkafka"   # the Makefile's PKGS
LIBS="$(pkg-config --libs $PKGS 2>/dev/null) -lsnappy -lpthread -lm"
CFLAGS_B="-std=gnu11 -g -O2 -D_GNU_SOURCE -Iinclude -Isrc -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter"
build_tool() { # name, extra link args...
    local n="$1"; shift
    if [ ! -x "$TOOLS/$n" ] || [ "bench/$n.c" -nt "$TOOLS/$n" ] || [ "$LIBA" -nt "$TOOLS/$n" ]; then
        say "building $TOOLS/$n"
        gcc $CFLAGS_B "bench/$n.c" -o "$TOOLS/$n" "$@" || die "cannot build bench/$n.c"
    fi
}
build_tool evict
build_tool tailfloor -lpthread
build_tool rtime
# each part's own helper is built only when that part runs, so one broken helper does not
# stop the others
if want eval; then build_tool evalbench "$LIBA" $LIBS; fi
if want reuse; then build_tool reusebench "$LIBA" $LIBS; fi
EVICT="$TOOLS/evict"

# ---- workloads -----------------------------------------------------------------------------
# name | log dirs | gen options per log dir | cold subset (log dirs) | matrix
# Every log dir of a workload is one `segscan gen` with its own topic prefix and seed, so
# the segment-count sweep scans 1, 2, 4 ... of them and the cold runs use a subset.
declare -A W_DIRS W_GEN W_COLD W_DESC
if [ "$SCALE" = small ]; then
    W_DIRS[many]=8
    W_GEN[many]="--topics=5 --partitions=50 --segments=25 --segment-bytes=96KiB --records-per-batch=4 --value-bytes=100"
    W_COLD[many]=1
    W_DESC[many]="many small segments: 8 log dirs x 250 partitions x 25 segments of 96 KiB (just above the 64 KiB whole-read cut-off, so the fast path goes through the indexes), uncompressed, half the topics tiered with --remote-state"
    W_DIRS[zstd]=1
    W_GEN[zstd]="--topics=5 --partitions=50 --segments=25 --segment-bytes=96KiB --records-per-batch=16 --value-bytes=200 --compression=zstd"
    W_COLD[zstd]=1
    W_DESC[zstd]="compressed: 1 log dir x 250 partitions x 25 segments of 96 KiB, zstd batches of 16 records"
    W_DIRS[large]=1
    W_GEN[large]="--topics=1 --partitions=2 --segments=4 --segment-bytes=256MiB --records-per-batch=16 --value-bytes=200 --active-batches=200"
    W_COLD[large]=1
    W_DESC[large]="few large segments: 2 partitions x 4 segments of 256 MiB (2 GiB), uncompressed"
else
    W_DIRS[many]=8
    W_GEN[many]="--topics=10 --partitions=500 --segments=25 --segment-bytes=16KiB --records-per-batch=4 --value-bytes=100"
    W_COLD[many]=1
    W_DESC[many]="one million segments: 8 log dirs x 5,000 partitions x 25 segments of 16 KiB (below the 64 KiB cut-off: each log is read whole), uncompressed, half the topics tiered with --remote-state"
    W_DIRS[zstd]=1
    W_GEN[zstd]="--topics=20 --partitions=250 --segments=25 --segment-bytes=96KiB --records-per-batch=16 --value-bytes=200 --compression=zstd"
    W_COLD[zstd]=1
    W_DESC[zstd]="compressed: 1 log dir x 5,000 partitions x 25 segments of 96 KiB, zstd batches of 16 records"
    W_DIRS[large]=1
    W_GEN[large]="--topics=3 --partitions=4 --segments=4 --segment-bytes=256MiB --records-per-batch=16 --value-bytes=200 --active-batches=200"
    W_COLD[large]=1
    W_DESC[large]="few large segments: 12 partitions x 4 segments of 256 MiB (12 GiB), uncompressed"
fi
# the callgrind trees: instruction counts need few segments, and a 1-segment tree gives
# the fixed cost (startup, thread creation) to subtract
CG_GEN="--topics=2 --partitions=50 --segments=25 --segment-bytes=96KiB --records-per-batch=4 --value-bytes=100"
CG1_GEN="--topics=1 --partitions=1 --segments=1 --segment-bytes=96KiB --records-per-batch=4 --value-bytes=100"

gen_opt() { # workload option-name -> value from W_GEN
    sed -n "s/.*--$2=\([^ ]*\).*/\1/p" <<<"${W_GEN[$1]} "
}
size_bytes() { # 96KiB / 256MiB / 16k -> bytes
    local v="$1" n u
    n="${v%%[!0-9]*}"; u="${v#$n}"
    case "${u,,}" in
        '') echo "$n" ;; k|kib) echo $((n << 10)) ;; m|mib) echo $((n << 20)) ;; g|gib) echo $((n << 30)) ;;
        *) die "cannot size '$v'" ;;
    esac
}

# Generate (or reuse) one workload; refuse politely when the disk is short.
ensure_tree() { # name dirs genopts -> $DATA/name
    local name="$1" ndirs="$2" opts="$3" dir="$DATA/$1" stamp i
    stamp="v$STAMP_VERSION scale=$SCALE dirs=$ndirs $opts"
    if [ -f "$dir/STAMP" ] && [ "$(cat "$dir/STAMP")" = "$stamp" ]; then
        say "$name: reusing $dir"
        [ -s "$dir/TREEINFO" ] || tree_info "$dir" "$ndirs"
        return 0
    fi
    local parts segs sb topics need avail inodes_need inodes_avail
    topics=$(sed -n 's/.*--topics=\([0-9]*\).*/\1/p' <<<"$opts")
    parts=$(sed -n 's/.*--partitions=\([0-9]*\).*/\1/p' <<<"$opts")
    segs=$(sed -n 's/.*--segments=\([0-9]*\).*/\1/p' <<<"$opts")
    sb=$(size_bytes "$(sed -n 's/.*--segment-bytes=\([^ ]*\).*/\1/p' <<<"$opts")")
    # per segment: the log, index and time index blocks, a producer snapshot
    need=$(( ndirs * topics * parts * segs * (sb + 20480) / 1024 + 1048576 ))   # KiB, +1 GiB
    rm -rf "$dir"
    mkdir -p "$dir"
    avail=$(df -Pk "$dir" | awk 'NR==2 {print $4}')
    inodes_need=$(( ndirs * topics * parts * (segs * 4 + 3) + 1000 ))
    inodes_avail=$(df -Pi "$dir" | awk 'NR==2 {print $4}')
    if [ "$avail" -lt "$need" ]; then
        rmdir "$dir" 2>/dev/null || true
        die "$name needs about $((need / 1048576)) GiB in $DATA but only $((avail / 1048576)) GiB are free. Free some space, point BENCH_DATA elsewhere, or use BENCH_SCALE=small."
    fi
    if [[ "$inodes_avail" =~ ^[0-9]+$ ]] && [ "$inodes_avail" -lt "$inodes_need" ]; then
        die "$name needs about $inodes_need inodes in $DATA but only $inodes_avail are free. Point BENCH_DATA at a larger file system."
    fi
    say "$name: generating $ndirs log dir(s) ($((need / 1048576)) GiB at most) into $dir"
    local t0=$SECONDS
    for ((i = 0; i < ndirs; i++)); do
        # shellcheck disable=SC2086
        "$SEGSCAN" gen "$dir/ld$i" $opts --seed=$((11 + i)) --topic-prefix="ld$i-" \
            --remote-state="$dir/remote-ld$i.ndjson" --topic-config-out="$dir/topic-config-ld$i.txt" -q \
            || die "segscan gen failed for $name/ld$i"
    done
    cat "$dir"/remote-ld*.ndjson >"$dir/remote.ndjson"
    { grep -m1 '^\*' "$dir/topic-config-ld0.txt"; cat "$dir"/topic-config-ld*.txt | grep -v '^\*' | grep -v '^#'; } \
        >"$dir/topic-config.txt"
    rm -f "$dir"/remote-ld*.ndjson "$dir"/topic-config-ld*.txt
    tree_info "$dir" "$ndirs"
    echo "$stamp" >"$dir/STAMP"
    say "$name: generated in $((SECONDS - t0)) s"
}

tree_info() { # dir ndirs: per log dir, live segments, their .log bytes, files (TREEINFO)
    local i
    for ((i = 0; i < $2; i++)); do
        # mawk has no {n} intervals: a live segment is 20 digits + ".log", 24 characters
        find "$1/ld$i" -type f -printf '%f %s\n' | awk -v ld="ld$i" '
            { files++ } $1 ~ /^[0-9]+\.log$/ && length($1) == 24 { segs++; bytes += $2 }
            END { printf "%s %d %.0f %d\n", ld, segs, bytes, files }'
    done >"$1/TREEINFO"
}

treeinfo() { # name ndirs field(segs|bytes|files) -> sum over the first ndirs log dirs
    awk -v n="$2" -v f="$3" 'NR <= n { s += (f == "segs" ? $2 : f == "bytes" ? $3 : $4) } END { printf "%.0f\n", s }' \
        "$DATA/$1/TREEINFO"
}
# Warm runs need the tree's data in the page cache: say so when it cannot fit.
check_memory() { # name ndirs
    local need avail
    need=$(treeinfo "$1" "$2" bytes)
    avail=$(awk '/MemAvailable/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
    if [ "$need" -gt "$avail" ]; then
        say "warning: $1 has $((need >> 30)) GiB of .log data but only $((avail >> 30)) GiB of memory are available: its warm runs will partly read the disk"
        meta "warning.$1" "$((need >> 30)) GiB of .log data, $((avail >> 30)) GiB of memory available: warm runs partly read the disk"
    fi
}
dirs_of() { # name ndirs -> the log dir paths
    local i
    for ((i = 0; i < $2; i++)); do printf '%s ' "$DATA/$1/ld$i"; done
}

# ---- one measurement -----------------------------------------------------------------------
# run_one WORKLOAD CACHE TOOL CONFIG NDIRS REP -- command...
# Records wall time (ns clock around /usr/bin/time), user/sys, peak RSS, exit status, and
# what the tool says about itself (segscan --stats: bytes read, syscalls).
run_one() {
    local wl="$1" cache="$2" tool="$3" cfg="$4" nd="$5" rep="$6"
    shift 7
    local out="$WORK/last.out" err="$WORK/last.err" tf="$WORK/last.time" t0 t1 rc=0
    if [ "$cache" = cold ]; then
        # shellcheck disable=SC2046
        "$EVICT" -q $(dirs_of "$wl" "$nd") || die "evict failed"
    fi
    if [ "$rep" = 0 ]; then
        if [ "$1" = bash ] && [ "$2" = -c ]; then printf '%s\n' "$3"; else printf '%s\n' "$*"; fi >>"$WORK/cmds.txt"
    fi
    t0=$(date +%s%N)
    # bench/rtime.c: GNU time's %U %S in microseconds (it prints hundredths)
    "$TOOLS/rtime" -o "$tf" "$@" >"$out" 2>"$err" || rc=$?
    t1=$(date +%s%N)
    local wall user sys rss bytes=-1 sysc=-1
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    read -r _ user sys rss <"$tf" || true
    case "$tool" in
        segscan*)
            bytes=$(sed -n 's/^  bytes read *\([0-9]*\).*/\1/p' "$err" | head -1)
            sysc=$(sed -n 's/^  syscalls *\([0-9]*\) .*/\1/p' "$err" | head -1) ;;
        tailfloor*)
            bytes=$(sed -n 's/.* \([0-9]*\) bytes read, \([0-9]*\) syscalls.*/\1/p' "$out")
            sysc=$(sed -n 's/.* \([0-9]*\) bytes read, \([0-9]*\) syscalls.*/\2/p' "$out") ;;
    esac
    if [ "$rc" -ne 0 ]; then
        say "$wl/$cache/$tool/$cfg rep $rep exited $rc: $(tail -n 2 "$err" | tr '\n' ' ')"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$wl" "$cache" "$tool" "$cfg" "$nd" "$(treeinfo "$wl" "$nd" segs)" "$rep" "$wall" \
        "${user:-0}" "${sys:-0}" "${rss:-0}" "$rc" "${bytes:--1}" "${sysc:--1}" >>"$RAW"
}

# A configuration is "TOOL|CONFIG|NDIRS|shell command" (bash -c execs a simple command,
# so time and RSS are the tool's own). Every repetition runs all of a workload's
# configurations once, round robin, so a slow minute on this shared machine spreads over
# all of them instead of skewing one.
run_matrix() { # workload cache config-lines...
    local wl="$1" cache="$2" rep line tool cfg nd cmd
    shift 2
    for ((rep = 0; rep < REPS; rep++)); do
        for line in "$@"; do
            IFS='|' read -r tool cfg nd cmd <<<"$line"
            run_one "$wl" "$cache" "$tool" "$cfg" "$nd" "$rep" -- bash -c "$cmd"
        done
        say "$wl $cache: repetition $((rep + 1))/$REPS done"
    done
}

scan_cmd() { # workload ndirs extra-options -> a segscan scan command line
    echo "$SEGSCAN scan --stats -q -f ndjson --now=$NOW_MS $3 $(dirs_of "$1" "$2") >/dev/null"
}
cat_cmd() { echo "find $* -name '*.log' -exec cat {} + >/dev/null"; }
find_cmd() { echo "find $* -type f -printf '%s\\n' >/dev/null"; }

warm_up() { # workload ndirs: bring the tree's log data and index tails into the page cache
    local d
    for d in $(dirs_of "$1" "$2"); do
        find "$d" -name '*.log' -exec cat {} + >/dev/null
    done
    # shellcheck disable=SC2046
    "$SEGSCAN" scan -q -f ndjson $(dirs_of "$1" "$2") >/dev/null 2>&1 || true
    # shellcheck disable=SC2046
    "$TOOLS/tailfloor" -q $(dirs_of "$1" "$2") >/dev/null 2>&1 || true
}

# The output must not depend on --io or --threads (docs/contract.md, Output): checked once per
# workload, and the Python peer is checked against it.
consistency() { # workload ndirs
    local wl="$1" nd="$2" io t ref="" sum ok=1
    for io in uring mmap pread; do
        for t in 1 "$NPROC"; do
            logcmd "$SEGSCAN scan -q -f ndjson --now=$NOW_MS --io=$io --threads=$t $(dirs_of "$wl" "$nd") | md5sum"
            # shellcheck disable=SC2046
            "$SEGSCAN" scan -q -f ndjson --now=$NOW_MS --io=$io --threads=$t $(dirs_of "$wl" "$nd") \
                >"$WORK/$wl.$io.$t.ndjson" 2>/dev/null || true
            sum=$(md5sum <"$WORK/$wl.$io.$t.ndjson" | cut -d' ' -f1)
            [ -z "$ref" ] && ref=$sum
            [ "$sum" = "$ref" ] || ok=0
            [ "$io$t" = uring1 ] || rm -f "$WORK/$wl.$io.$t.ndjson"
        done
    done
    mv "$WORK/$wl.uring.1.ndjson" "$WORK/$wl.ndjson"
    meta "consistency.$wl" "$([ $ok = 1 ] && echo identical || echo DIFFERENT) ndjson for io=uring,mmap,pread x threads=1,$NPROC"
}

# ---- machine ---------------------------------------------------------------------------------
meta run_id "$RUN_ID"
meta scale "$SCALE"
meta reps "$REPS"
meta nproc "$NPROC"
meta cpu "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
meta mem "$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
meta kernel "$(uname -r)"
meta fs "$(df -PT "$DATA" | awk 'NR==2 {print $2 " on " $1}')"
meta segscan "$("$SEGSCAN" --version 2>&1 | head -1)"
meta commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo '+dirty')"
meta load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
meta date "$(date -u '+%Y-%m-%d %H:%M UTC')"

T_START=$SECONDS

# ---- shapes: the fast path on the tree shapes real brokers have (issue 15) -------------------
# Segment sizes 4 KiB .. 1 GiB, batches of 1 .. 1000 records, uncompressed and zstd, a
# preallocated active segment per partition (1 GiB holes, as log.preallocate=true leaves
# them), trees from `segscan gen` and from kafka-python's encoder (bench/pytree.py). Every
# shape is one log dir; each is compared with the stat-only walk (find), the index-tail
# floor (tailfloor) and cat. name | kind (gen, prealloc, py) | options
SHAPES=()
if [ "$SCALE" = small ]; then
    SHAPES+=("gen-4k-b1|gen|--topics=1 --partitions=400 --segments=50 --segment-bytes=4KiB --records-per-batch=1 --value-bytes=90")
    SHAPES+=("gen-64k-b10|gen|--topics=1 --partitions=400 --segments=25 --segment-bytes=64KiB --records-per-batch=10 --value-bytes=90")
    SHAPES+=("gen-128k-b10|gen|--topics=1 --partitions=200 --segments=25 --segment-bytes=128KiB --records-per-batch=10 --value-bytes=90")
    SHAPES+=("gen-128k-b1|gen|--topics=1 --partitions=200 --segments=25 --segment-bytes=128KiB --records-per-batch=1 --value-bytes=90")
    SHAPES+=("gen-1m-b100|gen|--topics=1 --partitions=50 --segments=20 --segment-bytes=1MiB --records-per-batch=100 --value-bytes=90")
    SHAPES+=("gen-1m-b1000-zstd|gen|--topics=1 --partitions=50 --segments=20 --segment-bytes=1MiB --records-per-batch=1000 --value-bytes=90 --compression=zstd")
    SHAPES+=("gen-64m-b100|gen|--topics=1 --partitions=2 --segments=8 --segment-bytes=64MiB --records-per-batch=100 --value-bytes=90")
    SHAPES+=("prealloc-1g|prealloc|--topics=1 --partitions=1000 --segments=3 --segment-bytes=128KiB --records-per-batch=10 --value-bytes=90")
    SHAPES+=("py-64k-b10|py|--partitions 400 --segments 25 --segment-bytes 65536 --records-per-batch 10 --value-bytes 90")
    SHAPES+=("py-128k-b10|py|--partitions 200 --segments 25 --segment-bytes 131072 --records-per-batch 10 --value-bytes 90")
else
    SHAPES+=("gen-4k-b1|gen|--topics=4 --partitions=500 --segments=50 --segment-bytes=4KiB --records-per-batch=1 --value-bytes=90")
    SHAPES+=("gen-64k-b10|gen|--topics=2 --partitions=1000 --segments=25 --segment-bytes=64KiB --records-per-batch=10 --value-bytes=90")
    SHAPES+=("gen-128k-b10|gen|--topics=1 --partitions=800 --segments=25 --segment-bytes=128KiB --records-per-batch=10 --value-bytes=90")
    SHAPES+=("gen-128k-b1|gen|--topics=1 --partitions=800 --segments=25 --segment-bytes=128KiB --records-per-batch=1 --value-bytes=90")
    SHAPES+=("gen-1m-b100|gen|--topics=1 --partitions=200 --segments=20 --segment-bytes=1MiB --records-per-batch=100 --value-bytes=90")
    SHAPES+=("gen-1m-b1000-zstd|gen|--topics=1 --partitions=200 --segments=20 --segment-bytes=1MiB --records-per-batch=1000 --value-bytes=90 --compression=zstd")
    SHAPES+=("gen-64m-b100|gen|--topics=1 --partitions=8 --segments=8 --segment-bytes=64MiB --records-per-batch=100 --value-bytes=90")
    SHAPES+=("gen-1g-b1000|gen|--topics=1 --partitions=2 --segments=3 --segment-bytes=1GiB --records-per-batch=1000 --value-bytes=90")
    SHAPES+=("prealloc-1g|prealloc|--topics=4 --partitions=1000 --segments=3 --segment-bytes=128KiB --records-per-batch=10 --value-bytes=90")
    SHAPES+=("py-64k-b10|py|--partitions 2000 --segments 25 --segment-bytes 65536 --records-per-batch 10 --value-bytes 90")
    SHAPES+=("py-128k-b10|py|--partitions 800 --segments 25 --segment-bytes 131072 --records-per-batch 10 --value-bytes 90")
    SHAPES+=("gen-8k-1m|gen|--topics=40 --partitions=1000 --segments=25 --segment-bytes=8KiB")
fi
ensure_shape() { # name kind options
    local name="$1" kind="$2" opts="$3" dir="$DATA/$1" stamp p f
    case "$kind" in
        gen) ensure_tree "$name" 1 "$opts" ;;
        prealloc)
            ensure_tree "$name" 1 "$opts --preallocate"
            # segment.bytes' default: extend each active .log's hole to 1 GiB (setLength)
            for p in "$dir"/ld0/*-*/; do
                f="$(ls "$p" | grep -E '^[0-9]{20}\.log$' | sort | tail -1)"
                [ -n "$f" ] && truncate -s 1G "$p$f"
            done ;;
        py)
            stamp="v$STAMP_VERSION py $opts"
            if [ -f "$dir/STAMP" ] && [ "$(cat "$dir/STAMP")" = "$stamp" ]; then
                say "$name: reusing $dir"
            else
                rm -rf "$dir"
                mkdir -p "$dir"
                say "$name: writing with kafka-python (bench/pytree.py)"
                # shellcheck disable=SC2086
                "$PY" bench/pytree.py "$dir/ld0" $opts || die "bench/pytree.py failed for $name"
                tree_info "$dir" 1
                echo "$stamp" >"$dir/STAMP"
            fi ;;
    esac
}
if want shapes; then
    for sh in "${SHAPES[@]}"; do
        IFS='|' read -r wl kind opts <<<"$sh"
        if [ -n "${BENCH_SHAPES:-}" ] && [[ ",$BENCH_SHAPES," != *",$wl,"* ]]; then continue; fi
        ensure_shape "$wl" "$kind" "$opts"
        meta "desc.$wl" "$kind: $opts$([ "$kind" = prealloc ] && echo ' (active .log extended to a 1 GiB hole)')"
        D="$(dirs_of "$wl" 1)"
        # warm: the data (not the 1 GiB holes), then one scan and one floor run
        find $D -name '*.log' -size -512M -exec cat {} + >/dev/null
        "$SEGSCAN" scan -q -f ndjson $D >/dev/null 2>&1 || true
        # shellcheck disable=SC2086
        "$TOOLS/tailfloor" -q $D >/dev/null 2>&1 || true
        consistency "$wl" 1
        cfgs=()
        cfgs+=("segscan|default threads|1|$(scan_cmd "$wl" 1 "")")
        cfgs+=("segscan|t=1|1|$(scan_cmd "$wl" 1 "--threads=1")")
        cfgs+=("find|stat-only walk|1|$(find_cmd $D)")
        cfgs+=("tailfloor|t=$NPROC|1|$TOOLS/tailfloor -t $NPROC $D")
        if [ "$kind" != prealloc ]; then   # 1 GiB holes per partition: cat and verify read them all
            cfgs+=("segscan-verify|default threads|1|$(scan_cmd "$wl" 1 "--verify")")
            cfgs+=("cat|read every .log|1|$(cat_cmd $D)")
        fi
        run_matrix "$wl" warm "${cfgs[@]}"
        cp "$DATA/$wl/TREEINFO" "$WORK/treeinfo.$wl"
        echo "$wl" >>"$WORK/shapes.txt"
    done
fi

# ---- many: the full matrix -------------------------------------------------------------------
if want many; then
    wl=many
    ensure_tree $wl "${W_DIRS[$wl]}" "${W_GEN[$wl]}"
    meta "desc.$wl" "${W_DESC[$wl]}"
    nd=${W_DIRS[$wl]}
    nc=${W_COLD[$wl]}
    D="$(dirs_of $wl "$nd")"
    check_memory $wl "$nd"
    warm_up $wl "$nd"
    consistency $wl "$nd"
    cfgs=()
    # threads: 1 and all CPUs for every backend, and twice the CPUs for the default one
    for io in uring mmap pread; do
        ths="1 $NPROC"
        [ $io = uring ] && ths="$ths $((NPROC * 2))"
        for t in $ths; do cfgs+=("segscan|io=$io,t=$t|$nd|$(scan_cmd $wl "$nd" "--io=$io --threads=$t")"); done
    done
    cfgs+=("segscan-verify|io=uring,t=$NPROC|$nd|$(scan_cmd $wl "$nd" "--verify --io=uring --threads=$NPROC")")
    cfgs+=("segscan-verify|io=uring,t=1|$nd|$(scan_cmd $wl "$nd" "--verify --io=uring --threads=1")")
    cfgs+=("segscan-remote|io=uring,t=$NPROC|$nd|$(scan_cmd $wl "$nd" "--io=uring --threads=$NPROC --remote-state=$DATA/$wl/remote.ndjson --topic-config=$DATA/$wl/topic-config.txt")")
    # the table format: what an operator at a terminal pays (ndjson writes every segment)
    cfgs+=("segscan-table|io=uring,t=$NPROC|$nd|$SEGSCAN scan --stats -q --now=$NOW_MS --io=uring --threads=$NPROC $D >/dev/null")
    cfgs+=("find|stat-only walk|$nd|$(find_cmd $D)")
    cfgs+=("cat|read every .log|$nd|$(cat_cmd $D)")
    cfgs+=("tailfloor|t=$NPROC|$nd|$TOOLS/tailfloor -t $NPROC $D")
    cfgs+=("tailfloor|t=1|$nd|$TOOLS/tailfloor -t 1 $D")
    # segment-count sweep: 1, 2, 4 ... log dirs
    for ((k = 1; k < nd; k *= 2)); do
        cfgs+=("segscan|io=uring,t=$NPROC|$k|$(scan_cmd $wl "$k" "--io=uring --threads=$NPROC")")
        cfgs+=("tailfloor|t=$NPROC|$k|$TOOLS/tailfloor -t $NPROC $(dirs_of $wl "$k")")
    done
    say "many warm: ${#cfgs[@]} configurations x $REPS"
    run_matrix $wl warm "${cfgs[@]}"

    Dc="$(dirs_of $wl "$nc")"
    cfgs=()
    for io in uring mmap pread; do
        cfgs+=("segscan|io=$io,t=$NPROC|$nc|$(scan_cmd $wl "$nc" "--io=$io --threads=$NPROC")")
    done
    cfgs+=("segscan|io=uring,t=1|$nc|$(scan_cmd $wl "$nc" "--io=uring --threads=1")")
    cfgs+=("segscan|io=pread,t=$((NPROC * 8))|$nc|$(scan_cmd $wl "$nc" "--io=pread --threads=$((NPROC * 8))")")
    cfgs+=("segscan-verify|io=uring,t=$NPROC|$nc|$(scan_cmd $wl "$nc" "--verify --io=uring --threads=$NPROC")")
    cfgs+=("cat|read every .log|$nc|$(cat_cmd $Dc)")
    cfgs+=("tailfloor|t=$NPROC|$nc|$TOOLS/tailfloor -t $NPROC $Dc")
    cfgs+=("tailfloor|t=$((NPROC * 8))|$nc|$TOOLS/tailfloor -t $((NPROC * 8)) $Dc")
    say "many cold: ${#cfgs[@]} configurations x $REPS on $nc log dir(s)"
    run_matrix $wl cold "${cfgs[@]}"
    # shellcheck disable=SC2086
    meta "evict_check.$wl" "$("$EVICT" -c $Dc)"
fi

# ---- zstd and large: the main configurations ---------------------------------------------------
for wl in zstd large; do
    want $wl || continue
    ensure_tree $wl "${W_DIRS[$wl]}" "${W_GEN[$wl]}"
    meta "desc.$wl" "${W_DESC[$wl]}"
    nd=${W_DIRS[$wl]}
    D="$(dirs_of $wl "$nd")"
    check_memory $wl "$nd"
    warm_up $wl "$nd"
    consistency $wl "$nd"
    base=()
    base+=("segscan|io=uring,t=$NPROC|$nd|$(scan_cmd $wl "$nd" "--io=uring --threads=$NPROC")")
    base+=("segscan-verify|io=uring,t=$NPROC|$nd|$(scan_cmd $wl "$nd" "--verify --io=uring --threads=$NPROC")")
    base+=("cat|read every .log|$nd|$(cat_cmd $D)")
    base+=("tailfloor|t=$NPROC|$nd|$TOOLS/tailfloor -t $NPROC $D")
    warm=("${base[@]}")
    warm+=("segscan|io=pread,t=$NPROC|$nd|$(scan_cmd $wl "$nd" "--io=pread --threads=$NPROC")")
    warm+=("segscan|io=mmap,t=$NPROC|$nd|$(scan_cmd $wl "$nd" "--io=mmap --threads=$NPROC")")
    warm+=("segscan-verify|io=uring,t=1|$nd|$(scan_cmd $wl "$nd" "--verify --io=uring --threads=1")")
    warm+=("find|stat-only walk|$nd|$(find_cmd $D)")
    run_matrix $wl warm "${warm[@]}"
    run_matrix $wl cold "${base[@]}"
done

# ---- peers: kafka-python and Kafka's DumpLogSegments on a sample of `many` --------------------
if want peers && [ -f "$DATA/many/STAMP" ]; then
    wl=many
    nd=${W_DIRS[$wl]}
    parts_per_dir=$(( $(ls -d "$DATA/$wl/ld0"/*-*/ | wc -l) ))
    every=$(( parts_per_dir / 4 ))            # about 4 partitions of every log dir
    [ "$every" -ge 1 ] || every=1
    sample="$WORK/peer-sample.txt"
    for d in $(dirs_of $wl "$nd"); do
        ls -d "$d"/*-*/ | sed 's:/$::' | sort | awk -v e="$every" '(NR - 1) % e == 0'
    done >"$WORK/peer-parts.txt"
    while read -r p; do ls "$p"/*.log; done <"$WORK/peer-parts.txt" | grep -E '/[0-9]{20}\.log$' >"$sample"
    nsample=$(wc -l <"$sample")
    meta peer_sample "$nsample segments: every ${every}th partition directory of each of the $nd log dirs ($(wc -l <"$WORK/peer-parts.txt") partitions)"
    if "$PY" -c 'import kafka' 2>/dev/null; then
        for ((rep = 0; rep < REPS; rep++)); do
            # shellcheck disable=SC2046
            run_one $wl warm peer-python "kafka-python $("$PY" -c 'import kafka; print(kafka.__version__)')" "$nd" "$rep" -- \
                "$PY" bench/peer_kafka_python.py --sample-every "$every" --out "$WORK/peer-python.txt" $(dirs_of $wl "$nd")
            # the peer's own time excludes interpreter start-up: the fairer per-segment rate
            inner=$(sed -n 's/.*, \([0-9.]*\) s$/\1/p' "$WORK/last.err")
            printf '%s\twarm\tpeer-python-inner\tkafka-python\t%s\t%s\t%s\t%s\t0\t0\t0\t0\t-1\t-1\n' \
                $wl "$nd" "$nsample" "$rep" "$inner" >>"$RAW"
        done
        "$PY" - "$WORK/many.ndjson" "$WORK/peer-python.txt" >>"$META" <<'EOF'
import json, sys
seg = {}
for line in open(sys.argv[1]):
    p = json.loads(line)
    for s in p["segments"]:
        seg[(p["dir"], s["base_offset"])] = (s["last_offset"] if s["last_offset"] is not None else -1, s["max_timestamp_ms"])
n = agree = 0
bad = []
for line in open(sys.argv[2]):
    d, base, last, ts = line.split()
    n += 1
    got = seg.get((d, int(base)))
    if got == (int(last), int(ts)):
        agree += 1
    elif len(bad) < 3:
        bad.append("%s/%s: segscan %s, kafka-python %s" % (d, base, got, (last, ts)))
print("peer_agree.python\t%d of %d sampled segments: same last offset and max timestamp as segscan%s" % (agree, n, ("; e.g. " + "; ".join(bad)) if bad else ""))
EOF
    else
        meta peer_skip.python "kafka-python not importable by $PY (Debian: apt-get install python3-kafka)"
    fi
    KLIB="$(find "$ROOT/build" -name 'kafka-tools-*.jar' -path '*/lib/*' 2>/dev/null | sort -V | tail -1 || true)"
    if command -v java >/dev/null 2>&1 && [ -n "$KLIB" ]; then
        KLIB="$(dirname "$KLIB")"
        meta peer_dumplog "org.apache.kafka.tools.DumpLogSegments from $(basename "$(ls "$KLIB"/kafka_2.13-*.jar | head -1)" .jar) ($(java -version 2>&1 | head -1))"
        # one JVM per ~100 KB of file names (the kernel's limit for one argument is 128 KiB);
        # awk reduces the dump to the last offset and max timestamp per segment
        cat >"$WORK/dumplog.sh" <<EOF
#!/usr/bin/env bash
set -o pipefail
split -C 100000 "$sample" "$WORK/dl-chunk."
for c in "$WORK"/dl-chunk.*; do
    java -Xshare:auto -cp "$KLIB/*" org.apache.kafka.tools.DumpLogSegments --files "\$(paste -sd, "\$c")" 2>/dev/null
done | awk '
    /^Dumping / { if (f != "") printf "%s %s %.0f\\n", f, last, mx; f = \$2; last = -1; mx = -1; next }
    /^baseOffset:/ { last = \$4; for (i = 1; i < NF; i++) if (\$i == "CreateTime:" || \$i == "LogAppendTime:") { if (\$(i+1) + 0 > mx) mx = \$(i+1) + 0 } }
    END { if (f != "") printf "%s %s %.0f\\n", f, last, mx }' >"$WORK/peer-dumplog.txt"
rc=\$?
rm -f "$WORK"/dl-chunk.*
exit \$rc
EOF
        logcmd "java -cp '$KLIB/*' org.apache.kafka.tools.DumpLogSegments --files <the sampled .log paths, ~1000 per JVM, comma-separated> | awk <last offset and max timestamp per file>"
        for ((rep = 0; rep < REPS; rep++)); do
            run_one $wl warm peer-dumplog "DumpLogSegments" "$nd" "$rep" -- bash "$WORK/dumplog.sh"
        done
        "$PY" - "$WORK/many.ndjson" "$WORK/peer-dumplog.txt" >>"$META" <<'EOF'
import json, os, sys
seg = {}
for line in open(sys.argv[1]):
    p = json.loads(line)
    for s in p["segments"]:
        seg[(p["dir"], s["base_offset"])] = (s["last_offset"] if s["last_offset"] is not None else -1, s["max_timestamp_ms"])
n = agree = 0
for line in open(sys.argv[2]):
    f, last, ts = line.split()
    n += 1
    d = os.path.basename(os.path.dirname(f))
    base = int(os.path.basename(f)[:20])
    if seg.get((d, base)) == (int(last), int(float(ts))):
        agree += 1
print("peer_agree.dumplog\t%d of %d sampled segments: same last offset and max timestamp as segscan" % (agree, n))
EOF
    else
        meta peer_skip.dumplog "no JVM or no Kafka jars under build/ (scripts/kafka-oracle/run.sh downloads them)"
    fi
fi

# ---- callgrind: instructions per segment ---------------------------------------------------------
if want callgrind; then
    if command -v valgrind >/dev/null 2>&1; then
        ensure_tree cg 1 "$CG_GEN"
        ensure_tree cg1 1 "$CG1_GEN"
        segs=$(treeinfo cg 1 segs)
        for mode in "uring|--io=uring" "pread|--io=pread" "verify|--verify --io=uring"; do
            IFS='|' read -r name opts <<<"$mode"
            for t in cg cg1; do
                logcmd "valgrind --tool=callgrind $SEGSCAN scan -q -f ndjson --threads=1 --now=$NOW_MS $opts $DATA/$t/ld0"
                # shellcheck disable=SC2086
                valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.$name.$t.out" \
                    "$SEGSCAN" scan -q -f ndjson --threads=1 --now=$NOW_MS $opts "$DATA/$t/ld0" \
                    >/dev/null 2>"$WORK/callgrind.$name.$t.err" || say "callgrind $name $t failed"
            done
            ir=$(sed -n 's/^summary: //p' "$WORK/callgrind.$name.cg.out")
            ir1=$(sed -n 's/^summary: //p' "$WORK/callgrind.$name.cg1.out")
            meta "callgrind.$name" "${ir:-0} ${ir1:-0} $segs"
            if [ -n "${ir:-}" ]; then
                bash scripts/profile-callgrind.sh --annotate-only "$WORK/callgrind.$name.cg.out" "$segs" \
                    >"$WORK/callgrind.$name.stages.md" 2>/dev/null || true
            fi
        done
    else
        meta callgrind_skip "valgrind not installed (Debian: apt-get install valgrind)"
    fi
fi

# ---- strace -c: the syscall mix of one scan ---------------------------------------------------
if want strace && [ -f "$DATA/many/STAMP" ]; then
    if command -v strace >/dev/null 2>&1; then
        for io in pread uring mmap; do
            logcmd "strace -f -c $SEGSCAN scan -q -f ndjson --now=$NOW_MS --io=$io --threads=$NPROC $DATA/many/ld0"
            strace -f -c -o "$WORK/strace.$io.txt" "$SEGSCAN" scan -q -f ndjson --now=$NOW_MS --io=$io \
                --threads="$NPROC" "$DATA/many/ld0" >/dev/null 2>&1 || true
        done
        meta strace_segments "$(treeinfo many 1 segs)"
    else
        meta strace_skip "strace not installed"
    fi
fi

# ---- evaluator: remote-state replay of 1M events, 100k partitions evaluated -----------------
if want eval; then
    ereps=$REPS
    [ "$SCALE" = small ] && [ "$ereps" -gt 3 ] && ereps=3   # 10 s per NDJSON replay on 2 cores
    logcmd "$TOOLS/evalbench -r $ereps -e 1000000 -p 100000"
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/evalbench.time" "$TOOLS/evalbench" -r "$ereps" -e 1000000 -p 100000 \
        >"$WORK/evalbench.out" 2>"$WORK/evalbench.err" || say "evalbench failed: $(tail -1 "$WORK/evalbench.err")"
    rss=$(awk '{print $4}' "$WORK/evalbench.time" 2>/dev/null || echo 0)
    awk -v rss="$rss" '$1 == "evalbench" { printf "eval\twarm\t%s\t%s %s\t1\t%s\t%s\t%s\t0\t0\t%s\t0\t-1\t-1\n", $2, $6, $5, $6, $3, $4, rss }' \
        "$WORK/evalbench.out" >>"$RAW"
fi

# ---- KRaft metadata log: replay of 10k topics / 100k partitions (bench/kraftbench.c) ---------
# One row in the report: ss_mlog_replay over the log on disk (page cache warm), what a scan's
# cluster context costs. decode (batches and record values only) and replay (into the image,
# from memory) go to raw.tsv beside it.
if want kraft; then
    build_tool kraftbench "$ROOT/$B/libss_gen.a" "$LIBA" $LIBS   # gen/encode.c: not in the library
    kreps=$REPS
    [ "$SCALE" = small ] && [ "$kreps" -gt 3 ] && kreps=3
    logcmd "$TOOLS/kraftbench -r $kreps -t 10000 -p 100000 -s cluster"
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/kraftbench.time" "$TOOLS/kraftbench" -r "$kreps" -t 10000 -p 100000 \
        -s cluster >"$WORK/kraftbench.out" 2>"$WORK/kraftbench.err" || say "kraftbench failed: $(tail -1 "$WORK/kraftbench.err")"
    # the shapes that were quadratic (issue 21 item 6), in a process of their own (their RSS
    # is not the cluster row's); their rows join raw.tsv below
    kshapes=config-keys,desc-partitions,features,torn-snapshots
    logcmd "$TOOLS/kraftbench -r $kreps -s $kshapes"
    "$TOOLS/kraftbench" -r "$kreps" -s "$kshapes" >>"$WORK/kraftbench.out" 2>>"$WORK/kraftbench.err" ||
        say "kraftbench (shapes) failed: $(tail -1 "$WORK/kraftbench.err")"
    rss=$(awk '{print $4}' "$WORK/kraftbench.time" 2>/dev/null || echo 0)
    # "kraftbench NAME REP SECONDS RECORDS RECORDS_PER_S": records go in the segments column
    awk -v rss="$rss" '$1 == "kraftbench" { printf "kraft\twarm\t%s\tt=10000,p=100000\t1\t%s\t%s\t%s\t0\t0\t%s\t0\t-1\t-1\n", $2, $5, $3, $4, rss }' \
        "$WORK/kraftbench.out" >>"$RAW"
    meta kraft_stream "$(sed -n 's/^kraftbench: \([0-9]* topics.*\) in .*/\1/p' "$WORK/kraftbench.err" | head -1)"
fi

# ---- incremental rescan: segscan_reuse over an unchanged tree ---------------------------------
if want reuse && [ -f "$DATA/many/STAMP" ]; then
    nd=${W_DIRS[many]}
    for io in uring pread; do
        logcmd "$TOOLS/reusebench -r $REPS -o io=$io -o threads=$NPROC $(dirs_of many "$nd")"
        # shellcheck disable=SC2046
        "$TOOLS/reusebench" -r "$REPS" -o io=$io -o threads="$NPROC" $(dirs_of many "$nd") >"$WORK/reuse.$io.out" \
            2>"$WORK/reuse.$io.err" || say "reusebench failed: $(tail -1 "$WORK/reuse.$io.err")"
        awk -v io=$io -v nd="$nd" '$1 == "reusebench" { printf "many\twarm\treuse-%s\tio=%s\t%d\t%s\t%s\t%s\t0\t0\t0\t0\t%s\t%s\n", $2, io, nd, $5, $3, $4, $7, $8 }' \
            "$WORK/reuse.$io.out" >>"$RAW"
        meta "reuse_reused.$io" "$(awk '$2 == "reuse" { print $6; exit }' "$WORK/reuse.$io.out")"
    done
fi

# ---- audit: segscan audit over a file:// store of 1M objects (issue 24) ----------------------
# A LocalTieredStorage-layout store and the remote metadata that matches it, made by
# bench/auditgen.py (sparse files: inodes, not disk) and cached under BENCH_DATA. Timed in the
# same run: the audit (replay of the metadata, the walk, the join); the replay alone (scan with
# the same --remote-state, no store); the floor, the same directory walk with nothing joined
# (find -printf of every object's key and size: a readdir of every directory and a stat per
# file, what the audit's file:// walk does before it joins anything).
if want audit; then
    if [ "$SCALE" = large ]; then AOBJ=${BENCH_AUDIT_OBJECTS:-1000000}; else AOBJ=${BENCH_AUDIT_OBJECTS:-100000}; fi
    [[ "$AOBJ" =~ ^[1-9][0-9]*$ ]] || die "BENCH_AUDIT_OBJECTS must be a positive integer"
    AD="$DATA/audit"
    astamp="v$STAMP_VERSION auditgen objects=$AOBJ $(md5sum <bench/auditgen.py | cut -c1-12)"
    if [ -f "$AD/STAMP" ] && [ "$(cat "$AD/STAMP")" = "$astamp" ]; then
        say "audit: reusing $AD"
    else
        ainodes=$(df -Pi "$DATA" | awk 'NR==2 {print $4}')
        if [[ "$ainodes" =~ ^[0-9]+$ ]] && [ "$ainodes" -lt $((AOBJ + AOBJ / 100 + 1000)) ]; then
            die "audit needs about $AOBJ inodes in $DATA but only $ainodes are free. Point BENCH_DATA elsewhere or set BENCH_AUDIT_OBJECTS."
        fi
        rm -rf "$AD"
        say "audit: generating a store of $AOBJ objects into $AD"
        logcmd "$PY bench/auditgen.py $AD $AOBJ"
        "$PY" bench/auditgen.py "$AD" "$AOBJ" >"$WORK/auditgen.out" || die "bench/auditgen.py failed"
        read -r an _ _ ab <"$WORK/auditgen.out"
        echo "ld0 $an $ab $an" >"$AD/TREEINFO"   # the segments column counts objects here
        echo "$astamp" >"$AD/STAMP"
    fi
    an=$(awk '{print $2}' "$AD/TREEINFO")
    acmd="$SEGSCAN audit -q -f json --now=$NOW_MS --remote-state=$AD/remote.ndjson --remote-store=file://$AD/store $AD/ld0"
    # once, untimed: the join is whole and clean (a measurement of a failing audit means nothing)
    $acmd >"$WORK/audit.json" 2>"$WORK/audit.err" || say "audit exited $?: $(tail -n 1 "$WORK/audit.err")"
    meta audit_check "$("$PY" - "$WORK/audit.json" "$an" <<'PYEOF'
import json, sys
try:
    t = json.load(open(sys.argv[1]))['summary']['remote_store']
except Exception as e:
    print('FAILED: no report (%s)' % e); sys.exit()
codes = sum(len(o.get('findings', [])) for o in t.get('other_partitions', []))
ok = t.get('complete') and t.get('objects') == int(sys.argv[2]) and not codes and not t.get('unrecognised')
print('%s: complete %s, %s objects of %s, %s partitions compared, %d findings, %s requests' % (
    'ok' if ok else 'FAILED', t.get('complete'), t.get('objects'), sys.argv[2], t.get('partitions_compared'),
    codes, t.get('requests')))
PYEOF
)"
    # the tree's inodes and dentries in the cache: every measurement is warm
    find "$AD/store" -type f -printf '%P %s\n' >/dev/null
    $acmd >/dev/null 2>&1 || true
    run_matrix audit warm \
        "segscan-audit|objects=$an|1|$acmd >/dev/null" \
        "segscan-replay|objects=$an|1|$SEGSCAN scan -q -f json --now=$NOW_MS --remote-state=$AD/remote.ndjson $AD/ld0 >/dev/null" \
        "find-walk|objects=$an|1|find $AD/store -type f -printf '%P %s\\n' >/dev/null"
    meta audit_objects "$an"
fi

# ---- serve rescans: inotify change detection against a full scan (bench/rescan.sh) ----------
if want rescan; then
    logcmd "BENCH_SCALE=$SCALE BENCH_REPS=$REPS bash bench/rescan.sh $RESULTS/$RUN_ID-rescan.md"
    BENCH_SCALE="$SCALE" BENCH_REPS="$REPS" BENCH_DATA="$DATA" SEGSCAN="$SEGSCAN" \
        bash bench/rescan.sh "$RESULTS/$RUN_ID-rescan.md" >"$WORK/rescan.md" 2>"$WORK/rescan.err" ||
        say "bench/rescan.sh failed: $(tail -1 "$WORK/rescan.err")"
fi

meta load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
meta bench_seconds "$((SECONDS - T_START))"

# ---- report --------------------------------------------------------------------------------------
for wl in many zstd large cg audit; do
    [ -f "$DATA/$wl/TREEINFO" ] && cp "$DATA/$wl/TREEINFO" "$WORK/treeinfo.$wl"
done
"$PY" bench/report.py --work "$WORK" --results "$RESULTS" --run-id "$RUN_ID" || die "report failed"
say "done in $((SECONDS - T_START)) s: $RESULTS/$RUN_ID.md"
