#!/usr/bin/env python3
"""Differential soundness suite (issue 20): csmith programs, checked against gcc.

For each seed, csmith (Debian package `csmith`, headers from `libcsmith-dev`) generates a
small deterministic program. Its end is rewritten: instead of csmith's CRC over the
globals (a 256-entry table, heavy for a verifier), every global that csmith would hash
goes into a simple checksum  sum = sum * 1000003 + (uint64_t)g.  gcc compiles and runs
the program to compute the checksum VALUE; then each program becomes two tasks:
  <seed>_true.c   if (sum != VALUE) reach_error();   expected true
  <seed>_false.c  if (sum == VALUE) reach_error();   expected false
and `argus verify` runs on both. A `true` on the false task or a `false` on the true
task is a wrong verdict: a soundness bug of Argus (or of gcc/csmith, to be checked).

Usage: scripts/differential.sh --seeds A..B [--algorithm bmc] [--timeout S] [--jobs N]
         [--argus build/argus] [--work DIR] [--out RESULT.json] [--table TABLE.md]
         [--csmith-options "..."] [--fail-on-wrong] [--keep]
Exit code: 0, or 1 with --fail-on-wrong when any verdict is wrong (or fewer than
--min-correct verdicts are correct), 2 on a usage or setup error.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter

CSMITH_INCLUDE = "/usr/include/csmith"
# Small programs a verifier can take: 2 functions besides main, shallow blocks, short
# expressions, no arrays (csmith's array loops print indices), nothing volatile, no
# bit-fields or packed structs, main without argc/argv.
DEFAULT_CSMITH = ("--no-argc --max-funcs 2 --max-block-depth 2 --max-block-size 3 "
                  "--max-expr-complexity 4 --no-arrays --no-volatiles --no-volatile-pointers "
                  "--no-packed-struct --no-bitfields --max-struct-fields 3 --max-union-fields 2 "
                  "--concise")

PRELUDE = """extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "csmith-task.c", 3, "reach_error"); }
static unsigned long long argus_sum = 0;
#define argus_checksum(v) (argus_sum = argus_sum * 1000003ULL + (unsigned long long)(v))
"""


def transform(src):
    """The csmith program with the checksum rewritten; None if its shape is unexpected."""
    if "platform_main_end(crc32_context ^ 0xFFFFFFFFUL, print_hash_value);" not in src:
        return None
    out = re.sub(r'transparent_crc\(([^;]*?), "[^"]*", print_hash_value\);', r"argus_checksum(\1);", src)
    if "transparent_crc" in out.split("int main", 1)[1]:
        return None  # e.g. transparent_crc_bytes of a struct: not handled
    out = out.replace("crc32_gentab();", "")
    out = out.replace("platform_main_begin();", "")
    out = out.replace("platform_main_end(crc32_context ^ 0xFFFFFFFFUL, print_hash_value);", "ARGUS_END")
    out = out.replace('#include "csmith.h"', '#include "csmith.h"\n' + PRELUDE, 1)
    return out


def variant(prog, kind, value=None):
    if kind == "print":
        end = 'printf("checksum = %llu\\n", argus_sum);'
    elif kind == "true":
        end = "if (argus_sum != %dULL) reach_error();" % value
    else:
        end = "if (argus_sum == %dULL) reach_error();" % value
    return prog.replace("ARGUS_END", end)


def reason_key(reason):
    """A reason without positions and numbers, for the histogram of unknowns."""
    r = re.sub(r"[\w./-]*\.c:\d+(:\d+)?", "FILE:LINE", reason)
    r = re.sub(r"\b\d+(\.\d+)?\b", "N", r)
    r = re.sub(r"'[^']*'", lambda m: m.group(0) if len(m.group(0)) < 40 else "'...'", r)
    return r[:140]


def prepare(seed, work, csmith_opts, cc):
    """Generates the seed's program and tasks; returns a dict (status ok or skipped)."""
    base = os.path.join(work, "s%d" % seed)
    raw = base + ".csmith.c"
    r = subprocess.run(["csmith", "--seed", str(seed), "-o", raw] + csmith_opts.split(),
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {"seed": seed, "status": "skipped", "why": "csmith failed: " + r.stderr[-200:]}
    prog = transform(open(raw).read())
    if prog is None:
        return {"seed": seed, "status": "skipped", "why": "unexpected csmith output shape"}
    with open(base + ".print.c", "w") as f:
        f.write(variant(prog, "print"))
    exe = base + ".exe"
    r = subprocess.run([cc, "-w", "-O0", "-I" + CSMITH_INCLUDE, "-o", exe, base + ".print.c"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {"seed": seed, "status": "skipped", "why": "gcc failed: " + r.stderr[-200:]}
    try:
        r = subprocess.run([exe], capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        return {"seed": seed, "status": "skipped", "why": "native run timed out"}
    m = re.search(r"checksum = (\d+)", r.stdout)
    if r.returncode != 0 or not m:
        return {"seed": seed, "status": "skipped", "why": "native run failed (exit %d)" % r.returncode}
    value = int(m.group(1))
    tasks = []
    for kind in ("true", "false"):
        path = "%s_%s.c" % (base, kind)
        with open(path, "w") as f:
            f.write(variant(prog, kind, value))
        tasks.append({"seed": seed, "file": path, "expected": kind})
    return {"seed": seed, "status": "ok", "checksum": value, "tasks": tasks}


def verify(task, argus, algorithm, timeout):
    cmd = [argus, "verify", task["file"], "--algorithm", algorithm, "--timeout", str(timeout),
           "--format", "json", "--", "-I" + CSMITH_INCLUDE]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
        out = json.loads(r.stdout) if r.stdout.strip() else None
    except subprocess.TimeoutExpired:
        out, r = None, None
    except json.JSONDecodeError:
        out = None
    res = dict(task)
    res["wall_s"] = round(time.time() - t0, 2)
    if out is None:
        res["verdict"] = "unknown"
        res["reason"] = "no answer" if r is None else "exit %d: %s" % (r.returncode, (r.stderr or "")[-300:])
    else:
        res["verdict"] = out.get("verdict", "unknown")
        res["reason"] = out.get("reason", "")
        res["confirmed_by"] = out.get("confirmed_by", [])
        if out.get("native_check"):
            res["native_check"] = out["native_check"]
    if res["verdict"] == "unknown":
        res["result"] = "unknown"
    elif res["verdict"] == task["expected"]:
        res["result"] = "correct"
    else:
        res["result"] = "WRONG"
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", required=True, help="A..B (inclusive) or a comma-separated list")
    ap.add_argument("--algorithm", default="bmc")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--argus", default=None)
    ap.add_argument("--work", default=None, help="keep the programs here (default: a temporary folder)")
    ap.add_argument("--out", default=None, help="write all results as JSON")
    ap.add_argument("--table", default=None, help="write the table (markdown)")
    ap.add_argument("--csmith-options", default=DEFAULT_CSMITH)
    ap.add_argument("--fail-on-wrong", action="store_true")
    ap.add_argument("--min-correct", type=int, default=0,
                    help="exit 1 unless at least this many verdicts are correct (the smoke test)")
    a = ap.parse_args()

    if "," in a.seeds or ".." not in a.seeds:
        seeds = [int(s) for s in a.seeds.split(",")]
    else:
        lo, hi = a.seeds.split("..")
        seeds = list(range(int(lo), int(hi) + 1))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    argus = a.argus or os.path.join(root, "build", "argus")
    for tool, hint in (("csmith", "apt-get install csmith (scripts/install-deps.sh)"),):
        if not shutil.which(tool):
            print("differential: %s not found (%s)" % (tool, hint), file=sys.stderr)
            return 2
    if not os.path.isfile(os.path.join(CSMITH_INCLUDE, "csmith.h")):
        print("differential: %s/csmith.h missing (libcsmith-dev)" % CSMITH_INCLUDE, file=sys.stderr)
        return 2
    if not os.access(argus, os.X_OK):
        print("differential: no argus binary at %s" % argus, file=sys.stderr)
        return 2
    cc = os.environ.get("CC", "gcc")
    work = a.work or tempfile.mkdtemp(prefix="argus-differential-")
    os.makedirs(work, exist_ok=True)

    t0 = time.time()
    prepared = [prepare(s, work, a.csmith_options, cc) for s in seeds]
    tasks = [t for p in prepared if p["status"] == "ok" for t in p["tasks"]]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(verify, t, argus, a.algorithm, a.timeout) for t in tasks]
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results.append(r)
            mark = {"correct": "ok", "WRONG": "WRONG", "unknown": "?"}[r["result"]]
            print("seed %6d %-5s -> %-7s %-5s %6.1fs %s" % (r["seed"], r["expected"], r["verdict"], mark, r["wall_s"],
                                                             ("" if r["result"] != "unknown" else r["reason"][:100])),
                  flush=True)
    results.sort(key=lambda r: (r["seed"], r["expected"]))

    def count(expected, what):
        return sum(1 for r in results if r["expected"] == expected and r["result"] == what)

    skipped = [p for p in prepared if p["status"] != "ok"]
    wrong = [r for r in results if r["result"] == "WRONG"]
    falses = [r for r in results if r["verdict"] == "false"]
    native = sum(1 for r in falses if "native" in r.get("confirmed_by", []))
    reasons = Counter(reason_key(r["reason"]) for r in results if r["result"] == "unknown")
    lines = []
    lines.append("differential suite: seeds %s, %d programs (%d skipped), %d tasks, algorithm %s, timeout %g s, "
                 "jobs %d, wall %.0f s" % (a.seeds, len(prepared) - len(skipped), len(skipped), len(results),
                                          a.algorithm, a.timeout, a.jobs, time.time() - t0))
    lines.append("csmith %s" % a.csmith_options)
    lines.append("")
    lines.append("| expected | tasks | correct | wrong | unknown |")
    lines.append("|---|---:|---:|---:|---:|")
    for e in ("true", "false"):
        n = sum(1 for r in results if r["expected"] == e)
        lines.append("| %s | %d | %d | %d | %d |" % (e, n, count(e, "correct"), count(e, "WRONG"), count(e, "unknown")))
    lines.append("| all | %d | %d | %d | %d |" % (len(results), sum(1 for r in results if r["result"] == "correct"),
                                                 len(wrong), sum(1 for r in results if r["result"] == "unknown")))
    lines.append("")
    lines.append("false verdicts confirmed natively: %d of %d" % (native, len(falses)))
    if wrong:
        lines.append("")
        lines.append("WRONG verdicts:")
        for r in wrong:
            lines.append("  seed %d: expected %s, said %s (%s)" % (r["seed"], r["expected"], r["verdict"], r["file"]))
    if reasons:
        lines.append("")
        lines.append("unknown, by reason:")
        for k, n in reasons.most_common(15):
            lines.append("  %4d  %s" % (n, k))
    if skipped:
        lines.append("")
        lines.append("skipped seeds: " + ", ".join("%d (%s)" % (p["seed"], p["why"][:60]) for p in skipped[:10]))
    text = "\n".join(lines)
    print("\n" + text)
    if a.table:
        with open(a.table, "w") as f:
            f.write(text + "\n")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"seeds": a.seeds, "algorithm": a.algorithm, "timeout_s": a.timeout,
                       "csmith_options": a.csmith_options, "skipped": skipped, "results": results}, f, indent=1)
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    correct = sum(1 for r in results if r["result"] == "correct")
    if correct < a.min_correct:
        print("differential: only %d correct verdicts, expected at least %d" % (correct, a.min_correct))
        return 1
    return 1 if (wrong and a.fail_on_wrong) else 0


if __name__ == "__main__":
    sys.exit(main())
