#!/usr/bin/env bash
# End-to-end test of the VS Code extension in a real VS Code: code-server (installed
# into BUILD/code-server when missing), the extension packaged from clients/vscode and
# installed into a fresh extensions directory, the real argusd, headless Debian chromium
# driven by playwright-core (clients/vscode/e2e/e2e.mjs). Screenshots: BUILD/vscode-e2e/.
# usage: scripts/vscode-e2e.sh ARGUSD [BUILD]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARGUSD=${1:?usage: vscode-e2e.sh ARGUSD [BUILD]}
BUILD=$(cd "${2:-$ROOT/build}" && pwd)
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ] || [ ! -x "$CHROMIUM" ]; then
  echo "vscode-e2e: Debian's chromium is missing (apt-get install chromium, or scripts/install-deps.sh); set CHROMIUM=/path/to/chromium to use another" >&2
  exit 1
fi
OUT="$BUILD/vscode-e2e"
rm -rf "$OUT"; mkdir -p "$OUT"
t0=$(date +%s)
bash "$ROOT/scripts/install-code-server.sh" "$BUILD/code-server"
cd "$ROOT/clients/vscode"
if [ ! -d node_modules ]; then npm ci --no-audit --no-fund >/dev/null; fi
npx tsc -p .
npx vsce package --skip-license --allow-missing-repository -o "$OUT/argus-e2e.vsix" >"$OUT/vsce.log" 2>&1 || { cat "$OUT/vsce.log" >&2; exit 1; }
echo "vscode-e2e: setup (code-server check, compile, package) took $(( $(date +%s) - t0 )) s"
export ARGUSD CHROMIUM OUT ROOT
export CODE_SERVER="$BUILD/code-server/node_modules/.bin/code-server"
export VSIX="$OUT/argus-e2e.vsix"
exec node "$ROOT/clients/vscode/e2e/e2e.mjs"
