#!/usr/bin/env bash
# `argus verify` prints what the frontend left out of the program (issue 29: contract
# clauses outside the supported subset, README "Contracts"): a `warning:` line with
# file:line in the text output, `warnings` in the JSON, and none when nothing was left out.
# usage: verify-warnings.sh ARGUS_BINARY
set -euo pipefail
argus=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/c.c" <<'C'
void reach_error(void);
/*@ requires 0 <= x; ensures \result == x; */
int f(int x) { if (x < 0) reach_error(); return x; }
/*@ requires \old(n) > 0; */
int g(int n) { return n; }
C
"$argus" verify "$tmp/c.c" --function f --algorithm bmc --timeout 30 > "$tmp/out.txt" 2>&1 || true
cat "$tmp/out.txt"
grep -q "^$tmp/c.c:2: warning: contract clause \`ensures \\\\result == x\` is outside the supported subset" "$tmp/out.txt" ||
  { echo "FAIL: no warning line for the ensures clause"; exit 1; }
grep -q "^$tmp/c.c:4: warning: contract \`requires \\\\old(n) > 0\` of g uses \\\\old" "$tmp/out.txt" ||
  { echo "FAIL: no warning line for the \\old clause"; exit 1; }
# the supported clause is still used: f is verified under its requires
grep -q "^VERDICT: true" "$tmp/out.txt" || { echo "FAIL: f not verified under its contract"; exit 1; }

"$argus" verify "$tmp/c.c" --function f --algorithm bmc --timeout 30 --format json > "$tmp/out.json" 2>/dev/null || true
python3 - "$tmp/out.json" "$tmp/c.c" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
w = r["warnings"]
assert len(w) == 2, w
assert w[0].startswith(sys.argv[2] + ":2: warning: contract clause `ensures"), w
assert w[1].startswith(sys.argv[2] + ":4: warning: contract `requires \\old(n) > 0` of g uses \\old"), w
assert r["verdict"] == "true", r["verdict"]
EOF

# nothing left out: no warning line, no "warnings" key
printf 'int h(int x) { return x; }\n' > "$tmp/plain.c"
"$argus" verify "$tmp/plain.c" --function h --timeout 30 > "$tmp/plain.txt" 2>&1 || true
if grep -q "warning" "$tmp/plain.txt"; then echo "FAIL: a warning without a cause"; cat "$tmp/plain.txt"; exit 1; fi
"$argus" verify "$tmp/plain.c" --function h --timeout 30 --format json > "$tmp/plain.json" 2>/dev/null || true
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert "warnings" not in r, r' "$tmp/plain.json"
echo "PASS"
