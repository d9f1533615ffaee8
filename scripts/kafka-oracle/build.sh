#!/usr/bin/env bash
# Builds the conformance harness (scripts/kafka-oracle, Maven) against one Kafka release for the
# scenario clusters (segscan.oracle.Scenario) and prints the directory it built into:
#   DIR/target/classes, DIR/lib/*.jar (every runtime jar), DIR/agent/jmx_prometheus_javaagent.jar
# For the releases whose kafka-storage test jar Maven Central serves (KAFKA_LTS_VERSIONS, default
# "4.2.1 4.3.1") it adds Kafka's own LocalTieredStorage (-Dlts). Maven offline first (no network
# once ~/.m2 has the jars), then online. A build whose sources and pom did not change since the
# last one is reused as it is (DIR/.stamp). See docs/conformance.md.
#
# A release without a served test jar can borrow LocalTieredStorage from one that has it:
# KAFKA_LTS_FROM=4.3.1 build.sh 4.4.0 builds the 4.4.0 broker with 4.3.1's kafka-storage test jar
# (its classes only, none of its dependencies: the RemoteStorageManager interface is the same in
# kafka-storage-api 4.3.1 and 4.4.0; the one name 4.4.0 moved that it links, LogContext, gets a
# shim: src/main/java/org/) into DIR = harness-4.4.0-lts4.3.1 (tests/dellag_real.sh).
#
# usage: build.sh VERSION          (DIR = $BUILD/kafka-oracle/harness-VERSION, BUILD default build/)
# exit 2: java 17+ or mvn missing (a SKIP for tests); 1: the build failed (the message says why).
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/scripts/kafka-oracle"
BUILD=${BUILD:-$ROOT/build}
V=${1:?usage: build.sh KAFKA_VERSION}
LTS_VERSIONS=${KAFKA_LTS_VERSIONS:-4.2.1 4.3.1}
LTS_FROM=${KAFKA_LTS_FROM:-}
OUT="$BUILD/kafka-oracle/harness-$V${LTS_FROM:+-lts$LTS_FROM}"
command -v java >/dev/null 2>&1 || { echo "build.sh: java not found (scripts/install-deps.sh installs openjdk-17-jdk-headless)" >&2; exit 2; }
command -v mvn >/dev/null 2>&1 || { echo "build.sh: mvn not found (scripts/install-deps.sh installs maven)" >&2; exit 2; }
jv="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
case "$jv" in ''|1.*|9|1[0-6]) echo "build.sh: Java ${jv:-?} is too old: Kafka 4.x needs Java 17+" >&2; exit 2 ;; esac
args=(-B -q -f "$HERE/pom.xml" -Dkafka.version="$V" -Doracle.out="$OUT")
if [ -n "$LTS_FROM" ]; then args+=(-Dlts=1 -Dlts.version="$LTS_FROM" -Dlts.compat=1)
else case " $LTS_VERSIONS " in *" $V "*) args+=(-Dlts=1) ;; esac
fi
stamp=$( { echo "${args[*]}"; cat "$HERE/pom.xml"; find "$HERE/src" -name '*.java' | sort | xargs cat; } | sha1sum | cut -d' ' -f1)
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$stamp" ] && [ -d "$OUT/target/classes" ] &&
   [ -f "$OUT/agent/jmx_prometheus_javaagent.jar" ]; then
    echo "$OUT"; exit 0
fi
mkdir -p "$OUT"
rm -f "$OUT/.stamp"
log="$OUT.maven.log"
# Stale jars of another build (e.g. a test jar from an -Dlts build) must not stay on the class path.
rm -rf "$OUT/lib"
if ! timeout 300 mvn -o "${args[@]}" package >"$log" 2>&1; then
    echo "build.sh: fetching Kafka $V and the harness's dependencies from Maven Central..." >&2
    if ! timeout 900 mvn "${args[@]}" package >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        echo "build.sh: Maven build of scripts/kafka-oracle against Kafka $V failed (full log: $log)" >&2
        exit 1
    fi
fi
echo "$stamp" >"$OUT/.stamp"
echo "$OUT"
