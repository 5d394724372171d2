#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs pytest on the binding's tests with Debian's Python.
# usage: run_pytest.sh PYTHON LIBSANDBOXIO PYTEST-ARGS...
# Exit 77 (skipped) without pytest, unless CI=true.
set -euo pipefail
py=$1 lib=$2
shift 2
if ! "$py" -c 'import pytest' 2>/dev/null; then
  [ "${CI:-}" = true ] && { echo "FAIL: pytest is missing for $py (scripts/deps.sh installs python3-pytest)" >&2; exit 1; }
  echo "pytest is not installed for $py (Debian: python3-pytest): skipped"
  exit 77
fi
if [ "${SBIO_PY_PRELOAD_ASAN:-}" = 1 ]; then
  # A sanitizer build: the library needs ASan's runtime, which must load first.
  asan=$(ldd "$lib" | awk '/libclang_rt\.asan|libasan\.so/ {print $3; exit}')
  [ -n "$asan" ] && export LD_PRELOAD="$asan${LD_PRELOAD:+:$LD_PRELOAD}"
fi
# A test still running after 100 s has every thread's stack printed (the
# suite's own guard ends it at 120 s).
exec "$py" -m pytest -p no:cacheprovider -o faulthandler_timeout=100 -q -ra "$@"
