#!/usr/bin/env bash
# `make install` into a temporary DESTDIR, as a packager would, then use what was
# installed the way an operator and an embedder would: the installed segscan.pc builds
# examples/ (the installed copy), the example runs on a generated log dir against the
# installed libsegscan.so and agrees with the installed binary, libsegscan.so exports only
# segscan_* and needs only the scanner's libraries, libsegscan.a is the library alone and
# links with the .pc's private requirements, and `make uninstall` leaves no file behind.
# Run by tests/test_install.c.
#   usage: tests/install.sh BUILD_DIR [MODE]
set -euo pipefail
B=$1; MODE=${2:-release}
fail() { echo "install.sh: FAIL: $*" >&2; exit 1; }
root=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/install.XXXXXX")
trap 'rm -rf "$root"' EXIT
dest=$root/dest
# A nested make: drop the outer make's jobserver so this one stands alone.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -j2 B="$B" MODE="$MODE" \
	PREFIX=/usr DESTDIR="$dest" "$@"; }
ver=$(sed -n 's/^#define SEGSCAN_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/segscan_version.h | paste -sd.)
major=${ver%%.*}

# ldconfig (issue 20 item 11): a staged install (DESTDIR) leaves it to the package's step
# and says so; an install to the system as root runs it (LDCONFIG: a stand-in that
# records its calls, so the test changes no cache of this machine).
cat >"$root/ldconfig" <<EOS
#!/bin/sh
echo "ldconfig \$*" >>"$root/ldconfig.calls"
EOS
chmod +x "$root/ldconfig"
mk install LDCONFIG="$root/ldconfig" >"$root/install.log" 2>&1 || { cat "$root/install.log" >&2; fail "make install"; }
[ -e "$root/ldconfig.calls" ] && fail "a DESTDIR install ran ldconfig: $(cat "$root/ldconfig.calls")"
grep -q "run ldconfig on the target system" "$root/install.log" || fail "a DESTDIR install does not say ldconfig is due"
if [ "$(id -u)" = 0 ]; then
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -j2 B="$B" MODE="$MODE" PREFIX="$root/sys" \
		LDCONFIG="$root/ldconfig" install >"$root/sys.log" 2>&1 || { cat "$root/sys.log" >&2; fail "make install (system)"; }
	grep -qx "ldconfig " "$root/ldconfig.calls" || fail "make install as root did not run ldconfig"
	# the stand-in's cache has no libsegscan: the install says where the linker will not look
	grep -q "$root/sys/lib is not in the dynamic linker's search path" "$root/sys.log" ||
		fail "make install does not say that LIBDIR is outside the linker's search path: $(cat "$root/sys.log")"
	rm -rf "$root/sys"
fi

for f in usr/bin/segscan "usr/lib/libsegscan.so.$ver" "usr/lib/libsegscan.so.$major" usr/lib/libsegscan.so \
	 usr/lib/libsegscan.a usr/include/segscan.h usr/include/segscan_version.h usr/lib/pkgconfig/segscan.pc \
	 usr/share/man/man1/segscan.1 usr/share/man/man1/segscan-scan.1 usr/share/man/man1/segscan-serve.1 \
	 usr/share/man/man1/segscan-gen.1 usr/share/man/man1/segscan-dump.1 usr/share/man/man1/segscan-merge.1 \
	 usr/share/man/man1/segscan-audit.1 usr/share/man/man7/segscan-metrics.7 \
	 usr/share/bash-completion/completions/segscan usr/share/zsh/site-functions/_segscan \
	 usr/lib/systemd/system/segscan.service usr/share/doc/segscan/install.md \
	 usr/share/doc/segscan/examples/embed.c usr/share/segscan/prometheus/segscan.rules.yml \
	 usr/share/segscan/grafana/segscan-dashboard.json; do
	[ -e "$dest/$f" ] || fail "make install did not install /$f"
done
[ "$(readlink "$dest/usr/lib/libsegscan.so.$major")" = "libsegscan.so.$ver" ] || fail "soname link"
grep -q '^ExecStart=/usr/bin/segscan serve' "$dest/usr/lib/systemd/system/segscan.service" ||
	fail "the installed unit does not run the installed binary (/usr/bin/segscan)"
[ "$("$dest/usr/bin/segscan" --version)" = "segscan $ver" ] || fail "installed binary's --version"

# The soname and the exports: segscan_* only (plus the version node itself).
readelf -d "$dest/usr/lib/libsegscan.so" | grep "SONAME.*\[libsegscan.so.$major\]" >/dev/null || fail "soname"
nm -D --defined-only "$dest/usr/lib/libsegscan.so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' \
	>"$root/exports"
[ -s "$root/exports" ] || fail "nm -D found no exports"
if grep -v '^segscan_' "$root/exports" >"$root/bad"; then
	fail "libsegscan.so exports $(wc -l <"$root/bad") non-segscan_ symbols, e.g. $(head -3 "$root/bad" | paste -sd' ')"
fi
for s in segscan_scan_new segscan_run segscan_write segscan_check_version segscan_version; do
	grep -qx "$s" "$root/exports" || fail "libsegscan.so does not export $s"
done

# The library does not bring jemalloc (issue 11): no NEEDED entry in the .so, no Requires in
# the .pc; the binary still links it (its per-worker arenas use it, src/sched/arena.c).
readelf -d "$dest/usr/lib/libsegscan.so" | grep 'NEEDED.*jemalloc' >/dev/null && fail "libsegscan.so has a NEEDED jemalloc"
grep -q jemalloc "$dest/usr/lib/pkgconfig/segscan.pc" && fail "segscan.pc names jemalloc"
if [ "$MODE" = release ] && pkg-config --exists jemalloc; then
	readelf -d "$dest/usr/bin/segscan" | grep 'NEEDED.*libjemalloc' >/dev/null || fail "the release binary does not link jemalloc"
fi

# What the library links (issue 23 item 6): the scanner, formats, evaluator and outputs need
# liburing, the codecs (zlib, lz4, zstd, snappy), jansson (the --remote-state NDJSON parser,
# fmt/ndjson.c; librdkafka's statistics, source/cluster.c), librdkafka (--bootstrap-server,
# source/cluster.c), libcurl and expat (--remote-store's s3:// source, source/store_s3.c, and
# its ListObjectsV2 parser, fmt/s3_list.c: scan and serve audit through segscan_run) and libc;
# libm only if a libm function is ever called. Nothing of serve
# (libmicrohttpd, libcrypt, libsystemd; its gzip uses zlib, which the codecs need anyway),
# nothing of jemalloc, no libnuma (sysfs is read directly). docs/install.md "What the
# library links" says the same.
readelf -d "$dest/usr/lib/libsegscan.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sed 's/\.so.*//' | grep -vx libm |
	LC_ALL=C sort >"$root/needed"
printf '%s\n' ld-linux-x86-64 libc libcurl libexpat libjansson liblz4 librdkafka libsnappy liburing libz libzstd | LC_ALL=C sort >"$root/needed.want"
extra=$(LC_ALL=C comm -13 "$root/needed.want" "$root/needed" | paste -sd' ')
missing=$(LC_ALL=C comm -23 "$root/needed.want" "$root/needed" | paste -sd' ')
[ -z "$extra$missing" ] || fail "libsegscan.so's DT_NEEDED is not the scanner's: needs ${extra:-nothing more}; lacks ${missing:-nothing}"
# The installed archive holds the library only: none of serve's, dump's or gen's entry points.
nm --defined-only "$dest/usr/lib/libsegscan.a" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ { print $3 }' >"$root/a.syms"
for s in ss_serve_main ss_dump_file ss_gen_run ss_http_start ss_merge_fetch segscan_add_logdir; do
	case $s in segscan_*) grep -qx "$s" "$root/a.syms" || fail "libsegscan.a lacks $s" ;;
	           *) grep -qx "$s" "$root/a.syms" && fail "libsegscan.a holds $s (serve, dump, gen and merge are the binary's)" ;; esac
