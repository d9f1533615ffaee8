#!/usr/bin/env bash
# serve's rescans against a full scan, in CPU (issue 15): what one rescan of an unchanged
# tree costs with inotify change detection, what it cost before (a statx per closed
# segment: --full-rescan-interval=0), and how a rescan after K changed partitions grows
# with K. CPU is serve's own per-scan counter (the cpu_s field of its "scan complete" log
# line: getrusage of the whole process around the scan and its publication); the full
# scan is `serve --once` (serve's first scan), warm and cold, with `segscan scan -f json` beside it;
# the percentages are of the warm full scan.
#
# usage: bash bench/rescan.sh [OUT.md]        (bench/run.sh runs it as BENCH_ONLY=rescan)
#
# Environment:
#   BENCH_SCALE  small (default: 100k segments, 4,000 partitions; about a minute once the
#                tree exists) | large (the issue's 1M segments: 40 topics x 1000 partitions
#                x 25 segments of 8 KiB; about 16 GB of disk and 4 minutes to generate)
#   BENCH_REPS   rescans measured per configuration (default 5): medians with min-max
#   BENCH_DATA   where the tree lives (default build/bench/data; reused while its gen
#                options are unchanged)
#   SEGSCAN      the binary (default build/segscan)
# Changes are made with `touch` on the active segments of K partitions (an inotify
# IN_ATTRIB, as an append's IN_MODIFY: the partition is listed again, its closed segments
# statted, its active segment read); the tree's contents stay as generated.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SEGSCAN="${SEGSCAN:-$ROOT/build/segscan}"
SCALE="${BENCH_SCALE:-small}"
REPS="${BENCH_REPS:-5}"
DATA="${BENCH_DATA:-$ROOT/build/bench/data}"
OUT="${1:-}"
say() { printf 'bench rescan: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
[ -x "$SEGSCAN" ] || die "$SEGSCAN not found: run make first"
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPS must be a positive integer"

case "$SCALE" in
small) GEN=(--topics=40 --partitions=100 --segments=25 --segment-bytes=8KiB); KS=(1 10 100 1000); INTERVAL=1.5; COLD_REPS=2 ;;
large) GEN=(--topics=40 --partitions=1000 --segments=25 --segment-bytes=8KiB); KS=(1 10 100 1000 10000); INTERVAL=4; COLD_REPS=1 ;;
*) die "BENCH_SCALE must be small or large" ;;
esac
tree="$DATA/rescan-$SCALE"
stamp="gen ${GEN[*]} --seed=1"
if [ "$(cat "$tree/STAMP" 2>/dev/null)" != "$stamp" ]; then
	need_kb=$(( ${GEN[1]#--partitions=} * 40 * 400 ))   # ~16 KB per segment on disk, 25 per partition
	mkdir -p "$DATA"
	avail_kb=$(df -Pk "$DATA" 2>/dev/null | awk 'NR == 2 { print $4 }' || echo 0)
	[ "${avail_kb:-0}" -gt "$need_kb" ] || die "$tree needs about $((need_kb / 1048576)) GiB, $((${avail_kb:-0} / 1048576)) GiB free"
	rm -rf "$tree"
	say "generating $tree (${GEN[*]})"
	"$SEGSCAN" gen "$tree/ld" "${GEN[@]}" --seed=1 >/dev/null 2>&1 || die "segscan gen failed"
	echo "$stamp" >"$tree/STAMP"
fi
ld="$tree/ld"
nparts=$(find "$ld" -mindepth 1 -maxdepth 1 -type d -name '*-[0-9]*' | wc -l)
work=$(mktemp -d "${TMPDIR:-/tmp}/rescan-bench.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit } m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f %.4f %.4f\n", m, v[1], v[NR] }'; }

log=
start_serve() { # extra serve options...
	log="$work/serve.$RANDOM.log"
	for _ in 1 2 3 4 5; do
		local port=$((20000 + RANDOM % 20000))
		: >"$log"
		"$SEGSCAN" serve --listen=127.0.0.1:$port --interval=$INTERVAL "$@" "$ld" 2>"$log" &
		pid=$!
		for _ in $(seq 200); do
			grep -q 'msg=listening' "$log" && return 0
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
	done
	die "serve did not start: $(tail -2 "$log")"
}
stop_serve() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
complete() { # generation -> its "scan complete" line (waits)
	local deadline=$((SECONDS + 1200))
	while [ $SECONDS -lt $deadline ]; do
		grep -m1 "msg=\"scan complete\" generation=$1 " "$log" && return 0
		sleep 0.05
	done
	die "no scan complete for generation $1"
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
rows=()
row() { rows+=("$1"); }   # "| ... |"
cpu_row() { # label scans file-of-cpu-values full_cpu
	local m
	read -r m lo hi < <(median <"$3")
	row "| $1 | $2 | $m | $lo–$hi | $(awk -v a="$m" -v b="$4" 'BEGIN { printf "%.1f%%", 100 * a / b }') |"
}

say "tree: $nparts partitions; warm-up scan"
"$SEGSCAN" scan -q -f json "$ld" >/dev/null 2>&1 || true

# segscan scan, for reference (user+sys of the process)
: >"$work/cli"
for _ in 1 2 3; do
	/usr/bin/time -f '%U %S' -o "$work/t" "$SEGSCAN" scan -q -f json "$ld" >/dev/null 2>&1 || true
	awk '{ print $1 + $2 }' "$work/t" >>"$work/cli"
done

# 1. before change detection: every rescan lists every partition and stats every closed segment
say "serve --full-rescan-interval=0: $REPS rescans"
start_serve --full-rescan-interval=0
l=$(complete 1); segs=$(field segments "$l")
: >"$work/statx"
for g in $(seq 2 $((REPS + 1))); do field cpu_s "$(complete "$g")" >>"$work/statx"; done
stop_serve

# 2. change detection: unchanged rescans, then K changed partitions before each rescan
say "serve (change detection): $REPS unchanged rescans, then K = ${KS[*]}"
start_serve
complete 1 >/dev/null
: >"$work/unchanged"
for g in $(seq 2 $((REPS + 1))); do
	l=$(complete "$g")
	[ "$(field check "$l")" = changes ] || die "generation $g was not change-detected: $l"
	field cpu_s "$l" >>"$work/unchanged"
done
reused_unchanged=$(field partitions_reused "$l")
g=$((REPS + 1))
# each partition's active segment: the highest base offset (the names sort as numbers)
find "$ld" -mindepth 2 -maxdepth 2 -name '*.log' | sort |
	awk '{ d = $0; sub("/[^/]*$", "", d); last[d] = $0 } END { for (d in last) print last[d] }' >"$work/active"
declare -A kreused
for k in "${KS[@]}"; do
	[ "$k" -le "$nparts" ] || continue
	: >"$work/k$k"
	for _ in $(seq "$REPS"); do
		# right after a scan completed: the next one starts an interval after this one did
		shuf -n "$k" "$work/active" | xargs touch
		g=$((g + 1))
		l=$(complete "$g")
		field cpu_s "$l" >>"$work/k$k"
		kreused[$k]=$(field partitions_reused "$l")
	done
done
stop_serve
# The full scan, warm and cold: serve --once runs serve's first scan. serve evicts the pages
# its scan brought into the page cache (--evict, its default), so a scan right after another
# serve scan finds the tree cold (read from the device, then evicted: the case of a broker's
# old segments), and one right after `segscan scan` (which evicts nothing) finds it warm.
once() { "$SEGSCAN" serve --once "$ld" >/dev/null 2>"$work/once.log" || true
	field cpu_s "$(grep -m1 'msg="scan complete"' "$work/once.log")"; }
: >"$work/full" >"$work/cold"
for _ in 1 2 3; do
	"$SEGSCAN" scan -q -f json "$ld" >/dev/null 2>&1 || true
	once >>"$work/full"
done
# cold: the tree's data pages dropped first (bench/evict: posix_fadvise DONTNEED on its
# files only, never the machine's caches)
evict="$work/evict"
cc -O2 -D_GNU_SOURCE -o "$evict" bench/evict.c 2>/dev/null || evict=
for _ in $(seq "$COLD_REPS"); do
	[ -n "$evict" ] || break
	"$evict" -q "$ld"
	once >>"$work/cold"
done
[ -s "$work/cold" ] || echo "-" >"$work/cold"
read -r full full_lo full_hi < <(median <"$work/full")
read -r cold cold_lo cold_hi < <(median <"$work/cold")

commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
	echo "### serve rescans ($SCALE: $nparts partitions, $segs segments; commit $commit; load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs)"
	echo
	echo "Tree: \`segscan gen ${GEN[*]} --seed=1\`; \`segscan serve --interval=$INTERVAL\` (defaults otherwise:"
	echo "io-priority idle, evict). CPU seconds per scan from serve's \`cpu_s\` (user+sys of the process"
	echo "around the scan and its publication); medians of $REPS rescans with min–max; percentages of the"
	echo "warm full scan (of the cold one: multiply by $(awk -v a="$full" -v b="$cold" 'BEGIN { printf "%.2f", a / b }'))."
	echo
	echo "| scan | scans | CPU s (median) | min–max | of a full scan |"
	echo "|---|---|---|---|---|"
	read -r m lo hi < <(median <"$work/cli")
	echo "| \`segscan scan -f json\` (user+sys) | 3 | $m | $lo–$hi | $(awk -v a="$m" -v b="$full" 'BEGIN { printf "%.1f%%", 100 * a / b }') |"
	echo "| serve, full scan, warm (\`serve --once\` after \`segscan scan\`) | $(wc -l <"$work/full") | $full | $full_lo–$full_hi | 100% |"
	echo "| serve, full scan, cold (\`serve --once\` after bench/evict dropped the tree's pages) | $(wc -l <"$work/cold") | $cold | $cold_lo–$cold_hi | $(awk -v a="$cold" -v b="$full" 'BEGIN { printf "%.1f%%", 100 * a / b }') |"
	cpu_row "rescan, unchanged, statx per closed segment (\`--full-rescan-interval=0\`)" "$REPS" "$work/statx" "$full"
	cpu_row "rescan, unchanged, change detection ($reused_unchanged of $nparts partitions taken whole)" "$REPS" "$work/unchanged" "$full"
	for k in "${KS[@]}"; do
		[ -s "$work/k$k" ] || continue
		cpu_row "rescan after K=$k changed partitions (${kreused[$k]} taken whole)" "$REPS" "$work/k$k" "$full"
	done
	for r in "${rows[@]}"; do echo "$r"; done
} >"$work/report.md"
cat "$work/report.md"
[ -n "$OUT" ] && cp "$work/report.md" "$OUT"
exit 0
