#!/usr/bin/env bash
# Runs `argus verify` on every program in a folder and prints each verdict.
set -u
argus=$1; dir=$2
status=0
for f in "$dir"/*.c; do
  out=$("$argus" verify "$f" --timeout 60 2>&1); rc=$?
  verdict=$(printf '%s\n' "$out" | sed -n 's/^VERDICT: //p' | tail -1)
  printf '%-28s %s\n' "$(basename "$f")" "${verdict:-error (exit $rc)}"
  [ $rc -eq 0 ] || { status=1; printf '%s\n' "$out" | tail -5; }
done
echo
echo "Details for one buggy program ($dir/pointer_swap.c):"
"$argus" verify "$dir/pointer_swap.c" --timeout 60
exit $status
