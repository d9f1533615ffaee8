#!/usr/bin/env bash
# serve's change detection end to end (issue 15), run by tests/test_rescan.c:
#   tests/rescan.sh CHECK SEGSCAN_BINARY
#   changes   an unchanged tree: every partition taken whole from the previous scan (and,
#             under strace, no partition directory is opened, listed or statted); then
#             after each change (append to an active segment, truncate one, a roll, a
#             segment deleted by retention, a closed segment touched, a new partition, a
#             partition renamed -delete, one removed) the next rescan's report equals a
#             fresh `segscan scan -f json` of the same tree, and only the changed
#             partitions were read again
#   limit     a watch limit (SEGSCAN_WATCH_MAX) below the partition count: one log line,
#             the unwatched partitions take the full path, reports still equal
#   full      --full-rescan-interval: 0 means every rescan is a full check; a short one
#             brings full checks between the change-detected ones
set -Eeuo pipefail
check=$1
bin=$(readlink -f "$2")
fail() { echo "rescan.sh $check: FAIL: $*" >&2; [ -f "${log:-/dev/null}" ] && tail -5 "$log" >&2; exit 1; }
# A command that set -e ends the script on is named, never a silent exit 1 (the limit
# check once exited 1 under ASan on a loaded machine with no message at all). -E: in
# functions and command substitutions too.
trap 'echo "rescan.sh $check: FAIL: exit $? at line $LINENO: $BASH_COMMAND" >&2' ERR
tmp=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/rescan.XXXXXX")
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
NOW=1700000000000
ld=$tmp/ld
log=$tmp/serve.log
# Every wait is for a log line, bounded by a hang guard of minutes (more under the
# sanitizers): a loaded machine makes the checks slower, never wrong (issue 21 item 14).
slow=1
[[ "$bin" == *asan* || "$bin" == *tsan* ]] && slow=4
guard=$((120 * slow))

"$bin" gen "$ld" --topics=3 --partitions=4 --segments=5 --segment-bytes=8KiB --seed=3 >/dev/null 2>&1 ||
	fail "segscan gen"
nparts=$(find "$ld" -mindepth 1 -maxdepth 1 -type d -name '*-[0-9]*' | wc -l)
[ "$nparts" -eq 12 ] || fail "expected 12 partitions, found $nparts"

start() { # start [ENV=V ...] -- [serve options]
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	for try in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 20000))
		: >"$log"
		env "${envs[@]}" "$bin" serve --listen=127.0.0.1:$port --interval=0.3 --now=$NOW "$@" "$ld" 2>"$log" &
		pid=$!
		local end=$((SECONDS + guard))
		while [ $SECONDS -lt $end ]; do
			grep -q 'msg=listening' "$log" && return 0
			grep -q 'Address already in use' "$log" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		# a serve that already exited (its port taken): kill fails, and under set -e that
		# ended the script instead of trying the next port
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		pid=
	done
	fail "serve did not log msg=listening (within $guard s, on 5 ports)"
}
# SIGTERM: exit 0 (under ASan the status carries LeakSanitizer's verdict too)
stop() {
	local rc=0
	kill "$pid"
	wait "$pid" 2>/dev/null || rc=$?
	pid=
	[ "$rc" -eq 0 ] || fail "serve exited $rc after SIGTERM"
}

