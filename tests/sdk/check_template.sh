#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The backend template as a third party builds it, against an installed SDK:
#   1. `cmake --install` this build into a staging prefix;
#   2. configure sdk/template out of tree with CMAKE_PREFIX_PATH=stage
#      (find_package(SandboxIO)), build it, and check the plugin's shape;
#   3. build the same source with a plain cc command line from pkg-config;
#   4. load both with the installed sbio (backends --load, inspect, reap);
#   5. `cmake --install` the template: it lands in the installed backend
#      directory, where the installed sbio finds it with no configuration;
#   6. when the conformance kit was built, run the installed kit on it.
# usage: check_template.sh BUILD_DIR SOURCE_DIR KIT(1|0) CC
set -euo pipefail
build=$1 src=$2 kit=$3 cc=${4:-cc}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# grep -q stops reading at its first match; under pipefail the writer's
# SIGPIPE would then fail the pipeline. This one reads everything.
quiet_grep() { grep "$@" >/dev/null; }
step() { echo "== $*"; }

step "install the build into $stage/usr"
cmake --install "$build" --prefix "$stage/usr" >"$stage/install.log" || { cat "$stage/install.log"; fail "cmake --install"; }
prefix=$stage/usr
libdir=$(cd "$prefix" && ls -d lib* | head -1)
for f in include/sandboxio/backend.h include/sandboxio/sdk.h include/sandboxio/sdk/http.h \
         "$libdir/libsandboxio-backend-sdk.a" "$libdir/cmake/SandboxIO/SandboxIOConfig.cmake" \
         "$libdir/cmake/SandboxIO/SandboxIOConfigVersion.cmake" "$libdir/cmake/SandboxIO/SandboxIOBackend.cmake" \
         "$libdir/cmake/SandboxIO/backend.map" "$libdir/pkgconfig/sandboxio-backend.pc" bin/sbio; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
backenddir=$prefix/$libdir/sandboxio/backends

# The staged programs, with nothing from this machine's configuration.
export HOME=$stage XDG_CONFIG_HOME=$stage
unset SBIO_BACKEND_PATH SBIO_CONFIG
# A sanitizer build installs instrumented programs; the plugins built here
# link the runtime through the SDK package, so the order does not matter.
export ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0
sbio() { "$prefix/bin/sbio" --config /dev/null "$@"; }

# Exports only the entry point, linked -z now, carries the note.
check_plugin() {
  local so=$1
  [ -f "$so" ] || fail "$so was not built"
  exports=$(nm -D --defined-only "$so" | awk '{print $3}')
  [ "$exports" = "sbio_backend_entry_v1" ] || fail "$so exports: $exports"
  readelf -d "$so" | quiet_grep -E 'BIND_NOW|FLAGS_1.*NOW' || fail "$so is not linked -z now"
  readelf -n "$so" | quiet_grep sandboxio || fail "$so has no sandboxio note"
  # --as-needed: the template makes no HTTP request, so no libcurl.
  if readelf -d "$so" | quiet_grep 'libcurl'; then fail "$so needs libcurl without using it"; fi
}

# Listed, loaded, UNKNOWN tier with the unverified reason, managed listing works.
check_loads() {
  local dir=$1 what=$2
  out=$(sbio --backend-path "$dir" backends --load) || fail "$what: sbio backends failed"
  echo "$out"
  echo "$out" | quiet_grep -E "^example +loaded +UNKNOWN .* $dir/sbio-backend-example.so\$" ||
    fail "$what: example is not listed as loaded from $dir"
  out=$(sbio --backend-path "$dir" inspect example) || fail "$what: sbio inspect failed"
  echo "$out" | quiet_grep "the backend declares it unverified" || fail "$what: inspect does not show the unverified mechanism"
  echo "$out" | quiet_grep -E '^capabilities: +network_policy, managed, connect$' || fail "$what: capabilities differ: $out"
  out=$(sbio --backend-path "$dir" reap --backend example) || fail "$what: sbio reap failed: $out"
  echo "$out" | quiet_grep "example: 0 found" || fail "$what: reap did not list the example backend: $out"
}

step "configure and build sdk/template with find_package(SandboxIO)"
tbuild=$stage/template-build
cmake -S "$src/sdk/template" -B "$tbuild" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_C_FLAGS="-Werror" >"$stage/configure.log" || { cat "$stage/configure.log"; fail "configure"; }
cmake --build "$tbuild" >"$stage/build.log" 2>&1 || { cat "$stage/build.log"; fail "build"; }
check_plugin "$tbuild/backends/sbio-backend-example.so"
check_loads "$tbuild/backends" "cmake build"

