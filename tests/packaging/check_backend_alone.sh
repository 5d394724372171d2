#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A backend builds alone against an installed core and SDK, as a
# distribution builds sandboxio-backend-NAME from the same sources:
#   1. install only the core and dev components into a staging prefix
#      (no backend at all: the staged sbio lists none);
#   2. configure plugins/fake on its own against it (find_package(SandboxIO)),
#      build it, check the plugin's shape;
#   3. run a command through it with the staged sbio, install it into the
#      staged backend directory and find it there without configuration;
#   4. when the kit was built, run the conformance kit on it.
# usage: check_backend_alone.sh BUILD_DIR SOURCE_DIR CC KIT(1|0)
set -euo pipefail
build=$1 src=$2 cc=$3 kit=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# grep -q stops reading at its first match; under pipefail the writer's
# SIGPIPE would then fail the pipeline. This one reads everything.
quiet_grep() { grep "$@" >/dev/null; }
step() { echo "== $*"; }

step "install the core and dev components only"
prefix=$work/usr
cmake --install "$build" --component core --prefix "$prefix" >/dev/null
cmake --install "$build" --component dev --prefix "$prefix" >/dev/null
libdir=$(cd "$prefix" && ls -d lib* | head -1)
export HOME=$work XDG_CONFIG_HOME=$work
unset SBIO_BACKEND_PATH SBIO_CONFIG
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0
sbio() { "$prefix/bin/sbio" --config /dev/null "$@"; }
listed=$(sbio backends --json)
echo "$listed" | quiet_grep '"backends":\[\]' || fail "core + dev alone already hold a backend: $listed"

step "configure and build plugins/fake alone"
cmake -S "$src/plugins/fake" -B "$work/fake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$work/configure.log" || { cat "$work/configure.log"; fail "configure"; }
cmake --build "$work/fake" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build"; }
plugin=$work/fake/backends/sbio-backend-fake.so
"$src/tests/install/check_artifacts.sh" "$prefix/$libdir/libsandboxio.so.0" "$plugin"

step "use it with the staged sbio"
out=$(sbio --backend-path "$work/fake/backends" run -b fake:// -- echo built-alone)
[ "$out" = "built-alone" ] || fail "sbio run through the standalone fake printed '$out'"
cmake --install "$work/fake" >/dev/null
[ -f "$prefix/$libdir/sandboxio/backends/sbio-backend-fake.so" ] || fail "not installed into the staged backend directory"
sbio backends | quiet_grep -E '^fake +available +CONTAINER ' || fail "the staged sbio does not find the installed fake"

case $kit in
ON | on | 1 | TRUE | true)
  step "conformance kit on the standalone fake"
  "$prefix/bin/sbio-conformance" --no-config --offline --backend-path "$work/fake/backends" fake:// >"$work/kit.log" ||
    { cat "$work/kit.log"; fail "the conformance kit failed on the standalone fake"; }
  tail -1 "$work/kit.log"
  ;;
esac
echo "backend alone ok"
