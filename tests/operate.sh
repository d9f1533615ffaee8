#!/usr/bin/env bash
# The operator-facing files checked against the tools that consume them and against the
# binary they describe (issue 11). Run by tests/test_operate.c, one check per test:
#   tests/operate.sh CHECK SEGSCAN_BINARY
#   man          mandoc -Tlint (warnings fail) on every page; every option of every
#                command's --help is in its page; every family of an exposition is in
#                segscan-metrics(7) and every segscan_* name it documents exists
#   completions  the bash completion offers every option of every command's --help and
#                the words of every a|b|c value; the zsh one parses and has a spec for each
#   unit         systemd-analyze verify, and security --offline=true at most 2.0
#   rules        promtool check rules and promtool test rules on contrib/prometheus
#   metrics      promtool check metrics on scan -f prom and on serve's /metrics, plain and
#                gzip-compressed (the same text)
#   dashboard    contrib/grafana's JSON parses; every metric an expression names is recorded
#                by the rules (no raw series), and every series the rules read exists in an
#                exposition
set -euo pipefail
check=$1
bin=$(readlink -f "$2")
fail() { echo "operate.sh $check: FAIL: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || fail "$1 is not installed (scripts/install-deps.sh installs it)"; }
tmp=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/operate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
commands=$("$bin" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
[ -n "$commands" ] || fail "no commands in segscan --help"
opts_of() { "$bin" "$1" --help | grep -oE '^ +(-[a-zA-Z], +)?--[a-z0-9.-]+(=[^ ]+)?' | sed -E 's/^ +(-[a-zA-Z], +)?//'; }
# Waits are for events, bounded by a hang guard of minutes (more under sanitizers): a
# loaded CI machine makes them slower, never wrong (issue 21 item 14).
guard=120
[[ "$bin" == *asan* || "$bin" == *tsan* ]] && guard=480
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# serve_up PID PORT [GENERATION]: until serve answers /healthz with a publication of at
# least GENERATION (default 1); 1 if it exited or the guard passed
serve_up() {
	local end=$((SECONDS + guard)) g
	while [ $SECONDS -lt $end ] && kill -0 "$1" 2>/dev/null; do
		g=$(curl -s -m 30 "http://127.0.0.1:$2/healthz" | sed -n 's/.*"generation":\([0-9]*\).*/\1/p' || true)
		[ -n "$g" ] && [ "$g" -ge "${3:-1}" ] && return 0
		sleep 0.1
	done
	return 1
}

# A log dir with tiered topics, remote state and findings, and its exposition (serve
# --once adds serve's own families to those of scan -f prom).
fixture() {
	"$bin" gen "$tmp/ld" --topics=3 --partitions=2 --segments=5 --segment-bytes=64KiB \
		--single-record-tail=2 --seed=42 --remote-state="$tmp/remote.ndjson" >/dev/null 2>&1 ||
		fail "segscan gen"
	# every family: the extra partition series and the topic level's too
	"$bin" serve --once --metrics-extra --remote-state="$tmp/remote.ndjson" --topic-config="$tmp/topic-config.txt" \
		--now=1700000000000 "$tmp/ld" >"$tmp/serve.prom" 2>/dev/null || fail "serve --once"
	"$bin" serve --once --metrics-level=topic --remote-state="$tmp/remote.ndjson" \
		--topic-config="$tmp/topic-config.txt" --now=1700000000000 "$tmp/ld" >"$tmp/serve-topic.prom" 2>/dev/null ||
		fail "serve --once --metrics-level=topic"
	# the remote-store audit's families (an empty store: the remote state's finished segments
	# are missing from it), beside the rest
	mkdir -p "$tmp/store"
	"$bin" serve --once --remote-state="$tmp/remote.ndjson" --now=1700000000000 --remote-store="file://$tmp/store" \
		"$tmp/ld" >"$tmp/store.prom" 2>/dev/null || fail "serve --once --remote-store"
	cat "$tmp/serve.prom" "$tmp/serve-topic.prom" "$tmp/store.prom" | sed -n 's/^# TYPE \([a-z_0-9]*\) .*/\1/p' | sort -u >"$tmp/families"
	[ "$(wc -l <"$tmp/families")" -ge 20 ] || fail "only $(wc -l <"$tmp/families") families in the exposition"
}

case $check in
man)
	need mandoc
	for p in man/*.[1-9]; do
		mandoc -Tlint -W warning "$p" || fail "mandoc -Tlint $p"
	done
	for c in $commands; do
		[ -f "man/segscan-$c.1" ] || fail "no man/segscan-$c.1 for the command $c"
		mandoc -Tascii "man/segscan-$c.1" | col -b >"$tmp/$c.txt"
		for o in $(opts_of "$c"); do
			# serve and audit take every scan option: segscan-scan.1 documents those
			if { [ "$c" = serve ] || [ "$c" = audit ]; } && opts_of scan | grep -xF -- "$o" >/dev/null; then continue; fi
			grep -qF -- "$o" "$tmp/$c.txt" || fail "segscan-$c.1 does not document $o (segscan $c --help has it)"
		done
	done
	fixture
	mandoc -Tascii man/segscan-metrics.7 | col -b >"$tmp/metrics.txt"
	while read -r fam; do
		grep -qw -- "$fam" "$tmp/metrics.txt" || fail "segscan-metrics.7 does not document $fam"
	done <"$tmp/families"
	# and nothing it documents as a metric is missing from the exposition (the recorded
	# names of contrib/prometheus have colons and are checked there)
	grep -oE '(^|[^:a-z_])segscan_[a-z0-9_]+' "$tmp/metrics.txt" | sed 's/^[^s]*//' | sort -u |
	while read -r m; do
		case $m in segscan_phantom_* | segscan_kafka_20732_* | segscan_scan_age_*) continue ;; esac
		# only with --broker-metrics (issue 27), which this fixture's scans do not give:
		# test_out and test_phantom_delete_lag hold those series
		case $m in segscan_broker_delete_lag_* | segscan_broker_topic_findings) continue ;; esac
		grep -qx -- "$m" "$tmp/families" || fail "segscan-metrics.7 documents $m, which no exposition has"
	done
	echo "operate.sh man: ok ($(ls man/*.[1-9] | wc -l) pages, $(wc -l <"$tmp/families") families)"
	;;
