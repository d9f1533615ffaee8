#!/usr/bin/python3
"""Turn one bench/run.sh run (build/bench/runs/<id>/) into bench/results/<id>.md,
bench/results/latest.md, bench/results/raw/<id>.tsv and PNG plots (gnuplot, when
installed). Standard library only.

  report.py --work DIR --results DIR --run-id ID
"""
import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

COLS = ["workload", "cache", "tool", "config", "ndirs", "segments", "rep", "wall", "user", "sys",
        "rss_kb", "rc", "bytes_read", "syscalls"]

GOAL_TAIL = 1.5      # fast path within 1.5x of the index-tail floor
GOAL_PEER = 100.0    # at least 100x the Python peer


def load_raw(path):
    rows = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) != len(COLS):
            continue
        r = dict(zip(COLS, f))
        for k in ("ndirs", "segments", "rep", "rss_kb", "rc", "bytes_read", "syscalls"):
            try:
                r[k] = int(r[k])
            except ValueError:
                r[k] = -1
        for k in ("wall", "user", "sys"):
            try:
                r[k] = float(r[k])
            except ValueError:
                r[k] = 0.0
        rows.append(r)
    return rows


def load_meta(path):
    meta = {}
    if os.path.exists(path):
        for line in open(path):
            if "\t" in line:
                k, v = line.rstrip("\n").split("\t", 1)
                meta[k] = v
    return meta


def load_treeinfo(work):
    info = {}
    for p in glob.glob(os.path.join(work, "treeinfo.*")):
        wl = p.rsplit(".", 1)[1]
        dirs = []
        for line in open(p):
            ld, segs, nbytes, files = line.split()
            dirs.append((int(segs), int(nbytes), int(files)))
        info[wl] = dirs
    return info


class Group:
    """All repetitions of one (workload, cache, tool, config, ndirs)."""

    def __init__(self, key, rows):
        self.key = key
        self.workload, self.cache, self.tool, self.config, self.ndirs = key
        self.rows = rows
        walls = [r["wall"] for r in rows]
        self.n = len(walls)
        self.med = statistics.median(walls)
        self.lo = min(walls)
        self.hi = max(walls)
        self.segments = rows[0]["segments"]
        self.failed = sum(1 for r in rows if r["rc"] != 0)
        rss = [r["rss_kb"] for r in rows if r["rss_kb"] > 0]
        self.rss_kb = max(rss) if rss else 0
        b = [r["bytes_read"] for r in rows if r["bytes_read"] >= 0]
        self.bytes_read = statistics.median(b) if b else None
        s = [r["syscalls"] for r in rows if r["syscalls"] >= 0]
        self.syscalls = statistics.median(s) if s else None
        self.cpu = statistics.median([r["user"] + r["sys"] for r in rows])

    @property
    def threads(self):
        m = re.search(r"t=(\d+)", self.config)
        return int(m.group(1)) if m else None

    @property
    def io(self):
        m = re.search(r"io=(\w+)", self.config)
        return m.group(1) if m else None

    def rate(self):
        return self.segments / self.med if self.med > 0 else 0.0


def fmt_time(g):
    return "%.3f s (%.3f–%.3f)" % (g.med, g.lo, g.hi)


def fmt_rate(x):
    if x >= 1e6:
        return "%.2fM" % (x / 1e6)
    if x >= 1e3:
        return "%.1fk" % (x / 1e3)
    return "%.0f" % x


