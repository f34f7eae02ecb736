#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code's workbench served over HTTP; the newest release
# on node 20) from npm into DEST (default build/code-server) when it is not there yet,
# with no download from outside the registries (notes: ../shared/notes/vscode-e2e.md):
#  - its postinstall refuses root without npm_config_unsafe_perm, and node-pty's runs
#    `npx node-gyp` (npm_config_yes);
#  - @vscode/ripgrep's postinstall would download a ripgrep binary: a tarball made from
#    Debian's /usr/bin/rg is put in the cache it looks in first.
set -euo pipefail
VERSION=4.100.3
DEST=${1:-build/code-server}
BIN="$DEST/node_modules/.bin/code-server"
if [ -x "$BIN" ] && [ -f "$DEST/.installed-$VERSION" ]; then exit 0; fi
for tool in node npm rg make g++ pkg-config; do
  command -v "$tool" >/dev/null 2>&1 || { echo "install-code-server: '$tool' is missing (run scripts/install-deps.sh: build-essential pkg-config ripgrep libkrb5-dev)" >&2; exit 1; }
done
pkg-config --exists krb5-gssapi 2>/dev/null || [ -f /usr/include/gssapi/gssapi.h ] || { echo "install-code-server: libkrb5-dev is missing (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
TMPDIR=${TMPDIR:-/tmp}
cache="$TMPDIR/vscode-ripgrep-cache-1.15.11"
mkdir -p "$cache"
tarball="$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -s "$tarball" ]; then
  stage=$(mktemp -d)
  cp "$(command -v rg)" "$stage/rg"
  tar -C "$stage" -czf "$tarball" rg
  rm -rf "$stage"
fi
echo "install-code-server: installing code-server@$VERSION into $DEST (about 70 s)"
start=$(date +%s)
[ -f "$DEST/package.json" ] || echo '{"name":"argus-code-server","private":true}' > "$DEST/package.json"
( cd "$DEST" && npm_config_yes=true npm_config_unsafe_perm=true npm install --unsafe-perm --no-audit --no-fund \
    --foreground-scripts=false "code-server@$VERSION" >"$DEST/install.log" 2>&1 ) || {
  echo "install-code-server: npm install failed; the end of $DEST/install.log:" >&2; tail -30 "$DEST/install.log" >&2; exit 1; }
"$BIN" --version >/dev/null || { echo "install-code-server: $BIN does not run" >&2; exit 1; }
touch "$DEST/.installed-$VERSION"
echo "install-code-server: done in $(( $(date +%s) - start )) s"
