#!/bin/bash
# `argus verify TASK.yml` (issue 26 item 1): an SV-COMP task definition (format 2.0) gives
# the input file, the property (its .prp relative to the yml), the data model and the
# expected verdict; the CLI prints the verdict and whether it matches. Checks: a
# memory-safety task with the expected subproperty (matches, in text and JSON), the same
# program with a wrong subproperty in the yml (does NOT match), --property choosing
# another property of the task, a no-overflow task, a missing input file (exit 2), a
# property the task does not list (exit 2), and `argus bench` on the folder.
set -u
ARGUS="$1"
DATA="$2"  # tests/data/tasks
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

out=$("$ARGUS" verify "$DATA/double_free.yml" --algorithm bmc --timeout 60 2>"$dir/err")
rc=$?
[ $rc -eq 0 ] || fail "double_free.yml: exit $rc"
echo "$out" | grep -q '^VERDICT: false(valid-free)' || fail "double_free.yml: verdict: $out"
echo "$out" | grep -q "^EXPECTED: false(valid-free) ($DATA/double_free.yml): the verdict matches" || fail "double_free.yml: expectation: $out"
grep -q 'lists valid-memsafety; unreach-call; checking valid-memsafety (choose with --property)' "$dir/err" ||
  fail "double_free.yml: the other properties named: $(cat "$dir/err")"
grep -q "termination.prp skipped" "$dir/err" || fail "double_free.yml: termination noted: $(cat "$dir/err")"

json=$("$ARGUS" verify "$DATA/double_free.yml" --algorithm bmc --timeout 60 --format json 2>/dev/null)
python3 - "$json" <<'PY' || fail "double_free.yml JSON: $json"
import json, sys
j = json.loads(sys.argv[1])
assert j["verdict"] == "false" and j["violated_property"] == "valid-free", j
assert j["task"]["expected"] == "false(valid-free)" and j["task"]["matches"] is True, j["task"]
assert j["task"]["property"] == "valid-memsafety", j["task"]
PY

out=$("$ARGUS" verify "$DATA/double_free_wrong.yml" --algorithm bmc --timeout 60 2>/dev/null)
echo "$out" | grep -q '^EXPECTED: false(valid-deref) .*: the verdict does NOT match' || fail "double_free_wrong.yml: $out"

# --property picks the task's reachability property: no error call, true as expected
out=$("$ARGUS" verify "$DATA/double_free.yml" --property unreach-call --algorithm bmc --timeout 60 2>/dev/null)
echo "$out" | grep -q '^VERDICT: true' || fail "double_free.yml --property unreach-call: $out"
echo "$out" | grep -q '^EXPECTED: true .*: the verdict matches' || fail "double_free.yml --property unreach-call: $out"

out=$("$ARGUS" verify "$DATA/overflow.yml" --algorithm bmc --timeout 60 2>/dev/null)
echo "$out" | grep -q '^VERDICT: false(no-overflow)' || fail "overflow.yml: $out"
echo "$out" | grep -q '^EXPECTED: false(no-overflow) .*: the verdict matches' || fail "overflow.yml: $out"

"$ARGUS" verify "$DATA/missing_input.yml" >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "missing_input.yml: exit $rc (want 2)"
grep -q "input file not found: .*not_there.c" "$dir/err" || fail "missing_input.yml: $(cat "$dir/err")"
[ -s "$dir/out" ] && fail "missing_input.yml printed a result: $(cat "$dir/out")"

"$ARGUS" verify "$DATA/overflow.yml" --property valid-memcleanup >/dev/null 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] || fail "--property not in the task: exit $rc (want 2)"
grep -q "has no property valid-memcleanup" "$dir/err" || fail "--property not in the task: $(cat "$dir/err")"

# argus bench on ymls (missing_input.yml would make the folder an input error: name the tasks)
"$ARGUS" bench "$DATA/double_free.yml" "$DATA/double_free_wrong.yml" "$DATA/overflow.yml" --algorithm bmc --timeout 60 \
  --out "$dir/results.json" >"$dir/bench.txt" 2>&1 || fail "bench: $(cat "$dir/bench.txt")"
python3 - "$dir/results.json" <<'PY' || fail "bench results: $(cat "$dir/bench.txt")"
import json, sys
r = {t["task"]: t["result"] for t in json.load(open(sys.argv[1]))["tasks"]}
assert r == {"double_free:valid-memsafety": "correct_false", "double_free:unreach-call": "correct_true",
             "double_free_wrong": "wrong_false", "overflow": "correct_false"}, r
PY

if [ $fails -eq 0 ]; then echo "task-file: all checks passed"; fi
exit $fails
