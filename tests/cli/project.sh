#!/usr/bin/env bash
# `argus project` end to end on tests/projects/multi (three files and a header):
# verdicts per function, a proof that needs another file's body, a cross-file bug,
# static functions kept apart, a global initialised in another file, the exit code, the
# JSON shape, and a second run after an edit that re-verifies only what changed.
# usage: project.sh ARGUS_BINARY SOURCE_DIR
set -euo pipefail
argus=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/tests/projects/multi" "$tmp/p"
p=$tmp/p
# relative "file" and -I resolved against "directory"; one entry uses "command"
cat > "$p/compile_commands.json" <<EOF
[
  {"directory": "$p", "file": "main.c", "arguments": ["cc", "-Iinclude", "-DNDEBUG", "-O2", "-c", "main.c"]},
  {"directory": "$p", "file": "util.c", "command": "cc -I include -std=c11 -c util.c -o util.o"},
  {"directory": "$p", "file": "$p/leaf.c", "arguments": ["cc", "-I", "include", "-c", "leaf.c"]}
]
EOF
store=$tmp/store.sqlite

set +e
"$argus" project "$p" --format json --store "$store" --timeout-per-function 30 --jobs 2 > "$tmp/run1.json" 2> "$tmp/run1.err"
code=$?
set -e
cat "$tmp/run1.err"
[ "$code" = 1 ] || { echo "FAIL: exit code $code, expected 1 (a counterexample)"; cat "$tmp/run1.json"; exit 1; }

python3 - "$tmp/run1.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
by = {}
for f in r["functions"]:
    for k in ("file", "function", "name", "line", "verdict", "reason", "time_s", "from_store"):
        assert k in f, (k, f)
    by[(f["file"], f["function"])] = f
expect = {
    ("main.c", "use_clamp"): "verified",        # through clamp's body in util.c
    ("main.c", "divide"): "counterexample",     # make_divisor(x) == 0 in util.c: latent alone,
    ("main.c", "divide_three"): "counterexample",  # manifest through this caller passing 3
    ("main.c", "check_helpers"): "verified",    # main.c's static helper
    ("main.c", "cross_static"): "verified",     # util.c's static helper
    ("main.c", "leaf_user"): "verified",
    ("main.c", "main"): "verified",             # counter = 5 from util.c
    ("main.c", "helper"): "verified",
    ("util.c", "helper"): "verified",
    ("util.c", "clamp"): "verified",
    ("util.c", "make_divisor"): "verified",
    ("util.c", "util_helper"): "verified",
    ("util.c", "get_counter"): "verified",
    ("leaf.c", "leaf"): "verified",
}
got = {k: v["verdict"] for k, v in by.items()}
assert got == expect, "verdicts differ:\n" + "\n".join(f"{k}: got {got.get(k)} expected {expect.get(k)}" for k in sorted(set(got) | set(expect)) if got.get(k) != expect.get(k))
assert by[("main.c", "divide")]["counterexample_steps"] > 0
# divide's path is divide_three's (issue 29 item 4: a caller makes the latent finding manifest)
assert by[("main.c", "divide")]["via_caller"] == "divide_three", by[("main.c", "divide")]
assert by[("main.c", "divide")]["finding"] == "manifest", by[("main.c", "divide")]
assert "latent alone: fails if on entry: " in by[("main.c", "divide")]["detail"], by[("main.c", "divide")]
t = r["totals"]
assert t["functions"] == 14 and t["verified"] == 12 and t["counterexample"] == 2 and t["latent"] == 0, t
assert t["from_store"] == 0 and t["verified_now"] == 14, t
assert r["files"]["util.c"]["verified"] == 5 and r["files"]["main.c"]["counterexample"] == 2, r["files"]
assert r["units"] == 3 and r["exit_code"] == 1
# issue 29 item 1: the functions with no check in their closure are answered in the parent
# process (no worker), the others by a worker
at_once = sorted((f["file"], f["function"]) for f in r["functions"] if not f["worker"])
assert at_once == [("leaf.c", "leaf"), ("main.c", "helper"), ("util.c", "clamp"), ("util.c", "get_counter"),
                   ("util.c", "helper"), ("util.c", "make_divisor"), ("util.c", "util_helper")], at_once
assert t["answered_at_once"] == 7 and r["answered_at_once"]["count"] == 7, r["answered_at_once"]
for f in r["functions"]:
    assert "engine_time_s" in f, f
    if not f["worker"]:
        assert f["verdict"] == "verified" and f["time_s"] < 5, f
print("run 1 ok")
EOF

