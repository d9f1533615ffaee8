#!/usr/bin/env bash
# Long fuzzing in the background, one target at a time at nice 19, round robin in slices,
# until a deadline or until DIR/stop exists. Each slice starts from the committed corpus
# tests/fuzz/corpus/<target>/ and merges what it found back into it, minimised
# (tests/fuzz/corpus.sh); its executions go to tests/fuzz/executions.tsv and the table in
# docs/fuzzing.md. Commit the three after a soak: the next one starts where it ended.
# A crash input lands in DIR/artifacts/ (the slice's log in DIR/soak/<target>.fail.*) and
# is counted in the ledger. Build first with
#   FUZZ_OUT=DIR FUZZ_BUILD_ONLY=1 tests/fuzz/run.sh
#
#   tests/fuzz/soak.sh DIR UNTIL_EPOCH_SECONDS [SLICE_SECONDS]   (default slice 300)
#   SOAK_ONLY="fuzz_a fuzz_b fuzz_a" runs those targets in that order, a name listed twice
#                                    getting two slices a round (default: every built one)
#   tests/fuzz/soak.sh --report      the cumulative executions per target (the ledger)
#   tests/fuzz/soak.sh --table       rewrites docs/fuzzing.md's table from the ledger
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/fuzz/corpus.sh
case "${1:-}" in
--report) column -t -s "$(printf '\t')" "$FUZZ_LEDGER"; exit 0 ;;
--table) fuzz_table; exit 0 ;;
esac
dir=${1:?usage: soak.sh DIR UNTIL_EPOCH_SECONDS [SLICE_SECONDS]} until=${2:?} slice=${3:-300}
mkdir -p "$dir/soak" "$dir/artifacts"
while :; do
  ran=0
  if [ -n "${SOAK_ONLY:-}" ]; then bins=(); for t in $SOAK_ONLY; do bins+=("$dir/$t"); done
  else bins=("$dir"/fuzz_*); fi
  for bin in "${bins[@]}"; do
    [ -x "$bin" ] && [ -f "$bin" ] || continue
    name=$(basename "$bin")
    now=$(date +%s)
    left=$((until - now))
    { [ -e "$dir/stop" ] || [ "$left" -le 5 ]; } && exit 0
    t=$slice; [ "$left" -lt "$t" ] && t=$((left - 5))
    work="$dir/soak/$name.$$"   # two soaks may run the same target at once
    rm -rf "$work"
    mkdir -p "$work"
    [ -d "tests/fuzz/corpus/$name" ] && cp -R "tests/fuzz/corpus/$name/." "$work/"
    t0=$(date +%s)
    nice -n 19 "$bin" -max_total_time="$t" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
      -artifact_prefix="$dir/artifacts/$name-" "$work" >"$dir/soak/$name.last" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    n=$(fuzz_execs "$dir/soak/$name.last")
    if [ "$rc" -eq 0 ]; then
      files=$(fuzz_merge "$bin" "$name" "$work") || files=$(find "tests/fuzz/corpus/$name" -maxdepth 1 -type f | wc -l)
      fuzz_record "$name" "$n" "$secs" 0 "$files"
    else
      cp "$dir/soak/$name.last" "$dir/soak/$name.fail.$(date +%s)"
      fuzz_record "$name" "$n" "$secs" 1 "$(find "tests/fuzz/corpus/$name" -maxdepth 1 -type f | wc -l)"
    fi
    rm -rf "$work"
    fuzz_table
    ran=1
  done
  [ "$ran" -eq 0 ] && exit 0
done
