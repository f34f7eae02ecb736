#!/usr/bin/env python3
"""Checks the house rules that keep Argus's layers apart and its names uniform.

usage: scripts/check-layers.py [--root DIR] [--list]

1. Layers. Every source file under core/, protocol/ and server/ belongs to the module
   whose folder is the longest prefix of its path (MODULES below). A module may include
   its own headers and those of the modules it builds on, directly or through others
   (the order of docs/ARCHITECTURE.md): nothing lower includes anything higher, and the
   approaches in core/algorithms/ see each other only where one builds on the other.
   tests/ and clients/ stand outside and may use any layer.
2. Third-party headers stay where their layer is: Clang/LLVM only in core/frontend,
   Z3 and cvc5 only in their back-end folders of core/smt, BuDDy only in core/cpa,
   SQLite only in server/, Boost (Asio) only in protocol/ and server/.
3. File names follow one convention: C and C++ files and folders in snake_case
   (`path_formula.cpp`, test files `test_<what>.cpp`), scripts and JavaScript in
   kebab-case (`check-layers.py`, `tcp.test.mjs`), Markdown pages either all capitals
   (`README.md`) or kebab-case.

Prints every violation as `path:line: message` and exits 1 if there is any; `--list`
prints the module table. CI runs this through ctest (tests/CMakeLists.txt).
"""
import os
import re
import subprocess
import sys

# module -> the modules it builds on (it may include these and, transitively, theirs).
MODULES = {
    # The front ends reach the algorithms only through core/engine (a facade, below);
    # besides it they use the data it speaks in: programs, results, the frontend.
    "server": ["protocol", "core/engine", "core/frontend", "core/result", "core/cfa",
               "core/support"],
    "protocol": [],  # the wire knows nothing of the engine
    "core/engine": ["core/algorithms", "core/frontend"],
    # core/algorithms: one folder per approach, each on what it builds on.
    "core/algorithms": ["core/algorithms/bmc", "core/algorithms/kinduction",
                        "core/algorithms/predicate", "core/algorithms/cmc"],
    "core/algorithms/kinduction": ["core/algorithms/bmc"],   # base case = incremental BMC
    "core/algorithms/predicate": ["core/algorithms/cmc"],    # conditions from the ARG
    "core/algorithms/bmc": ["core/algorithms/common"],
    "core/algorithms/cmc": ["core/algorithms/common"],
    "core/algorithms/common": ["core/cpa"],
    "core/cpa": ["core/encoding", "core/result"],
    "core/encoding": ["core/smt", "core/cfa"],
    "core/frontend": ["core/cfa"],
    "core/result": ["core/cfa"],
    "core/smt": ["core/support"],  # with its back ends smt/z3 and smt/cvc5
    "core/cfa": ["core/support"],
    "core/support": [],
}
# A facade is the one door to the modules beneath it: who builds on it may include the
# facade's headers, not (through it) what it builds on.
FACADES = {"core/engine"}
LAYERED_TOPS = ("core/", "protocol/", "server/")

# third-party include prefix -> the modules (folders) that may include it
EXTERNAL = {
    "clang/": ["core/frontend"],
    "llvm/": ["core/frontend"],
    "z3": ["core/smt/z3"],
    "cvc5/": ["core/smt/cvc5"],
    "bdd.h": ["core/cpa"],
    "sqlite3.h": ["server"],
    "hiredis/": ["server/service"],
    "boost/": ["protocol", "server"],
}

NAMED_TOPS = ("core/", "protocol/", "server/", "tests/", "scripts/", "examples/", "docs/",
              "clients/", "docker/")
CONVENTIONAL = {"README.md", "CMakeLists.txt", "Makefile", "Dockerfile", "package.json",
                "package-lock.json", "tsconfig.json", ".gitignore", ".vscodeignore",
                "compose.yaml", "LICENSE"}
SNAKE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def module_of(path):
    best = None
    for m in MODULES:
        if path == m or path.startswith(m + "/"):
            if best is None or len(m) > len(best):
                best = m
    return best


