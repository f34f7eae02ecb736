#!/bin/bash
# scripts/bench-plot.py (issue 24 item 4): quantile and scatter plots from two hand-made
# result files (full and compacted format) are non-empty PNG (magic bytes) and SVG
# (well-formed XML, legend text as drawn); `argus bench --plot DIR` on a 3-task manifest
# draws the quantile plot of its run; with matplotlib missing the bench warns and
# still succeeds.
set -u
ARGUS="$1"
SRC="$2"
SCRIPT="$SRC/scripts/bench-plot.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/log.txt" ] && cat "$dir/log.txt"; exit 1; }

python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
def task(name, verdict, result, cpu, reason=""):
    return {"task": name, "expected": "true", "verdict": verdict, "result": result,
            "cpu_time_s": cpu, "wall_time_s": cpu, "memory_mb": 50.0, "reason": reason}
a = {"algorithm": "bmc", "timeout_s": 30.0, "summary": {}, "tasks": [
    task("t1", "true", "correct_true", 0.4),
    task("t2", "unknown", "unknown", 31.0, "timeout (cpu limit)"),
    task("t3", "false", "correct_false", 2.5),
    task("t4", "true", "wrong_true", 3.0),
    task("t5", "true", "correct_true", 0.0),
]}
# compacted as scripts/bench-compact.py writes it: indent 0, no wall time
b = {"algorithm": "kind", "timeout_s": 30.0, "tasks": [
    {"task": "t1", "expected": "true", "verdict": "true", "result": "correct_true", "cpu_time_s": 1.5, "reason": ""},
    {"task": "t2", "expected": "true", "verdict": "true", "result": "correct_true", "cpu_time_s": 12.0, "reason": ""},
    {"task": "t3", "expected": "false", "verdict": "unknown", "result": "unknown", "cpu_time_s": 0.2,
     "reason": "kind: unsupported: floating-point"},
    {"task": "t6", "expected": "false", "verdict": "false", "result": "correct_false", "cpu_time_s": 0.7, "reason": ""},
]}
json.dump(a, open(os.path.join(d, "a.json"), "w"), indent=2)
json.dump(b, open(os.path.join(d, "b.json"), "w"), indent=0, separators=(",", ":"))
PY

# checks DIR/NAME.png and DIR/NAME.svg; the remaining arguments must occur as text in the SVG
check_pair() {
  local out="$1" name="$2"
  shift 2
  python3 - "$out/$name.png" "$out/$name.svg" "$@" <<'PY' || fail "$name"
import sys, xml.etree.ElementTree as ET
png, svg, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
data = open(png, "rb").read()
assert len(data) > 1000, f"{png}: {len(data)} bytes"
assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{png}: not a PNG"
root = ET.parse(svg).getroot()
assert root.tag.endswith("svg"), f"{svg}: root {root.tag}"
drawn = " ".join("".join(e.itertext()) for e in root.iter())
for t in texts:
    assert t in drawn, f"{svg}: no text {t!r}"
PY
}

python3 "$SCRIPT" "$dir/a.json" "$dir/b.json" --labels "run-a,run-b" --out "$dir/plots" > "$dir/log.txt" 2>&1 \
  || fail "bench-plot.py exit code"
# run-a solved t1, t3, t5 (t4 is wrong, t2 a timeout); run-b t1, t2, t6
check_pair "$dir/plots" quantile "run-a (3 solved)" "run-b (3 solved)" "CPU time (s)" "n-th fastest correctly solved task"
# t1 both solved; t2 timeout in a; t3 unknown in b; t4 wrong in a; t5 only in a; t6 only in b
check_pair "$dir/plots" scatter "CPU time (s), run-a" "CPU time (s), run-b" "solved by both (1)" \
  "wrong verdict in a run (1)" "timeout in a run (1)" "unknown in a run (3)"
[ "$(ls "$dir/plots" | wc -l)" = 4 ] || fail "expected exactly 4 files: $(ls "$dir/plots")"
# labels default to the file names; one run: the quantile plot only
python3 "$SCRIPT" "$dir/a.json" --out "$dir/one" > "$dir/log.txt" 2>&1 || fail "one run"
check_pair "$dir/one" quantile "a (3 solved)"
[ ! -e "$dir/one/scatter.png" ] || fail "a scatter plot of one run"
# bad input: exit code 2 and a message
python3 "$SCRIPT" "$dir/a.json" "$dir/b.json" --labels x --out "$dir/bad" > "$dir/log.txt" 2>&1
[ $? = 2 ] && grep -q '1 labels for 2 result files' "$dir/log.txt" || fail "label count not checked"

# argus bench --plot on 3 example tasks
mkdir -p "$dir/tasks"
cp "$SRC/examples/safe_sum.c" "$SRC/examples/buggy_abs.c" "$SRC/examples/array_max.c" "$dir/tasks/"
{
  printf 'task\tfile\tcategory\tsource\tproperty\texpected\tdata_model\tnotes\n'
  printf 'ex/safe_sum\ttasks/safe_sum.c\texamples\ttest\tunreach-call\ttrue\tLP64\t\n'
  printf 'ex/buggy_abs\ttasks/buggy_abs.c\texamples\ttest\tunreach-call\tfalse\tLP64\t\n'
  printf 'ex/array_max\ttasks/array_max.c\texamples\ttest\tunreach-call\ttrue\tLP64\t\n'
} > "$dir/MANIFEST.tsv"
"$ARGUS" bench "$dir/MANIFEST.tsv" --algorithm bmc --timeout 20 --out "$dir/run.json" --plot "$dir/bench-plots" \
  > "$dir/log.txt" 2>&1 || fail "argus bench --plot exit code"
grep -q 'plots written to' "$dir/log.txt" || fail "no 'plots written' message"
solved=$(python3 -c 'import json,sys; print(sum(t["result"].startswith("correct") for t in json.load(open(sys.argv[1]))["tasks"]))' "$dir/run.json")
[ "$solved" -ge 1 ] || fail "no task solved"
check_pair "$dir/bench-plots" quantile "run ($solved solved)"

# matplotlib missing (an import that fails): a warning, the bench still succeeds
mkdir -p "$dir/nompl/matplotlib"
echo 'raise ImportError("matplotlib hidden by the test")' > "$dir/nompl/matplotlib/__init__.py"
PYTHONPATH="$dir/nompl" ARGUS_BENCH_PLOT_REEXEC=1 "$ARGUS" bench "$dir/MANIFEST.tsv" --algorithm bmc --timeout 20 \
  --out "$dir/run2.json" --plot "$dir/none" > "$dir/log.txt" 2>&1 || fail "bench failed without matplotlib"
grep -q 'python3-matplotlib is missing' "$dir/log.txt" || fail "no warning about matplotlib"
[ ! -e "$dir/none/quantile.png" ] || fail "a plot without matplotlib"
[ -s "$dir/run2.json" ] || fail "no results without matplotlib"
echo "bench-plot: ok"
