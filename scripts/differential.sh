#!/usr/bin/env bash
# Differential soundness suite (issue 20): csmith programs whose checksum gcc computes,
# each as a true and a false task for `argus verify`. See scripts/differential.py for
# the method and the options, e.g.
#   scripts/differential.sh --seeds 1..50 --algorithm bmc --timeout 30 --jobs 2
exec python3 "$(dirname "$0")/differential.py" "$@"
