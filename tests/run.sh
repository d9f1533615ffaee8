#!/usr/bin/env bash
# Runs cmocka test binaries in DIR (all, or the named ones) and prints one closing line
# "N passed, N failed" counted from cmocka's own per-test result lines, then the slowest tests'
# wall seconds (information only: no verdict depends on them). SEGSCAN_TEST_SKIP="test_a test_b"
# leaves those out of a whole-directory run (tests/suite.sh runs them in a lane of their own).
set -u
dir=$1; shift
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for t in "$dir"/test_*; do
    [ -x "$t" ] || continue
    case " ${SEGSCAN_TEST_SKIP:-} " in *" $(basename "$t") "*) continue ;; esac
    names+=("$(basename "$t")")
  done
fi
times=()
pass=0; fail=0; skip=0; bad=()
export SEGSCAN_TEST_TMP=${SEGSCAN_TEST_TMP:-$(mktemp -d /tmp/segscan-test.XXXXXX)}
for n in "${names[@]}"; do
  out=$(mktemp)
  t0=$SECONDS
  "$dir/$n" >"$out" 2>&1; rc=$?
  times+=("$((SECONDS - t0)) $n")
  cat "$out"
  p=$(grep -c '^\[       OK \]' "$out"); f=$(grep -c '^\[  FAILED  \]\|^\[  ERROR   \]' "$out")
  # cmocka repeats skipped names in its summary; count each skipped test once
  s=$(grep -E '^\[  SKIPPED \] [^0-9]' "$out" | sort -u | wc -l)
  # cmocka repeats failed names in its summary; count each failed test once
  f=$(grep -E '^\[  (FAILED|ERROR)   \] [^0-9]' "$out" | sort -u | wc -l)
  pass=$((pass + p)); skip=$((skip + s))
  if [ $rc -ne 0 ]; then
    [ "$f" -eq 0 ] && f=1
    fail=$((fail + f)); bad+=("$n")
  fi
  rm -f "$out"
done
rm -rf "$SEGSCAN_TEST_TMP"
echo
printf '%s\n' "${times[@]}" | sort -rn | head -8 | awk 'BEGIN { printf "slowest:" } { printf " %s %ss", $2, $1 } END { print "" }'
echo "tests: $pass passed, $fail failed, $skip skipped"
if [ $fail -ne 0 ]; then echo "failing: ${bad[*]}"; exit 1; fi
exit 0
