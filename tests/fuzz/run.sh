#!/usr/bin/env bash
# Build every tests/fuzz/fuzz_*.c as a libFuzzer binary in build/fuzz/ and run each for
# SECONDS, starting from its committed corpus tests/fuzz/corpus/<target>/. What a run
# finds is merged back into that corpus, minimised (-merge=1, see tests/fuzz/corpus.sh),
# and its executions are added to tests/fuzz/executions.tsv (docs/fuzzing.md shows the
# totals): commit both after a run. FUZZ_MERGE=0 leaves the checkout as it was.
# Exits non-zero if a target fails to build or finds a crash; crash inputs are left in
# build/fuzz/artifacts/.
#
#   tests/fuzz/run.sh [SECONDS]        (default 20; FUZZ_CFLAGS adds compiler flags)
#
# FUZZ_OUT=DIR builds and works in DIR instead of build/fuzz (one per engineer or CI job);
# FUZZ_ONLY="fuzz_a fuzz_b" limits the run to those targets; FUZZ_BUILD_ONLY=1 builds
# every target and runs none (tests/fuzz/soak.sh then runs them for long).
set -u
secs=${1:-20}
cd "$(dirname "$0")/../.." || exit 2
. tests/fuzz/corpus.sh
out=${FUZZ_OUT:-build/fuzz}
mkdir -p "$out/obj" "$out/artifacts" "$out/corpus"

CC=${FUZZ_CC:-clang}
# A small plaintext ceiling per compressed batch: a decompression bomb then costs a
# fuzzer input milliseconds instead of seconds.
CFLAGS=(-std=gnu11 -g -O1 -D_GNU_SOURCE -DSEGSCAN_VERSION=\"fuzz\" "-DSS_BATCH_MAX_PLAIN=((size_t)8<<20)"
        ${FUZZ_CFLAGS:-} -Iinclude -Isrc -fsanitize=fuzzer-no-link,address,undefined
        -fno-sanitize-recover=all)
LIBS=(-lz -lsnappy -llz4 -lzstd -ljansson -lcrypt -lexpat)  # -lcrypt: src/service/webconfig.c; -lexpat: src/fmt/s3_list.c

# Library sources go into an archive, so a target links only the objects it needs and a
# module that does not compile yet (others' work in progress) cannot break the rest.
rm -f "$out/libfuzzsrc.a" "$out"/obj/*.o
objs=()
# src/model/*.c: the results model (the segment records, their constants) the evaluator
# and the NDJSON remote state use;
# src/service/parse.c: the HTTP path and --listen parsers, apart from libmicrohttpd;
# src/service/webconfig.c: the --web.config.file parser; src/out/term.c: the terminal
# escaping; src/io/fwin.c and src/io/bus.c: the file window the .log reader
# (source/logread.c) reads through and its SIGBUS hook, without the engines.
for src in src/fmt/*.c src/common/*.c src/model/*.c src/eval/*.c src/source/*.c src/service/parse.c src/service/webconfig.c src/dump/*.c src/out/term.c src/io/fwin.c src/io/bus.c; do
  [ -f "$src" ] || continue
  obj="$out/obj/$(echo "${src%.c}" | tr / _).o"
  if "$CC" "${CFLAGS[@]}" -c "$src" -o "$obj" 2>"$obj.log"; then
    objs+=("$obj")
  else
    echo "fuzz: warning: $src does not compile, left out (see $obj.log)" >&2
  fi
done
[ ${#objs[@]} -gt 0 ] && ar rcs "$out/libfuzzsrc.a" "${objs[@]}"

failed=()
for t in tests/fuzz/fuzz_*.c; do
  [ -f "$t" ] || continue
  name=$(basename "${t%.c}")
  if [ -n "${FUZZ_ONLY:-}" ] && [[ " $FUZZ_ONLY " != *" $name "* ]]; then
    continue
  fi
  bin="$out/$name"
  if ! "$CC" "${CFLAGS[@]}" -fsanitize=fuzzer "$t" "$out/libfuzzsrc.a" "${LIBS[@]}" -o "$bin" 2>"$bin.log"; then
    echo "fuzz: $name: BUILD FAILED (see $bin.log)" >&2
    failed+=("$name(build)")
    continue
  fi
  [ -n "${FUZZ_BUILD_ONLY:-}" ] && { echo "fuzz: $name: built" >&2; continue; }
  work="$out/corpus/$name"
  rm -rf "$work"
  mkdir -p "$work"
  [ -d "tests/fuzz/corpus/$name" ] && cp -R "tests/fuzz/corpus/$name/." "$work/"
  echo "fuzz: $name for ${secs}s" >&2
  t0=$(date +%s)
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$out/artifacts/$name-" "$work" >"$out/$name.out" 2>&1; then
    execs=$(fuzz_execs "$out/$name.out")
    if [ "${FUZZ_MERGE:-1}" != 0 ]; then
      files=$(fuzz_merge "$bin" "$name" "$work") || { failed+=("$name(merge)"); continue; }
      fuzz_record "$name" "$execs" $(($(date +%s) - t0)) 0 "$files"
    fi
    echo "fuzz: $name: ok ($execs runs)" >&2
  else
    [ "${FUZZ_MERGE:-1}" != 0 ] && fuzz_record "$name" "$(fuzz_execs "$out/$name.out")" $(($(date +%s) - t0)) 1 \
      "$(find "tests/fuzz/corpus/$name" -maxdepth 1 -type f 2>/dev/null | wc -l)"
    echo "fuzz: $name: FAILED (log $out/$name.out)" >&2
    grep -m5 -E 'ERROR|SUMMARY|Test unit written' "$out/$name.out" >&2
    failed+=("$name")
  fi
done

[ "${FUZZ_MERGE:-1}" != 0 ] && [ -z "${FUZZ_BUILD_ONLY:-}" ] && fuzz_table
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: all targets ok"
