#!/usr/bin/env bash
# golden-outputs.sh OUTDIR [SEGSCAN [WORKDIR]]: every output of `segscan scan` (table, json,
# ndjson, prom; fast path and --verify through each engine) and `segscan dump` (text, json,
# ndjson with eight option sets) over every fixture log dir (tests/fixtures/kafka/*), damaged
# copies of one (scripts/golden-damage.py: torn, zero and sparse tails, zeros then data, CRC
# flips, corrupt headers in __remote_log_metadata, __cluster_metadata and a user topic) and
# three generated trees, one file per run in OUTDIR. A restructuring that must not change
# what segscan says runs it before and after and compares: `diff -r BEFORE AFTER`.
# Scan durations are masked; everything else must be byte for byte the same. About a minute.
set -u
out=$1 S=${2:-./build/segscan} work=${3:-${TMPDIR:-/tmp}/segscan-golden}
H=$work/damaged G=$work/gen
mkdir -p "$out"
[ -d "$H" ] || { mkdir -p "$H" && python3 "$(dirname "$0")/golden-damage.py" "$H"; }
if [ ! -d "$G" ]; then
	mkdir -p "$G"
	"$S" gen "$G/a" --topics=3 --partitions=2 --segments=4 --segment-bytes=64KiB --seed=7 --remote-state="$G/a.ndjson" >/dev/null
	"$S" gen "$G/b" --topics=2 --partitions=2 --segments=3 --segment-bytes=256KiB --seed=9 --preallocate \
		--no-clean-shutdown --compression=zstd >/dev/null
	"$S" gen "$G/c" --topics=2 --partitions=1 --segments=3 --segment-bytes=128KiB --seed=3 --compression=gzip \
		--single-record-tail=1 >/dev/null
fi
mask() { sed -E 's/, [0-9]+\.[0-9]+ s, /, X s, /; s/^(segscan_scan_duration_seconds) .*/\1 X/'; }
scan() {  # NAME NOW ARGS...
	local name=$1 now=$2 f m
	shift 2
	for f in table json ndjson prom; do
		for m in fast verify verify-mmap verify-pread; do
			case $m in
			fast) a=() ;; verify) a=(--verify) ;; verify-mmap) a=(--verify --io=mmap) ;; verify-pread) a=(--verify --io=pread) ;;
			esac
			COLUMNS= "$S" scan -q -f $f --now="$now" --broker-process=off --threads=2 "${a[@]}" "$@" 2>&1 |
				mask >"$out/scan.$name.$m.$f"
			echo "exit ${PIPESTATUS[0]}" >>"$out/scan.$name.$m.$f"
		done
	done
}
dumpall() {  # NAME FILE...
	local name=$1 f i o
	shift
	for f in text json ndjson; do
		i=0
		for o in "" "--records" "--print-data" "--decode=auto --print-data" "--verify-index" "--index-sanity-check" \
			"--offsets=5..20 --records" "--max-bytes=1000 --records"; do
			# shellcheck disable=SC2086
			"$S" dump -f $f $o "$@" >"$out/dump.$name.$f.$i" 2>&1
			echo "exit $?" >>"$out/dump.$name.$f.$i"
			i=$((i + 1))
		done
	done
}
for c in tests/fixtures/kafka/*/; do
	cn=$(basename "$c")
	now=$(python3 -c "import json;print(json.load(open('$c/case.json'))['capture_time_ms'])")
	for l in "$c"logdir*; do
		ln=$cn.$(basename "$l")
		scan "$ln" "$now" "$l"
		# shellcheck disable=SC2046
		dumpall "$ln" $(find "$l" -type f | sort)
	done
	# shellcheck disable=SC2046
	[ -d "$c/remote" ] && dumpall "$cn.remote" $(find "$c/remote" -type f | sort)
	[ -s "$c/remote-state.ndjson" ] && scan "$cn.rs" "$now" --remote-state="$c/remote-state.ndjson" --remote-metadata=off "$c"logdir*
done
ref=tests/fixtures/kafka/cluster-meta/case.json   # damaged files are the ones newer than the copy
for t in "$H"/*; do
	tn=damaged.$(basename "$t")
	scan "$tn" 1796117024711 "$t"
	# shellcheck disable=SC2046
	dumpall "$tn" $(find "$t" -type f -newer "$ref" \( -name '*.log' -o -name '*.checkpoint' \) | sort)
done
for t in a b c; do
	scan "gen.$t" 1700000000000 "$G/$t"
	# shellcheck disable=SC2046
	dumpall "gen.$t" $(find "$G/$t" -type f | sort | head -60)
done
scan gen.a.rs 1700000000000 --remote-state="$G/a.ndjson" "$G/a"
