#!/usr/bin/env python3
"""Checks that src/ is layered: no file imports a file that imports it back
(directly or through others), except the builder and the pools it builds
(`Pool::builder()` returns a builder whose `build()` returns a `Pool`).

A file's imports are the `crate::`, `super::` and `self::` paths in its code
(comments left out; doc attributes count), each taken to the file that
defines its module. `lib.rs` is left out: it declares and re-exports every
module, and the code imports from the defining modules, not through it.

  python3 .ci/layers.py        # fails, naming the loop, if there is one
  python3 .ci/layers.py -v     # also prints every file's imports
"""
import os
import re
import sys

ROOT = "src"
# The one loop that belongs: the builder and the pools it builds.
ALLOWED = {"src/builder.rs", "src/pool.rs", "src/func.rs"}


def module_of(path):
    parts = os.path.relpath(path, ROOT)[:-3].split("/")
    return parts[:-1] if parts[-1] in ("mod", "lib") else parts


def main():
    files = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(ROOT) for f in fs if f.endswith(".rs")
    )
    by_module = {tuple(module_of(f)): f for f in files}

    def resolve(segments):
        for n in range(len(segments), 0, -1):
            hit = by_module.get(tuple(segments[:n]))
            if hit:
                return hit
        return None

    path_re = re.compile(
        r"\b(crate|super|self)::((?:[A-Za-z_]\w*::)*)(\{[^;]*?\}|[A-Za-z_]\w*)", re.S
    )
    graph = {}
    for f in files:
        if f == os.path.join(ROOT, "lib.rs"):
            continue
        me = module_of(f)
        code = re.sub(r"//[^\n]*", "", open(f).read())
        targets = set()
        for base, middle, last in path_re.findall(code):
            start = [] if base == "crate" else me[:-1] if base == "super" else me
            segments = [s for s in middle.split("::") if s]
            while segments and segments[0] == "super":
                start, segments = start[:-1], segments[1:]
            heads = (
                [p.strip().split("::")[0].strip("{ ") for p in last[1:-1].split(",")]
                if last.startswith("{")
                else [last]
            )
            for head in heads:
                hit = resolve(start + segments + ([head] if head else []))
                if hit and hit != f and not hit.endswith("/lib.rs"):
                    targets.add(hit)
        graph[f] = targets

    # Tarjan's strongly connected components: each of more than one file is a loop.
    index, low, stack, on_stack, loops = {}, {}, [], set(), []
    sys.setrecursionlimit(10_000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)

    if "-v" in sys.argv:
        for f in sorted(graph):
            print(f, "->", " ".join(sorted(graph[f])) or "-")
    bad = [c for c in loops if not set(c) <= ALLOWED]
    for c in bad:
        print(f"import loop among {len(c)} files of src/:", file=sys.stderr)
        members = set(c)
        for a in c:
            for b in sorted(graph[a] & members):
                print(f"  {a} -> {b}", file=sys.stderr)
    if bad:
        print(
            "Each layer imports only the layers below it (ARCHITECTURE.md): move the "
            "shared item down, or the method up into the file of its feature.",
            file=sys.stderr,
        )
        sys.exit(1)
    print(f"src/ is layered: {len(graph)} files, no import loop but the builder's")


main()
