#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs one MCP test script from the fixture's WORK_DIR (install.sh).
#   run.sh WORK_DIR SCRIPT.mjs [ARGS...]
set -euo pipefail
work=$1 script=$2
shift 2
state=$(cat "$work/state" 2>/dev/null || echo "skip=the mcp_npm_install fixture did not run")
case $state in
  skip=*)
    echo "SKIPPED: ${state#skip=}" >&2
    exit 77
    ;;
esac
exec node "$work/$script" "$@"
