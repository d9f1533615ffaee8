#!/usr/bin/env python3
"""Derive segscan's Kafka release table (src/eval/releases.c) from Kafka's own jars.

Not part of the build or of `make test`: it needs Maven, a JDK and network access to Maven
Central.  Three subcommands:

  fetch     download the jars it reads into ~/.m2 (`mvn dependency:get`, one artifact at a time)
  mv        run MvDump.java against kafka-server-common of every release and print
            (a) the raw per-release dump as TSV on stderr and (b) the C table for releases.c
            on stdout; it stops with an error when two releases disagree about a level
  bytecode  javap the storage / core jars of every release and print, per release, what the
            code says for each ticket (the evidence column of docs/kafka-releases.md)
  check     both of the above against src/eval/releases.c: the generated metadata.version
            block must be identical, and every release's bytecode verdict must be what the
            ticket table answers for it; exits 1 on any disagreement

Usage (from the repository root):
  python3 scripts/kafka-releases/kafka_releases.py fetch
  python3 scripts/kafka-releases/kafka_releases.py mv > /tmp/mv-table.c
  python3 scripts/kafka-releases/kafka_releases.py bytecode

Written for segscan; it reads Kafka's class files with javap and copies no Kafka code.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
M2 = os.path.expanduser("~/.m2/repository/org/apache/kafka")

# The newest patch release of each line that Maven Central had when the table was made, plus
# every other release whose jars we read.  `fetch` reports what it could not find.
SERVER_COMMON = ["3.3.2", "3.4.1", "3.5.2", "3.6.0", "3.6.2", "3.7.0", "3.7.2", "3.8.1", "3.9.1", "3.9.2",
                 "4.0.0", "4.0.1", "4.0.2", "4.1.0", "4.1.1", "4.1.2", "4.2.0", "4.2.1", "4.2.2",
                 "4.3.0", "4.3.1", "4.3.2", "4.4.0"]
# kafka-storage (UnifiedLog and RemoteLogManager from 4.1; RemoteLogLeaderEpochState from 3.6)
STORAGE = ["3.6.0", "3.6.2", "3.7.0", "3.7.1", "3.7.2", "3.8.0", "3.8.1", "3.9.0", "3.9.1", "3.9.2", "4.0.0", "4.0.2",
           "4.1.0", "4.1.2", "4.2.0", "4.2.1", "4.2.2", "4.3.0", "4.3.1", "4.3.2", "4.4.0"]
# kafka_2.13 (Scala UnifiedLog and kafka.log.remote.RemoteLogManager up to 4.0); 3.7.1, 3.8.0 and
# 3.9.0 for KAFKA-17360, whose fix reached 3.7.2, 3.8.1 and 3.9.0
CORE = ["3.6.0", "3.6.2", "3.7.0", "3.7.1", "3.7.2", "3.8.0", "3.8.1", "3.9.0", "3.9.1", "3.9.2", "4.0.0", "4.0.2"]
CLIENTS = ["3.3.2", "3.4.1", "3.5.2", "3.6.0", "3.6.2", "3.7.0", "3.7.2", "3.8.1", "3.9.1", "3.9.2"]


def jar(artifact, version):
    p = os.path.join(M2, artifact, version, "%s-%s.jar" % (artifact, version))
    return p if os.path.isfile(p) else None


def fetch():
    want = [("kafka-server-common", v) for v in SERVER_COMMON]
    want += [("kafka-storage", v) for v in STORAGE]
    want += [("kafka_2.13", v) for v in CORE]
    want += [("kafka-clients", v) for v in CLIENTS]  # MetadataVersion < 4.0 links RecordVersion
    for a, v in want:
        if jar(a, v):
            continue
        r = subprocess.run(["mvn", "-q", "-B", "dependency:get", "-Dtransitive=false",
                            "-Dartifact=org.apache.kafka:%s:%s" % (a, v)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print("%-20s %-6s %s" % (a, v, "ok" if r.returncode == 0 else "NOT ON MAVEN CENTRAL"))


def mvdump(v):
    sc = jar("kafka-server-common", v)
    if not sc:
        return None
    cp = sc
    cl = jar("kafka-clients", v)
    if cl:
        cp += ":" + cl
    out = subprocess.run(["java", "-cp", cp, os.path.join(HERE, "MvDump.java"), v],
                         check=True, capture_output=True, text=True).stdout
    levels, latest = [], None
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "MV":
            levels.append((f[2], int(f[3]), f[4], f[6]))
        elif f[0] == "LATEST":
            latest = (None if f[2] == "-" else int(f[2]), None if f[3] == "-" else int(f[3]))
    return levels, latest


def line_of(v):
    return ".".join(v.split(".")[:2])


def mv(out=sys.stdout):
    names = {}      # level -> (enum name, release string), checked across jars
    lines = {}      # "4.1" -> (prod max, testing max, [patch releases read])
    for v in SERVER_COMMON:
        d = mvdump(v)
        if d is None:
            print("skip %s: no jar (run fetch)" % v, file=sys.stderr)
            continue
        levels, (prod, test) = d
        for name, lvl, rel, isprod in levels:
            print("MV\t%s\t%s\t%d\t%s\t%s" % (v, name, lvl, rel, isprod), file=sys.stderr)
            if lvl in names and names[lvl] != (name, rel):
                sys.exit("level %d is %s in one jar and %s in %s" % (lvl, names[lvl], (name, rel), v))
            names[lvl] = (name, rel)
        # 3.3 .. 3.6 have no production/testing split: the broker supports latest() up to its top.
        if prod is None:
            prod = test
        ln = line_of(v)
        if ln in lines and lines[ln][:2] != (prod, test):
            sys.exit("line %s: %s has levels %s, an earlier patch %s" % (ln, v, (prod, test), lines[ln][:2]))
        lines.setdefault(ln, (prod, test, []))[2].append(v)
    p = lambda text: print(text, file=out)
    p("/* generated by: python3 scripts/kafka-releases/kafka_releases.py mv */")
    p("static const struct ss_mv_level mv_levels[] = {")
    for lvl in sorted(names):
        name, rel = names[lvl]
        p('\t{ %2d, "%s", "%s" },' % (lvl, name, rel))
    p("};")
    p("static const struct ss_mv_line mv_lines[] = {")
    for ln in sorted(lines, key=lambda s: tuple(int(x) for x in s.split("."))):
        prod, test, vs = lines[ln]
        a, b = ln.split(".")
        latest = max(int(x.split(".")[2]) for x in vs)
        p('\t{ { %s, %s, SS_KVER_LINE }, %2d, %2d, %d, "%s" },' % (a, b, prod, test, latest, " ".join(vs)))
    p("};")


def javap(jarpath, cls, extra_cp=None):
    cp = jarpath + ((":" + extra_cp) if extra_cp else "")
    r = subprocess.run(["javap", "-c", "-p", "-cp", cp, cls], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def method_body(text, signature_re):
    """The bytecode lines of the first method whose declaration matches signature_re."""
    if text is None:
        return None
    out, on = [], False
    for line in text.splitlines():
        if not on and re.search(signature_re, line) and line.rstrip().endswith(";"):
            on = True
            continue
        if on:
            if line.strip() == "":
                break
            out.append(line)
    return out if on else None


def comparison(body):
    """onlyLocalLogSegments* filter: baseOffset <cmp> highestOffsetInRemoteStorage.
    The branch after lcmp jumps to 'false': iflt means keep when >=, ifle keep when >."""
    if body is None:
        return None
    for i, line in enumerate(body):
        if "lcmp" in line and i + 1 < len(body):
            op = body[i + 1].split()[1]
            return {"iflt": ">=", "ifle": ">", "ifgt": "<=", "ifge": "<"}.get(op, "?" + op)
    return "?"


def unified_log(v):
    st = jar("kafka-storage", v)
    t = javap(st, "org.apache.kafka.storage.internals.log.UnifiedLog") if st else None
    if t and "onlyLocalLogSegmentsSize" in t:
        return t, "kafka-storage-%s.jar org.apache.kafka.storage.internals.log.UnifiedLog" % v
    co = jar("kafka_2.13", v)
    t = javap(co, "kafka.log.UnifiedLog") if co else None
    if t:
        return t, "kafka_2.13-%s.jar kafka.log.UnifiedLog" % v
    return None, None


def expiration_task(v):
    """The class whose cleanupExpiredRemoteLogSegments runs remote retention."""
    cands = []
    st = jar("kafka-storage", v)
    if st:
        cands += [(st, "org.apache.kafka.server.log.remote.storage.RemoteLogManager$RLMExpirationTask")]
    co = jar("kafka_2.13", v)
    if co:
        cands += [(co, "kafka.log.remote.RemoteLogManager$RLMExpirationTask"),
                  (co, "kafka.log.remote.RemoteLogManager$RLMTask")]
    for j, c in cands:
        t = javap(j, c)
        if t and "cleanupExpiredRemoteLogSegments()" in t:
            return t, "%s %s" % (os.path.basename(j), c)
    return None, None


def local_retention(v):
    """KAFKA-17360: what UnifiedLog.localRetentionMs/Size hand on for a tiered log: the raw
    field LogConfig$RemoteLogConfig.localRetentionMs/Bytes (-2 unresolved: affected), or
    LogConfig.localRetentionMs()/localRetentionBytes(), which resolve -2 (fixed). The Scala
    object's methods are in kafka.log.UnifiedLog$ up to 4.0; static in kafka-storage after."""
    cands = []
    st = jar("kafka-storage", v)
    if st:
        cands.append((st, "org.apache.kafka.storage.internals.log.UnifiedLog"))
    co = jar("kafka_2.13", v)
    if co:
        cands.append((co, "kafka.log.UnifiedLog$"))
    for j, c in cands:
        t = javap(j, c)
        ms = method_body(t, r"long localRetentionMs\(")
        size = method_body(t, r"long localRetentionSize\(")
        if ms is None or size is None:
            continue
        text = "\n".join(ms + size)
        src = "%s %s.localRetentionMs/localRetentionSize" % (os.path.basename(j), c)
        if "RemoteLogConfig.localRetention" in text:
            return "affected", src + ": read the field RemoteLogConfig.localRetentionMs/Bytes (-2 handed on raw)"
        if "LogConfig.localRetentionMs:()J" in text and "LogConfig.localRetentionBytes:()J" in text:
            return "fixed", src + ": call LogConfig.localRetentionMs()/localRetentionBytes() (-2 resolved)"
        return "unknown", src + ": neither the raw field nor the resolving getters"
    return "unknown", "no localRetentionMs/localRetentionSize found"


