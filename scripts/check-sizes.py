#!/usr/bin/env python3
"""Source files over 800 lines and functions over 150 lines in core, gpu, ui, python and app.

A function is a brace block opened at namespace or class level by a line that ends a signature
(a ')' before the '{', not a control statement, lambda or initialiser); its length runs from the
signature's first line to the closing brace. Comments and strings are stripped before braces are
counted. Good enough for this code base's formatting (clang-format, Google style); it prints what
it finds and exits 1 when something is over, so a test can hold the line.

usage: scripts/check-sizes.py [--max-file N] [--max-function N] [ROOT]
"""
import argparse
import os
import re
import sys

FOLDERS = ("core", "gpu", "ui", "python", "app")
EXTENSIONS = (".cpp", ".h", ".cu")
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|else|do|return)\b")


def strip(text):
    """The text with comments, string and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + (m.group(1) if m else "") + '"', i)
            j = n if end < 0 else end + len(m.group(1) if m else "") + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, last line) of each function body found at namespace or class level."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = strip(f.read()).split("\n")
    found = []
    depth = 0
    scopes = []  # per open brace: "fn" for a function body, "scope" for namespace/class/other
    start = None
    for no, line in enumerate(lines, 1):
        for k, ch in enumerate(line):
            if ch == "{":
                kind = "scope"
                if all(s == "scope" for s in scopes):
                    head = line[:k].rstrip()
                    # Look back over the signature's lines for the ')' that ends it.
                    sig, first = head, no
                    back = no - 2
                    while not sig.strip() and back >= 0:
                        sig, first = lines[back].rstrip(), back + 1
                        back -= 1
                    is_type = re.search(r"\b(namespace|class|struct|union|enum)\b", sig) and not sig.rstrip().endswith(")")
                    ends_signature = re.search(r"\)\s*(const)?\s*(&&|&)?\s*(noexcept)?\s*(override|final)?\s*(->\s*[\w:<>, *&]+)?\s*$", sig)
                    ctor_init = sig.lstrip().startswith(":") or re.search(r"\)\s*:\s", sig)
                    if not is_type and (ends_signature or ctor_init) and not CONTROL.match(sig) and "=" not in sig.split("(")[0][-3:]:
                        # The signature may span lines: its first line is where the name is.
                        while first > 1 and lines[first - 2].rstrip().endswith(",") or (first > 1 and lines[first - 2].rstrip().endswith("(")):
                            first -= 1
                        name = re.findall(r"([\w:~]+)\s*\(", " ".join(l.strip() for l in lines[first - 1:no]))
                        kind = "fn"
                        start = (name[0] if name else "?", first)
                scopes.append(kind)
            elif ch == "}":
                if scopes:
                    kind = scopes.pop()
                    if kind == "fn" and all(s == "scope" for s in scopes) and start:
                        found.append((start[0], start[1], no))
                        start = None
    return found


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--max-file", type=int, default=800)
    p.add_argument("--max-function", type=int, default=150)
    p.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = p.parse_args(argv[1:])
    over = 0
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(args.root, folder)):
            for name in sorted(names):
                if not name.endswith(EXTENSIONS):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, args.root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    count = sum(1 for _ in f)
                if count > args.max_file:
                    print(f"{rel}: {count} lines (file limit {args.max_file})")
                    over += 1
                for fn, first, last in functions(path):
                    length = last - first + 1
                    if length > args.max_function:
                        print(f"{rel}:{first}: {fn} is {length} lines (function limit {args.max_function})")
                        over += 1
    print(f"check-sizes: {over} over the limits")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
