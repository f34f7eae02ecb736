#!/bin/bash
# The CLI answers by its deadline even when the run overruns it (a solver that ignores
# its time limit): the watchdog prints `unknown` with the last chain stage's condition.
# ARGUS_TEST_STALL_S makes the process stall after its stages, past the deadline.
set -u
ARGUS="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/p.c" <<'C'
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int(), i = 0, s = 0;
  while (i < n) { s += 2; i++; }
  if (s < 0 && n > 0 && n < 100) reach_error();
  return 0;
}
C
fail() { echo "FAIL: $*"; cat "$dir/out.json" 2>/dev/null | head -40; exit 1; }
start=$(date +%s)
ARGUS_TEST_STALL_S=60 "$ARGUS" verify "$dir/p.c" --algorithm cmc --chain "bmc:k=1,explicit:time=1" --timeout 4 \
  --format json > "$dir/out.json" 2> "$dir/err.txt"
rc=$?
elapsed=$(( $(date +%s) - start ))
[ "$rc" -eq 0 ] || fail "exit code $rc"
[ "$elapsed" -lt 30 ] || fail "answered after $elapsed s, not by the deadline"
python3 - "$dir/out.json" <<'PY' || fail "bad fallback answer"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "unknown", d["verdict"]
assert "overran its time limit after stage explicit:time=1" in d["reason"], d["reason"]
c = d["condition"]
assert c["summary"] and c["summary"] != "nothing verified", c
PY
# stalled in the middle of a chain (when stage 3 starts): the answer and the condition
# file both hold what stages 1 and 2 verified
ARGUS_TEST_STALL_S=60 ARGUS_TEST_STALL_AT="stage 3/3" "$ARGUS" verify "$dir/p.c" --algorithm cmc \
  --chain "bmc:k=1,explicit:time=1,pred" --timeout 4 --progress --format json --condition-out "$dir/cond.json" \
  > "$dir/out.json" 2> "$dir/err.txt"
rc=$?
[ "$rc" -eq 0 ] || fail "mid-chain stall: exit code $rc"
grep -q "stage 3/3 pred: started" "$dir/err.txt" || fail "mid-chain stall: no progress line for stage 3"
python3 - "$dir/out.json" "$dir/cond.json" <<'PY' || fail "mid-chain stall: bad answer or condition file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "unknown", d["verdict"]
assert "overran its time limit after stage explicit:time=1" in d["reason"], d["reason"]
c = json.load(open(sys.argv[2]))
cond = c["condition"]
assert cond["verdict"] == "unknown", cond
assert cond["summary"] == d["condition"]["summary"] and cond["summary"] != "nothing verified", (cond, d["condition"])
assert "after chain stage 2 (explicit:time=1)" in cond["reason"], cond
assert c["states"], "the file holds no automaton"
PY
# stalled before any result (when the first stage starts): the condition file says
# nothing was verified
ARGUS_TEST_STALL_S=60 ARGUS_TEST_STALL_AT="stage 1/2" "$ARGUS" verify "$dir/p.c" --algorithm cmc \
  --chain "bmc:k=1,explicit:time=1" --timeout 4 \
  --progress --format json --condition-out "$dir/cond0.json" > "$dir/out.json" 2> "$dir/err.txt"
