#!/usr/bin/env python3
"""The layering check: no include and no call from a lower layer to a higher one.

    scripts/check-layers.py [BUILD_DIR]       (default build; its objects are BUILD_DIR/obj/src)
    scripts/check-layers.py --self-test       proves the check catches what it should

The layers are the table under "### The layer table" in docs/architecture.md (one copy:
this script reads it, so the page and the check cannot disagree). A unit is a folder of
src/ (`scan`; src/model.h belongs to `model`) or `include` (the public headers). Each unit may
use units of a lower rank only: a unit of the same rank or a higher one is a violation.

Two graphs are read:
  includes  every `#include "..."` in src/ (*.c, *.h), resolved as the compiler does
            (the including file's folder, then -Isrc, then -Iinclude);
  calls     every object of the build: `nm -u` (what it references) against
            `nm --defined-only` of all of them (which unit defines each symbol), so a
            lower layer that calls a higher one is caught even without an include.

Known violations are listed, each with its reason, in scripts/layers-exceptions.txt; the
restructuring that fixes one removes its line. A violation not listed fails, and so does a
listed one that no longer occurs (a stale line would hide the next one of its kind).
Exit status: 0 clean, 1 violations or stale exceptions, 2 the check could not run.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "architecture.md")
EXCEPTIONS = os.path.join(ROOT, "scripts", "layers-exceptions.txt")
TABLE_HEADING = "### The layer table"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


class Fatal(Exception):
    pass


def read_table(doc_text):
    """{unit: rank} from the markdown table under TABLE_HEADING: | rank | `unit`, ... | ... |"""
    ranks, inside = {}, False
    for line in doc_text.splitlines():
        if line.startswith("#"):
            if inside:
                break
            inside = line.strip() == TABLE_HEADING
            continue
        if not inside:
            continue
        m = re.match(r"^\|\s*(\d+)\s*\|([^|]*)\|", line)
        if not m:
            continue
        for unit in re.findall(r"`([^`]+)`", m.group(2)):
            if unit in ranks:
                raise Fatal(f"the layer table names `{unit}` twice")
            ranks[unit] = int(m.group(1))
    if not ranks:
        raise Fatal(f"no layer table under '{TABLE_HEADING}'")
    return ranks


def unit_of(rel):
    """The unit of a path relative to the tree's root: include/... is `include`, src/X/...
    is `X`, and a file at the top of src/ belongs to the folder of its name (src/model.h
    is `model`)."""
    if rel.startswith("include/"):
        return "include"
    rel = rel[len("src/"):] if rel.startswith("src/") else rel
    return rel.split("/", 1)[0] if "/" in rel else rel.split(".", 1)[0]


def read_exceptions(text):
    """{(kind, where, what): reason}. Lines: KIND WHERE WHAT REASON..., '#' comments."""
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 3)
        if len(parts) < 4 or parts[0] not in ("include", "call"):
            raise Fatal(f"exceptions line {n}: want 'include|call WHERE WHAT REASON', got: {line}")
        out[(parts[0], parts[1], parts[2])] = parts[3]
    return out


def includes(root, files, extra=None):
    """[(where, line, written, target rel path)] for every quoted include of files (paths
    relative to root); extra: {rel: text} read instead of the disk."""
    out = []
    for rel in files:
        text = (extra or {}).get(rel)
        if text is None:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                text = f.read()
        for n, line in enumerate(text.splitlines(), 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            inc = m.group(1)
            for cand in (os.path.join(os.path.dirname(rel), inc), os.path.join("src", inc),
                         os.path.join("include", inc)):
                cand = os.path.normpath(cand)
                if os.path.isfile(os.path.join(root, cand)) or cand in (extra or {}):
                    out.append((rel, n, inc, cand))
                    break
    return out


def nm(args, obj):
    r = subprocess.run(["nm", "-P"] + args + [obj], capture_output=True, text=True)
    if r.returncode != 0:
        raise Fatal(f"nm {' '.join(args)} {obj}: {r.stderr.strip()}")
    return [l.split() for l in r.stdout.splitlines() if l.strip()]


def calls(objs):
    """[(where, symbol, defining rel)] for every reference of an object to a symbol that
    another object defines. objs: [(rel of its .c, path of its .o)]."""
    defined = {}
    for rel, obj in objs:
        for f in nm(["--defined-only"], obj):
            # f: name type [value size]; local symbols (lower case but v/w) are private
            if len(f) >= 2 and (f[1].isupper() or f[1] in "vw") and not f[0].startswith("_."):
                defined.setdefault(f[0], set()).add(rel)
    out = []
    for rel, obj in objs:
        for f in nm(["-u"], obj):
            owners = defined.get(f[0], set()) - {rel}
            # a symbol several files define (a weak or COMDAT copy) has no one owner
            if len(owners) == 1:
                out.append((rel, f[0], next(iter(owners))))
    return out


def check(root, ranks, exceptions, src_files, objs, extra=None):
    """(violations, stale exception keys). A violation: (key, message)."""
    found = {}

    def edge(kind, where, what, target_rel, place):
        a, b = unit_of(where), unit_of(target_rel)
        if a == b:
            return
        for u, p in ((a, where), (b, target_rel)):
            if u not in ranks:
                raise Fatal(f"{p}: unit `{u}` is not in the layer table ({DOC})")
        if ranks[b] < ranks[a]:
            return
        how = "the same rank" if ranks[b] == ranks[a] else "a higher rank"
        key = (kind, where[len("src/"):], what)
        found.setdefault(key, f"{kind} {place}: {a} (rank {ranks[a]}) -> {what} in {b} "
                              f"(rank {ranks[b]}): {how}")

    for where, line, written, target in includes(root, src_files, extra):
        edge("include", where, written, target, f"{where}:{line}")
    for where, sym, owner in calls(objs):
        edge("call", where, sym, owner, f"{where} (nm -u)")
    violations = [(k, m) for k, m in sorted(found.items()) if k not in exceptions]
    stale = sorted(k for k in exceptions if k not in found)
    return violations, stale


def tree(root, objdir):
    """The source files of src/ and, for each .c that has one, its object."""
    files, objs = [], []
    for d, _, names in os.walk(os.path.join(root, "src")):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(d, n), root)
                files.append(rel)
                o = os.path.join(objdir, rel[:-2] + ".o")
                if n.endswith(".c") and os.path.isfile(o):
                    objs.append((rel, o))
    return sorted(files), objs


def report(violations, stale, out=sys.stderr):
    for _, m in violations:
        print(f"check-layers: {m}", file=out)
    for k in stale:
        print(f"check-layers: stale exception (no longer happens, remove its line from "
              f"{os.path.relpath(EXCEPTIONS, ROOT)}): {' '.join(k)}", file=out)


def run(build):
    objdir = os.path.join(build, "obj")
    with open(DOC, encoding="utf-8") as f:
        ranks = read_table(f.read())
    with open(EXCEPTIONS, encoding="utf-8") as f:
        exc = read_exceptions(f.read())
    files, objs = tree(ROOT, objdir)
    if not objs:
        raise Fatal(f"no objects under {objdir}/src: build first (make B={build} all)")
    violations, stale = check(ROOT, ranks, exc, files, objs)
    report(violations, stale)
    print(f"check-layers: {len(files)} files, {len(objs)} objects, {len(exc)} known exceptions, "
          f"{len(violations)} new violations, {len(stale)} stale exceptions", file=sys.stderr)
    return 1 if violations or stale else 0


# ---- self-test: the check must catch injected violations ------------------------------------

def self_test(build):
    fails = []

    def expect(what, cond):
        if not cond:
            fails.append(what)

    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as t:
        # A miniature tree: common (0) < fmt (1) < scan (2), and io on fmt's line.
        table = ("### The layer table\n\n| rank | units |\n|---|---|\n| 2 | `scan` |\n"
                 "| 1 | `fmt`, `io` |\n| 0 | `common`, `include` |\n\n## next\n")
        ranks = read_table(table)
        srcs = {
            "src/common/c.h": "int c_fn(void);\n",
            "src/common/c.c": '#include "common/c.h"\nint c_fn(void) { return 1; }\n',
            "src/scan/s.h": "int scan_fn(void);\n",
            "src/scan/s.c": '#include "common/c.h"\n#include "fmt/f.h"\nint scan_fn(void) { return c_fn() + f_fn(); }\n',
            "src/fmt/f.h": "int f_fn(void);\n",
            "src/fmt/f.c": '#include "f.h"\n#include "common/c.h"\nint f_fn(void) { return c_fn(); }\n',
            "src/io/i.c": "int i_fn(void) { return 0; }\n",
        }

        def build_tree(over):
            files = dict(srcs, **over)
            root = tempfile.mkdtemp(dir=t)
            objs = []
            for rel, text in files.items():
                p = os.path.join(root, rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write(text)
            for rel in files:
                if rel.endswith(".c"):
                    o = os.path.join(root, "obj", rel[:-2] + ".o")
                    os.makedirs(os.path.dirname(o), exist_ok=True)
                    subprocess.run([cc, "-c", "-I", os.path.join(root, "src"), "-o", o,
                                    os.path.join(root, rel)], check=True)
                    objs.append((rel, o))
            return root, sorted(files), objs

        def keys(over, exc=None):
            root, files, objs = build_tree(over)
            v, s = check(root, ranks, exc or {}, files, objs)
            return [k for k, _ in v], s

        expect("a clean tree passes", keys({}) == ([], []))
        # a parser calls the scanner, without including anything of it
        up_call = {"src/fmt/f.c": "int scan_fn(void);\nint f_fn(void) { return scan_fn(); }\n"}
        expect("an upward call is caught", keys(up_call)[0] == [("call", "fmt/f.c", "scan_fn")])
        up_inc = {"src/fmt/f.h": '#include "scan/s.h"\nint f_fn(void);\n'}
        expect("an upward include is caught", keys(up_inc)[0] == [("include", "fmt/f.h", "scan/s.h")])
        side = {"src/io/i.c": '#include "fmt/f.h"\nint i_fn(void) { return f_fn(); }\n'}
        expect("a same-rank include and call are caught",
               keys(side)[0] == [("call", "io/i.c", "f_fn"), ("include", "io/i.c", "fmt/f.h")])
        listed = {("call", "fmt/f.c", "scan_fn"): "a reason"}
        expect("a listed violation passes", keys(up_call, listed) == ([], []))
        expect("a listed violation that is gone is stale",
               keys({}, listed) == ([], [("call", "fmt/f.c", "scan_fn")]))
        try:
            keys({"src/newdir/n.c": '#include "common/c.h"\n'})
            expect("a folder missing from the table stops the check", False)
        except Fatal:
            pass

        # The real tree, its table and its exceptions, plus one injected object of src/fmt/
        # that calls the scanner and includes its header: exactly those two are caught.
        objdir = os.path.join(build, "obj")
        with open(DOC, encoding="utf-8") as f:
            real_ranks = read_table(f.read())
        with open(EXCEPTIONS, encoding="utf-8") as f:
            exc = read_exceptions(f.read())
        files, objs = tree(ROOT, objdir)
        if not objs:
            raise Fatal(f"no objects under {objdir}/src: build first (make B={build} all)")
        inj_rel = "src/fmt/injected_violation.c"
        inj_text = ('#include "scan/scan_int.h"\n'
                    "void ss_evaluator_kick(struct segscan_scan *s);\n"
                    "void injected(struct segscan_scan *s) { ss_evaluator_kick(s); }\n")
        inj_c, inj_o = os.path.join(t, "injected.c"), os.path.join(t, "injected.o")
        with open(inj_c, "w") as f:   # its object: the call alone (the include is read from inj_text)
            f.write("void ss_evaluator_kick(void *s);\nvoid injected(void *s) { ss_evaluator_kick(s); }\n")
        subprocess.run([cc, "-c", "-o", inj_o, inj_c], check=True)
        v, s = check(ROOT, real_ranks, exc, files + [inj_rel], objs + [(inj_rel, inj_o)],
                     extra={inj_rel: inj_text})
        got = [k for k, _ in v]
        expect(f"the injected violations in the real tree are caught (got {got}, stale {s})",
               got == [("call", "fmt/injected_violation.c", "ss_evaluator_kick"),
                       ("include", "fmt/injected_violation.c", "scan/scan_int.h")])
    for f in fails:
        print(f"check-layers: self-test FAILED: {f}", file=sys.stderr)
    if not fails:
        print("check-layers: self-test passed (upward and same-rank includes and calls caught, "
              "exceptions and stale exceptions honoured, an injected violation in the real tree caught)",
              file=sys.stderr)
    return 1 if fails else 0


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    build = args[0] if args else os.path.join(ROOT, "build")
    try:
        if "--self-test" in argv:
            return self_test(build)
        return run(build)
    except (Fatal, OSError, subprocess.CalledProcessError) as e:
        print(f"check-layers: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
