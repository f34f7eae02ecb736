#!/usr/bin/env bash
# Builds the protocol libFuzzer target in its own build dir and runs it.
#
#   scripts/fuzz-protocol.sh [SECONDS] [extra libFuzzer flags...]
#
# SECONDS defaults to 60. Env: FUZZ_BUILD_DIR (default build-fuzz, ignored by
# git), JOBS (default 2), FUZZ_WORKERS (parallel fuzzing processes, default 1).
# The seed corpus in tests/fuzz/corpus/protocol is copied into the build dir,
# which keeps the growing corpus between runs. Crash inputs land in
# $FUZZ_BUILD_DIR/artifacts/; the script exits non-zero if one was found.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=${1:-60}
shift || true
BUILD=${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
JOBS=${JOBS:-2}
WORKERS=${FUZZ_WORKERS:-1}

command -v clang++-14 >/dev/null || { echo "clang++-14 not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }

CC=clang-14 CXX=clang++-14 cmake -S "$ROOT/tests/fuzz" -B "$BUILD" -DARGUS_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" --target protocol_fuzzer -j "$JOBS"

CORPUS=$BUILD/corpus/protocol
ARTIFACTS=$BUILD/artifacts
mkdir -p "$CORPUS" "$ARTIFACTS"
cp -n "$ROOT"/tests/fuzz/corpus/protocol/* "$CORPUS"/ 2>/dev/null || true

PARALLEL=()
if [ "$WORKERS" -gt 1 ]; then PARALLEL=(-jobs="$WORKERS" -workers="$WORKERS"); fi

echo "fuzzing protocol for ${DURATION}s (corpus: $CORPUS)"
set +e
"$BUILD/protocol_fuzzer" \
  -max_total_time="$DURATION" \
  -dict="$ROOT/tests/fuzz/protocol.dict" \
  -artifact_prefix="$ARTIFACTS/" \
  -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "${PARALLEL[@]}" "$@" "$CORPUS"
status=$?
set -e
crashes=$(find "$ARTIFACTS" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
echo "fuzz exit status $status; artifacts: $crashes"
[ "$status" -eq 0 ] && [ "$crashes" -eq 0 ]
