#!/usr/bin/env python3
"""funclen.py [--over N] [--top N] [DIR|FILE...]: the length of every function (default: in src).

Issue 23's budget for src/: no function over 120 lines, no more than 10 over 80.

How it counts: the project's style puts a function's opening and closing braces alone in
column 0 (`{` / `}`), so a function is the lines from the first line of its signature (the
return type, possibly on the line above the name) down to that closing `}`, both included.
Blank lines and comments inside count: they are part of what a reader reads. Struct and
array initialisers at file scope (`= {`) and anything else whose `{` is not alone in
column 0 are not functions and are skipped. The count reproduces the issue's figures at
49a22eb (38 over 80, 9 over 150, ss_eval_partition 261).

Output: one line per function, longest first: LINES  FILE:LINE  NAME; then a summary
line `N functions, M over 80, K over 120`. Exit 0 always: this is a measure, not a gate.
"""
import os
import re
import sys


def functions(path):
    """Yields (name, first line, last line, length) for each function of one C file."""
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].rstrip() != "{":
            i += 1
            continue
        # the signature: the lines above the brace back to the one that starts in column 0
        # (continuation lines of a long parameter list are indented)
        j = i - 1
        while j > 0 and lines[j].startswith((" ", "\t")) and lines[j - 1].strip() \
                and not lines[j - 1].rstrip().endswith((";", "}", "*/")) \
                and not lines[j - 1].startswith("#"):
            j -= 1
        # a return type on its own line above the name (`static int` / `name(...)`)
        if j > 0 and re.match(r"^[A-Za-z_][\w \*]*$", lines[j - 1].rstrip()) \
                and not lines[j - 1].rstrip().endswith((";", "}")) and "(" not in lines[j - 1] \
                and re.match(r"^\w+\s*\(", lines[j]):
            j -= 1
        sig = " ".join(line.strip() for line in lines[j:i])
        k = i + 1
        while k < len(lines) and lines[k].rstrip() != "}":
            k += 1
        m = re.search(r"(\w+)\s*\(", sig)
        if m and "=" not in sig.split("(")[0]:
            yield m.group(1), j + 1, k + 1, k - j + 1
        i = k + 1


def main(argv):
    over, top, dirs = 0, 0, []
    it = iter(argv)
    for a in it:
        if a == "--over":
            over = int(next(it))
        elif a == "--top":
            top = int(next(it))
        else:
            dirs.append(a)
    rows = []
    for d in dirs or ["src"]:
        walk = [(os.path.dirname(d), None, [os.path.basename(d)])] if os.path.isfile(d) else os.walk(d)
        for dp, _, fns in walk:
            for fn in sorted(fns):
                if fn.endswith((".c", ".h")):
                    p = os.path.join(dp, fn)
                    rows += [(n, p, s, ln) for n, s, _, ln in functions(p)]
    rows.sort(key=lambda r: (-r[3], r[1], r[2]))
    shown = [r for r in rows if r[3] > over]
    for n, p, s, ln in shown[:top] if top else shown:
        print(f"{ln:5d}  {p}:{s}  {n}")
    print(f"{len(rows)} functions, {sum(r[3] > 80 for r in rows)} over 80, "
          f"{sum(r[3] > 120 for r in rows)} over 120")


if __name__ == "__main__":
    main(sys.argv[1:])
