#!/usr/bin/env bash
# Installs the Debian packages Argus needs, only those that are missing.
# Clang/LLVM is pinned to 14 (Debian 12's default) for the whole repo.
set -euo pipefail
PKGS=(
  build-essential cmake ccache pkg-config
  clang-14 libclang-14-dev libclang-cpp14-dev llvm-14-dev   # frontend (libTooling), pinned
  libc6-dev-i386                                           # system headers for the ILP32 target
  libz3-dev                                                # SMT backend
  libcvc5-dev                                              # SMT backend
  nlohmann-json3-dev libboost-dev libgtest-dev libgmock-dev
  libsqlite3-dev                                           # embedded result store (server)
  libhiredis-dev                                           # Redis client: the team service's shared result store (argusd --redis)
  redis-server                                             # the Redis the team-service tests start on a loopback port (tests/e2e/redis.test.mjs)
  libbdd-dev                                               # BuDDy: abstraction formulas as BDDs (pred)
  gcc-multilib                                             # native confirmation of ILP32 counterexamples (cc -m32; server/argus/native_check.cpp)
  csmith libcsmith-dev                                     # differential soundness suite (scripts/differential.sh); -dev has csmith.h/safe_math.h
  chromium ripgrep libkrb5-dev                             # VS Code extension e2e test: headless browser, code-server's install (scripts/install-code-server.sh)
)
# Node.js + npm for the argusd end-to-end tests (node --test); only if node is absent
# (a newer Node installed another way is fine).
command -v node >/dev/null 2>&1 || PKGS+=(nodejs)
command -v npm >/dev/null 2>&1 || PKGS+=(npm)
# python3 for the command-line tests (tests/cli) and the report scripts (scripts/*.py)
command -v python3 >/dev/null 2>&1 || PKGS+=(python3)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
