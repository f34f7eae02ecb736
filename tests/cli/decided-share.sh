#!/bin/bash
# scripts/decided-share.py (issue 29's figures) on two hand-made `argus project --format
# json` files: the decided share (verified, manifest false, bound >= 2 without a depth
# cut), latent findings counted apart, and --against: the functions whose kind of answer
# changed between the runs.
set -u
SCRIPT="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, sys, os
d = sys.argv[1]
def fn(name, verdict, **kw):
    f = {"name": name, "function": name, "file": "t.c", "line": 1, "verdict": verdict, "detail": "",
         "reason": "", "time_s": 1.0, "worker": True, "from_store": False}
    f.update(kw)
    return f
old = {"functions": [
    fn("a", "verified"),
    fn("b", "unknown", reason="timeout"),
    fn("c", "conditional", bound=1, detail="verified for loops and recursion unrolled <= 1 times"),
    fn("d", "latent", condition="2 errors are reachable", more_latent=[{}]),
    fn("gone", "verified"),
]}
new = {"functions": [
    fn("a", "verified"),
    fn("b", "conditional", bound=1, detail="verified for loops and recursion unrolled <= 1 times and calls nested <= 0 deep"),
    fn("c", "conditional", bound=3, detail="verified for loops and recursion unrolled <= 3 times"),
    fn("d", "latent", condition="2 errors are reachable", more_latent=[{}]),
    fn("e", "conditional", bound=2, detail="verified for loops and recursion unrolled <= 2 times and calls nested <= 1 deep"),
]}
json.dump(old, open(os.path.join(d, "old.json"), "w"))
json.dump(new, open(os.path.join(d, "new.json"), "w"))
PY
fail() { echo "FAIL: $*"; cat "$dir/out.txt"; exit 1; }
python3 "$SCRIPT" "$dir/new.json" --against "$dir/old.json" > "$dir/out.txt" || fail "exit code"
# decided: a (verified) and c (bound 3); e has bound 2 but a depth cut
grep -q "decided (verified + manifest false + bound>=2 on every loop): 2 = 40.0 %" "$dir/out.txt" || fail "decided share"
grep -q "latent functions 1, latent findings 2;" "$dir/out.txt" || fail "latent counts"
grep -qx "changed against $dir/old.json: 4" "$dir/out.txt" || fail "number of changes"
grep -qx "  b: unknown: timeout -> conditional bound<2 or depth cut" "$dir/out.txt" || fail "b"
grep -qx "  c: conditional bound<2 or depth cut -> conditional bound>=2" "$dir/out.txt" || fail "c"
grep -qx "  e: (absent) -> conditional bound<2 or depth cut" "$dir/out.txt" || fail "e"
grep -qx "  gone: verified -> (absent)" "$dir/out.txt" || fail "gone"
if grep -q "^  a:\|^  d:" "$dir/out.txt"; then fail "an unchanged function is listed"; fi
echo "decided-share.py: ok"