step "the README's commands as written: a relative --backend-path"
# sdk/template/README.md and docs/writing-a-backend.md run them from the
# template's directory, where build/ is; here build/ is a link to it.
mkdir -p "$stage/readme" && ln -s "$tbuild" "$stage/readme/build"
out=$(cd "$stage/readme" && sbio --backend-path build/backends backends --load 2>&1) ||
  fail "sbio --backend-path build/backends backends --load failed: $out"
echo "$out" | quiet_grep -E '^example +loaded ' || fail "a relative --backend-path did not find the example: $out"
if echo "$out" | quiet_grep 'ignoring'; then fail "the relative --backend-path was ignored: $out"; fi
(cd "$stage/readme" && sbio --backend-path build/backends inspect example) | quiet_grep -E '^name: +example$' ||
  fail "sbio --backend-path build/backends inspect example did not show the example"

step "the package's other targets and its version check"
mkdir -p "$stage/client"
cat >"$stage/client/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(client C)
find_package(SandboxIO 0.1 REQUIRED)
add_executable(client client.c)
target_link_libraries(client PRIVATE SandboxIO::sandboxio)
if(NOT TARGET SandboxIO::sbio OR NOT IS_DIRECTORY "${SandboxIO_BACKENDDIR}")
  message(FATAL_ERROR "SandboxIO::sbio or SandboxIO_BACKENDDIR missing")
endif()
CMAKE
printf '#include <sandboxio/sandboxio.h>\n#include <stdio.h>\nint main(void) { puts(sbio_version()); return 0; }\n' \
  >"$stage/client/client.c"
cmake -S "$stage/client" -B "$stage/client/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  >"$stage/client.log" 2>&1 && cmake --build "$stage/client/build" >>"$stage/client.log" 2>&1 ||
  { cat "$stage/client.log"; fail "a program linked with SandboxIO::sandboxio did not build"; }
"$stage/client/build/client" | quiet_grep '^0\.' || fail "the program linked with SandboxIO::sandboxio did not run"
sed -i 's/find_package(SandboxIO 0.1 REQUIRED)/find_package(SandboxIO 99 REQUIRED)/' "$stage/client/CMakeLists.txt"
if cmake -S "$stage/client" -B "$stage/client/build99" -DCMAKE_PREFIX_PATH="$prefix" >"$stage/client99.log" 2>&1; then
  fail "find_package(SandboxIO 99) accepted this version"
fi
grep -q 'version' "$stage/client99.log" || { cat "$stage/client99.log"; fail "the version refusal does not say why"; }

step "build sdk/template with pkg-config and cc"
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
# The .pc file finds the prefix from its own place: nothing to define.
pc() { pkg-config "$@" sandboxio-backend; }
[ "$(cd "$(pc --variable=backenddir)" && pwd -P)" = "$(cd "$backenddir" && pwd -P)" ] ||
  fail "backenddir is $(pc --variable=backenddir)"
mkdir -p "$stage/pc"
# shellcheck disable=SC2046 # word splitting of the flags is intended
"$cc" -Wall -Wextra -Werror -o "$stage/pc/sbio-backend-example.so" "$src/sdk/template/example.c" \
  $(pc --cflags --libs) || fail "cc with pkg-config --cflags --libs"
# The two halves, for a build that compiles and links in separate steps.
"$cc" -Wall -Wextra -Werror -c $(pc --variable=backend_cflags) $(pc --cflags-only-I) \
  -o "$stage/pc/example.o" "$src/sdk/template/example.c" || fail "cc -c with backend_cflags"
"$cc" -o "$stage/pc/split.so" "$stage/pc/example.o" $(pc --libs) || fail "linking with pkg-config --libs"
check_plugin "$stage/pc/split.so"
check_plugin "$stage/pc/sbio-backend-example.so"
check_loads "$stage/pc" "pkg-config build"

step "cmake --install the template: into the installed backend directory"
cmake --install "$tbuild" >/dev/null
[ -f "$backenddir/sbio-backend-example.so" ] || fail "the template was not installed into $backenddir"
# (sbio shows the directory as found: PREFIX/bin/../LIBDIR/sandboxio/backends)
sbio backends | quiet_grep -E "^example +available +UNKNOWN .* $prefix/.*sandboxio/backends/sbio-backend-example.so\$" ||
  fail "the installed sbio does not find the installed template by itself"

case $kit in
ON | on | 1 | TRUE | true)
  step "conformance kit on the template"
  [ -x "$prefix/bin/sbio-conformance" ] || fail "sbio-conformance was built but not installed"
  "$prefix/bin/sbio-conformance" --no-config --offline --backend-path "$tbuild/backends" \
    --report "$stage/report.json" example:// || fail "the conformance kit failed on the template"
  grep -q '"example://"' "$stage/report.json" || fail "no report written"
  ;;
*) echo "(conformance kit not built: skipped)" ;;
esac
echo "template ok"
