#!/usr/bin/env bash
# Installs the Debian packages Argus needs, only those that are missing.
# Clang/LLVM is pinned to 14 (Debian 12's default) for the whole repo.
set -euo pipefail
# Profiles: full (default: everything to build and test the repository), build (what
# compiles argus/argusd: docker/Dockerfile's build stage), runtime (what argusd needs to
# run: docker/Dockerfile's runtime stage). --print lists the profile's packages and
# installs nothing. tests/cli/docker-recipe.sh runs the build and runtime profiles and
# checks the runtime list against the libraries argusd is linked with.
PROFILE=full
PRINT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) PROFILE="${2:-}"; shift 2 ;;
    --print) PRINT=1; shift ;;
    *) echo "usage: install-deps.sh [--profile full|build|runtime] [--print]" >&2; exit 2 ;;
  esac
done
BUILD_PKGS=(
  build-essential cmake pkg-config
  clang-14 libclang-14-dev libclang-cpp14-dev llvm-14-dev   # frontend (libTooling), pinned
  libc6-dev-i386                                           # system headers for the ILP32 target
  libz3-dev                                                # SMT backend
  libcvc5-dev                                              # SMT backend
  nlohmann-json3-dev libboost-dev libgtest-dev libgmock-dev
  libsqlite3-dev                                           # embedded result store (server)
  libhiredis-dev                                           # Redis client: the team service's shared result store and job stream (argusd --redis)
  libbdd-dev                                               # BuDDy: abstraction formulas as BDDs (pred)
)
# Only what argusd loads or reads at run time (the -dev packages stay in the build stage).
RUNTIME_PKGS=(
  libclang-cpp14 libllvm14                                 # frontend (libTooling)
  libclang-common-14-dev                                   # Clang's resource headers (stddef.h ...): ARGUS_CLANG_RESOURCE_DIR
  libc6-dev libc6-dev-i386                                 # system headers the frontend parses (LP64, ILP32)
  libz3-4 libcvc5-1                                        # SMT backends
  libsqlite3-0 libhiredis0.14 libbdd0c2                    # result stores, BuDDy
  libstdc++6 libgcc-s1 libc6                            # C++ runtime, libc (in every Debian image; listed to be explicit)
)
case "$PROFILE" in
  build) PKGS=("${BUILD_PKGS[@]}") ;;
  runtime) PKGS=("${RUNTIME_PKGS[@]}") ;;
  full)
    PKGS=(
      "${BUILD_PKGS[@]}" ccache
      redis-server                                         # the Redis the team-service tests start on a loopback port (tests/e2e/redis.test.mjs)
      gcc-multilib                                         # native confirmation of ILP32 counterexamples (cc -m32; server/argus/native_check.cpp)
      csmith libcsmith-dev                                 # differential soundness suite (scripts/differential.sh); -dev has csmith.h/safe_math.h
      python3-matplotlib                                   # benchmark plots: scripts/bench-plot.py, argus bench --plot (tests/cli/bench-plot.sh)
      chromium ripgrep libkrb5-dev                         # VS Code extension e2e test: headless browser, code-server's install (scripts/install-code-server.sh)
    )
    # Node.js + npm for the argusd end-to-end tests (node --test); only if node is absent
    # (a newer Node installed another way is fine).
    command -v node >/dev/null 2>&1 || PKGS+=(nodejs)
    command -v npm >/dev/null 2>&1 || PKGS+=(npm)
    # python3 for the command-line tests (tests/cli) and the report scripts (scripts/*.py)
    command -v python3 >/dev/null 2>&1 || PKGS+=(python3)
    ;;
  *) echo "install-deps: unknown profile '$PROFILE' (full, build or runtime)" >&2; exit 2 ;;
esac
if [ "$PRINT" = 1 ]; then
  printf '%s\n' "${PKGS[@]}"
  exit 0
fi
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
