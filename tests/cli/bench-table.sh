#!/bin/bash
# scripts/bench-table.py on two hand-made `argus bench` result files: the counts per
# kind of answer, the shares of expected verdicts, the tasks only one run solved
# (--by-run) and the ideal portfolio (first conclusive answer, n times its CPU time).
set -u
SCRIPT="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, sys, os
d = sys.argv[1]
def task(name, expected, verdict, result, cpu, reason=""):
    return {"task": name, "expected": expected, "verdict": verdict, "result": result,
            "cpu_time_s": cpu, "reason": reason}
a = {"algorithm": "pred", "refiner": "craig", "tasks": [
    task("t1", "true", "true", "correct_true", 1.0),
    task("t2", "true", "unknown", "unknown", 60.0, "timeout"),
    task("t3", "false", "false", "correct_false", 2.0),
    task("t4", "false", "true", "wrong_true", 3.0),
]}
b = {"algorithm": "pred", "refiner": "newton-sp-core-live", "tasks": [
    task("t1", "true", "true", "correct_true", 4.0),
    task("t2", "true", "true", "correct_true", 5.0),
    task("t3", "false", "unknown", "unknown", 60.0, "timeout; step: out of memory"),
    task("t4", "false", "unknown", "unknown", 0.5, "unsupported construct: goto at t4.c:3"),
]}
json.dump(a, open(os.path.join(d, "a.json"), "w"))
c = dict(a, in_progress=True, tasks=a["tasks"][:1], summary={"not_run": 3})
json.dump(c, open(os.path.join(d, "c.json"), "w"))
json.dump(b, open(os.path.join(d, "b.json"), "w"))
PY
fail() { echo "FAIL: $*"; cat "$dir/out.txt"; exit 1; }
python3 "$SCRIPT" --markdown "$dir/a.json" "$dir/b.json" > "$dir/out.txt" || fail "exit code"
grep -qx '| Proofs | 1 | 2 |' "$dir/out.txt" || fail "proofs"
grep -qx '| False proofs | 1 | 0 |' "$dir/out.txt" || fail "false proofs"
grep -qx '| Timeout | 1 | 1 |' "$dir/out.txt" || fail "timeouts (a timeout that ran out of memory in a step counts as timeout)"
grep -qx '| Inconclusive | 0 | 1 |' "$dir/out.txt" || fail "inconclusive"
grep -qx '| Proofs, % of expected true | 50.0 % | 100.0 % |' "$dir/out.txt" || fail "share of true"
grep -qx '| Total CPU time | 66 s | 70 s |' "$dir/out.txt" || fail "cpu"
python3 "$SCRIPT" --by-run --markdown --portfolio "$dir/a.json,$dir/b.json" "$dir/a.json" "$dir/b.json" > "$dir/out.txt" \
  || fail "exit code (--by-run)"
# a solves t1, t3 (t3 only by a); b solves t1, t2 (t2 only by b); wrong: a's t4
grep -q '^| pred (craig) | 2 (1) | 1 | 1 | 1 | 1 | 50.0 % | 50.0 % | 3 s | 66 s |$' "$dir/out.txt" || fail "row a"
grep -q '^| pred (newton-sp-core-live) | 2 (1) | 2 | 0 | 0 | 1 | 100.0 % | 0.0 % | 9 s | 70 s |$' "$dir/out.txt" || fail "row b"
# portfolio: t1 from a (1 s x 2), t2 from b (5 x 2), t3 from a (2 x 2), t4: b's 0.5 s is
# inconclusive, a's wrong answer is conclusive, so the portfolio answers wrong (3 x 2)
grep -q '^| portfolio of pred (craig) + pred (newton-sp-core-live) | 3 | 2 | 1 | 1 | 0 | 100.0 % | 50.0 % | 16 s | 22 s |$' \
  "$dir/out.txt" || fail "portfolio row"
# a checkpoint written while its run goes on says it covers only part of the tasks
python3 "$SCRIPT" --by-run "$dir/c.json" > "$dir/out.txt" || fail "exit code (checkpoint)"
grep -q '^pred (craig) \[partial: 1 of 4 tasks\] ' "$dir/out.txt" || fail "partial run not marked"
# a timeout with 30 s of CPU in 60 s of wall time: the run was starved of CPU
python3 - "$dir" <<'PY'
import json, os, sys
b = json.load(open(os.path.join(sys.argv[1], "b.json")))
b["tasks"][2]["wall_time_s"] = 62.0
b["tasks"][2]["cpu_time_s"] = 30.0
json.dump(b, open(os.path.join(sys.argv[1], "s.json"), "w"))
PY
python3 "$SCRIPT" --by-run "$dir/s.json" > "$dir/out.txt" || fail "exit code (starved)"
grep -q '^warning: pred (newton-sp-core-live): 1 timeouts got less than 90 % of a CPU' "$dir/out.txt" || fail "starved run not flagged"
python3 "$SCRIPT" --by-run "$dir/b.json" > "$dir/out.txt" || fail "exit code (b)"
grep -q '^warning' "$dir/out.txt" && fail "run without wall times flagged"
# --agree: t1 same (true), t2 decided by b only, t3 and t4 by a only
python3 "$SCRIPT" --agree "$dir/a.json" "$dir/b.json" > "$dir/out.txt" || fail "--agree exit code (no contradiction)"
grep -q '^4 tasks in both: 1 same verdict (1 decided, 0 unknown in both), 0 contradicting, 3 decided by one run only$' \
  "$dir/out.txt" || fail "--agree counts"
grep -q '^  t3: A false; B unknown (timeout; step: out of memory)$' "$dir/out.txt" || fail "--agree one-sided task"
# t1 answered false in e: a contradiction, exit code 1
python3 - "$dir" <<'PY'
import json, os, sys
a = json.load(open(os.path.join(sys.argv[1], "a.json")))
a["tasks"][0]["verdict"] = "false"
json.dump(a, open(os.path.join(sys.argv[1], "e.json"), "w"))
PY
python3 "$SCRIPT" --agree "$dir/a.json" "$dir/e.json" > "$dir/out.txt"
[ $? -eq 1 ] || fail "--agree exit code (a contradiction must give 1)"
grep -q '^4 tasks in both: 3 same verdict (2 decided, 1 unknown in both), 1 contradicting, 0 decided by one run only$' \
  "$dir/out.txt" || fail "--agree contradiction counts"
grep -q '^  t1: A true; B false$' "$dir/out.txt" || fail "--agree contradiction listed"
echo "bench-table: ok"
