#!/usr/bin/env python3
"""A table of `argus bench` results in the style of Table 1 of the kIkI paper.

usage: scripts/bench-table.py [--portfolio A.json,B.json,...] [--by-run] [--markdown] RUN.json [RUN.json ...]
       scripts/bench-table.py --agree A.json B.json

One column per results file (its algorithm, refiner and solver name it), rows:
counterexamples and proofs (correct `false` / `true`), false alarms (`false` on a
task whose expected verdict is true) and false proofs (`true` where it is false),
timeouts, memory outs, other inconclusive answers (unsupported constructs, frontend
rejections, solver `unknown`), proofs and counterexamples as shares of the tasks
expected true and false, and the total CPU time of the runs.

--by-run turns the table around, as in Table 1 of the Craig-vs-Newton paper: one row
per run, with the tasks it solved correctly and, in parentheses, how many of those no
other listed run solved; wrong answers; timeouts; proofs and counterexamples as shares;
the CPU time on the tasks solved and in all. With --portfolio the portfolio is a row too.

--agree compares two runs task by task (e.g. `bmc` and `bmc-cpa`, which should answer
alike): how many tasks get the same verdict, and a list of those that do not, split
into contradictions (true against false: exit code 1) and tasks only one run decided
(with the other's reason). Tasks in only one file are counted apart.

--portfolio adds the paper's ideal portfolio of the named runs: on each task they run
side by side and the first conclusive answer (the one that took the least CPU time)
is the portfolio's, at n times that CPU time for n runs; when none is conclusive, the
portfolio is inconclusive and costs the sum of their CPU times. Only files measured on
the same machine under similar load should be compared.
"""
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    name = d.get("algorithm") or "?"
    if d.get("refiner"):
        name += f" ({d['refiner']})"
    extra = [d[k] for k in ("abstraction", "abstraction_formulas") if d.get(k)]
    if extra:
        name += " {" + ", ".join(extra) + "}"
    if d.get("solver"):
        name += f" [{d['solver']}]"
    if d.get("in_progress") or d.get("interrupted"):
        # a checkpoint of a run still going (or killed), or an interrupted run: its
        # counts cover only the tasks that finished
        done = len(d["tasks"])
        total = done + d.get("summary", {}).get("not_run", 0)
        name += f" [partial: {done} of {total} tasks]"
    return name, {t["task"]: t for t in d["tasks"]}


def kind_of(t):
    """counterexample | proof | false_alarm | false_proof | timeout | memory | inconclusive"""
    r = t["result"]
    if r == "correct_false":
        return "counterexample"
    if r == "correct_true":
        return "proof"
    if r == "wrong_false":
        return "false_alarm"
    if r == "wrong_true":
        return "false_proof"
    reason = (t.get("reason") or "").lower()
    # the first cause named ends the run: "timeout; kiki step: out of memory …" is a
    # timeout (the step ran out of memory, BMC went on until the time limit)
    if reason.startswith("timeout"):
        return "timeout"
    if "memory" in reason:
        return "memory"
    if "time limit" in reason:
        return "timeout"
    return "inconclusive"


ROWS = [
    ("counterexample", "Counterexamples"),
    ("proof", "Proofs"),
    ("false_proof", "False proofs"),
    ("false_alarm", "False alarms"),
    ("inconclusive", "Inconclusive"),
    ("timeout", "Timeout"),
    ("memory", "Memory out"),
]


def column(tasks):
    counts = {k: 0 for k, _ in ROWS}
    cpu = 0.0
    for t in tasks.values():
        counts[kind_of(t)] += 1
        cpu += t.get("cpu_time_s") or 0.0
    return counts, cpu


def share(count, tasks, expected):
    """count as a percentage of the tasks whose expected verdict is `expected`"""
    n = sum(1 for t in tasks.values() if str(t.get("expected")).lower() == expected)
    return f"{100.0 * count / n:.1f} %" if n else "-"


def portfolio(runs):
    names = set(runs[0][1])
    for _, tasks in runs[1:]:
        names &= set(tasks)
    out = {}
    for n in sorted(names):
        entries = [tasks[n] for _, tasks in runs]
        conclusive = [t for t in entries if t["verdict"] in ("true", "false")]
        if conclusive:
            best = min(conclusive, key=lambda t: t.get("cpu_time_s") or 0.0)
            t = dict(best)
            t["cpu_time_s"] = len(entries) * (best.get("cpu_time_s") or 0.0)
        else:
            # inconclusive: a timeout if any part ran out of time, else the first reason
            t = dict(next((e for e in entries if kind_of(e) == "timeout"), entries[0]))
            t["cpu_time_s"] = sum(e.get("cpu_time_s") or 0.0 for e in entries)
        out[n] = t
    return out


def solved(tasks):
    return {n for n, t in tasks.items() if kind_of(t) in ("proof", "counterexample")}


