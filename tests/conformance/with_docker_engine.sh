#!/bin/sh
# SPDX-License-Identifier: MIT
# with_docker_engine.sh STATE_DIR CONFIG -- COMMAND ARGS...
#
# Runs COMMAND ARGS... docker://IMAGE against the engine that
# tests/docker/engine.sh started (its STATE_DIR/state holds host=, image=,
# or skip=<reason>), after writing CONFIG: a sandboxio configuration that
# points the docker backend at that engine. Exit 77 (skipped) when there
# is no engine, as the docker tests do.
set -eu
state=$1/state
config=$2
shift 2
[ "${1:-}" = "--" ] && shift
if [ ! -f "$state" ]; then
  echo "with_docker_engine.sh: no engine state at $state" >&2
  exit 1
fi
skip=$(sed -n 's/^skip=//p' "$state")
if [ -n "$skip" ]; then
  echo "with_docker_engine.sh: SKIP: $skip"
  exit 77
fi
host=$(sed -n 's/^host=//p' "$state")
image=$(sed -n 's/^image=//p' "$state")
if [ -z "$host" ] || [ -z "$image" ]; then
  echo "with_docker_engine.sh: $state names no engine (host=, image=)" >&2
  exit 1
fi
printf 'backends:\n  docker:\n    settings:\n      host: "%s"\n      pull: never\n' "$host" >"$config"
exec "$@" "docker://$image"