# The "scan complete" line of generation $1, waited for (or fail).
complete_line() {
	local deadline=$((SECONDS + guard))
	while [ $SECONDS -lt $deadline ]; do
		local l
		l=$(grep "msg=\"scan complete\" generation=$1 " "$log" || true)
		[ -n "$l" ] && { echo "$l"; return 0; }
		sleep 0.05
	done
	fail "no scan complete for generation $1 within $guard s"
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
last_started() { sed -n 's/.*msg="scan started" generation=\([0-9]*\).*/\1/p' "$log" | tail -1; }

# After a change: the first scan that started after it. Prints its complete line.
after_change() {
	local g
	g=$(last_started)
	complete_line $((g + 1))
}
# mark; CHANGE; settle N WHAT: the scans that began during or after the change read the
# changed partitions again (the fewest reused among them is exactly N) and the first one
# that began after it published a report equal to a fresh scan's.
mark() { g0=$(last_started); }
settle() {
	local l g1 min=999999 v
	l=$(after_change)
	g1=$(field generation "$l")
	for g in $(seq $((g0 + 1)) "$g1"); do
		v=$(field partitions_reused "$(complete_line "$g")")
		[ "$v" -lt "$min" ] && min=$v
	done
	[ "$min" -eq "$1" ] || fail "$2: at least $min partitions reused in scans $((g0 + 1))-$g1, expected $1"
	same_as_fresh "$2"
	last=$l
}

# The published report against a fresh scan of the same tree (bytes_read is the only
# field that may differ: the rescan reads less).
same_as_fresh() {
	local what=$1
	curl -sf "http://127.0.0.1:$port/v1/partitions" >"$tmp/served.json" || fail "$what: GET /v1/partitions"
	"$bin" scan -f json --now=$NOW "$ld" >"$tmp/fresh.json" 2>/dev/null || [ $? -eq 1 ] || fail "$what: scan"
	python3 - "$tmp/served.json" "$tmp/fresh.json" "$what" <<-'EOF' || fail "$what: the rescan's report differs from a fresh scan's"
	import json, sys
	a, b = (json.load(open(p)) for p in sys.argv[1:3])
	for r in (a, b):
	    r['summary'].pop('bytes_read', None)
	    # notes and errors are in listing order, which threads may change
	    for k in ('notes', 'errors'):
	        if isinstance(r.get(k), list):
	            r[k].sort(key=json.dumps)
	if a != b:
	    def walk(x, y, p=''):
	        if type(x) != type(y) or not isinstance(x, (dict, list)):
	            if x != y:
	                print(f'{sys.argv[3]}: {p}: served {str(x)[:100]} fresh {str(y)[:100]}', file=sys.stderr)
	            return
	        if isinstance(x, dict):
	            for k in sorted(set(x) | set(y)):
	                walk(x.get(k), y.get(k), p + '/' + k)
	        elif len(x) != len(y):
	            print(f'{sys.argv[3]}: {p}: {len(x)} vs {len(y)} entries', file=sys.stderr)
	        else:
	            for i, (u, v) in enumerate(zip(x, y)):
	                walk(u, v, f'{p}[{i}]')
	    walk(a, b)
	    sys.exit(1)
	EOF
}

# expect LINE FIELD VALUE
expect() { [ "$(field "$2" "$1")" = "$3" ] || fail "${4:-}: $2=$(field "$2" "$1"), expected $3"; }

part() { find "$ld" -mindepth 1 -maxdepth 1 -type d -name "$1" | head -1; }
active_log() { ls "$1"/*.log | sort | tail -1; }
first_log() { ls "$1"/*.log | sort | head -1; }

case $check in
changes)
	start --
	l=$(complete_line 1)
	expect "$l" check full "first scan"
	expect "$l" partitions_reused 0 "first scan"
	l=$(complete_line 2)
	expect "$l" check changes "second scan"
	expect "$l" partitions_reused 12 "unchanged tree"
	expect "$l" bytes_read 0 "unchanged tree"
	segs=$(field segments "$l")
	expect "$l" reused "$segs" "unchanged tree"
	same_as_fresh unchanged
	curl -sf "http://127.0.0.1:$port/metrics" | grep -E '^segscan_scan_partitions_reused_total [1-9]' >/dev/null ||
		fail "no segscan_scan_partitions_reused_total in /metrics"

	# Under strace (where ptrace is allowed): a rescan of the unchanged tree opens, lists
	# and stats nothing inside a partition directory.
	if command -v strace >/dev/null; then
		strace -f -qq -e trace=openat,open,statx,newfstatat,fstatat64,stat,lstat,getdents64 -o "$tmp/strace" \
			-p "$pid" 2>/dev/null &
		spid=$!
		# attached (an event, not a fixed nap): the scans that start from here are traced
		end=$((SECONDS + guard))
		until [ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)" != 0 ] ||
			! kill -0 "$spid" 2>/dev/null || [ $SECONDS -ge $end ]; do sleep 0.02; done
		g=$(last_started)
		complete_line $((g + 2)) >/dev/null
		complete_line $((g + 3)) >/dev/null
		kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null || true
		if [ -s "$tmp/strace" ]; then
			# a partition directory or a path in one: relative to a log dir fd, or absolute
			pat="\"($ld/)?[A-Za-z0-9._]+-[0-9]+(/[^\"]*)?\""
			n=$(grep -cE "$pat" "$tmp/strace" || true)
			[ "$n" -eq 0 ] || fail "unchanged rescans touched partition directories: $(grep -E "$pat" "$tmp/strace" | head -3)"
			grep -q 'getdents64\|openat' "$tmp/strace" || fail "strace saw no syscall at all (not attached?)"
		fi
	fi

	# 1. append to one partition's active segment (a torn batch, as a crash leaves it)
	p=$(part 'click-stream-0')
	mark; head -c 100 /dev/urandom >>"$(active_log "$p")"; settle 11 append
	# 2. truncate the active segment into its last batch
	mark; truncate -s -150 "$(active_log "$p")"; settle 11 truncate
	# 3. a roll in another partition: a new empty active segment after the last offset
	q=$(part 'payments_eu-1')
	leo=$(jq -r '.partitions[] | select(.dir=="payments_eu-1") | .log_end_offset' "$tmp/fresh.json")
	nb=$(printf '%020d' "$leo")
	mark; : >"$q/$nb.log"; : >"$q/$nb.index"; : >"$q/$nb.timeindex"; settle 11 roll
	# 4. retention deletes the oldest segment of a third partition: rename, then unlink
	r=$(part 'orders.v2-2')
	f=$(first_log "$r"); b=${f%.log}
	mark
	for x in log index timeindex; do [ -e "$b.$x" ] && mv "$b.$x" "$b.$x.deleted"; done
	settle 11 deleted-rename
	mark; rm -f "$b".*.deleted; settle 11 deleted-unlink
	# 5. a closed segment's mtime changes (IN_ATTRIB)
	mark; touch -d '2020-01-01' "$(first_log "$q")"; settle 11 touch
	# 6. a new partition appears (a reassignment brings it here)
	mark; cp -a "$(part 'orders.v2-0')" "$ld/fresh.topic-0"; settle 12 new-partition
	expect "$last" partitions 13 "new partition"
	# ... and is taken whole by the scan after (armed before that scan read it)
	l=$(after_change); expect "$l" partitions_reused 13 "new partition, next scan"
	# 7. a partition renamed for deletion, then one removed outright
	mark; mv "$ld/orders.v2-3" "$ld/orders.v2-3.0123456789abcdef0123456789abcdef-delete"
	settle 12 delete-rename
	expect "$last" partitions 12 "-delete rename"
	mark; rm -rf "$ld/orders.v2-3.0123456789abcdef0123456789abcdef-delete" "$ld/fresh.topic-0"
	settle 11 rm
	expect "$last" partitions 11 "rm -rf"
	# 8. a name comes back with other contents (the old watch followed the renamed dir)
	mark; mv "$ld/orders.v2-2" "$tmp/away"; settle 10 moved-away
	mark; cp -a "$(part 'orders.v2-1')" "$ld/orders.v2-2"; settle 10 name-reused
	expect "$last" partitions 11 "name reused"
	l=$(after_change); same_as_fresh name-reused-next
	mark; head -c 64 /dev/zero >>"$(active_log "$tmp/away")"; settle 11 old-inode # not ours any more
	stop
	echo "rescan.sh changes: ok"
	;;
limit)
	start SEGSCAN_WATCH_MAX=5 --
	complete_line 1 >/dev/null
	l=$(complete_line 2)
	expect "$l" check changes "limited"
	expect "$l" partitions_reused 5 "5 watches"
	n=$(grep -c 'inotify watch limit reached' "$log" || true)
	[ "$n" -eq 1 ] || fail "expected one watch-limit line, got $n"
	grep 'inotify watch limit reached' "$log" | grep 'unwatched=7' >/dev/null || fail "the limit line does not say unwatched=7"
	same_as_fresh limited
	# a change in every partition, watched or not
	g0=$(last_started)
	for p in "$ld"/*-[0-9]*; do head -c 50 /dev/zero >>"$(active_log "$p")"; done
	l=$(after_change); same_as_fresh limited-all
	# the appends may straddle scans; the watched ones were read again in one of them
	g1=$(field generation "$l") min=5
	for g in $(seq $((g0 + 1)) "$g1"); do
		v=$(field partitions_reused "$(complete_line "$g")")
		[ "$v" -lt "$min" ] && min=$v
	done
	[ "$min" -lt 5 ] || fail "appends to watched partitions were never read again"
	l=$(after_change); expect "$l" partitions_reused 5 "limited again"; same_as_fresh limited-again
	n=$(grep -c 'inotify watch limit reached' "$log" || true)
	[ "$n" -eq 1 ] || fail "the watch-limit line repeats ($n) without a full check"
	stop
	echo "rescan.sh limit: ok"
	;;
full)
	start -- --full-rescan-interval=0
	complete_line 3 >/dev/null
	[ "$(grep -c 'check=changes' "$log" || true)" -eq 0 ] || fail "--full-rescan-interval=0 still used change detection"
	expect "$(complete_line 3)" partitions_reused 0 "--full-rescan-interval=0"
	stop
	# A short interval brings full checks between the change-detected ones. 4 s against
	# scans every 0.3 s: change-detected scans come between two full checks unless a scan
	# takes seconds (0.5 s made every scan a full check on a loaded machine). Waited for
	# as events: the second full check and two change-detected scans.
	start -- --full-rescan-interval=4
	end=$((SECONDS + guard))
	while :; do
		nf=$(grep -c 'check=full' "$log" || true)
		nc=$(grep -c 'check=changes' "$log" || true)
		[ "$nf" -ge 2 ] && [ "$nc" -ge 2 ] && break
		[ $SECONDS -lt $end ] || fail "--full-rescan-interval=4: $nf full checks, $nc change-detected scans in $guard s"
		sleep 0.1
	done
	same_as_fresh full-interval
	stop
	"$bin" serve --full-rescan-interval=-1 "$ld" 2>/dev/null && fail "--full-rescan-interval=-1 accepted"
	[ $? -eq 2 ] || fail "--full-rescan-interval=-1: exit $?, expected 2"
	echo "rescan.sh full: ok"
	;;
*)
	fail "unknown check"
	;;
esac