done

# pkg-config sees the installed .pc through the DESTDIR.
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig
[ "$(pkg-config --modversion segscan)" = "$ver" ] || fail "pkg-config --modversion segscan"
pkg-config --libs segscan | grep -- "-L$dest/usr/lib" >/dev/null || fail "pkg-config --libs: $(pkg-config --libs segscan)"

# Build the installed example with nothing but the installed header and .pc.
cp -r "$dest/usr/share/doc/segscan/examples" "$root/ex"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$root/ex" >"$root/ex.log" 2>&1 ||
	{ cat "$root/ex.log" >&2; fail "examples/ does not build against the installed segscan.pc"; }
readelf -d "$root/ex/embed" | grep "NEEDED.*\[libsegscan.so.$major\]" >/dev/null ||
	fail "the example is not linked against libsegscan.so.$major"

# A static embedder: the installed libsegscan.a with the libraries of the .pc's Requires.private
# and Libs.private, and nothing else. (Not `pkg-config --static`: that would also pull the
# dependencies' own private libraries, e.g. librdkafka's libsasl2, which need not be installed.)
[ "$(pkg-config --print-requires-private segscan | LC_ALL=C sort | paste -sd' ')" = "expat jansson libcurl liblz4 liburing libzstd rdkafka zlib" ] ||
	fail "segscan.pc's Requires.private: $(pkg-config --print-requires-private segscan | paste -sd' ')"
