#!/bin/bash
# docker/Dockerfile's recipe without a container engine: the install steps its stages
# run (scripts/install-deps.sh --profile build / runtime) run here too, and the runtime
# profile is checked against what argusd needs at run time: the package of every shared
# library argusd is linked with (unless Debian's base system has it), Clang's resource
# headers and the system headers the frontend parses. The Dockerfile and compose.yaml
# only use argusd options that argusd knows.
#   docker-recipe.sh SRC ARGUSD
set -u
SRC="$1"
ARGUSD="$2"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

bash "$SRC/scripts/install-deps.sh" --profile build || bad "install-deps.sh --profile build"
bash "$SRC/scripts/install-deps.sh" --profile runtime || bad "install-deps.sh --profile runtime"
mapfile -t RUNTIME < <(bash "$SRC/scripts/install-deps.sh" --profile runtime --print)
[ "${#RUNTIME[@]}" -gt 0 ] || bad "empty runtime profile"
in_runtime() { local p; for p in "${RUNTIME[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }

owner() {  # the Debian package of a file (merged-/usr paths tried both ways)
  local f="$1" r
  for cand in "$(realpath "$f")" "$(realpath "$f" | sed 's|^/usr||')" "$f" "${f#/usr}"; do
    r=$(dpkg -S "$cand" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$r" ] && { echo "$r"; return 0; }
  done
  return 1
}
base_system() {  # Priority required/important: in every Debian image
  case "$(dpkg-query -W -f='${Priority}' "$1" 2>/dev/null)" in required|important) return 0 ;; esac
  return 1
}

# 1. every library argusd names (DT_NEEDED), resolved as the loader does
checked=0
while read -r lib; do
  path=$(ldd "$ARGUSD" | awk -v l="$lib" '$1 == l { print $3 }')
  [ -n "$path" ] && [ -e "$path" ] || { bad "$lib: not resolved by ldd"; continue; }
  pkg=$(owner "$path") || { bad "$lib ($path): no Debian package owns it"; continue; }
  pkg=${pkg%%:*}
  checked=$((checked + 1))
  in_runtime "$pkg" || base_system "$pkg" || bad "$lib comes from $pkg, missing from the runtime profile"
done < <(readelf -d "$ARGUSD" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ "$checked" -ge 5 ] || bad "only $checked libraries checked"

# 2. headers the frontend reads at run time
res=$(ls -d /usr/lib/llvm-14/lib/clang/*/include/stddef.h 2>/dev/null | head -1)
for f in "$res" /usr/include/stdio.h /usr/include/x86_64-linux-gnu/gnu/stubs-32.h; do
  [ -n "$f" ] && [ -e "$f" ] || { bad "header $f missing here"; continue; }
  pkg=$(owner "$f") || { bad "$f: no package"; continue; }
  in_runtime "${pkg%%:*}" || bad "$f comes from $pkg, missing from the runtime profile"
done

# 3. the Dockerfile's stages and options
DF="$SRC/docker/Dockerfile"
grep -q '^FROM debian:bookworm AS build' "$DF" || bad "build stage is not debian:bookworm"
grep -q '^FROM debian:bookworm-slim AS runtime' "$DF" || bad "runtime stage is not debian:bookworm(-slim)"
grep -q 'install-deps.sh --profile build' "$DF" || bad "build stage does not use install-deps.sh --profile build"
grep -q 'install-deps.sh --profile runtime' "$DF" || bad "runtime stage does not use install-deps.sh --profile runtime"
[ "$(grep -c 'apt-get' "$DF")" = 0 ] || bad "Dockerfile installs packages around install-deps.sh"
grep -q '^USER argus' "$DF" || bad "runtime stage does not run as the non-root user"
grep -q '^HEALTHCHECK' "$DF" && grep -q 'argusd --health' "$DF" || bad "no HEALTHCHECK through argusd --health"
help=$("$ARGUSD" --help)
for f in "$DF" "$SRC/docker/compose.yaml"; do
  for opt in $(grep -o -- '--[a-z][a-z-]*' "$f" | sort -u); do
    case "$opt" in --profile|--target|--strip-debug|--from|--interval|--timeout|--start-period|--retries|--build|--scale|--user-group|--system|--uid|--create-home|--home-dir) continue ;; esac
    grep -q -- "$opt" <<<"$help" || bad "$f uses argusd option $opt that argusd --help does not list"
  done
done
grep -q 'appendonly yes' "$SRC/docker/compose.yaml" || bad "compose: Redis without AOF"
grep -q 'redis_password' "$SRC/docker/compose.yaml" && grep -q 'argus_token' "$SRC/docker/compose.yaml" || bad "compose: secrets missing"
if grep -q 'requirepass [^%]' "$SRC/docker/compose.yaml"; then bad "compose: a literal Redis password"; fi

[ "$fail" = 0 ] && echo "docker recipe: ok (${#RUNTIME[@]} runtime packages, $checked libraries checked)"
exit $fail