def bytecode():
    print("release\tticket\tverdict\tevidence")
    for v in STORAGE:
        ul, ulsrc = unified_log(v)
        if ul is None:
            print("%s\t*\tunknown\tno kafka-storage/kafka_2.13 jar (not on Maven Central or not fetched)" % v)
            continue
        # KAFKA-20977: the comparison in the onlyLocalLogSegmentsCount / Size filters
        cnt = comparison(method_body(ul, r"(lambda\$|\$anonfun\$)onlyLocalLogSegmentsCount\$\d+\("))
        siz = comparison(method_body(ul, r"(lambda\$|\$anonfun\$)onlyLocalLogSegmentsSize\$\d+\("))
        if cnt is None:
            verdict = "not-present"  # no onlyLocalLogSegmentsCount, so no RemoteCopyLagSegments
        else:
            verdict = "affected" if cnt == ">=" else ("fixed" if cnt == ">" else "unknown")
        print("%s\tKAFKA-20977\t%s\t%s: onlyLocalLogSegmentsCount filter %s, onlyLocalLogSegmentsSize filter %s"
              % (v, verdict, ulsrc, cnt or "absent", siz or "absent"))
        # KAFKA-17360: local.retention.ms/bytes -2 handed on raw
        print("%s\tKAFKA-17360\t%s\t%s" % ((v,) + local_retention(v)))

        et, etsrc = expiration_task(v)
        body = method_body(et, r"void cleanupExpiredRemoteLogSegments\(\)")
        if body is None:
            print("%s\t*\tunknown\tno cleanupExpiredRemoteLogSegments found" % v)
            continue
        text = "\n".join(body)
        # KAFKA-20732: a seeding call before the size-retention computation
        seed = re.search(r"findHighestRemoteOffset|maybeSeedHighestOffsetInRemoteStorage", text)
        size_at = text.find("onlyLocalLogSegmentsSize")
        seeded_first = seed is not None and (size_at < 0 or seed.start() < size_at)
        print("%s\tKAFKA-20732\t%s\t%s.cleanupExpiredRemoteLogSegments: %s" % (
            v, "fixed" if seeded_first else "affected", etsrc,
            ("calls %s before onlyLocalLogSegmentsSize" % seed.group(0)) if seeded_first
            else "no findHighestRemoteOffset/maybeSeed call before onlyLocalLogSegmentsSize"))
        # KAFKA-21098: updateRemoteDeleteLagWith guarded by isCancelled()
        upd = method_body(et, r"void updateRemoteDeleteLagWith\(")
        if upd is None:
            print("%s\tKAFKA-21098\tnot-present\t%s: no updateRemoteDeleteLagWith (no delete-lag gauges)" % (v, etsrc))
        else:
            guarded = any("isCancelled" in l for l in upd[:4])
            print("%s\tKAFKA-21098\t%s\t%s.updateRemoteDeleteLagWith: %s" % (
                v, "fixed" if guarded else "affected", etsrc,
                "starts with an isCancelled() guard" if guarded else "records the gauges unconditionally"))
        # KAFKA-17428: the expiration pass retries segments left in DELETE_SEGMENT_STARTED
        retry = "DELETE_SEGMENT_STARTED" in text
        print("%s\tKAFKA-17428\t%s\t%s.cleanupExpiredRemoteLogSegments: %s" % (
            v, "fixed" if retry else "affected", etsrc,
            "reads RemoteLogSegmentState.DELETE_SEGMENT_STARTED (the retry)" if retry
            else "never looks at DELETE_SEGMENT_STARTED (no retry of a failed cleanup)"))
        # KAFKA-20932: RemoteLogLeaderEpochState drops the value offsetToId.put() returns
        st = jar("kafka-storage", v)
        le = javap(st, "org.apache.kafka.server.log.remote.metadata.storage.RemoteLogLeaderEpochState") if st else None
        fb = method_body(le, r"void handleSegmentWithCopySegmentFinishedState\(")
        if fb is None:
            print("%s\tKAFKA-20932\tunknown\tno RemoteLogLeaderEpochState.handleSegmentWithCopySegmentFinishedState" % v)
        else:
            dropped = None
            for i, l in enumerate(fb):
                if re.search(r"Map\.put:", l) and i + 1 < len(fb):
                    dropped = fb[i + 1].split()[1] == "pop"
            print("%s\tKAFKA-20932\t%s\tkafka-storage-%s.jar RemoteLogLeaderEpochState."
                  "handleSegmentWithCopySegmentFinishedState: offsetToId.put() result %s" % (
                      v, "affected" if dropped else ("fixed" if dropped is False else "unknown"), v,
                      "discarded (pop)" if dropped else ("used" if dropped is False else "not found")))