completions)
	# bash: drive the completion function as readline would
	cat >"$tmp/comp.bash" <<'EOS'
source completions/segscan.bash
comp() {
	COMP_LINE=$1; COMP_POINT=${#1}
	read -ra COMP_WORDS <<<"$1"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_segscan; printf '%s\n' "${COMPREPLY[@]}"
}
comp "$@"
EOS
	got=$(bash "$tmp/comp.bash" "$bin " | sort | paste -sd' ')
	want=$(printf '%s\n' $commands --help --version | sort | paste -sd' ')
	[ "$got" = "$want" ] || fail "commands: got '$got', want '$want'"
	n=0
	for c in $commands; do
		bash "$tmp/comp.bash" "$bin $c --" >"$tmp/offered"
		for o in $(opts_of "$c"); do
			name=${o%%=*}
			if [[ $o == *=* ]]; then name="$name="; fi
			grep -qxF -- "$name" "$tmp/offered" || fail "bash: 'segscan $c --<TAB>' does not offer $name"
			n=$((n + 1))
			meta=${o#*=}
			if [[ $o == *=* && $meta == *'|'* ]]; then
				got=$(bash "$tmp/comp.bash" "$bin $c ${o%%=*}=" | sort | paste -sd' ')
				want=$(tr '|' '\n' <<<"$meta" | sort | paste -sd' ')
				[ "$got" = "$want" ] || fail "bash: 'segscan $c ${o%%=*}=<TAB>': got '$got', want '$want'"
			fi
		done
	done
	# zsh: parses, and its spec builder covers the same options
	need zsh
	zsh -n completions/_segscan || fail "zsh -n completions/_segscan"
	for c in $commands; do
		zsh -fc "source completions/_segscan; _segscan_specs '$bin' $c" >"$tmp/zspecs" ||
			fail "zsh: _segscan_specs $c"
		for o in $(opts_of "$c"); do
			name=${o%%=*}
			[ "$name" = --help ] && continue
			grep -qE -- "^${name//./\\.}(=|\\[)" "$tmp/zspecs" || fail "zsh: no spec for segscan $c $name"
		done
	done
	echo "operate.sh completions: ok ($n options over $(wc -w <<<"$commands") commands)"
	;;
unit)
	need systemd-analyze
	# the unit as make install writes it (ExecStart= the real binary), its man pages
	# where man finds them (verify checks Documentation=)
	mkdir -p "$tmp/man/man1" "$tmp/man/man7" "$tmp/unit"
	cp man/*.1 "$tmp/man/man1/"
	cp man/*.7 "$tmp/man/man7/"
	sed "s|/usr/local/bin/segscan|$bin|g" scripts/segscan.service >"$tmp/unit/segscan.service"
	MANPATH=$tmp/man:$(manpath 2>/dev/null || echo /usr/share/man) \
		systemd-analyze verify "$tmp/unit/segscan.service" >"$tmp/verify.log" 2>&1 ||
		{ cat "$tmp/verify.log" >&2; fail "systemd-analyze verify"; }
	if [ -s "$tmp/verify.log" ]; then cat "$tmp/verify.log" >&2; fail "systemd-analyze verify printed warnings"; fi
	systemd-analyze security --offline=true --no-pager "$tmp/unit/segscan.service" >"$tmp/security.log" 2>&1 || true
	score=$(sed -n 's/.*Overall exposure level for segscan.service: \([0-9.]*\).*/\1/p' "$tmp/security.log")
	[ -n "$score" ] || { cat "$tmp/security.log" >&2; fail "no exposure score"; }
	awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || { grep '✗' "$tmp/security.log" >&2; fail "exposure $score > 2.0"; }
	for want in 'Type=notify' 'WatchdogSec=' 'DynamicUser=yes' 'ProtectProc=invisible' 'ProcSubset=pid' \
		'RemoveIPC=yes' 'RestrictNamespaces=yes' 'SystemCallFilter=@system-service' 'NoNewPrivileges=yes'; do
		grep -q "^$want" scripts/segscan.service || fail "the unit lacks $want"
	done
	# one capability, to read the broker's 0400 metadata snapshots, and nothing else
	# (issue 20 item 7); a user namespace would void it for files of unmapped owners
	for want in 'AmbientCapabilities=CAP_DAC_READ_SEARCH' 'CapabilityBoundingSet=CAP_DAC_READ_SEARCH' \
		'PrivateUsers=no'; do
		grep -qx "$want" scripts/segscan.service || fail "the unit lacks exactly $want"
	done
	[ "$(grep -c '^\(Ambient\|CapabilityBounding\)' scripts/segscan.service)" = 2 ] ||
		fail "the unit sets capabilities more than once"
	grep -q '^User=' scripts/segscan.service && fail "the unit runs as a fixed User= (the broker's?)"
	# The effective system call filter (the allow lines minus the ~ lines) lets through what
	# the scanner calls: the calls of its options that a small test host does not exercise
	# (ioprio_set for --io-priority=idle, sched_setaffinity for pinning, mbind and
	# set_mempolicy for NUMA, io_uring, mincore for --evict), and, where strace is
	# installed, every call an strace of serve (a scan, /metrics with gzip) makes.
	expand() { # names and @groups -> syscall names, recursively
		local x
		for x in "$@"; do
			if [[ $x == @* ]]; then
				expand $(systemd-analyze syscall-filter "$x" 2>/dev/null | sed -n '2,$s/^ *\([^# ][^ ]*\).*/\1/p')
			else
				echo "$x"
			fi
		done
	}
	expand $(sed -n 's/^SystemCallFilter=\([^~].*\)/\1/p' scripts/segscan.service) | sort -u >"$tmp/allow"
	expand $(sed -n 's/^SystemCallFilter=~\(.*\)/\1/p' scripts/segscan.service) | sort -u >"$tmp/deny"
	comm -23 "$tmp/allow" "$tmp/deny" >"$tmp/allowed"
	[ "$(wc -l <"$tmp/allowed")" -gt 100 ] || fail "the effective filter allows only $(wc -l <"$tmp/allowed") calls"
	needed="ioprio_set sched_setaffinity sched_getaffinity mbind set_mempolicy get_mempolicy io_uring_setup
		io_uring_enter io_uring_register mincore statx pread64 preadv2 fadvise64 madvise mmap munmap
		openat getdents64 rt_sigtimedwait sendto sendmsg accept4 bind listen"
	for c in $needed; do
		grep -qx "$c" "$tmp/allowed" || fail "the unit's SystemCallFilter= denies $c, which the scanner calls"
	done
	if command -v strace >/dev/null; then
		fixture
		port=$(free_port)
		strace -f -qq -o "$tmp/strace" "$bin" serve --listen=127.0.0.1:$port --interval=0.3 \
			--remote-state="$tmp/remote.ndjson" "$tmp/ld" 2>/dev/null &
		spid=$!
		# a scrape (plain and gzip) and three scans traced: the calls of steady service
		serve_up "$spid" "$port" 1 && curl -sf --compressed -o /dev/null "http://127.0.0.1:$port/metrics" || true
		serve_up "$spid" "$port" 3 || true
		# end serve itself (strace ends with its tracee; a signal to strace would leave
		# serve running, traced or not)
		for c in $(ps -o pid= --ppid "$spid"); do kill "$c" 2>/dev/null || true; done
		for _ in $(seq 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' "$tmp/strace" | sort -u >"$tmp/used"
		[ -s "$tmp/used" ] || fail "strace saw no system call"
		for c in $(cat "$tmp/used"); do
			case $c in execve) continue ;; esac # strace's own exec of the binary
			grep -qx "$c" "$tmp/allowed" || fail "serve calls $c, which the unit's SystemCallFilter= denies"
		done
	fi
	echo "operate.sh unit: ok (exposure $score)"
	;;
rules)
	need promtool
	promtool check rules contrib/prometheus/segscan.rules.yml || fail "promtool check rules"
	(cd contrib/prometheus && promtool test rules segscan.rules.test.yml) || fail "promtool test rules"
	# every alert has a unit test
	for a in $(sed -n 's/^ *- alert: //p' contrib/prometheus/segscan.rules.yml); do
		grep -q "alertname: $a\$" contrib/prometheus/segscan.rules.test.yml || fail "alert $a has no unit test"
	done
	echo "operate.sh rules: ok"
	;;
