#!/usr/bin/env python3
"""Checks an `argus bench --out` results file: every unknown result must carry a
non-trivial condition (conditional model checking: "no bare unknown").

A condition is non-trivial when its assumption automaton restricts something (initial
state neither the verified sink nor the open state), or it has a verified bound, or it
names excluded parts while saying something was verified. Prints one line per unknown
task and a summary; exits 1 if any unknown result is bare (or wrong verdicts exist).

A task whose C file the frontend rejects ("cannot parse": Clang reports an error, so no
analysis ran and no limit was hit) has no condition; it is listed as "rejected" and
counted apart, not as bare.

usage: scripts/check-conditions.py RESULTS.json
"""
import json
import sys


def nontrivial(c):
    if not isinstance(c, dict):
        return False, "no condition in the output"
    if c.get("automaton_initial") == "restricted":
        return True, "automaton restricts (%s states)" % c.get("automaton_states")
    if c.get("bound") is not None:
        return True, "bound %s" % c.get("bound")
    summary = c.get("summary") or ""
    if c.get("excluded_count", 0) > 0 and summary and summary != "nothing verified":
        return True, "excluded parts"
    return False, "trivial condition (%s: %s)" % (c.get("kind"), summary[:80])


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    data = json.load(open(sys.argv[1]))
    tasks = data.get("tasks", [])
    bare, good, wrong, rejected = [], [], [], []
    for t in tasks:
        if t.get("result", "").startswith("wrong"):
            wrong.append(t["task"])
        if t.get("verdict") != "unknown":
            continue
        if "cannot parse" in (t.get("reason") or ""):
            print("%-60s %-7s %s" % (t["task"], "REJECTED", (t.get("reason") or "")[:100]))
            rejected.append(t["task"])
            continue
        ok, why = nontrivial(t.get("condition"))
        line = "%-60s %-7s %s | %s" % (t["task"], "ok" if ok else "BARE", why, (t.get("reason") or "")[:100])
        print(line)
        (good if ok else bare).append(t["task"])
    print("tasks %d, unknown %d: with a non-trivial condition %d, bare %d, rejected by the frontend %d; "
          "wrong verdicts %d" % (len(tasks), len(good) + len(bare) + len(rejected), len(good), len(bare),
                                 len(rejected), len(wrong)))
    return 1 if bare or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