# --functions REGEX (on the C name) before --skip N before --limit N
"$argus" project "$p" --format json --no-store --timeout-per-function 30 --functions '^(leaf|clamp|divide)$' > "$tmp/sel.json" 2>/dev/null || true
"$argus" project "$p" --format json --no-store --timeout-per-function 30 --functions '^(leaf|clamp|divide)$' --skip 1 --limit 1 > "$tmp/skip.json" 2>/dev/null || true
python3 - "$tmp/sel.json" "$tmp/skip.json" <<'EOF'
import json, sys
sel, skip = (json.load(open(a)) for a in sys.argv[1:3])
assert [(f["file"], f["function"]) for f in sel["functions"]] == [("leaf.c", "leaf"), ("main.c", "divide"), ("util.c", "clamp")], sel["functions"]
assert sel["functions_in_project"] == 14 and sel["functions_selected"] == 3, sel
assert [f["function"] for f in skip["functions"]] == ["divide"], skip["functions"]
assert skip["functions"][0]["verdict"] == "latent" and skip["functions"][0]["worker"], skip["functions"]
assert skip["skip"] == 1 and skip["functions_regex"] == "^(leaf|clamp|divide)$", skip
print("selection ok")
EOF
set +e
"$argus" project "$p" --no-store --functions '(' > "$tmp/badre.txt" 2>&1
code=$?
set -e
[ "$code" = 2 ] || { echo "FAIL: a bad --functions regex: exit $code"; cat "$tmp/badre.txt"; exit 1; }

# Without linking, the same function is not proved: clamp's result is unknown there.
"$argus" verify "$p/main.c" --function use_clamp -- -I"$p/include" > "$tmp/alone.txt" 2>&1 || true
if grep -q "VERDICT: true" "$tmp/alone.txt"; then echo "FAIL: use_clamp proved without util.c"; exit 1; fi

# Second run, nothing changed: everything from the store.
"$argus" project "$p/compile_commands.json" --format json --store "$store" --timeout-per-function 30 > "$tmp/run2.json" 2>/dev/null || true
python3 - "$tmp/run2.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
assert t["from_store"] == 14 and t["verified_now"] == 0 and t["counterexample"] == 2, t
print("run 2 ok")
EOF

# Edit leaf (leaf.c): leaf and its caller leaf_user are verified again, nothing else.
sed -i 's/return x \* 2;/return x + x;/' "$p/leaf.c"
"$argus" project "$p" --format json --store "$store" --timeout-per-function 30 > "$tmp/run3.json" 2>/dev/null || true
python3 - "$tmp/run3.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
now = sorted((f["file"], f["function"]) for f in r["functions"] if not f["from_store"])
assert now == [("leaf.c", "leaf"), ("main.c", "leaf_user")], now
assert r["totals"]["from_store"] == 12 and r["totals"]["verified"] == 12, r["totals"]
print("run 3 ok")
EOF

# A function defined in two files is a link error (exit 2), named clearly.
cat > "$p/dup.c" <<'EOF'
int leaf(int x) { return x; }
EOF
cat > "$p/compile_commands.json" <<EOF
[
  {"directory": "$p", "file": "leaf.c", "arguments": ["cc", "-Iinclude", "-c", "leaf.c"]},
  {"directory": "$p", "file": "dup.c", "arguments": ["cc", "-c", "dup.c"]}
]
EOF
set +e
"$argus" project "$p" --no-store > "$tmp/dup.txt" 2>&1
code=$?
set -e
[ "$code" = 2 ] || { echo "FAIL: duplicate definition: exit $code"; cat "$tmp/dup.txt"; exit 1; }
grep -q "multiple definition of 'leaf'" "$tmp/dup.txt" || { echo "FAIL: no link error message"; cat "$tmp/dup.txt"; exit 1; }

