#!/usr/bin/env bash
# segscan conformance oracle: run a real Apache Kafka broker (KRaft, tiered storage) through the
# workloads in scripts/kafka-oracle/src/main/java/segscan/oracle/Workloads.java and capture the
# files it writes plus Kafka's own reading of them (DumpLogSegments, RemoteLogMetadataSerde, JMX,
# Admin API). See docs/conformance.md.
#
# usage: bash scripts/kafka-oracle/run.sh [--update-fixtures] [--cases a,b,...] [--prefix-cases a,b,...]
#                                         [--timeout-ms N]
#
#   --update-fixtures  replace tests/fixtures/kafka/<case>/ with the fresh captures
#   --cases LIST       only these cases (default: all); applies to the main Kafka version
#   --prefix-cases LIST  only these cases on KAFKA_PREFIX_VERSION (captured as <case>-<version>,
#                      no live copies); with --prefix-cases alone the main version is skipped
#   --timeout-ms N     bound on every single wait inside the oracle (default 60000)
#
# Environment:
#   KAFKA_VERSION       main Kafka release (default 4.4.0)
#   KAFKA_PREFIX_VERSION  an older release without the KAFKA-20977/KAFKA-20732 fixes, run for the
#                       cases in PREFIX_CASES and captured as <case>-<version> (default 4.3.1;
#                       empty to skip)
#   PREFIX_CASES        default tiered,retention-cap,cluster-meta
#   ORACLE_TOTAL_TIMEOUT  seconds for one whole oracle run (default 1500)
#
# Everything built or downloaded goes to build/kafka-oracle/ and ~/.m2; nothing is committed
# except what --update-fixtures copies into tests/fixtures/kafka/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/scripts/kafka-oracle"
OUT="$ROOT/build/kafka-oracle"
FIX="$ROOT/tests/fixtures/kafka"
KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}"
KAFKA_PREFIX_VERSION="${KAFKA_PREFIX_VERSION-4.3.1}"
PREFIX_CASES="${PREFIX_CASES:-tiered,retention-cap,cluster-meta}"
TOTAL_TIMEOUT="${ORACLE_TOTAL_TIMEOUT:-1500}"
# Apparent size (what a checkout takes on disk). Most of it is zeros: every copy of a KRaft
# metadata log in Kafka's default layout carries its active segment's 10 MiB .index and
# ~10 MiB .timeindex, preallocated and never trimmed, even after a clean shutdown (four such
# copies: cluster-meta, cluster-meta-live, cluster-meta-4.3.1, multi-broker's logdir-1). Git
# stores each as a ~10 KiB blob. Everything else is about 5 MiB.
MAX_FIXTURE_BYTES=$((96 * 1024 * 1024))

update=0
cases=""
prefix_cases=""
timeout_ms=60000
while [ $# -gt 0 ]; do
    case "$1" in
        --update-fixtures) update=1 ;;
        --cases) cases="${2:?--cases needs a list}"; shift ;;
        --cases=*) cases="${1#--cases=}" ;;
        --prefix-cases) prefix_cases="${2:?--prefix-cases needs a list}"; shift ;;
        --prefix-cases=*) prefix_cases="${1#--prefix-cases=}" ;;
        --timeout-ms) timeout_ms="${2:?--timeout-ms needs a value}"; shift ;;
        --timeout-ms=*) timeout_ms="${1#--timeout-ms=}" ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "kafka-oracle: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

die() { echo "kafka-oracle: $*" >&2; exit 1; }

# ---- prerequisites: say what is missing instead of failing somewhere deep inside Maven ----
command -v java >/dev/null 2>&1 || die "java not found: install a JDK 17+ (Debian: apt-get install openjdk-17-jdk-headless)"
command -v mvn >/dev/null 2>&1 || die "mvn not found: install Maven 3.8+ (Debian: apt-get install maven)"
command -v timeout >/dev/null 2>&1 || die "timeout(1) not found (coreutils)"
jv="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
case "$jv" in
    ''|1.*|9|1[0-6]) die "Java ${jv:-?} is too old: Kafka 4.x brokers need Java 17+" ;;
esac

# ---- build: offline first (fast, no network when ~/.m2 has the jars), then online ----
build() { # $1 = Kafka version
    local v="$1" log="$OUT/maven-$1.log"
    mkdir -p "$OUT"
    if timeout 300 mvn -o -B -q -f "$HERE/pom.xml" -Dkafka.version="$v" package >"$log" 2>&1; then
        return 0
    fi
    echo "kafka-oracle: fetching Kafka $v and its dependencies from Maven Central..."
    if ! timeout 900 mvn -B -q -f "$HERE/pom.xml" -Dkafka.version="$v" package >"$log" 2>&1; then
        tail -n 25 "$log" >&2
        if grep -qiE 'Could not (resolve|transfer)|UnknownHost|Connection (refused|timed out)|Network is unreachable|not found in' "$log"; then
            die "Maven could not download Kafka $v from Maven Central (no network, or that version is not published); full log: $log"
        fi
        die "Maven build of the oracle against Kafka $v failed; full log: $log"
    fi
}