cc -std=c11 -o "$root/ex/embed-static" "$root/ex/embed.c" $(pkg-config --cflags segscan) "$dest/usr/lib/libsegscan.a" \
	$(pkg-config --libs $(pkg-config --print-requires-private segscan)) \
	$(sed -n 's/^Libs.private: //p' "$dest/usr/lib/pkgconfig/segscan.pc") >"$root/static.log" 2>&1 ||
	{ cat "$root/static.log" >&2; fail "examples/embed.c does not link statically against libsegscan.a and its Requires.private"; }
readelf -d "$root/ex/embed-static" | grep 'NEEDED.*libsegscan' >/dev/null && fail "the static example needs libsegscan.so"

"$dest/usr/bin/segscan" gen "$root/logdir" --topics=2 --partitions=3 --segments=3 --segment-bytes=64KiB \
	--seed=7 >/dev/null 2>&1 || fail "segscan gen"
LD_LIBRARY_PATH=$dest/usr/lib "$root/ex/embed" -f ndjson "$root/logdir" >"$root/embed.ndjson" 2>"$root/embed.err" ||
	{ rc=$?; cat "$root/embed.err" >&2; fail "the example exited $rc"; }   # $? after cat would be cat's
# It really ran on the installed .so, not on some other copy.
LD_LIBRARY_PATH=$dest/usr/lib LD_DEBUG=libs "$root/ex/embed" -f prom "$root/logdir" 2>"$root/ld.log" >/dev/null ||
	fail "the example (LD_DEBUG run)"
grep -q "calling init: $dest/usr/lib/libsegscan.so.$major" "$root/ld.log" || fail "the example did not load the installed .so"
# ... and that scan ran in a process without jemalloc: plain malloc under the arenas
readelf -d "$root/ex/embed" | grep 'NEEDED.*jemalloc' >/dev/null && fail "the example links jemalloc"
grep -q 'libjemalloc' "$root/ld.log" && fail "jemalloc was loaded into the example: $(grep -m1 libjemalloc "$root/ld.log")"
# An embedder that has jemalloc (preloaded here) gets the arenas, and the same report.
je=$(pkg-config --variable=libdir jemalloc 2>/dev/null)/libjemalloc.so.2
if [ -r "$je" ]; then
	LD_LIBRARY_PATH=$dest/usr/lib LD_PRELOAD=$je "$root/ex/embed" -f ndjson "$root/logdir" >"$root/embed-je.ndjson" \
		2>/dev/null || fail "the example with jemalloc preloaded exited $?"
	cmp -s "$root/embed.ndjson" "$root/embed-je.ndjson" || fail "the example's report differs with jemalloc preloaded"
fi
"$root/ex/embed-static" -f ndjson "$root/logdir" >"$root/embed-static.ndjson" 2>/dev/null ||
	fail "the static example exited $?"
cmp -s "$root/embed.ndjson" "$root/embed-static.ndjson" || fail "the static example's report differs from the shared one's"
"$dest/usr/bin/segscan" scan -q -f ndjson "$root/logdir" >"$root/cli.ndjson" || fail "segscan scan"
# The same partitions, segment counts, sizes and offsets through the library as through the CLI.
python3 - "$root/embed.ndjson" "$root/cli.ndjson" "$root/embed.err" <<'PY' || fail "the example disagrees with segscan scan"
import json, re, sys
def key(path):
    return sorted((p["topic"], p["partition"], len(p["segments"]), p["size_bytes"], p["log_end_offset"])
                  for p in map(json.loads, open(path)))
emb, cli = key(sys.argv[1]), key(sys.argv[2])
assert len(cli) == 6, cli
assert emb == cli, (emb, cli)
lines = [tuple(m.groups()) for m in re.finditer(r"embed: (\S+)-(\d+) segments=(\d+) size_bytes=(\d+) "
                                                r"log_end_offset=(\d+)", open(sys.argv[3]).read())]
acc = sorted((t, int(p), int(s), int(b), int(o)) for t, p, s, b, o in lines)
assert acc == cli, (acc, cli)
PY

mk uninstall >"$root/uninstall.log" 2>&1 || { cat "$root/uninstall.log" >&2; fail "make uninstall"; }
left=$(find "$dest" \( -type f -o -type l \) | sed "s|^$dest||")
[ -z "$left" ] || fail "make uninstall left: $left"
echo "install.sh: ok (segscan $ver, $(wc -l <"$root/exports") exports)"