RELEASES_C = os.path.join(HERE, "..", "..", "src", "eval", "releases.c")


def kv(text):
    a = [x.strip() for x in text.split(",")]
    return (int(a[0]), int(a[1]), -1 if a[2] == "SS_KVER_LINE" else int(a[2]))


def c_tickets(c):
    """The ticket table of releases.c: id -> (introduced, fixed_line, {(maj, min): (last, first_fixed)})."""
    arrays = {}
    for m in re.finditer(r"static const struct ss_ticket_line (t\d+)\[\] = \{(.*?)\n\};", c, re.S):
        rows = {}
        for r in re.finditer(r"\{ \{ (\d+), (\d+), SS_KVER_LINE \}, (-?\d+), (-?\d+),", m.group(2)):
            rows[(int(r.group(1)), int(r.group(2)))] = (int(r.group(3)), int(r.group(4)))
        arrays[m.group(1)] = rows
    out = {}
    for m in re.finditer(r'\.id = "(KAFKA-\d+)".*?\.introduced = \{ ([^}]*) \}.*?\.fixed_line = \{ ([^}]*) \}'
                         r".*?\.lines = (t\d+),", c, re.S):
        out[m.group(1)] = (kv(m.group(2)), kv(m.group(3)), arrays[m.group(4)])
    return out


