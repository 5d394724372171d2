#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Test fixture: installs the official MCP SDK and conformance suite exactly
# as package-lock.json pins them (npm ci) into WORK_DIR, never into the
# source tree, and copies the test scripts next to them (Node resolves
# packages from the script's own directory).
#   install.sh SOURCE_DIR WORK_DIR
# Reinstalls only when the lock changed. Without node/npm: a failure under
# CI=true, else WORK_DIR/state says skip= and the tests exit 77.
set -euo pipefail
src=$1 work=$2
mkdir -p "$work"
missing=()
command -v node >/dev/null 2>&1 || missing+=(node)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "mcp tests: ${missing[*]} not found; the MCP SDK tests cannot run" >&2
  echo "skip=${missing[*]} not found (install Node.js 20 and npm)" >"$work/state"
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 77
fi
cp "$src/package.json" "$src/package-lock.json" "$work/"
cd "$work"
if ! cmp -s package-lock.json node_modules/.sbio-installed-lock 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.sbio-installed-lock
fi
cp "$src"/*.mjs "$src"/*.yml "$src/python_image.sh" "$work/"
echo "ok" >"$work/state"
