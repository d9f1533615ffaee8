#!/usr/bin/env python3
"""Flame graphs without downloading anything: collapse `perf script` stacks and draw
them as a self-contained SVG (hover a frame for its name, samples and share; click
nothing, no JavaScript). Standard library only. See docs/profiling.md.

  perf script -i perf.data | scripts/flamegraph.py > flame.svg
  scripts/flamegraph.py --collapse perf.txt > folded.txt     # folded stacks only
  scripts/flamegraph.py --folded folded.txt > flame.svg      # draw folded stacks

Folded format (Brendan Gregg's stackcollapse): one line per distinct stack,
"root;caller;...;leaf COUNT". The thread name (perf's comm) is the root frame, so
workers and the evaluator separate once threads are named.
"""
import argparse
import html
import re
import sys
import zlib

HEADER = re.compile(r"^(\S.*?)\s+(\d+)(?:/\d+)?\s+(?:\[\d+\]\s+)?[\d.]+:\s*(\d+)?\s*\S*:?")
FRAME = re.compile(r"^\s+[0-9a-fA-F]+\s+(.*?)\s+\((.*)\)\s*$")


def clean(sym, dso):
    if sym.startswith("[unknown]"):
        base = dso.rsplit("/", 1)[-1]
        return "[%s]" % base if base else "[unknown]"
    sym = re.sub(r"\+0x[0-9a-fA-F]+$", "", sym)
    return sym.replace(";", ":")


def collapse(lines, with_comm=True):
    """perf script text -> {folded stack: samples}. Frames come leaf first."""
    stacks = {}
    comm, frames, weight = None, [], 1

    def flush():
        if comm is not None and frames:
            parts = ([comm] if with_comm else []) + list(reversed(frames))
            key = ";".join(parts)
            stacks[key] = stacks.get(key, 0) + weight

    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            flush()
            comm, frames, weight = None, [], 1
            continue
        if comm is None and not line[0].isspace():
            m = HEADER.match(line)
            comm = (m.group(1) if m else line.split()[0]).strip().replace(";", ":").replace(" ", "_")
            frames = []
            weight = 1
            continue
        m = FRAME.match(line)
        if m and comm is not None:
            frames.append(clean(m.group(1), m.group(2)))
    flush()
    return stacks


def read_folded(lines):
    stacks = {}
    for line in lines:
        line = line.rstrip("\n")
        if not line:
            continue
        stack, _, n = line.rpartition(" ")
        try:
            stacks[stack] = stacks.get(stack, 0) + int(n)
        except ValueError:
            continue
    return stacks


class Node:
    __slots__ = ("name", "value", "children")

    def __init__(self, name):
        self.name = name
        self.value = 0
        self.children = {}


def build(stacks):
    root = Node("all")
    for stack, n in stacks.items():
        root.value += n
        node = root
        for f in stack.split(";"):
            child = node.children.get(f)
            if child is None:
                child = node.children[f] = Node(f)
            child.value += n
            node = child
    return root


def color(name):
    # flamegraph.pl's "hot" palette, keyed by a hash of the name so colours are stable
    h = zlib.crc32(name.encode())
    v1, v2, v3 = (h & 0xff) / 255.0, ((h >> 8) & 0xff) / 255.0, ((h >> 16) & 0xff) / 255.0
    if name.startswith("[") or name.endswith("_[k]"):
        return "rgb(%d,%d,%d)" % (60 + 60 * v1, 130 + 60 * v2, 200 + 55 * v3)   # kernel / unknown: blue
    return "rgb(%d,%d,%d)" % (205 + 50 * v3, 230 * v1, 55 * v2)


def depth(node):
    return 1 + max((depth(c) for c in node.children.values()), default=0)


def svg(root, title, width=1200, frame_h=16, font=12, min_px=0.3):
    levels = depth(root)
    pad_top, pad_bottom = 3 * frame_h, frame_h
    height = pad_top + levels * frame_h + pad_bottom
    total = root.value or 1
    scale = (width - 20) / total
    char_w = font * 0.59
    out = ['<?xml version="1.0" standalone="no"?>',
           '<svg version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" '
           'xmlns="http://www.w3.org/2000/svg">' % (width, height, width, height),
           '<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; } '
           'rect:hover { stroke: #000; stroke-width: 0.5; }</style>' % font,
           '<rect x="0" y="0" width="%d" height="%d" fill="#f8f8f8"/>' % (width, height),
           '<text x="%d" y="%d" text-anchor="middle" style="font-size:%dpx">%s</text>' % (
               width / 2, frame_h * 1.5, font + 4, html.escape(title)),
           '<text x="10" y="%d" style="fill:#666">%d samples; width = share of samples; '
           'hover a frame for details</text>' % (height - 4, total)]

    def draw(node, x, level):
        w = node.value * scale
        if w < min_px:
            return
        y = height - pad_bottom - (level + 1) * frame_h
        pct = 100.0 * node.value / total
        label = "%s (%d samples, %.2f%%)" % (node.name, node.value, pct)
        out.append('<g><title>%s</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" rx="2"/>' % (
            html.escape(label), 10 + x, y, w, frame_h - 1, color(node.name)))
        fit = int((w - 6) / char_w)
        if fit >= 3:
            text = node.name if len(node.name) <= fit else node.name[:fit - 2] + ".."
            out.append('<text x="%.2f" y="%d">%s</text>' % (10 + x + 3, y + frame_h - 4, html.escape(text)))
        out.append("</g>")
        cx = x
        for name in sorted(node.children):
            child = node.children[name]
            draw(child, cx, level + 1)
            cx += child.value * scale

    draw(root, 0, 0)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description="perf script -> flame graph SVG")
    ap.add_argument("input", nargs="?", default="-", help="perf script output (default stdin)")
    ap.add_argument("--folded", action="store_true", help="input is already folded stacks")
    ap.add_argument("--collapse", action="store_true", help="only print folded stacks")
    ap.add_argument("--no-comm", action="store_true", help="do not use the thread name as the root frame")
    ap.add_argument("--title", default="segscan flame graph")
    ap.add_argument("--width", type=int, default=1200)
    a = ap.parse_args()
    f = sys.stdin if a.input == "-" else open(a.input, errors="replace")
    stacks = read_folded(f) if a.folded else collapse(f, with_comm=not a.no_comm)
    if not stacks:
        print("flamegraph: no stacks in the input (was perf record run with -g?)", file=sys.stderr)
        return 1
    if a.collapse:
        for k in sorted(stacks):
            sys.stdout.write("%s %d\n" % (k, stacks[k]))
        return 0
    sys.stdout.write(svg(build(stacks), a.title, width=a.width))
    return 0


if __name__ == "__main__":
    sys.exit(main())
