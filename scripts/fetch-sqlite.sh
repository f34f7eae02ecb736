#!/usr/bin/env bash
# Fetches SQLite's amalgamation (real code for the scale probes) from the npm registry:
# the package better-sqlite3@12.11.1 ships deps/sqlite3/sqlite3.c (9.5 MB, ~4,800
# functions). Extracted under build/sqlite/ (never committed); prints the path.
# Usage: scripts/fetch-sqlite.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
dest="$build/sqlite"
if [ ! -f "$dest/sqlite3.c" ]; then
  mkdir -p "$dest/tmp"
  (cd "$dest/tmp" && npm pack better-sqlite3@12.11.1 --silent >/dev/null)
  tar -xzf "$dest/tmp"/better-sqlite3-12.11.1.tgz -C "$dest/tmp" package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h
  mv "$dest/tmp/package/deps/sqlite3/sqlite3.c" "$dest/tmp/package/deps/sqlite3/sqlite3.h" "$dest/"
  rm -rf "$dest/tmp"
fi
echo "$(cd "$dest" && pwd)/sqlite3.c"
