#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs E2B's own JavaScript SDK against the emulator (oracle.mjs).
#   run.sh SOURCE_DIR WORK_DIR EMULATOR_PY PYTHON3
# Installs the SDK exactly as package-lock.json pins it (npm ci) into
# WORK_DIR, never into the source tree. Without node/npm: a failure under
# CI=true, a visible skip (exit 77) otherwise.
set -euo pipefail
src=$1 work=$2 emulator=$3 python=$4
missing=()
command -v node >/dev/null 2>&1 || missing+=(node)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "e2b_sdk_oracle: ${missing[*]} not found; the E2B SDK oracle cannot run" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  echo "SKIPPED: install Node.js 20 and npm to run it" >&2
  exit 77
fi
mkdir -p "$work"
cp "$src/package.json" "$src/package-lock.json" "$src/oracle.mjs" "$work/"
cd "$work"
# Reinstall only when the lock changed since the last install here.
if ! cmp -s package-lock.json node_modules/.sbio-installed-lock 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.sbio-installed-lock
fi
E2B_EMULATOR="$emulator" PYTHON3="$python" exec node oracle.mjs