metrics)
	need promtool
	need curl
	fixture
	"$bin" scan -q -f prom --remote-state="$tmp/remote.ndjson" --topic-config="$tmp/topic-config.txt" \
		--now=1700000000000 "$tmp/ld" >"$tmp/scan.prom" || fail "scan -f prom"
	promtool check metrics <"$tmp/scan.prom" || fail "promtool check metrics on scan -f prom"
	promtool check metrics <"$tmp/serve.prom" || fail "promtool check metrics on serve --once"
	promtool check metrics <"$tmp/serve-topic.prom" || fail "promtool check metrics on serve --once --metrics-level=topic"
	# and the log dirs of real Kafka brokers (tests/fixtures/kafka: tiered, compacted, txn, ...)
	nfx=0
	for fx in tests/fixtures/kafka/*/logdir; do
		[ -d "$fx" ] || continue
		"$bin" scan -q -f prom "$fx" >"$tmp/fx.prom" 2>/dev/null || [ $? -le 1 ] || fail "scan -f prom $fx"
		promtool check metrics <"$tmp/fx.prom" || fail "promtool check metrics on scan -f prom $fx"
		nfx=$((nfx + 1))
	done
	# a live serve, scraped plain and with Accept-Encoding: gzip (on a free port, again on
	# another if someone took it first)
	for _ in 1 2 3 4 5; do
		port=$(free_port)
		"$bin" serve --listen=127.0.0.1:$port --interval=60 --remote-state="$tmp/remote.ndjson" \
			--topic-config="$tmp/topic-config.txt" "$tmp/ld" 2>"$tmp/serve.log" &
		pid=$!
		ok=0
		serve_up "$pid" "$port" && ok=1
		[ $ok = 1 ] && break
		grep -q 'Address already in use' "$tmp/serve.log" || break
		wait "$pid" || true
	done
	if [ $ok = 1 ]; then
		curl -sf -D "$tmp/h.plain" -o "$tmp/live.prom" "http://127.0.0.1:$port/metrics" || ok=0
		curl -sf -D "$tmp/h.gz" -H 'Accept-Encoding: gzip' -o "$tmp/live.prom.gz" "http://127.0.0.1:$port/metrics" || ok=0
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	[ $ok = 1 ] || { cat "$tmp/serve.log" >&2; fail "serve did not publish on port $port within $guard s"; }
	promtool check metrics <"$tmp/live.prom" || fail "promtool check metrics on /metrics"
	grep -qi '^Content-Encoding: gzip' "$tmp/h.gz" || fail "/metrics with Accept-Encoding: gzip is not gzip"
	grep -qi '^Content-Encoding' "$tmp/h.plain" && fail "/metrics without Accept-Encoding is encoded"
	grep -qi '^Vary: Accept-Encoding' "$tmp/h.plain" || fail "/metrics lacks Vary: Accept-Encoding"
	gzip -dc "$tmp/live.prom.gz" | cmp -s - "$tmp/live.prom" || fail "the gzip body is not the plain body"
	[ "$(stat -c %s "$tmp/live.prom.gz")" -lt "$(stat -c %s "$tmp/live.prom")" ] || fail "gzip did not compress"
	echo "operate.sh metrics: ok ($nfx Kafka fixtures; $(grep -vc '^#' "$tmp/live.prom") samples; gzip $(stat -c %s "$tmp/live.prom.gz")/$(stat -c %s "$tmp/live.prom") bytes)"
	;;
dashboard)
	fixture
	python3 - contrib/grafana/segscan-dashboard.json contrib/prometheus/segscan.rules.yml "$tmp/families" <<'PY' ||
import json, re, sys
dash = json.load(open(sys.argv[1]))
rules = open(sys.argv[2]).read()
recorded = set(re.findall(r"^\s*- record: (\S+)", rules, re.M))
families = set(open(sys.argv[3]).read().split())
exprs = []
def walk(panels):
    for p in panels:
        assert "id" in p and "gridPos" in p, p.get("title")
        if p.get("type") != "row":
            assert p.get("datasource", {}).get("uid") == "${datasource}", p["title"]
            assert p.get("targets"), "panel without a query: " + p["title"]
        for t in p.get("targets", []):
            exprs.append((p["title"], t["expr"]))
        walk(p.get("panels", []))
walk(dash["panels"])
ids = []
def ids_of(panels):
    for p in panels:
        ids.append(p["id"]); ids_of(p.get("panels", []))
ids_of(dash["panels"])
assert len(ids) == len(set(ids)), "duplicate panel ids"
for v in dash["templating"]["list"]:
    q = v.get("query")
    if isinstance(q, dict):
        q = q.get("query")
    if v["type"] == "query":
        exprs.append(("variable " + v["name"], q))
names = 0
for where, e in exprs:
    for m in re.findall(r"[a-z_]+:segscan_[a-z0-9_]+:[a-z0-9_]+|(?<![a-z_:])segscan_[a-z0-9_]+", e):
        names += 1
        # the dashboard graphs the recorded rules only (they count each partition once)
        assert ":" in m, "%s: %s is a raw series, not one of the recorded rules" % (where, m)
        assert m in recorded, "%s: %s is not recorded by the rules" % (where, m)
# what the rules read exists too
for m in set(re.findall(r"(?<![a-z_:])segscan_[a-z0-9_]+", rules)):
    assert m in families, "rules: %s is in no exposition" % m
# every expression is valid PromQL: promtool checks them as recording rules, with the
# dashboard's variables replaced by what Grafana would put there
with open(sys.argv[3] + ".rules.yml", "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, (where, e) in enumerate(exprs):
        if e.startswith("label_values("):
            m = re.match(r"label_values\((.*),\s*\w+\)$", e)
            assert m, "%s: %s" % (where, e)
            e = m.group(1)
        e = e.replace("$__rate_interval", "5m").replace("${datasource}", "")
        e = re.sub(r"\$\w+", ".*", e)
        f.write("      - record: dashboard:expr_%d\n        expr: %s\n" % (i, json.dumps(e)))
print("operate.sh dashboard: ok (%d panels, %d expressions, %d metric references)" % (len(ids), len(exprs), names))
PY
		fail "dashboard"
	need promtool
	promtool check rules "$tmp/families.rules.yml" >/dev/null || { promtool check rules "$tmp/families.rules.yml"; fail "a dashboard expression is not valid PromQL"; }
	;;
*)
	fail "unknown check"
	;;
esac
