#!/usr/bin/env bash
# Installs the Debian packages segscan builds and tests with, only when one is missing,
# so `make` on a fresh machine needs nothing typed first and costs nothing afterwards.
set -euo pipefail
pkgs=(build-essential pkg-config clang
      libcrypt-dev openssl
      liburing-dev libnuma-dev libjemalloc-dev libcmocka-dev
      libmicrohttpd-dev libjansson-dev
      zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev
      systemtap-sdt-dev python3-kafka python3-snappy python3-lz4 python3-zstandard
      inotify-tools curl
      mandoc prometheus systemd libsystemd-dev zsh
      librdkafka-dev libcurl4-openssl-dev libexpat1-dev)
# librdkafka-dev: the live-cluster source (--bootstrap-server, src/source/cluster.c).
# libcurl4-openssl-dev: the s3:// remote store (--remote-store, src/source/store_s3.c:
# libcurl's CURLOPT_AWS_SIGV4) and segscan merge's reading of serve endpoints
# (src/merge/fetch.c); libexpat1-dev: the ListObjectsV2 parser (src/fmt/s3_list.c).
# The live-cluster tests (tests/live_cluster.sh) and make conformance run real Kafka brokers
# (scripts/kafka-oracle): a JDK 17+ and Maven, unless some java/mvn is already on the PATH.
command -v java >/dev/null 2>&1 || pkgs+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || pkgs+=(maven)
# The scenario clusters' S3 server (scripts/kafka-oracle/versitygw.sh) is built with `go install`
# by the Go toolchain of the machine image (Go 1.25+); Debian 12's golang-go (1.19) is too old for
# it, so none is installed here: without Go the cases that need S3 SKIP, saying so.
# mandoc: -Tlint on man/*; prometheus: promtool (check metrics, check/test rules); systemd:
# systemd-analyze verify/security on the unit; libsystemd-dev: sd_notify for Type=notify
# (optional at build time: the Makefile links it only when pkg-config finds it); zsh: the
# check of completions/_segscan.
# libcrypt-dev: crypt(3) for serve's bcrypt basic auth (--web.config.file); openssl: the
# TLS test's certificate.
# make fuzz (and CI): libFuzzer and the sanitizer runtimes of the clang that `clang` is,
# in their own package since LLVM 14 (Debian 12: libclang-rt-14-dev)
clang_major=$({ clang -dumpversion 2>/dev/null ||
                apt-cache depends clang 2>/dev/null | sed -n 's/.*Depends: clang-\([0-9][0-9]*\).*/\1/p'; } |
              head -1 | cut -d. -f1)
pkgs+=("libclang-rt-${clang_major:-14}-dev")
# make bench also wants the measuring tools (not needed to build or test)
if [ "${1:-}" = "--bench" ]; then
  pkgs+=(gnuplot-nox linux-perf valgrind strace time)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
# --harness: fetch now what the real-broker tests otherwise fetch on their first run, so that
# later runs are offline: the harness built against the LocalTieredStorage releases (Kafka's jars,
# its test jars and the JMX exporter from Maven Central, into ~/.m2) and versitygw (Go modules,
# into Go's module cache). See docs/conformance.md, "Scenario clusters".
if [ "${1:-}" = "--harness" ]; then
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  for v in ${KAFKA_LTS_VERSIONS:-4.2.1 4.3.1}; do
    bash "$here/kafka-oracle/build.sh" "$v" >/dev/null
  done
  KAFKA_LTS_FROM=4.3.1 bash "$here/kafka-oracle/build.sh" 4.4.0 >/dev/null   # tests/dellag_real.sh
  bash "$here/kafka-oracle/versitygw.sh" install >/dev/null || [ $? -eq 2 ]   # 2: no Go 1.25+ (SKIPs)
fi
exit 0
