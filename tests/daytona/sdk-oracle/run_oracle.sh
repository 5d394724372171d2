#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs oracle.js (Daytona's TypeScript SDK, as pinned by package-lock.json)
# against the emulator the ctest fixture started.
#   run_oracle.sh SOURCE_DIR WORK_DIR EMULATOR_DIR
# The packages are installed with `npm ci` in WORK_DIR (a build directory;
# node_modules never lands in the source tree). Without node or npm the test
# is skipped (exit 77) with the reason, unless CI=true: there it fails.
set -eu
src=$1 work=$2 emu=$3

missing=""
command -v node >/dev/null 2>&1 || missing="node"
command -v npm >/dev/null 2>&1 || missing="${missing:+$missing and }npm"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "daytona SDK oracle: $missing not found, and CI=true requires this test to run" >&2
    exit 1
  fi
  echo "SKIPPED: daytona SDK oracle needs Node.js and npm ($missing not found); install them to run it"
  exit 77
fi

mkdir -p "$work"
cp "$src/package.json" "$src/package-lock.json" "$src/oracle.js" "$work/"
cd "$work"
# The lock file pins @daytonaio/sdk 0.190.1 and every dependency by hash.
npm ci --no-audit --no-fund --loglevel=error
url=$(cat "$emu/url")
exec node oracle.js "$url"