def closure(m, seen=None):
    seen = set() if seen is None else seen
    if m in seen:
        return seen
    seen.add(m)
    if m in FACADES and len(seen) > 1:
        return seen
    for d in MODULES[m]:
        closure(d, seen)
    return seen


def allowed(src_mod, dst_mod):
    return dst_mod in closure(src_mod)


def tracked_files(root):
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
        files = [f for f in out.stdout.decode().split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, fs in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and x not in ("build", "node_modules")]
        for f in fs:
            files.append(os.path.relpath(os.path.join(d, f), root))
    return files


def resolve(root, src, target):
    """The repository path an #include "..." names: from the root, else beside src."""
    if os.path.exists(os.path.join(root, target)):
        return os.path.normpath(target)
    beside = os.path.normpath(os.path.join(os.path.dirname(src), target))
    if os.path.exists(os.path.join(root, beside)):
        return beside
    return None


def check_includes(root, path, errors):
    src_mod = module_of(path)
    if src_mod is None:
        errors.append(f"{path}:1: in no module of scripts/check-layers.py (add its folder to MODULES)")
        return
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, target = m.groups()
            if kind == '"':
                dst = resolve(root, path, target)
                if dst is None or not dst.startswith(LAYERED_TOPS):
                    continue
                dst_mod = module_of(dst)
                if dst_mod is None or allowed(src_mod, dst_mod):
                    continue
                why = f"{dst_mod} is not below {src_mod}"
                for facade in FACADES:
                    if facade in closure(src_mod) and dst_mod in closure(facade):
                        why = f"{src_mod} reaches {dst_mod} only through {facade}"
                errors.append(f"{path}:{n}: {src_mod} may not include {dst_mod} "
                              f"(`{line.strip()}`: {why})")
            else:
                for prefix, where in EXTERNAL.items():
                    if target.startswith(prefix) and not any(
                            path.startswith(w + "/") for w in where):
                        errors.append(f"{path}:{n}: `{line.strip()}` belongs only in "
                                      + " or ".join(where))


def check_name(path, errors):
    parts = path.split("/")
    for d in parts[1:-1]:
        if d in ("node_modules", "corpus") or d.startswith("."):
            return
        if not SNAKE.match(d):
            errors.append(f"{path}:1: folder `{d}` is not snake_case")
            return
    name = parts[-1]
    if name in CONVENTIONAL:
        return
    stem, ext = os.path.splitext(name)
    if ext in (".h", ".cpp", ".c", ".i"):
        ok = SNAKE.match(stem)
        want = "snake_case"
    elif ext in (".py", ".sh", ".mjs", ".js", ".ts"):
        stem = re.sub(r"\.(test|d)$", "", stem)
        ok = KEBAB.match(stem)
        want = "kebab-case"
    elif ext == ".md":
        ok = re.match(r"^[A-Z][A-Z0-9_]*$", stem) or KEBAB.match(stem)
        want = "CAPITALS or kebab-case"
    else:
        return
    if not ok:
        errors.append(f"{path}:1: file name `{name}` is not {want}")


def main(argv):
    root = "."
    if "--root" in argv:
        root = argv[argv.index("--root") + 1]
    if "--list" in argv:
        for m in sorted(MODULES):
            print(f"{m:28} builds on: {', '.join(sorted(closure(m) - {m})) or '-'}")
        return 0
    errors = []
    files = tracked_files(root)
    for path in files:
        if not os.path.isfile(os.path.join(root, path)):
            continue
        if path.startswith(NAMED_TOPS):
            check_name(path, errors)
        if path.startswith(LAYERED_TOPS) and path.endswith((".h", ".cpp")):
            check_includes(root, path, errors)
    for e in errors:
        print(e)
    checked = sum(1 for p in files if p.startswith(LAYERED_TOPS) and p.endswith((".h", ".cpp")))
    print(f"check-layers: {checked} source files, {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