[ "$?" -eq 0 ] || fail "early stall: exit code"
python3 - "$dir/out.json" "$dir/cond0.json" <<'PY' || fail "early stall: bad answer or condition file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "unknown" and "overran its time limit" in d["reason"], d
cond = json.load(open(sys.argv[2]))["condition"]
assert cond["verdict"] == "unknown" and cond["summary"] == "nothing verified", cond
assert "when the run started" in cond["reason"], cond
PY
ls "$dir"/*.part 2>/dev/null && fail "a temporary condition file was left behind"
# stalled before the analysis started (after the slice and entry model were prepared): the
# reason says the time went to preparing, not to a solver query
ARGUS_TEST_STALL_S=60 ARGUS_TEST_STALL_AT="prepared:" "$ARGUS" verify "$dir/p.c" --algorithm bmc --timeout 4 \
  --progress --format json > "$dir/out.json" 2> "$dir/err.txt"
[ "$?" -eq 0 ] || fail "preparation stall: exit code"
grep -q "prepared: a slice of [0-9]* of [0-9]* functions in [0-9.]* s" "$dir/err.txt" || fail "preparation stall: no progress line"
python3 - "$dir/out.json" <<'PY' || fail "preparation stall: the reason blames something else"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "unknown", d["verdict"]
r = d["reason"]
assert r.startswith("timeout: the run overran its time limit before its analysis started"), r
assert "solver" not in r, r
assert d["condition"]["summary"] == "nothing verified", d["condition"]
PY
# stalled in the middle of bmc, after bound 2 was verified (VerifyRequest::checkpoint):
# the answer and the condition file hold bound 2, not "nothing verified"
ARGUS_TEST_STALL_S=60 ARGUS_TEST_STALL_AT="bound 2:" "$ARGUS" verify "$dir/p.c" --algorithm bmc --timeout 4 \
  --progress --format json --condition-out "$dir/cond2.json" > "$dir/out.json" 2> "$dir/err.txt"
[ "$?" -eq 0 ] || fail "bound stall: exit code"
python3 - "$dir/out.json" "$dir/cond2.json" <<'PY' || fail "bound stall: what bmc had verified was lost"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "unknown", d["verdict"]
assert "overran its time limit" in d["reason"] and "condition of what it had verified" in d["reason"], d["reason"]
# the stall sleeps: the run got far less CPU than wall time, and the reason says so
assert "s of CPU in" in d["reason"] and "the machine was busy" in d["reason"], d["reason"]
assert d["condition"]["summary"].startswith("verified for loops and recursion unrolled <= 2 times"), d["condition"]
c = json.load(open(sys.argv[2]))
cond = c["condition"]
assert cond["summary"] == d["condition"]["summary"], (cond, d["condition"])
assert "written while the run went on" in cond["reason"], cond
assert c["states"], "the file holds no automaton"
PY
# stalled in the run's own follow-up after a latent finding (the continuation that
# verifies the rest with the finding's check cut): the answer is the latent finding
cat > "$dir/l.c" <<'C'
extern void reach_error(void);
int f(int *p, int n) {
  if (p == 0) reach_error();
  int s = 0;
  for (int i = 0; i < n; i++) s += p[0];
  return s;
}
C
ARGUS_TEST_STALL_S=60 ARGUS_TEST_STALL_AT="verifying the rest with its check cut" "$ARGUS" verify "$dir/l.c" \
  --function f --algorithm bmc --timeout 4 --progress --format json > "$dir/out.json" 2> "$dir/err.txt"
[ "$?" -eq 0 ] || fail "latent stall: exit code"
grep -q "latent finding at .*l.c:3: verifying the rest with its check cut" "$dir/err.txt" || fail "latent stall: no progress line"
python3 - "$dir/out.json" <<'PY' || fail "latent stall: the finding was lost"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "unknown", d["verdict"]
assert d["reason"].startswith("latent finding: fails if on entry: p == 0 (l.c:3)"), d["reason"]
assert "the checks after it overran the time limit" in d["reason"], d["reason"]
c = d["counterexample"]
assert c["finding"] == "latent" and c["steps"], c
PY
# the continuation's chain stages (no stage line of their own on stdout) report their end
# in the progress: each "started" line after the finding has its "after N s" line
"$ARGUS" verify "$dir/l.c" --function f --timeout 6 --progress > "$dir/out.txt" 2> "$dir/err.txt" \
  || fail "continuation progress: run failed"
python3 - "$dir/err.txt" <<'PY' || fail "continuation progress: a stage without its end line"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = next(i for i, l in enumerate(lines) if "verifying the rest with its check cut" in l)
started = [m.group(1) for l in lines[i:] for m in [re.match(r"argus: (stage \d+/\d+ \S+): started", l)] if m]
ended = [m.group(1) for l in lines[i:] for m in [re.match(r"argus: (stage \d+/\d+ \S+): \w+ after [0-9.]+ s$", l)] if m]
assert started, lines
assert started == ended, (started, ended)
PY
# without the stall the same run prints its own answer, once
"$ARGUS" verify "$dir/p.c" --algorithm cmc --chain "bmc:k=1,explicit:time=1" --timeout 4 --format json \
  > "$dir/out.json" 2> "$dir/err.txt" || fail "plain run failed"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'overran' not in d['reason'], d['reason']" \
  "$dir/out.json" || fail "plain run answered by the watchdog"
echo "PASS (fallback after $elapsed s)"
