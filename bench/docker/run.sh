#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Docker backend benchmark. Usage: bench/docker/run.sh [BUILD_DIR] [-n N]
# (SBIO_BENCH_QUICK=1: one run per cell, to check that it works)
#
# Starts a private engine (tests/docker/engine.sh; set SBIO_TEST_DOCKER_HOST
# to use an existing one), builds the benchmark client against BUILD_DIR
# (default build; it must be configured with -DSBIO_BACKENDS="fake;docker"
# and built), the raw Engine API client (raw_exec.c, libcurl alone) and the
# one-shot floor (raw_run.c, no HTTP library), runs
# bench.py and prints a markdown report. Needs docker.io, busybox-static,
# python3-docker, curl and libcurl's headers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
shift || true
build=$(cd "$build" && pwd)
[ -f "$build/lib/sandboxio/backends/sbio-backend-docker.so" ] || {
  echo "run.sh: $build has no docker backend: configure with -DSBIO_BACKENDS=\"fake;docker\" and build" >&2
  exit 1
}
work=$(mktemp -d /tmp/sbio-bench-XXXXXX)
state=$work/engine
cleanup() {
  "$root/tests/docker/engine.sh" stop "$state" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
"$root/tests/docker/engine.sh" start "$state"
host=$(sed -n 's/^host=//p' "$state/state")
image=$(sed -n 's/^image=//p' "$state/state")
if [ -z "$host" ]; then
  # No engine on this machine (engine.sh says why): nothing to measure.
  echo "Docker rows skipped: $(sed -n 's/^skip=//p' "$state/state")"
  exit 0
fi
# sandboxio.h includes the generated sandboxio/version.h of the build tree.
cc -O2 -Wall -I"$root/core/include" -I"$build/include" "$here/sbio_bench.c" -o "$work/sbio_bench" -L"$build/lib" -lsandboxio \
  -Wl,-rpath,"$build/lib" -lpthread
# The project's C dialect (CMakeLists.txt): C11 plus the POSIX interfaces.
cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra "$here/raw_exec.c" -o "$work/raw_exec" -lcurl
cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra "$here/raw_run.c" -o "$work/raw_run"
cat >"$work/config.yaml" <<YAML
backends:
  docker:
    settings:
      host: $host
      image: $image
      runtime: runc
      pull: never
YAML
export SBIO_BACKEND_PATH= SBIO_CONFIG=
# SBIO_BENCH_QUICK=1 (bench/lib/common.sh): one run per cell, small sizes.
quick=()
[ "${SBIO_BENCH_QUICK:-0}" = 1 ] && quick=(-n 1 --bytes 1048576 --concurrent 2 --rounds 1)
/usr/bin/python3 "$here/bench.py" --host "$host" --image "$image" --sbio "$build/bin/sbio" \
  --sbio-bench "$work/sbio_bench" --raw-exec "$work/raw_exec" --raw-run "$work/raw_run" --config "$work/config.yaml" "$@" "${quick[@]}"
