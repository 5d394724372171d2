#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mypy --strict over the binding and its tests, with no cache left behind.
# usage: run_mypy.sh BINDING_DIR
# Exit 77 (skipped) without mypy, unless CI=true.
set -euo pipefail
dir=$1
if ! command -v mypy >/dev/null; then
  [ "${CI:-}" = true ] && { echo "FAIL: mypy is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
  echo "mypy is not installed (Debian: mypy): skipped"
  exit 77
fi
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
cd "$dir"
MYPYPATH="$dir:$dir/tests" mypy --strict --cache-dir "$cache" --python-executable /usr/bin/python3 sandboxio tests
