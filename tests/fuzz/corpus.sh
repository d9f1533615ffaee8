# Sourced by tests/fuzz/run.sh and tests/fuzz/soak.sh (from the top of the checkout): the
# committed corpus tests/fuzz/corpus/<target>/ is where every run starts and what each run
# grows, and tests/fuzz/executions.tsv counts every execution a run made.
#
# A corpus holds two kinds of file:
#   - named seeds (any name that is not 40 hex digits): written by hand or kept as a
#     regression input for a crash that was fixed. They stay whatever their coverage.
#   - inputs libFuzzer found (named by the SHA-1 of their bytes). After each run they are
#     minimised with -merge=1 against the named seeds: an input stays only if it adds a
#     coverage edge that the seeds and the inputs merged before it do not have, so the
#     directory grows with coverage, not with time. -use_counters=0: edges, not hit-count
#     buckets, decide (the buckets kept 4,300 files, 1.9 MB, after one soak; edges keep
#     about 1,000, 270 kB); a run finds the hit-count variety again as it goes.
#
# The ledger, tab-separated, one line per target, totals over every recorded run:
#   target  executions  seconds  runs  crashes  corpus_files  last_run
# docs/fuzzing.md shows it as a table (fuzz_table rewrites it between its markers).

FUZZ_LEDGER=tests/fuzz/executions.tsv
FUZZ_DOC=docs/fuzzing.md

fuzz_is_generated() { [[ $1 =~ ^[0-9a-f]{40}$ ]]; }

# fuzz_merge BIN NAME SCRATCH: the corpus of NAME, minimised, with what SCRATCH (a run's
# working corpus) adds. The corpus is changed only after a merge that succeeded, under a
# lock on its directory (two soaks may merge into it at once). Prints the files it holds.
fuzz_merge() {
	local bin=$1 name=$2 scratch=$3 dir=tests/fuzz/corpus/$2 new f b rc
	mkdir -p "$dir"
	new=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-merge.XXXXXX") || return 1
	(
		flock 9 || exit 1
		for f in "$dir"/*; do
			[ -f "$f" ] || continue
			b=$(basename "$f")
			fuzz_is_generated "$b" || cp "$f" "$new/$b"
		done
		# -merge=1 NEW OLD...: NEW's own inputs (the named seeds) count as covered first
		nice -n 19 "$bin" -merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 "$new" "$dir" "$scratch" \
			>"$new.log" 2>&1 || { echo "fuzz: $name: merge failed (log $new.log)" >&2; exit 1; }
		for f in "$dir"/*; do
			b=$(basename "$f")
			fuzz_is_generated "$b" && [ ! -e "$new/$b" ] && rm -f "$f"
		done
		for f in "$new"/*; do
			b=$(basename "$f")
			fuzz_is_generated "$b" && [ ! -e "$dir/$b" ] && cp "$f" "$dir/$b"
		done
		rm -f "$new.log"
		exit 0
	) 9<"$dir"
	rc=$?
	rm -rf "$new"
	[ $rc -eq 0 ] || return 1
	find "$dir" -maxdepth 1 -type f | wc -l
}

# fuzz_record NAME EXECUTIONS SECONDS CRASHED(0/1) CORPUS_FILES: adds one run to the ledger.
fuzz_record() {
	[ -f "$FUZZ_LEDGER" ] || printf '# target\texecutions\tseconds\truns\tcrashes\tcorpus_files\tlast_run\n' >"$FUZZ_LEDGER"
	(
		flock 9 || exit 1
		# %.0f: mawk prints a sum above 2^31 as 3e+09 otherwise
		awk -F'\t' -v t="$1" -v n="$2" -v s="$3" -v c="$4" -v f="$5" -v d="$(date -u +%Y-%m-%d)" '
			function out(a, b, x, y, z, w, v) { printf "%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\n", a, b, x, y, z, w, v }
			/^#/ { print; next }
			$1 == t { out(t, $2 + n, $3 + s, $4 + 1, $5 + c, f, d); seen = 1; next }
			{ print }
			END { if (!seen) out(t, n, s, 1, c, f, d) }' "$FUZZ_LEDGER" >"$FUZZ_LEDGER.new" &&
			{ head -1 "$FUZZ_LEDGER.new"; tail -n +2 "$FUZZ_LEDGER.new" | sort; } >"$FUZZ_LEDGER" &&
			rm -f "$FUZZ_LEDGER.new"
	) 9>>"$FUZZ_LEDGER"
}

# fuzz_table: the ledger as the Markdown table between the markers of docs/fuzzing.md.
fuzz_table() {
	[ -f "$FUZZ_LEDGER" ] && [ -f "$FUZZ_DOC" ] || return 0
	local tbl
	tbl=$(awk -F'\t' '
		function th(n,  s) { s = sprintf("%.0f", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9](,|$)/, ",&", s); return s }
		BEGIN { print "| target | executions | hours | runs | crashes | corpus files | last run |";
			print "|---|---:|---:|---:|---:|---:|---|" }
		/^#/ { next }
		{ printf "| `%s` | %s | %.1f | %d | %d | %d | %s |\n", $1, th($2), $3 / 3600, $4, $5, $6, $7 }' "$FUZZ_LEDGER")
	awk -v tbl="$tbl" '
		/<!-- fuzz-executions:begin -->/ { print; print tbl; skip = 1; next }
		/<!-- fuzz-executions:end -->/ { skip = 0 }
		!skip { print }' "$FUZZ_DOC" >"$FUZZ_DOC.new" && mv "$FUZZ_DOC.new" "$FUZZ_DOC"
}

# fuzz_execs LOG: the executions libFuzzer's -print_final_stats=1 reported (0 if none).
fuzz_execs() {
	local n
	n=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$1" 2>/dev/null | grep -o '[0-9]*$')
	echo "${n:-0}"
}
