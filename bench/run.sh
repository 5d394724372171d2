#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every row of docs/performance.md, in one run on this machine:
#   bench/run.sh [BUILD_DIR]      (default: build)
# Each part also runs alone (bench/*/run.sh BUILD_DIR). Every figure is a
# ratio to a peer measured in the same run, or an instruction count: never
# compare absolute times across runs or machines. SBIO_BENCH_QUICK=1 runs a
# few iterations of each, to check the scripts (tests/docs does).
# Needs hyperfine and valgrind; the docker rows also need docker.io,
# busybox-static and python3-docker (scripts/deps.sh installs them all),
# and are skipped when no private engine can be started.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
echo "## In-process: create + exec + close on the fake"
echo
"$here/inproc/run.sh" "$build"
echo
echo "## Whole processes"
echo
"$here/cli/run.sh" "$build"
echo
echo "## Listing many backends"
echo
"$here/listing/run.sh" "$build"
echo
echo "## Docker backend"
echo
"$here/docker/run.sh" "$build"
