#!/usr/bin/env bash
# Unit tests of the VS Code extension's own logic (clients/vscode/test/*.test.ts):
# npm ci when node_modules is missing, compile with tsc, run with node's test runner.
set -euo pipefail
cd "$(dirname "$0")/../clients/vscode"
if [ ! -d node_modules ]; then npm ci --no-audit --no-fund >/dev/null; fi
npx tsc -p .
exec node --test out/test/