run_oracle() { # $1 = Kafka version, $2 = cases ("" = all), $3 = name suffix
    local v="$1" d="$OUT/kafka-$1"
    local cp="$d/target/classes:$d/lib/*"
    local args=(--out "$OUT/out" --timeout-ms "$timeout_ms")
    [ -n "$2" ] && args+=(--cases "$2")
    [ -n "$3" ] && args+=(--name-suffix "$3" --no-live)
    echo "kafka-oracle: running Kafka $v cases: ${2:-all}"
    # SIGTERM first (the oracle's shutdown hook then kills its broker JVM), SIGKILL 30 s later.
    timeout --kill-after=30 "$TOTAL_TIMEOUT" java -Xmx512m -cp "$cp" \
        -Dlog4j2.configurationFile="$HERE/log4j2-oracle.properties" \
        -Doracle.log.dir="$OUT/out" \
        segscan.oracle.Oracle "${args[@]}" || {
        rc=$?
        { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && die "oracle run for Kafka $v timed out after ${TOTAL_TIMEOUT}s"
        die "oracle run for Kafka $v failed (exit $rc); broker logs: $OUT/out/work/<case>/server.log"
    }
}

build "$KAFKA_VERSION"
[ -n "$KAFKA_PREFIX_VERSION" ] && build "$KAFKA_PREFIX_VERSION"

rm -rf "$OUT/out"
mkdir -p "$OUT/out"
if [ -n "$cases" ] || [ -z "$prefix_cases" ]; then
    run_oracle "$KAFKA_VERSION" "$cases" ""
fi
if [ -n "$KAFKA_PREFIX_VERSION" ]; then
    if [ -n "$prefix_cases" ]; then
        run_oracle "$KAFKA_PREFIX_VERSION" "$prefix_cases" "-$KAFKA_PREFIX_VERSION"
    elif [ -z "$cases" ]; then
        run_oracle "$KAFKA_PREFIX_VERSION" "$PREFIX_CASES" "-$KAFKA_PREFIX_VERSION"
    fi
fi
echo "kafka-oracle: captures in $OUT/out/cases/"

# ---- segscan dump's record-level readings (DumpCapture: DumpLogSegments over the captured
# files, no broker): dump-records.json, dump-decoders.json in each case, by its own release ----
for c in "$OUT"/out/cases/*/; do
    v="$KAFKA_VERSION"
    [ -n "$KAFKA_PREFIX_VERSION" ] && [[ "$(basename "$c")" == *"-$KAFKA_PREFIX_VERSION" ]] && v="$KAFKA_PREFIX_VERSION"
    java -Xmx512m -cp "$OUT/kafka-$v/target/classes:$OUT/kafka-$v/lib/*" \
        -Dlog4j2.configurationFile="$HERE/log4j2-oracle.properties" -Doracle.log.dir="$OUT/out" \
        segscan.oracle.DumpCapture "$c" ||
        die "DumpCapture failed on $c"
done

# ---- Kafka against Kafka: files, DumpLogSegments, JMX, Admin and remote metadata must agree ----
if command -v python3 >/dev/null 2>&1; then
    python3 "$HERE/check_fixtures.py" "$OUT"/out/cases/*/ >"$OUT/out/check.txt" 2>&1 || {
        grep '^FAIL' "$OUT/out/check.txt" | head -20 >&2
        die "the captures are not self-consistent (full list: $OUT/out/check.txt); fixtures not updated"
    }
    echo "kafka-oracle: consistency check: $(tail -n 1 "$OUT/out/check.txt")"
else
    echo "kafka-oracle: python3 not found: skipping the captures' consistency check" >&2
fi

# ---- fixtures ----
if [ "$update" = 1 ]; then
    mkdir -p "$FIX"
    for src in "$OUT"/out/cases/*/; do
        name="$(basename "$src")"
        dst="$FIX/$name"
        rm -rf "$dst"
        mkdir -p "$dst"
        # Single-node cases have dump.json/jmx.json/logdir/, cluster cases dump-N.json/jmx-N.json/
        # logdir-N/; cluster-context cases add cluster.json, cluster-metadata.json, server*.properties.
        for f in case.json remote-metadata.json remote-state.ndjson admin.json topic-config.txt manifest.json \
                 dump.json jmx.json cluster.json cluster-metadata.json server.properties; do
            [ -e "$src/$f" ] && cp -p "$src/$f" "$dst/$f"
        done
        for f in "$src"/dump-*.json "$src"/jmx-*.json "$src"/server-*.properties; do
            [ -e "$f" ] && cp -p "$f" "$dst/"
        done
        for d in "$src"/logdir "$src"/logdir-*; do
            [ -d "$d" ] && cp -a "$d" "$dst/"
        done
        # The remote store only where a case tiers data: local copies may be gone (tiered).
        if [ -d "$src/remote" ] && [ -n "$(find "$src/remote" -type f -print -quit)" ]; then
            cp -a "$src/remote" "$dst/remote"
        fi
    done
    total=$(du -sb --apparent-size "$FIX" | cut -f1)
    echo "kafka-oracle: tests/fixtures/kafka/ now $total bytes"
    if [ "$total" -gt "$MAX_FIXTURE_BYTES" ]; then
        die "tests/fixtures/kafka/ is $total bytes, over the $MAX_FIXTURE_BYTES budget: trim the workloads"
    fi
fi
