#!/usr/bin/env bash
# `make test`: every suite, with the real-broker tests in a lane of their own.
#
#   ASAN_B=DIR ASAN_ENV="VAR=... ..." tests/suite.sh MAKE B "REAL_TESTS" ["REAL_ASAN_TESTS"]
#
# The tests that start real Kafka brokers, Prometheus or an S3 server (REAL_TESTS, release
# build) spend most of their wall time waiting for JVMs and for the brokers' own schedules, not
# on the CPU; run one after the other behind the unit suites they made `make test` longer than
# its 20-minute budget. So they run in a background lane, one at a time, while the release unit
# tests, then the ASan+UBSan and TSan suites run in the foreground. No test's verdict depends
# on timing (tests/README and docs/testing: every wait is on an event with a generous bound), so
# running beside other work changes only the wall time. The lane's output is printed in one
# piece after the suites, and its verdict counts like any other suite's.
# REAL_ASAN_TESTS are those that run under ASan+UBSan too (the others skip there): the lane
# runs their ASan build after the release ones, once the foreground has built it (it says so by
# a stamp file), and the ASan suite leaves them out.
set -u
make=${1:?make}; b=${2:?build dir}; real=${3-}; real_asan=${4-}
asan_b=${ASAN_B:-build/asan}
stamp=$b/asan-built.stamp
rm -f "$stamp"

lane=()
for n in $real; do [ -x "$b/tests/$n" ] && lane+=("$n"); done
log=$b/real-lane.log
rm -f "$log" "$log.rc"
lanepid=
if [ ${#lane[@]} -gt 0 ]; then
  # its own process group, so an interrupted `make test` stops the brokers' scripts too
  # (each script's own EXIT/TERM trap stops what it started)
  set -m
  ( r=0
    SEGSCAN=$b/segscan bash tests/run.sh "$b/tests" "${lane[@]}" >"$log" 2>&1 || r=1
    if [ -n "$real_asan" ]; then
      # the foreground writes the stamp after the ASan build, or "failed" if the build did;
      # it always writes one before it waits for this lane, so this wait ends
      while [ ! -s "$stamp" ]; do sleep 2; done
      if [ "$(cat "$stamp")" = built ]; then
        echo "---- real-broker lane, ASan+UBSan build ----" >>"$log"
        env $ASAN_ENV bash tests/run.sh "$asan_b/tests" $real_asan >>"$log" 2>&1 || r=1
      fi
    fi
    echo $r >"$log.rc" ) &
  lanepid=$!
  set +m
  trap '[ -n "$lanepid" ] && kill -TERM -- "-$lanepid" 2>/dev/null; exit 130' INT TERM
  echo "real-broker lane (${lane[*]}) running beside the suites -> $log"
fi

rc=0
t_start=$SECONDS
echo "---- release build: unit tests ----"
SEGSCAN=$b/segscan SEGSCAN_TEST_SKIP="$real" bash tests/run.sh "$b/tests" || rc=1
echo "---- ASan+UBSan ----"
if $make --no-print-directory asan-build; then
  echo built >"$stamp"
  skip=; [ -n "$lanepid" ] && skip=$real_asan   # no lane: they run here, in line
  SEGSCAN_TEST_SKIP="$skip" $make --no-print-directory test-asan || rc=1
else
  echo failed >"$stamp"; rc=1
fi
echo "---- TSan ----"
$make --no-print-directory test-tsan || rc=1

if [ -n "$lanepid" ]; then
  wait "$lanepid"
  trap - INT TERM
  echo "---- real-broker lane ----"
  cat "$log"
  [ "$(cat "$log.rc" 2>/dev/null)" = 0 ] || { echo "real-broker lane failed (log: $log)"; rc=1; }
fi
echo "suites: $((SECONDS - t_start)) s wall (the lane's tests ran beside the others)"
exit $rc