def c_verdict(t, v):
    """What the C table claims for exact release v (a tuple): affected / fixed / not-present / unknown."""
    intro, fixed, rows = t
    if v[:2] < intro[:2] or (v[:2] == intro[:2] and v[2] < intro[2]):
        return "not-present"
    if fixed[0] and v[:2] >= fixed[:2]:
        return "fixed"
    last, first = rows.get(v[:2], (-1, -1))
    if first >= 0 and v[2] >= first:
        return "fixed"
    return "affected" if v[2] <= last else "unknown"


def check():
    """Exit non-zero when src/eval/releases.c disagrees with the jars."""
    import io
    bad = 0
    c = open(RELEASES_C).read()
    buf = io.StringIO()
    mv(buf)
    gen = buf.getvalue().split("\n", 1)[1].strip()
    body = c[c.index("static const struct ss_mv_level mv_levels[]"):c.index("/* end of generated table */")].strip()
    if gen != body:
        print("metadata.version table in releases.c differs from `mv` output")
        bad += 1
    tickets = c_tickets(c)
    buf = io.StringIO()
    stdout, sys.stdout = sys.stdout, buf
    try:
        bytecode()
    finally:
        sys.stdout = stdout
    for line in buf.getvalue().splitlines()[1:]:
        rel, ticket, verdict, evidence = line.split("\t", 3)
        if ticket == "*":
            continue
        v = tuple(int(x) for x in rel.split("."))
        claim = c_verdict(tickets[ticket], v)
        if claim != verdict:
            print("%s %s: bytecode says %s, releases.c says %s (%s)" % (ticket, rel, verdict, claim, evidence))
            bad += 1
    print("check: %s" % ("OK" if bad == 0 else "%d disagreement(s)" % bad))
    sys.exit(1 if bad else 0)


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "fetch":
        fetch()
    elif cmd == "mv":
        mv()
    elif cmd == "bytecode":
        bytecode()
    elif cmd == "check":
        check()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
