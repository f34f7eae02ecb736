#!/usr/bin/env python3
"""Compare `argus bench` results files (results.json) on the tasks they all solve.

usage: scripts/bench-compare.py A.json B.json [C.json ...]

Prints, per file, its summary (correct/wrong/unknown, total CPU) and then the CPU time
each needed on the tasks that every file solved correctly, split by expected verdict,
plus the tasks where the files differ most. CPU times come from the files themselves
(per-task child-process CPU as measured by `argus bench`), so compare files produced on
the same machine under similar load.
"""
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    label = f"{d.get('algorithm', '?')}/{d.get('solver', '?')}"
    return path, label, d


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runs = [load(p) for p in argv[1:]]
    print(f"{'file':40} {'run':12} {'c.true':>7} {'c.false':>7} {'wrong':>5} {'unknown':>7} {'CPU s':>9}")
    for path, label, d in runs:
        s = d["summary"]
        wrong = s.get("wrong_true", 0) + s.get("wrong_false", 0)
        print(f"{path[-40:]:40} {label:12} {s['correct_true']:7} {s['correct_false']:7} {wrong:5} "
              f"{s['unknown']:7} {s['cpu_time_s']:9.1f}")
    tasks = [{t["task"]: t for t in d["tasks"]} for _, _, d in runs]
    common = set(tasks[0])
    for m in tasks[1:]:
        common &= set(m)
    solved = sorted(t for t in common if all(m[t]["result"].startswith("correct") for m in tasks))
    print()
    print(f"tasks solved correctly by every run: {len(solved)}")
    header = "".join(f" {label:>14}" for _, label, _ in runs)
    print(f"{'subset':24}{header}")
    for name, pick in (("expected true", "true"), ("expected false", "false"), ("all", None)):
        sel = [t for t in solved if pick is None or tasks[0][t]["expected"] == pick]
        cols = "".join(f" {sum(m[t]['cpu_time_s'] for t in sel):14.1f}" for m in tasks)
        print(f"{name + ' (' + str(len(sel)) + ')':24}{cols}")
    if len(runs) >= 2:
        a, b = tasks[0], tasks[1]
        diffs = sorted(solved, key=lambda t: abs(a[t]["cpu_time_s"] - b[t]["cpu_time_s"]), reverse=True)[:8]
        print()
        print(f"largest CPU differences between the first two runs:")
        for t in diffs:
            print(f"  {t:60} {a[t]['cpu_time_s']:8.2f} {b[t]['cpu_time_s']:8.2f}")
    only = []
    for i, m in enumerate(tasks):
        for t in sorted(common):
            if m[t]["result"].startswith("correct") and not all(
                    o[t]["result"].startswith("correct") for o in tasks):
                only.append((runs[i][1], t))
    if only:
        print()
        print("solved by some runs only:")
        for label, t in only:
            print(f"  {label:12} {t}")
    wrong = [(runs[i][1], t, m[t]["verdict"]) for i, m in enumerate(tasks) for t in sorted(m)
             if m[t]["result"].startswith("wrong")]
    if wrong:
        print()
        print("WRONG verdicts:")
        for label, t, v in wrong:
            print(f"  {label:12} {t} -> {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
