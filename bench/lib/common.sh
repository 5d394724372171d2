# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the bench scripts: the build directory, quick mode, a scratch
# directory removed on exit, and the table header.
#   SBIO_BENCH_QUICK=1   a few iterations per row: checks that the script
#                        works (the docs test runs it so); the figures then
#                        mean nothing.
set -euo pipefail
bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src_root=$(cd "$bench_root/.." && pwd)
build=$(cd "${1:-$src_root/build}" && pwd)
quick=${SBIO_BENCH_QUICK:-0}
[ -x "$build/bin/sbio" ] || { echo "bench: $build/bin/sbio is missing: build sandboxio there first" >&2; exit 1; }
scratch=$(mktemp -d /tmp/sbio-bench-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# Nothing from the caller's configuration or backend path.
export SBIO_CONFIG='' SBIO_BACKEND_PATH=''
unset OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
need() { command -v "$1" >/dev/null || { echo "bench: $1 is not installed (scripts/deps.sh installs it)" >&2; exit 1; }; }
runs() { if [ "$quick" = 1 ]; then echo "$1"; else echo "$2"; fi; }
header() {
  echo "| what | median wall (spread) | CPU user+sys | wall vs peer | CPU vs peer | runs |"
  echo "|---|---|---|---|---|---|"
}
