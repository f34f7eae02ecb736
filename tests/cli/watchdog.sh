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
# without the stall the same run prints its own answer, once
"$ARGUS" verify "$dir/p.c" --algorithm cmc --chain "bmc:k=1,explicit:time=1" --timeout 4 --format json \
  > "$dir/out.json" 2> "$dir/err.txt" || fail "plain run failed"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'overran' not in d['reason'], d['reason']" \
  "$dir/out.json" || fail "plain run answered by the watchdog"
echo "PASS (fallback after $elapsed s)"
