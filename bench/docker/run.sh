#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Docker backend benchmark. Usage: bench/docker/run.sh [BUILD_DIR] [-n N]
#
# Starts a private engine (tests/docker/engine.sh; set SBIO_TEST_DOCKER_HOST
# to use an existing one), builds the benchmark client against BUILD_DIR
# (default build; it must be configured with -DSBIO_BACKENDS="fake;docker"
# and built), runs bench.py and prints a markdown report. Needs docker.io,
# busybox-static, python3-docker and curl.
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
[ -n "$host" ] || { echo "run.sh: no engine: $(cat "$state/state")" >&2; exit 1; }
# sandboxio.h includes the generated sandboxio/version.h of the build tree.
cc -O2 -Wall -I"$root/core/include" -I"$build/include" "$here/sbio_bench.c" -o "$work/sbio_bench" -L"$build/lib" -lsandboxio \
  -Wl,-rpath,"$build/lib" -lpthread
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
/usr/bin/python3 "$here/bench.py" --host "$host" --image "$image" --sbio "$build/bin/sbio" \
  --sbio-bench "$work/sbio_bench" --config "$work/config.yaml" "$@"
