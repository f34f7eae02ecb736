#!/usr/bin/env python3
"""Shrinks an `argus bench --out` result file for keeping in measurements/.

usage: scripts/bench-compact.py RUN.json OUT.json

Keeps the run's header (algorithm, refiner, solver, jobs, timeout, summary) and per
task: name, expected and given verdict, result, CPU and wall time, memory and the
first 100 characters of the reason; drops counterexample traces, conditions and
statistics. scripts/bench-table.py reads the result.
"""
import json
import os
import sys


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        d = json.load(f)
    keep = ("task", "expected", "verdict", "result", "cpu_time_s", "wall_time_s", "memory_mb")
    run_tasks = d["tasks"]
    d["tasks"] = [dict({k: t.get(k) for k in keep}, reason=(t.get("reason") or "")[:100]) for t in d["tasks"]]
    # concrete playback (issue 20): whether a `false` was confirmed natively, and why not
    for full, small in zip(run_tasks, d["tasks"]):
        if "confirmed_native" in full:
            small["confirmed_native"] = full["confirmed_native"]
        if full.get("native_check"):
            small["native_check"] = full["native_check"][:100]
    d["verifier"] = os.path.basename(d.get("verifier") or "")
    with open(argv[2], "w") as f:
        json.dump(d, f, indent=0, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
