#!/bin/bash
# scripts/check-layers.py on a copy of the source tree: the tree as it is passes, and
# each kind of violation added to the copy (an include from a lower layer to a higher
# one, an approach including one it does not build on, a front end going around the
# engine, a third-party header outside its layer, a file name outside the convention)
# makes it fail and name the offending file and line.
set -u
SRC="$1"
SCRIPT="$SRC/scripts/check-layers.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

python3 "$SCRIPT" --root "$SRC" >"$dir/out" || { echo "FAIL: the tree itself violates the layers:"; cat "$dir/out"; fail=1; }

fresh() {  # a copy of the layered folders, without .git (the script walks the files)
  rm -rf "$dir/t" && mkdir -p "$dir/t"
  (cd "$SRC" && cp -r core protocol server "$dir/t/")
}

expect_violation() {  # NAME PATTERN: the script fails and prints PATTERN
  local name="$1" pattern="$2"
  if python3 "$SCRIPT" --root "$dir/t" >"$dir/out"; then
    echo "FAIL: $name: check-layers passed"; fail=1
  elif ! grep -qE "$pattern" "$dir/out"; then
    echo "FAIL: $name: expected /$pattern/ in:"; cat "$dir/out"; fail=1
  else
    echo "ok: $name: $(grep -E "$pattern" "$dir/out" | head -n 1)"
  fi
}

fresh
python3 "$SCRIPT" --root "$dir/t" >"$dir/out" || { echo "FAIL: the unmodified copy fails:"; cat "$dir/out"; fail=1; }

fresh
lines=$(wc -l <"$dir/t/core/encoding/path_formula.cpp")
echo '#include "core/cpa/cpa.h"' >>"$dir/t/core/encoding/path_formula.cpp"
expect_violation "encoding includes cpa" "^core/encoding/path_formula.cpp:$((lines + 1)): core/encoding may not include core/cpa"

fresh
echo '#include "core/engine/verify.h"' >>"$dir/t/core/smt/solver.h"
expect_violation "smt includes engine" "^core/smt/solver.h:[0-9]+: core/smt may not include core/engine"

fresh
echo '#include "core/algorithms/predicate/predicate_analysis.h"' >>"$dir/t/core/algorithms/bmc/bmc.cpp"
expect_violation "bmc includes predicate" "^core/algorithms/bmc/bmc.cpp:[0-9]+: core/algorithms/bmc may not include core/algorithms/predicate"

fresh
echo '#include "core/algorithms/bmc/bmc.h"' >>"$dir/t/server/argus/main.cpp"
expect_violation "CLI around the engine" "^server/argus/main.cpp:[0-9]+: .*only through core/engine"

fresh
echo '#include "server/service/service.h"' >>"$dir/t/protocol/framing.cpp"
expect_violation "protocol includes server" "^protocol/framing.cpp:[0-9]+: protocol may not include server"

fresh
echo '#include <clang/AST/Decl.h>' >>"$dir/t/core/cpa/cpa.h"
expect_violation "Clang outside the frontend" "^core/cpa/cpa.h:[0-9]+: .*belongs only in core/frontend"

fresh
echo '#include <z3++.h>' >>"$dir/t/core/smt/solver.cpp"
expect_violation "Z3 outside its back end" "^core/smt/solver.cpp:[0-9]+: .*belongs only in core/smt/z3"

fresh
echo '#pragma once' >"$dir/t/core/cfa/CallGraph.h"
expect_violation "PascalCase file name" "^core/cfa/CallGraph.h:1: file name .* is not snake_case"

fresh
mkdir -p "$dir/t/core/algorithms/newApproach" && echo '#pragma once' >"$dir/t/core/algorithms/newApproach/a.h"
expect_violation "camelCase folder" "folder .newApproach. is not snake_case"

exit $fail
