#!/usr/bin/env bash
# Long fuzzing in the background, one target at a time at nice 19, round robin in
# slices, until a deadline or until DIR/stop exists. Each target keeps its working corpus
# in DIR/soak/<target>/ between slices (seeded from tests/fuzz/corpus/<target>/, which is
# never written); every slice appends "target<TAB>executions<TAB>exit" to DIR/soak/execs.tsv
# and a crash input lands in DIR/artifacts/. Build first with
#   FUZZ_OUT=DIR FUZZ_BUILD_ONLY=1 tests/fuzz/run.sh
#
#   tests/fuzz/soak.sh DIR UNTIL_EPOCH_SECONDS [SLICE_SECONDS]   (default slice 300)
#   SOAK_ONLY="fuzz_a fuzz_b" runs those targets, in that order (default: every built one)
#   tests/fuzz/soak.sh --report DIR                  cumulative executions per target
set -u
if [ "${1:-}" = "--report" ]; then
  awk -F'\t' '{n[$1]+=$2; s[$1]++; if ($3 != 0) bad[$1]++}
    END {for (t in n) printf "%-26s %14d executions in %3d slices%s\n", t, n[t], s[t],
         bad[t] ? sprintf(", %d FAILED", bad[t]) : ""}' "$2/soak/execs.tsv" | sort
  exit 0
fi
dir=$1 until=$2 slice=${3:-300}
cd "$(dirname "$0")/../.." || exit 2
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
    [ -e "$dir/stop" ] || [ "$left" -le 5 ] && exit 0
    t=$slice; [ "$left" -lt "$t" ] && t=$((left - 5))
    work="$dir/soak/$name"
    if [ ! -d "$work" ]; then
      mkdir -p "$work"
      [ -d "tests/fuzz/corpus/$name" ] && cp -R "tests/fuzz/corpus/$name/." "$work/"
    fi
    nice -n 19 "$bin" -max_total_time="$t" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
      -artifact_prefix="$dir/artifacts/$name-" "$work" >"$dir/soak/$name.last" 2>&1
    rc=$?
    n=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$dir/soak/$name.last" | grep -o '[0-9]*$')
    printf '%s\t%s\t%s\n' "$name" "${n:-0}" "$rc" >>"$dir/soak/execs.tsv"
    [ "$rc" -ne 0 ] && cp "$dir/soak/$name.last" "$dir/soak/$name.fail.$(date +%s)"
    ran=1
  done
  [ "$ran" -eq 0 ] && exit 0
done