# Text output: a table with a total row; exit 0 when nothing is wrong.
cat > "$p/compile_commands.json" <<EOF
[{"directory": "$p", "file": "leaf.c", "arguments": ["cc", "-Iinclude", "-c", "leaf.c"]}]
EOF
"$argus" project "$p" --no-store > "$tmp/text.txt" 2>&1
grep -q "^leaf.c:3: leaf: verified" "$tmp/text.txt" || { echo "FAIL: text output"; cat "$tmp/text.txt"; exit 1; }
grep -qE "^total +1 +0 +0 +0 +0" "$tmp/text.txt" || { echo "FAIL: total row"; cat "$tmp/text.txt"; exit 1; }
# SIGTERM: running workers are killed, finished functions reported, exit 130.
mkdir "$tmp/int"
cat > "$tmp/int/a.c" <<'C'
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int quick(int x) { return x + 1; }
int slow(void) { unsigned n = 0; while (__VERIFIER_nondet_int()) { n++; if (n == 0xFFFFFFFFu) reach_error(); } return 0; }
C
echo "[{\"directory\": \"$tmp/int\", \"file\": \"a.c\", \"arguments\": [\"cc\", \"-c\", \"a.c\"]}]" > "$tmp/int/compile_commands.json"
"$argus" project "$tmp/int" --no-store --timeout-per-function 120 --format json > "$tmp/int.json" 2>/dev/null &
pid=$!
sleep 8
kill -TERM $pid
set +e
wait $pid
code=$?
set -e
[ "$code" = 130 ] || { echo "FAIL: interrupted run: exit $code"; exit 1; }
python3 - "$tmp/int.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert [(f["function"], f["verdict"]) for f in r["functions"]] == [("quick", "verified")], r["functions"]
assert r["totals"]["not_run"] == 1, r["totals"]
print("interrupt ok")
EOF
# Memory safety across files (issue 26): --property valid-memsafety parses every unit
# with the memory-safety layout and the linked program keeps it; main's callee in the
# other file writes past the end of main's array.
mkdir "$tmp/mem"
cat > "$tmp/mem/a.c" <<'C'
void fill(int *a, int n);
int main(void) { int buf[3]; fill(buf, 4); return buf[0]; }
int fine(void) { int buf[3]; fill(buf, 3); return buf[2]; }
C
cat > "$tmp/mem/b.c" <<'C'
void fill(int *a, int n) { for (int i = 0; i < n; i++) a[i] = i; }
C
echo "[{\"directory\": \"$tmp/mem\", \"file\": \"a.c\", \"arguments\": [\"cc\", \"-c\", \"a.c\"]},
 {\"directory\": \"$tmp/mem\", \"file\": \"b.c\", \"arguments\": [\"cc\", \"-c\", \"b.c\"]}]" > "$tmp/mem/compile_commands.json"
set +e
"$argus" project "$tmp/mem" --no-store --algorithm bmc --property valid-memsafety --timeout-per-function 30 --format json \
  --functions '^(main|fine)$' > "$tmp/mem.json" 2> "$tmp/mem.err"
code=$?
set -e
[ "$code" = 1 ] || { echo "FAIL: memory safety project: exit $code, expected 1"; cat "$tmp/mem.err" "$tmp/mem.json"; exit 1; }
python3 - "$tmp/mem.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
by = {f["function"]: f for f in r["functions"]}
assert by["main"]["verdict"] == "counterexample", by["main"]
assert "false(valid-deref)" in by["main"]["detail"], by["main"]
assert by["fine"]["verdict"] == "verified", by["fine"]
print("memory safety ok")
EOF
# ... and without the property the same project has nothing to check
"$argus" project "$tmp/mem" --no-store --algorithm bmc --timeout-per-function 30 --format json > "$tmp/mem0.json" 2>/dev/null
python3 - "$tmp/mem0.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert all(f["verdict"] == "verified" for f in r["functions"]), r["functions"]
print("memory safety off ok")
EOF
# The solver memory cap (--solver-memory-mb): a function whose query needs more than the cap
# ends unknown "out of memory" at once, not at its time limit
mkdir -p "$tmp/cap"
python3 - "$tmp/cap/f.c" <<'EOF'
import sys
src = ["extern unsigned long __VERIFIER_nondet_ulong(void);", "extern void reach_error(void);", "void factor(void) {", "  int ok = 1;"]
for i in range(64):
    src.append("  unsigned long x%d = __VERIFIER_nondet_ulong(), y%d = __VERIFIER_nondet_ulong();" % (i, i))
    src.append("  ok = ok && x%d > 1 && y%d > 1 && x%d < 4294967296ul && y%d < 4294967296ul && x%d * y%d == 2305843009213693951ul;" % ((i,) * 6))
src += ["  if (ok) reach_error();", "}"]
open(sys.argv[1], "w").write("\n".join(src) + "\n")
EOF
echo "[{\"directory\": \"$tmp/cap\", \"file\": \"f.c\", \"arguments\": [\"cc\", \"-c\", \"f.c\"]}]" > "$tmp/cap/compile_commands.json"
"$argus" project "$tmp/cap" --no-store --algorithm bmc --timeout-per-function 60 --solver-memory-mb 24 --format json \
  > "$tmp/cap.json" 2> "$tmp/cap.err" || true
python3 - "$tmp/cap.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
f = [f for f in r["functions"] if f["function"] == "factor"][0]
assert f["verdict"] in ("unknown", "conditional"), f
assert "out of memory" in json.dumps(f), f
print("solver memory cap ok")
EOF
# A complete condition (no path avoiding the unsupported call goes further) is
# "conditional" with "complete"; when every check lies behind the call it verified nothing:
# "unknown", "vacuous" (SQLite's robust_ftruncate)
mkdir -p "$tmp/vac"
cat > "$tmp/vac/v.c" <<'EOF'
extern void reach_error(void);
int (*hook)(int);
void check(int x) { if (x * 0 != 0) reach_error(); }
int behind(int h) { int rc = hook(h); check(rc); return rc; }
int before(int h) { check(h); return hook(h); }
EOF
echo "[{\"directory\": \"$tmp/vac\", \"file\": \"v.c\", \"arguments\": [\"cc\", \"-c\", \"v.c\"]}]" > "$tmp/vac/compile_commands.json"
"$argus" project "$tmp/vac" --no-store --timeout-per-function 30 --format json > "$tmp/vac.json" 2> "$tmp/vac.err" || true
python3 - "$tmp/vac.json" <<'EOF'
import json, sys
by = {f["function"]: f for f in json.load(open(sys.argv[1]))["functions"]}
b, a = by["behind"], by["before"]
assert b["verdict"] == "unknown" and b.get("vacuous") is True and b.get("complete") is True, b
assert "nothing verified: every check lies behind" in json.dumps(b), b
assert a["verdict"] == "conditional" and a.get("complete") is True and "vacuous" not in a, a
print("complete and vacuous conditions ok")
EOF
echo "PASS"
