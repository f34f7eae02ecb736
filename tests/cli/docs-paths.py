#!/usr/bin/env python3
"""Every repository path a page names in `code` exists.

usage: tests/cli/docs-paths.py ROOT PAGE.md [PAGE.md ...]

A path is an inline-code span (fenced blocks are pictures, not references) that names
a file or folder: it ends in a source extension, or its first folder is one of ROOT's
(so `textDocument/didChange` is a method, not a path). Paths starting with
../shared/ are looked up beside ROOT, as CI lays it out. Spans with placeholders
(`<area>`, `*`, `{`) or spaces are not paths. A bare file name (`unwinding.h`) must exist
somewhere in the tree. Prints each missing path with its line; exit 1 if any.
"""
import os
import re
import sys

EXT = (".h", ".cpp", ".c", ".py", ".sh", ".mjs", ".md", ".txt", ".json", ".tsv")
SPAN = re.compile(r"`([^`\n]+)`")


def candidates(line, tops):
    for m in SPAN.finditer(line):
        s = m.group(1).strip()
        if any(c in s for c in "<>*{} ()") or s.startswith(("-", "$", "http")):
            continue
        if s.endswith(EXT) or ("/" in s and s.split("/")[0] in tops):
            yield s


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    names = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x not in ("build", "node_modules")]
        names.update(files)
    tops = set(os.listdir(root)) | {".."}
    missing = checked = 0
    for page in argv[2:]:
        fence = False
        with open(page, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.lstrip().startswith("```"):
                    fence = not fence
                    continue
                if fence:
                    continue
                for p in candidates(line, tops):
                    checked += 1
                    path = p.rstrip("/")
                    if "/" in p:
                        ok = os.path.exists(os.path.join(root, path))
                    else:
                        ok = path in names
                    if not ok:
                        print(f"{page}:{n}: `{p}` does not exist")
                        missing += 1
    print(f"docs-paths: {checked} paths named, {missing} missing")
    return 1 if missing or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