def fmt_bytes(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return "%.1f %s" % (n / div, unit)
    return "%d B" % n


def ratio(a, b):
    return a / b if b else float("nan")


GOAL_SHAPE_CPU = 1.2     # fast path CPU per segment <= 1.2x the stat-only walk's
GOAL_SHAPE_WALL = 1.0    # and wall <= 1.0x, default threads
GOAL_SHAPE_BYTES = 8192  # bytes read per segment (--verify aside)
GOAL_SHAPE_VERIFY = 1 / 1.5  # --verify wall <= cat's / 1.5 (at least 1.5x the cat floor), warm


def shapes_md(w, groups, tree, shapes):
    """One summary table and one table per shape (bench/run.sh, part `shapes`)."""
    def g(wl, tool, cfg=None):
        for k, v in groups.items():
            if k[0] == wl and k[1] == "warm" and k[2] == tool and (cfg is None or k[3] == cfg):
                return v
        return None

    w("## Shapes")
    w("")
    w("The fast path on tree shapes real brokers have (issue 15): one log dir per shape, page cache "
      "warm, `-f ndjson` to /dev/null, default `--io` and threads unless the row says otherwise. "
      "Ratios are segscan's over the stat-only walk (`find -type f -printf %%s`: one getdents share "
      "and one fstatat per file), the index-tail floor (bench/tailfloor.c) and `cat` of every `.log`. "
      "CPU is user + system time of the whole process, medians. Goals: CPU <= %.1fx and wall <= %.1fx "
      "the stat-only walk's, bytes read <= %d per segment (`--verify` aside) (*met*); `--verify` "
      "at least 1.5x the `cat` floor, i.e. its wall <= %.2fx cat's (*verify met*)." %
      (GOAL_SHAPE_CPU, GOAL_SHAPE_WALL, GOAL_SHAPE_BYTES, GOAL_SHAPE_VERIFY))
    w("")
    w("| shape | segments | CPU / find | wall / find | wall / tailfloor | bytes read / segment | "
      "CPU µs / segment (find) | verify wall / cat | met | verify met |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for wl in shapes:
        f, fl, tf = g(wl, "segscan", "default threads"), g(wl, "find"), g(wl, "tailfloor")
        v, c = g(wl, "segscan-verify"), g(wl, "cat")
        if not f or not fl:
            continue
        segs = f.segments or 1
        cr, wr = ratio(f.cpu, fl.cpu), ratio(f.med, fl.med)
        bps = f.bytes_read / segs if f.bytes_read is not None else float("nan")
        met = cr <= GOAL_SHAPE_CPU and wr <= GOAL_SHAPE_WALL and bps <= GOAL_SHAPE_BYTES
        vr = ratio(v.med, c.med) if v and c else None
        w("| %s | %d | %.2fx | %.2fx | %s | %.0f | %.1f (%.1f) | %s | %s | %s |" % (
            wl, segs, cr, wr, "%.2fx" % ratio(f.med, tf.med) if tf else "–", bps,
            f.cpu / segs * 1e6, fl.cpu / segs * 1e6,
            "%.2fx" % vr if vr is not None else "–", "yes" if met else "no",
            "–" if vr is None else "yes" if vr <= GOAL_SHAPE_VERIFY else "no"))
    w("")
    for wl in shapes:
        rows = sorted((v for k, v in groups.items() if k[0] == wl and k[1] == "warm"),
                      key=lambda x: (x.tool, x.config))
        if not rows:
            continue
        fl, tf, c = g(wl, "find"), g(wl, "tailfloor"), g(wl, "cat")
        segs = rows[0].segments or 1
        w("### %s" % wl)
        w("")
        w("%d segments, %s of `.log` files." % (segs, fmt_bytes(sum(d[1] for d in tree.get(wl, [])))))
        w("")
        w("| tool | config | wall | CPU s | CPU µs / segment | bytes read / segment | peak RSS | "
          "wall / find | CPU / find | wall / tailfloor | wall / cat |")
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        for x in rows:
            bps = "%.0f" % (x.bytes_read / segs) if x.bytes_read is not None and x.bytes_read >= 0 else "–"
            w("| %s | %s | %s | %.3f | %.1f | %s | %s | %s | %s | %s | %s |%s" % (
                x.tool, x.config, fmt_time(x), x.cpu, x.cpu / segs * 1e6, bps, fmt_bytes(x.rss_kb * 1024),
                "%.2fx" % ratio(x.med, fl.med) if fl else "–", "%.2fx" % ratio(x.cpu, fl.cpu) if fl else "–",
                "%.2fx" % ratio(x.med, tf.med) if tf else "–", "%.2fx" % ratio(x.med, c.med) if c else "–",
                " **%d failed**" % x.failed if x.failed else ""))
        w("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--run-id", required=True)
    a = ap.parse_args()

    rows = load_raw(os.path.join(a.work, "raw.tsv"))
    meta = load_meta(os.path.join(a.work, "meta.txt"))
    tree = load_treeinfo(a.work)
    nproc = int(meta.get("nproc", "1"))

    by = defaultdict(list)
    for r in rows:
        by[(r["workload"], r["cache"], r["tool"], r["config"], r["ndirs"])].append(r)
    groups = {k: Group(k, v) for k, v in by.items()}

    def find(wl, cache, tool, config=None, ndirs=None):
        for k, g in groups.items():
            if k[0] == wl and k[1] == cache and k[2] == tool and (config is None or k[3] == config) and \
                    (ndirs is None or k[4] == ndirs):
                return g
        return None

    def logbytes(wl, nd):
        return sum(d[1] for d in tree.get(wl, [])[:nd])

    out = []
    w = out.append
    w("# segscan benchmark — %s" % a.run_id)
    w("")
    w("Generated by `make bench` (bench/run.sh, bench/report.py). Goals and analysis: "
      "[docs/performance.md](../../docs/performance.md). Raw samples: `raw/%s.tsv`." % a.run_id)
    w("")
    w("| | |")
    w("|---|---|")
    for k, label in (("date", "date"), ("scale", "BENCH_SCALE"), ("reps", "repetitions (BENCH_REPS)"),
                     ("cpu", "CPU"), ("nproc", "CPUs"), ("mem", "memory"), ("kernel", "kernel"),
                     ("fs", "file system"), ("segscan", "segscan"), ("commit", "commit"),
                     ("load_before", "load average before"), ("load_after", "load average after"),
                     ("bench_seconds", "bench wall time (s)")):
        if k in meta:
            w("| %s | %s |" % (label, meta[k]))
    w("")
    w("Times are wall-clock medians with min–max over the repetitions; every repetition runs every "
      "configuration of a workload once, round robin. **warm**: the tree was read once before; "
      "**cold**: before every run the tree's files were dropped from the page cache with "
      "`posix_fadvise(POSIX_FADV_DONTNEED)` (bench/evict.c; dentries and inodes stay cached, "
      "nothing else on the machine is touched). segscan runs print `-f ndjson` to /dev/null. "
      "*segments/s* counts live segments; *log GB/s* is the `.log` data covered per second (not "
      "bytes read); *read MB/s* is what segscan itself read (`--stats`); *CPU µs/segment* is user + "
      "system time of the whole process (io_uring's kernel workers included) per segment, the number "
      "least disturbed by other load on the machine.")
    w("")

    shapes = []
    sp = os.path.join(a.work, "shapes.txt")
    if os.path.exists(sp):
        shapes = [l.strip() for l in open(sp) if l.strip()]
    if shapes:
        shapes_md(w, groups, tree, shapes)

    # ---- goals -------------------------------------------------------------------------------
    w("## Goals")
    w("")
    w("| goal | workload | cache | measured | met |")
    w("|---|---|---|---|---|")
    nd_many = max((k[4] for k in groups if k[0] == "many"), default=0)
    cold_nd = max((k[4] for k in groups if k[0] == "many" and k[1] == "cold"), default=0)

    def nd_of(wl, cache):
        return max((k[4] for k in groups if k[0] == wl and k[1] == cache), default=0)

    goal_rows = []
    fastcfg = "io=uring,t=%d" % nproc
    for wl in ("many", "zstd"):
        nd = nd_of(wl, "warm")
        fast = find(wl, "warm", "segscan", fastcfg, nd)
        fl = find(wl, "warm", "find", None, nd)
        if fast and fl:
            r = ratio(fl.med, fast.med)
            goal_rows.append(("fast path (uring, %d threads) faster than the stat-only walk" % nproc, wl, "warm",
                              "%.2f× the walk's speed (%.3f s vs %.3f s); CPU time %.2f×" % (
                                  r, fast.med, fl.med, ratio(fast.cpu, fl.cpu)), r > 1))
        for cache in ("warm", "cold"):
            nd = nd_of(wl, cache)
            fast = find(wl, cache, "segscan", fastcfg, nd)
            tf = find(wl, cache, "tailfloor", "t=%d" % nproc, nd)
            if fast and tf:
                r = ratio(fast.med, tf.med)
                goal_rows.append(("fast path within %.1f× of the index-tail floor (same threads)" % GOAL_TAIL, wl,
                                  cache, "%.2f× the floor's time (%.3f s vs %.3f s); CPU time %.2f×" % (
                                      r, fast.med, tf.med, ratio(fast.cpu, tf.cpu)),
                                  r <= GOAL_TAIL))
    for wl in ("many", "zstd", "large"):
        for cache in ("warm", "cold"):
            nd = nd_of(wl, cache)
            ver = find(wl, cache, "segscan-verify", fastcfg, nd)
            cat = find(wl, cache, "cat", None, nd)
            if ver and cat:
                r = ratio(cat.med, ver.med)
                goal_rows.append(("`--verify` at least as fast as the cat floor", wl, cache,
                                  "%.2f× cat's speed (%.3f s vs %.3f s)" % (r, ver.med, cat.med), r >= 1))
    fast = find("many", "warm", "segscan", fastcfg, nd_many)
    py = find("many", "warm", "peer-python-inner")
    if fast and py and py.segments > 0:
        peer_total = py.med / py.segments * fast.segments
        r = ratio(peer_total, fast.med)
        goal_rows.append(("≥ %d× the Python (kafka-python) peer" % GOAL_PEER, "many", "warm",
                          "%.0f× (peer extrapolated from %d sampled segments to %.1f s for %d)" %
                          (r, py.segments, peer_total, fast.segments), r >= GOAL_PEER))
    t1 = find("many", "warm", "segscan", "io=uring,t=1", nd_many)
    tn = find("many", "warm", "segscan", fastcfg, nd_many)
    f1 = find("many", "warm", "tailfloor", "t=1", nd_many)
    fn = find("many", "warm", "tailfloor", "t=%d" % nproc, nd_many)
    if t1 and tn and nproc > 1:
        sc = ratio(t1.med, tn.med)
        goal_rows.append(("scaling with threads until the device or memory saturates", "many", "warm",
                          "%.2f× from 1 to %d threads (ideal %d×); the tail floor: %s" % (
                              sc, nproc, nproc, "%.2f×" % ratio(f1.med, fn.med) if f1 and fn else "n/a"),
                          sc >= 0.75 * nproc))
    for g, wl, cache, meas, ok in goal_rows:
        w("| %s | `%s` | %s | %s | %s |" % (g, wl, cache, meas, "yes" if ok else "**no**"))
    w("")
    w("The stat-only walk is compared warm only: evicting data pages leaves the dentries and inodes it "
      "reads cached, so a \"cold\" walk equals a warm one and would not be a floor for cold reads. "
      "The load average (above) is other work on this shared machine: it widens the min–max ranges and "
      "flattens thread scaling (the tail floor's own 1 → %d thread ratio shows how much)." % nproc)
    w("")
    for k in sorted(meta):
        if k.startswith("consistency."):
            w("- Output consistency (%s): %s." % (k.split(".", 1)[1], meta[k]))
    for k in sorted(meta):
        if k.startswith("warning."):
            w("- **Warning** (%s): %s." % (k.split(".", 1)[1], meta[k]))
    for k in sorted(meta):
        if k.startswith("evict_check."):
            w("- Eviction check (%s, after the cold runs): `%s`." % (k.split(".", 1)[1], meta[k]))
    w("")

    # ---- per workload tables -------------------------------------------------------------------
    order_tools = ["segscan", "segscan-remote", "segscan-table", "segscan-verify", "tailfloor", "find", "cat",
                   "peer-python", "peer-python-inner", "peer-dumplog"]

    def tool_rank(k):
        t = k[2]
        return (order_tools.index(t) if t in order_tools else 99, -k[4], k[3])

    for wl in ("many", "zstd", "large"):
        if not any(k[0] == wl for k in groups):
            continue
        w("## Workload `%s`" % wl)
        w("")
        if "desc.%s" % wl in meta:
            w(meta["desc.%s" % wl] + ".")
            w("")
        if wl in tree:
            d = tree[wl]
            w("Tree: %d log dir(s), %d segments, %s of `.log` data, %d files." %
              (len(d), sum(x[0] for x in d), fmt_bytes(sum(x[1] for x in d)), sum(x[2] for x in d)))
            w("")
        for cache in ("warm", "cold"):
            # peers and the reuse scans have their own sections (they run on samples / in-process)
            keys = sorted((k for k in groups if k[0] == wl and k[1] == cache and
                           not k[2].startswith(("peer", "reuse"))), key=tool_rank)
            if not keys:
                continue
            w("### %s" % cache)
            w("")
            w("| tool | config | log dirs | segments | time | segments/s | log GB/s | read MB/s | "
              "bytes/segment | syscalls/segment | CPU µs/segment | peak RSS | vs tail floor | vs find | vs cat |")
            w("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            for k in keys:
                g = groups[k]
                if g.tool == "peer-python-inner":
                    continue
                nd = g.ndirs
                lb = logbytes(wl, nd) if not g.tool.startswith("peer") else None
                seg_bytes = "%.0f" % (g.bytes_read / g.segments) if g.bytes_read is not None and g.segments else ""
                sc = "%.1f" % (g.syscalls / g.segments) if g.syscalls is not None and g.segments else ""
                rmb = "%.0f" % (g.bytes_read / g.med / 1e6) if g.bytes_read is not None and g.med else ""
                th = g.threads
                tf = find(wl, cache, "tailfloor", "t=%d" % th, nd) if th else None
                if tf is None:
                    tf = find(wl, cache, "tailfloor", "t=%d" % nproc, nd)
                fl = find(wl, cache, "find", None, nd)
                ct = find(wl, cache, "cat", None, nd)
                fastpath = g.tool in ("segscan", "segscan-remote", "segscan-table")
                vs_tf = "%.2f×" % ratio(g.med, tf.med) if tf and fastpath else ""
                vs_find = "%.2f×" % ratio(fl.med, g.med) if fl and fastpath else ""
                vs_cat = "%.2f×" % ratio(ct.med, g.med) if ct and g.tool.startswith("segscan") else ""
                fail = " (%d failed)" % g.failed if g.failed else ""
                cpu = "%.1f" % (g.cpu / g.segments * 1e6) if g.segments and g.cpu > 0 else ""
                w("| %s | %s | %d | %d | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    g.tool, g.config, nd, g.segments, fmt_time(g), fail, fmt_rate(g.rate()),
                    "%.2f" % (lb / g.med / 1e9) if lb and g.med else "", rmb, seg_bytes, sc, cpu,
                    "%.0f MiB" % (g.rss_kb / 1024) if g.rss_kb else "", vs_tf, vs_find, vs_cat))
            w("")
        w("*vs tail floor* (fast path only): segscan's time over the index-tail floor's (same log dirs, "
          "same threads; goal ≤ %.1f). *vs find* (fast path only), *vs cat*: the floor's time over "
          "segscan's (> 1: segscan is faster)." % GOAL_TAIL)
        if wl == "many":
            cold = [k for k in groups if k[0] == wl and k[1] == "cold"]
            if cold:
                w(" Cold runs use the first %d log dir(s) only: cold reads are random and slow on this "
                  "machine's virtual disk." % max(k[4] for k in cold))
        w("")

    # ---- peers ---------------------------------------------------------------------------------
    py = find("many", "warm", "peer-python-inner")
    pyo = find("many", "warm", "peer-python")
    dl = find("many", "warm", "peer-dumplog")
    fast = find("many", "warm", "segscan", "io=uring,t=%d" % nproc, nd_many)
    fast1 = find("many", "warm", "segscan", "io=uring,t=1", nd_many)
    if py or dl or any(k.startswith("peer_skip") for k in meta):
        w("## Peers (workload `many`, warm)")
        w("")
        if "peer_sample" in meta:
            w("Peers run on a sample: %s. Their per-segment rate is extrapolated to the whole tree "
              "(%d segments) and compared with segscan's measured time on the whole tree." %
              (meta["peer_sample"], fast.segments if fast else 0))
            w("")
        w("| peer | sampled segments | time on sample | per segment | extrapolated to the tree | "
          "segscan uring %d threads | ratio | segscan 1 thread ratio |" % nproc)
        w("|---|---:|---|---:|---:|---:|---:|---:|")
        for label, g in (("kafka-python 2.0.2 (own timer: no interpreter start-up)", py),
                         ("kafka-python 2.0.2 (whole process)", pyo),
                         ("Kafka DumpLogSegments + awk (whole process, one JVM per ~1000 files)", dl)):
            if not g or not fast:
                continue
            segs = py.segments if py else g.segments
            per = g.med / segs
            tot = per * fast.segments
            w("| %s | %d | %s | %.0f µs | %.1f s | %.3f s | **%.0f×** | %s |" % (
                label, segs, fmt_time(g), per * 1e6, tot, fast.med, tot / fast.med,
                "%.0f×" % (tot / fast1.med) if fast1 else ""))
        w("")
        for k in ("peer_agree.python", "peer_agree.dumplog", "peer_dumplog", "peer_skip.python", "peer_skip.dumplog"):
            if k in meta:
                w("- %s: %s" % (k.replace("_", " "), meta[k]))
        w("")

    # ---- callgrind ---------------------------------------------------------------------------
    cg = {k.split(".", 1)[1]: v.split() for k, v in meta.items() if k.startswith("callgrind.")}
    if cg:
        w("## Instructions per segment (callgrind)")
        w("")
        segs = next(iter(cg.values()))[2]
        w("`valgrind --tool=callgrind segscan scan --threads=1 -f ndjson` on a %s-segment tree "
          "(same shape as `many`: 96 KiB segments) and on a 1-segment tree; *marginal* = "
          "(Ir(tree) − Ir(1 segment)) / (segments − 1), the cost of one more segment without "
          "start-up. Instruction counts are stable on a noisy machine." % segs)
        w("")
        w("| mode | total Ir | Ir / segment | marginal Ir / segment |")
        w("|---|---:|---:|---:|")
        for name in ("uring", "pread", "mmap", "verify"):
            if name not in cg:
                continue
            ir, ir1, s = (int(x) for x in cg[name])
            w("| %s | %s | %.0f | %.0f |" % (name, format(ir, ","), ir / s if s else 0,
                                              (ir - ir1) / (s - 1) if s > 1 else 0))
        w("")
        for name in ("uring", "pread", "verify"):
            p = os.path.join(a.work, "callgrind.%s.stages.md" % name)
            if os.path.exists(p) and os.path.getsize(p) > 0:
                w("Stages, %s (inclusive Ir of each stage's entry point; `scripts/profile-callgrind.sh`):" % name)
                w("")
                w(open(p).read().rstrip())
                w("")

    # ---- strace --------------------------------------------------------------------------------
    st = sorted(glob.glob(os.path.join(a.work, "strace.*.txt")))
    if st:
        nseg = int(meta.get("strace_segments", "0") or 0)
        w("## System calls per segment (`strace -f -c`, one log dir of `many`, %d segments)" % nseg)
        w("")
        w("| backend | total syscalls | per segment | top calls (count per segment) |")
        w("|---|---:|---:|---|")
        for p in st:
            io = p.split(".")[-2]
            calls = []
            total = 0
            for line in open(p):
                f = line.split()
                if len(f) >= 5 and f[0][0].isdigit() and not line.startswith("100.00"):
                    try:
                        n = int(f[3])
                    except ValueError:
                        continue
                    calls.append((n, f[-1]))
                elif line.startswith("100.00") and len(f) >= 4:
                    try:
                        total = int(f[3])   # % time, seconds, usecs/call, calls, [errors,] total
                    except ValueError:
                        pass
            calls.sort(reverse=True)
            if not total:
                total = sum(n for n, _ in calls)
            top = ", ".join("%s %.2f" % (c, n / nseg) for n, c in calls[:7]) if nseg else ""
            w("| %s | %d | %.2f | %s |" % (io, total, total / nseg if nseg else 0, top))
        w("")

    # ---- evaluator -----------------------------------------------------------------------------
    ev = [g for k, g in groups.items() if k[0] == "eval"]
    if ev:
        w("## Evaluator (bench/evalbench.c, through the library)")
        w("")
        w("| measurement | count | time | per item | rate | peak RSS |")
        w("|---|---:|---|---:|---:|---:|")
        desc = {"replay_synthetic": "remote-state replay, `bench_replay_synthetic` (state machine + epoch index)",
                "replay_ndjson": "remote-state replay from NDJSON text, `ss_ndjson_read_buf` (what `--remote-state` costs)",
                "evaluate": "evaluating partitions of 25 segments each (config + remote lookup + `ss_eval_partition`)"}
        for g in sorted(ev, key=lambda g: list(desc).index(g.tool) if g.tool in desc else 9):
            w("| %s | %s | %s | %.2f µs | %s/s | %.0f MiB |" % (
                desc.get(g.tool, g.tool), format(g.segments, ","), fmt_time(g), g.med / g.segments * 1e6,
                fmt_rate(g.segments / g.med), g.rss_kb / 1024))
        w("")
        w("The replays use 100,000 partitions; RSS is the whole evalbench process (all three measurements).")
        w("")

    # ---- KRaft metadata log ------------------------------------------------------------------
    kr = find("kraft", "warm", "source")
    if kr:
        w("## KRaft metadata log replay (bench/kraftbench.c, through the library)")
        w("")
        w("| measurement | records | time | rate | peak RSS |")
        w("|---|---:|---|---:|---:|")
        w("| `ss_mlog_replay`: a `__cluster_metadata-0` of 10,000 topics / 100,000 partitions on disk "
          "(page cache warm) replayed into a cluster image | %s | %s | %s records/s | %.0f MiB |" % (
              format(kr.segments, ","), fmt_time(kr), fmt_rate(kr.segments / kr.med), kr.rss_kb / 1024))
        w("")
        parts = [(t, find("kraft", "warm", t)) for t in ("decode", "replay")]
        parts = ["%s %s" % (t, fmt_time(g)) for t, g in parts if g]
        w("The stream: %s. What a scan's cluster context costs; of it, from memory: %s "
          "(decode: batches and record values only; replay: into the image)." % (
              meta.get("kraft_stream", "?"), ", ".join(parts) or "?"))
        w("")
        # the shapes that were quadratic (issue 21 item 6): replay against its decode floor
        shapes = [(sh, find("kraft", "warm", sh + "-decode"), find("kraft", "warm", sh + "-replay"),
                   find("kraft", "warm", sh + "-source"))
                  for sh in ("config-keys", "desc-partitions", "features", "torn-snapshots")]
        shapes = [x for x in shapes if x[1] and x[2] and x[3]]
        if shapes:
            w("| shape | records | decode (floor) | replay | source | replay / decode |")
            w("|---|---:|---|---|---|---:|")
            for sh, d, r, so in shapes:
                w("| %s | %s | %s | %s | %s | %.1f |" % (sh, format(d.segments, ","), fmt_time(d), fmt_time(r),
                                                      fmt_time(so), r.med / d.med if d.med > 0 else 0))
            w("")

    # ---- remote-store audit ------------------------------------------------------------------
    au, rp, fl = (find("audit", "warm", t) for t in ("segscan-audit", "segscan-replay", "find-walk"))
    if au:
        w("## Remote-store audit (`segscan audit`, file:// store)")
        w("")
        w("A store of %s objects in Kafka's LocalTieredStorage layout (5 per segment, 100 segments a "
          "partition) and the remote metadata that matches it (bench/auditgen.py: sparse files, a "
          "STARTED and a FINISHED event per segment), page cache warm. The floor is the same directory "
          "walk with nothing joined (`find -printf` of every object's key and size); the replay is "
          "`segscan scan` with the same `--remote-state` and no store (what the audit pays before its "
          "walk). Check of the audit's report: %s." % (format(au.segments, ","), meta.get("audit_check", "?")))
        w("")
        w("| measurement | objects | time | objects/s | CPU | peak RSS | time / floor |")
        w("|---|---:|---|---:|---:|---:|---:|")
        for name, g in (("`segscan audit` (replay + walk + join)", au), ("replay alone (`segscan scan --remote-state`)", rp),
                        ("floor: `find -printf '%P %s'`", fl)):
            if g:
                w("| %s | %s | %s | %s | %.2f s | %.0f MiB | %s |" % (
                    name, format(g.segments, ","), fmt_time(g), fmt_rate(g.segments / g.med if g.med > 0 else 0),
                    g.cpu, g.rss_kb / 1024, "%.2f" % (g.med / fl.med) if fl and fl.med > 0 else "?"))
        if rp and fl and au.med > rp.med:
            w("")
            w("Walk and join (audit minus replay): %.3f s, %s objects/s, %.2f× the floor." % (
                au.med - rp.med, fmt_rate(au.segments / (au.med - rp.med)), (au.med - rp.med) / fl.med if fl.med > 0 else 0))
        w("")

    # ---- reuse ---------------------------------------------------------------------------------
    ru = [(k, g) for k, g in groups.items() if k[2].startswith("reuse-")]
    if ru:
        w("## Incremental rescan (`segscan_reuse`, bench/reusebench.c)")
        w("")
        w("A full scan, then a scan handed the first through `segscan_reuse()` over the unchanged tree "
          "(warm, %d threads). Closed segments are taken over after one statx; active ones are read again." % nproc)
        w("")
        w("| io | scan | segments (reused) | time | bytes read | syscalls | time ratio | bytes ratio | syscall ratio |")
        w("|---|---|---:|---|---:|---:|---:|---:|---:|")
        for io in ("uring", "pread"):
            f = find("many", "warm", "reuse-full", "io=" + io)
            r = find("many", "warm", "reuse-reuse", "io=" + io)
            if not f or not r:
                continue
            reused = meta.get("reuse_reused." + io, "?")
            w("| %s | full | %d | %s | %s | %s | | | |" % (io, f.segments, fmt_time(f), format(int(f.bytes_read), ","),
                                                         format(int(f.syscalls), ",")))
            w("| %s | reuse | %d (%s) | %s | %s | %s | %.2f× faster | %.0f× fewer | %.1f× fewer |" % (
                io, r.segments, reused, fmt_time(r), format(int(r.bytes_read), ","), format(int(r.syscalls), ","),
                f.med / r.med, f.bytes_read / max(r.bytes_read, 1), f.syscalls / max(r.syscalls, 1)))
        w("")

    for k in sorted(meta):
        if k.endswith("_skip") or k.startswith("callgrind_skip") or k.startswith("strace_skip"):
            w("- skipped: %s" % meta[k])

    # ---- plots ---------------------------------------------------------------------------------
    plots = make_plots(a, groups, find, tree, nproc, nd_many, cold_nd, shapes)
    if plots:
        w("## Plots")
        w("")
        for title, rel in plots:
            w("![%s](%s)" % (title, rel))
            w("")

    w("## Reproduce")
    w("")
    w("```")
    w("make bench                                   # BENCH_SCALE=small BENCH_REPS=5")
    w("BENCH_SCALE=large BENCH_REPS=3 make bench    # >= 1M segments; checks free disk first")
    w("BENCH_ONLY=many,peers make bench             # parts: many,zstd,large,peers,callgrind,strace,eval,reuse,kraft,audit")
    w("BENCH_SCALE=large BENCH_ONLY=audit make bench   # the 1M-object audit (BENCH_AUDIT_OBJECTS to change it)")
    w("```")
    w("")
    w("Every command the run executed is in `raw/%s.cmds`." % a.run_id)

    text = "\n".join(out) + "\n"
    os.makedirs(os.path.join(a.results, "raw"), exist_ok=True)
    md = os.path.join(a.results, a.run_id + ".md")
    with open(md, "w") as f:
        f.write(text)
    shutil.copyfile(md, os.path.join(a.results, "latest.md"))
    shutil.copyfile(os.path.join(a.work, "raw.tsv"), os.path.join(a.results, "raw", a.run_id + ".tsv"))
    cmds = os.path.join(a.work, "cmds.txt")
    if os.path.exists(cmds):
        shutil.copyfile(cmds, os.path.join(a.results, "raw", a.run_id + ".cmds"))
    print(md)


def make_plots(a, groups, find, tree, nproc, nd_many, cold_nd, shapes=()):
    if not shutil.which("gnuplot"):
        return []
    pdir = os.path.join(a.results, "plots")
    os.makedirs(pdir, exist_ok=True)
    tmp = os.path.join(a.work, "plots")
    os.makedirs(tmp, exist_ok=True)
    made = []
    common = ("set terminal pngcairo size 900,540 font 'DejaVu Sans,10'\n"
              "set grid\nset key outside right top\n")

    def gp(name, script, title):
        path = os.path.join(pdir, "%s-%s.png" % (a.run_id, name))
        full = common + "set output '%s'\n" % path + script
        with open(os.path.join(tmp, name + ".gp"), "w") as f:
            f.write(full)
        r = subprocess.run(["gnuplot", os.path.join(tmp, name + ".gp")], capture_output=True, text=True)
        if r.returncode == 0 and os.path.exists(path):
            made.append((title, "plots/" + os.path.basename(path)))
        else:
            print("report: gnuplot %s: %s" % (name, r.stderr.strip()[:300]), file=sys.stderr)

    # 1. throughput against threads, per backend, warm and cold
    series = []
    for cache, nd in (("warm", nd_many), ("cold", cold_nd)):
        for tool, io in (("segscan", "uring"), ("segscan", "mmap"), ("segscan", "pread"), ("tailfloor", None)):
            pts = []
            for k, g in groups.items():
                if k[0] == "many" and k[1] == cache and k[2] == tool and k[4] == nd and \
                        (io is None or g.io == io) and g.threads:
                    pts.append((g.threads, g.rate(), g.segments / g.hi, g.segments / g.lo))
            if pts:
                series.append(("%s %s (%s)" % (tool, io or "", cache), cache, sorted(pts)))
    if series:
        files = []
        for i, (label, cache, pts) in enumerate(series):
            fn = os.path.join(tmp, "threads%d.dat" % i)
            with open(fn, "w") as f:
                for p in pts:
                    f.write("%d %f %f %f\n" % p)
            files.append("'%s' using 1:2:3:4 with yerrorlines lw 2 dt %d title '%s'" %
                         (fn, 1 if cache == "warm" else 2, label.replace("  ", " ")))
        gp("threads", "set title 'many: segments/s against threads (warm: %d log dirs, cold: %d)'\n"
           "set xlabel 'threads'\nset ylabel 'segments/s'\nset logscale x 2\nset xrange [0.8:*]\n"
           "set yrange [0:*]\nplot %s\n" % (nd_many, cold_nd, ", ".join(files)),
           "throughput against threads")

    # 2. throughput against segment count
    series = []
    for tool, cfg in (("segscan", "io=uring,t=%d" % nproc), ("tailfloor", "t=%d" % nproc)):
        pts = sorted((g.segments, g.rate(), g.segments / g.hi, g.segments / g.lo)
                     for k, g in groups.items() if k[0] == "many" and k[1] == "warm" and k[2] == tool and k[3] == cfg)
        if len(pts) > 1:
            series.append(("%s %s" % (tool, cfg), pts))
    if series:
        files = []
        for i, (label, pts) in enumerate(series):
            fn = os.path.join(tmp, "segs%d.dat" % i)
            with open(fn, "w") as f:
                for p in pts:
                    f.write("%d %f %f %f\n" % p)
            files.append("'%s' using 1:2:3:4 with yerrorlines lw 2 title '%s'" % (fn, label))
        gp("segments", "set title 'many (warm): segments/s against segment count (1, 2, 4, 8 log dirs)'\n"
           "set xlabel 'segments'\nset ylabel 'segments/s'\nset logscale x 2\nset yrange [0:*]\n"
           "plot %s\n" % ", ".join(files), "throughput against segment count")

    # 3. per backend (and floors), warm vs cold, all CPUs
    rows = []
    for label, tool, cfg in (("uring", "segscan", "io=uring,t=%d" % nproc), ("mmap", "segscan", "io=mmap,t=%d" % nproc),
                             ("pread", "segscan", "io=pread,t=%d" % nproc),
                             ("verify", "segscan-verify", "io=uring,t=%d" % nproc),
                             ("tail floor", "tailfloor", "t=%d" % nproc), ("find", "find", None), ("cat", "cat", None)):
        wg = find("many", "warm", tool, cfg, nd_many)
        cg = find("many", "cold", tool, cfg, cold_nd)
        if wg or cg:
            rows.append((label, wg.rate() if wg else 0, cg.rate() if cg else 0))
    if rows:
        top = 3 * max(max(r[1], r[2]) for r in rows)
        fn = os.path.join(tmp, "backends.dat")
        with open(fn, "w") as f:
            for r in rows:
                f.write('"%s" %f %f\n' % r)
        gp("backends", "set title 'many: segments/s per backend and floor, %d threads (warm: %d log dirs, cold: %d)'\n"
           "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
           "set ylabel 'segments/s'\nset logscale y\nset yrange [100:%f]\n"
           "plot '%s' using 2:xtic(1) title 'warm', '' using 3 title 'cold'\n" % (nproc, nd_many, cold_nd, top, fn),
           "per backend, warm and cold")

    # 4. log data GB/s per workload: fast path, verify, cat; warm and cold
    rows = []
    for wl in ("many", "zstd", "large"):
        nd = max((k[4] for k in groups if k[0] == wl and k[1] == "warm"), default=0)
        ndc = max((k[4] for k in groups if k[0] == wl and k[1] == "cold"), default=0)
        if not nd:
            continue
        vals = []
        for tool, cfg in (("segscan", "io=uring,t=%d" % nproc), ("segscan-verify", "io=uring,t=%d" % nproc),
                          ("cat", None)):
            for cache, n in (("warm", nd), ("cold", ndc)):
                g = find(wl, cache, tool, cfg, n)
                lb = sum(d[1] for d in tree.get(wl, [])[:n])
                vals.append(lb / g.med / 1e9 if g and g.med else 0)
        rows.append((wl, vals))
    if rows:
        fn = os.path.join(tmp, "workloads.dat")
        with open(fn, "w") as f:
            for wl, v in rows:
                f.write('"%s" %s\n' % (wl, " ".join("%f" % x for x in v)))
        gp("workloads", "set title 'log data covered per second (GB/s), %d threads'\n"
           "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
           "set ylabel 'GB/s of .log data'\nset logscale y\n"
           "plot '%s' using 2:xtic(1) title 'fast path warm', '' using 3 title 'fast path cold', "
           "'' using 4 title 'verify warm', '' using 5 title 'verify cold', '' using 6 title 'cat warm', "
           "'' using 7 title 'cat cold'\n" % (nproc, fn), "GB/s per workload")

    # 5. shapes: the fast path's ratios to the floors, and bytes read per segment, with the goals
    rows = []
    for wl in shapes:
        f, fl, tf = find(wl, "warm", "segscan", "default threads"), find(wl, "warm", "find"), \
            find(wl, "warm", "tailfloor")
        if not f or not fl:
            continue
        segs = f.segments or 1
        bps = f.bytes_read / segs if f.bytes_read is not None else 0
        rows.append((wl, ratio(f.cpu, fl.cpu), ratio(f.med, fl.med), ratio(f.med, tf.med) if tf else 0, bps))
    if rows:
        fn = os.path.join(tmp, "shapes.dat")
        with open(fn, "w") as f:
            for r in rows:
                f.write('"%s" %f %f %f %f\n' % r)
        gp("shapes", "set title 'shapes (warm, default threads): segscan over the floors; goals dashed'\n"
           "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
           "set ylabel 'ratio (lower is better)'\nset yrange [0:*]\nset xtics rotate by -30\n"
           "plot '%s' using 2:xtic(1) title 'CPU / find', '' using 3 title 'wall / find', "
           "'' using 4 title 'wall / tailfloor', %f with lines dt 2 lw 2 title 'CPU goal', "
           "%f with lines dt 3 lw 2 title 'wall goal'\n" % (fn, GOAL_SHAPE_CPU, GOAL_SHAPE_WALL),
           "shapes: ratios to the floors")
        gp("shapes-bytes", "set title 'shapes: bytes read per segment by the fast path (goal dashed)'\n"
           "set style data histograms\nset style fill solid 0.8 border -1\n"
           "set ylabel 'bytes / segment'\nset yrange [0:*]\nset xtics rotate by -30\n"
           "plot '%s' using 5:xtic(1) title 'bytes read / segment', %d with lines dt 2 lw 2 title 'goal'\n"
           % (fn, GOAL_SHAPE_BYTES), "shapes: bytes read per segment")
    return made


if __name__ == "__main__":
    main()