def starved(tasks):
    """timeouts whose process got less than 90 % of a CPU: the machine was busy with
    something else, and the run's counts understate what it can solve"""
    return sum(1 for t in tasks.values() if kind_of(t) == "timeout" and (t.get("wall_time_s") or 0) > 0
               and (t.get("cpu_time_s") or 0) < 0.9 * t["wall_time_s"])


def warn_starved(cols):
    for name, tasks in cols:
        n = starved(tasks)
        if n:
            print(f"\nwarning: {name}: {n} timeouts got less than 90 % of a CPU (machine busy?)")


def by_run(cols, markdown):
    """one row per run; `cols` as in main (name, tasks)"""
    header = ["Run", "Solved (only this run)", "Proofs", "Counterexamples", "Wrong",
              "Timeout", "Proofs, % of true", "Cex, % of false", "CPU solved", "CPU total"]
    solved_sets = [solved(tasks) for _, tasks in cols]
    rows = []
    for i, (name, tasks) in enumerate(cols):
        counts, cpu = column(tasks)
        # the portfolio solves what its parts solve: exclusivity is among the runs only
        others = set().union(*(s for j, s in enumerate(solved_sets)
                               if j != i and not cols[j][0].startswith("portfolio")))
        mine = solved_sets[i]
        cpu_solved = sum(tasks[n].get("cpu_time_s") or 0.0 for n in mine)
        only = "" if name.startswith("portfolio") else f" ({len(mine - others)})"
        rows.append([name, f"{len(mine)}{only}", str(counts["proof"]), str(counts["counterexample"]),
                     str(counts["false_proof"] + counts["false_alarm"]), str(counts["timeout"]),
                     share(counts["proof"], tasks, "true"), share(counts["counterexample"], tasks, "false"),
                     f"{cpu_solved:.0f} s", f"{cpu:.0f} s"])
    emit(header, rows, markdown)
    warn_starved(cols)


def emit(header, rows, markdown):
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" + "---:|" * (len(header) - 1))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for r in [header, *rows]:
            print("  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))


def agree(a, b):
    """prints how runs a and b, (name, tasks) each, agree; 1 when they contradict"""
    (na, ta), (nb, tb) = a, b
    common = sorted(set(ta) & set(tb))
    same, contra, one = [], [], []
    for n in common:
        va, vb = ta[n]["verdict"], tb[n]["verdict"]
        if va == vb:
            same.append(n)
        elif va in ("true", "false") and vb in ("true", "false"):
            contra.append(n)
        else:
            one.append(n)
    decided = sum(1 for n in same if ta[n]["verdict"] in ("true", "false"))
    print(f"A: {na}\nB: {nb}")
    print(f"{len(common)} tasks in both: {len(same)} same verdict ({decided} decided, "
          f"{len(same) - decided} unknown in both), {len(contra)} contradicting, "
          f"{len(one)} decided by one run only")
    if len(ta) != len(common) or len(tb) != len(common):
        print(f"only in A: {len(ta) - len(common)}, only in B: {len(tb) - len(common)}")

    def why(t):
        r = (t.get("reason") or "").replace("\n", " ")
        return t["verdict"] + (f" ({r[:70]})" if t["verdict"] == "unknown" and r else "")

    for label, names in (("contradicting", contra), ("decided by one run only", one)):
        if names:
            print(f"{label}:")
            for n in names:
                print(f"  {n}: A {why(ta[n])}; B {why(tb[n])}")
    return 1 if contra else 0


def main(argv):
    args = argv[1:]
    if args and args[0] == "--agree":
        if len(args) != 3:
            print(__doc__.strip(), file=sys.stderr)
            return 2
        return agree(load(args[1]), load(args[2]))
    markdown = "--markdown" in args
    transpose = "--by-run" in args
    args = [a for a in args if a not in ("--markdown", "--by-run")]
    port = None
    if "--portfolio" in args:
        i = args.index("--portfolio")
        if i + 1 >= len(args):
            print(__doc__.strip(), file=sys.stderr)
            return 2
        port = args[i + 1].split(",")
        del args[i : i + 2]
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cols = [load(p) for p in args]
    if port:
        parts = [load(p) for p in port]
        cols.append(("portfolio of " + " + ".join(n for n, _ in parts), portfolio(parts)))
    if transpose:
        by_run(cols, markdown)
        return 0
    table = [(name,) + column(tasks) for name, tasks in cols]
    header = ["", *[name for name, _, _ in table]]
    rows = [[label, *[str(c[k]) for _, c, _ in table]] for k, label in ROWS]
    rows.append(["Proofs, % of expected true", *[share(c["proof"], tasks, "true") for (_, c, _), (_, tasks) in zip(table, cols)]])
    rows.append(["Counterexamples, % of expected false",
                 *[share(c["counterexample"], tasks, "false") for (_, c, _), (_, tasks) in zip(table, cols)]])
    rows.append(["Total CPU time", *[f"{cpu:.0f} s" for _, _, cpu in table]])
    rows.append(["Tasks", *[str(len(tasks)) for _, tasks in cols]])
    emit(header, rows, markdown)
    warn_starved(cols)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
