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
    d["tasks"] = [dict({k: t.get(k) for k in keep}, reason=(t.get("reason") or "")[:100]) for t in d["tasks"]]
    d["verifier"] = os.path.basename(d.get("verifier") or "")
    with open(argv[2], "w") as f:
        json.dump(d, f, indent=0, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
