#!/usr/bin/env python3
"""core's folders are layers: each includes only itself and the layers below it.

core/layers.txt lists the layers bottom-up, one per line ("name: what it holds"). Each layer is a
folder of sources, core/src/<layer>/, and of public headers, core/include/weft/core/<layer>/. This
check reads every #include "..." of core's sources and public headers and fails on one that names
a layer above its own (or a sibling's private header through "../"), printing each as
  core/src/schedule/sync.cpp:12: includes weft/core/strategy/registry.h (strategy is above schedule)
It also fails on a source or header outside every layer's folder, and on a public header included
by a path that names no layer ("weft/core/x.h" where x.h lives in a layer's folder).

usage: scripts/check-layers.py [ROOT]   (exit 0: clean, 1: violations, 2: bad layers.txt)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def read_layers(root):
    path = os.path.join(root, "core", "layers.txt")
    layers = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    layers.append(line.split(":", 1)[0].strip())
    except OSError as e:
        print(f"check-layers: cannot read {path}: {e}")
        sys.exit(2)
    if len(set(layers)) != len(layers) or not layers:
        print(f"check-layers: {path}: layers must be listed once each")
        sys.exit(2)
    return layers


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    layers = read_layers(root)
    rank = {name: i for i, name in enumerate(layers)}
    src = os.path.join(root, "core", "src")
    inc = os.path.join(root, "core", "include", "weft", "core")
    problems = []
    files = []  # (path, layer)
    for base, kind in ((src, "source"), (inc, "header")):
        for dirpath, _, names in os.walk(base):
            rel = os.path.relpath(dirpath, base)
            layer = rel.split(os.sep)[0] if rel != "." else None
            for name in sorted(names):
                if not name.endswith((".h", ".cpp", ".in")):
                    continue
                path = os.path.join(dirpath, name)
                if layer not in rank:
                    if name not in ("CMakeLists.txt",) and not (kind == "source" and layer is None and name.endswith(".cpp")):
                        problems.append(f"{os.path.relpath(path, root)}: outside every layer's folder (core/layers.txt)")
                    continue
                files.append((path, layer))
    public = {}  # header file name -> layer, for "weft/core/x.h" includes that name no layer
    for path, layer in files:
        if path.startswith(inc):
            public[os.path.basename(path)] = layer
    for path, layer in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            target = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            where = f"{os.path.relpath(path, root)}:{line}"
            to = None
            if target.startswith("weft/core/"):
                parts = target.split("/")
                if len(parts) >= 4 and parts[2] in rank:
                    to = parts[2]
                elif len(parts) == 3:
                    if parts[2] in public:
                        problems.append(f"{where}: includes {target}, which lives in layer {public[parts[2]]}: name it weft/core/{public[parts[2]]}/{parts[2]}")
                    continue
            elif target.startswith("../"):
                parts = target.split("/")
                if len(parts) >= 3 and parts[1] in rank:
                    problems.append(f"{where}: includes {target}, another layer's private header: use its public API")
                    to = parts[1]
            if to is not None and rank[to] > rank[layer]:
                problems.append(f"{where}: includes {target} ({to} is above {layer})")
    for p in problems:
        print(p)
    print(f"check-layers: {len(layers)} layers ({' < '.join(layers)}), {len(files)} files, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
