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
      librdkafka-dev libcurl4-openssl-dev)
# librdkafka-dev: the live-cluster source (--bootstrap-server, src/source/cluster.c).
# libcurl4-openssl-dev: segscan merge's reading of serve endpoints (src/merge/fetch.c).
# The live-cluster tests (tests/live_cluster.sh) and make conformance run real Kafka brokers
# (scripts/kafka-oracle): a JDK 17+ and Maven, unless some java/mvn is already on the PATH.
command -v java >/dev/null 2>&1 || pkgs+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || pkgs+=(maven)
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
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
