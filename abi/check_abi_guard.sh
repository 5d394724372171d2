#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ABI guard can fail: scripts/abi.sh check, run on copies of this build
# with one incompatible change each, must refuse every one of them and name
# what to do, and must accept the compatible one:
#   1. a member inserted in the middle of a backend ABI struct: refused;
#   2. a member appended to sbio_backend_ops with SBIO_BACKEND_ABI_MINOR
#      unchanged: refused, asking for the minor to be raised;
#   3. the same with the minor raised: accepted;
#   4. a libsandboxio.so.0 that lost all but one of its functions: refused.
# Each case is a scratch source tree (scripts/abi.sh, baselines recorded from
# this build, the public headers, the change) and a scratch build (the
# library, the probe compiled from abi/backend_abi.c against the changed
# headers, version.h).
# usage: check_abi_guard.sh SOURCE_DIR BUILD_DIR CC
# Exit 77 (skipped) without libabigail or debug information, like abi_compatible.
set -euo pipefail
src=$1
build=$2
cc=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The real build first: if abi.sh cannot run at all here, neither can this.
rc=0
"$src/scripts/abi.sh" check "$build" >"$work/real.log" 2>&1 || rc=$?
[ "$rc" = 77 ] && { cat "$work/real.log"; exit 77; }
[ "$rc" = 0 ] || { cat "$work/real.log"; fail "abi.sh check fails on the unchanged build"; }

# scratch NAME: a source tree and a build dir, $work/NAME/{src,build}.
scratch() {
  local s=$work/$1/src b=$work/$1/build
  mkdir -p "$s/scripts" "$s/abi" "$s/sdk/include" "$s/core/include" "$b/lib" "$b/abi" "$b/include/sandboxio"
  cp "$src/scripts/abi.sh" "$s/scripts/"
  cp "$src"/abi/*.abi "$src/abi/backend_abi.c" "$s/abi/"
  cp -r "$src/sdk/include/sandboxio" "$s/sdk/include/"
  cp -r "$src/core/include/sandboxio" "$s/core/include/"
  cp "$build/include/sandboxio/"*.h "$b/include/sandboxio/"
  cp "$build/lib/libsandboxio.so.0" "$b/lib/"
  cp "$build/abi/libsbio-backend-abi.so" "$b/abi/"
  # Baselines of this very build, so each change is measured alone (the
  # committed ones may be older: additions since then are allowed).
  "$s/scripts/abi.sh" update "$b" >"$work/$1.update.log" 2>&1 || { cat "$work/$1.update.log"; fail "$1: abi.sh update"; }
}
# probe NAME: the backend ABI probe, built from the scratch tree's headers.
probe() {
  local s=$work/$1/src b=$work/$1/build
  "$cc" -g -O0 -shared -fPIC -fvisibility=hidden -Wl,-soname,libsbio-backend-abi.so \
    -I"$s/sdk/include" -I"$s/core/include" -I"$b/include" \
    -o "$b/abi/libsbio-backend-abi.so" "$s/abi/backend_abi.c"
}
# expect NAME accepted|refused TEXT: abi.sh check's verdict, and TEXT in what it says.
expect() {
  local rc=0
  "$work/$1/src/scripts/abi.sh" check "$work/$1/build" >"$work/$1.log" 2>&1 || rc=$?
  case $2 in
    accepted) [ "$rc" = 0 ] || { cat "$work/$1.log"; fail "$1: abi.sh refused a compatible change (exit $rc)"; } ;;
    refused) [ "$rc" = 1 ] || { cat "$work/$1.log"; fail "$1: abi.sh did not refuse it (exit $rc)"; } ;;
  esac
  grep -F -- "$3" "$work/$1.log" >/dev/null || { cat "$work/$1.log"; fail "$1: abi.sh did not say '$3'"; }
  echo "$1: $2 ($3)"
}
header=sdk/include/sandboxio/backend.h
grep -x '  const char \*key;' "$src/$header" >/dev/null || fail "sbio_bk_kv has no 'const char *key;' line to insert after"
grep -x '} sbio_backend_ops;' "$src/$header" >/dev/null || fail "backend.h has no '} sbio_backend_ops;' line"
minor=$(sed -n 's/^#define SBIO_BACKEND_ABI_MINOR \([0-9][0-9]*\).*/\1/p' "$src/$header")

scratch inserted
sed -i 's/^  const char \*key;$/  const char *key;\n  int inserted;/' "$work/inserted/src/$header"
probe inserted
expect inserted refused "a member was inserted inside the struct"

scratch appended
sed -i 's/^} sbio_backend_ops;$/  void (*appended)(void);\n} sbio_backend_ops;/' "$work/appended/src/$header"
probe appended
expect appended refused "raise SBIO_BACKEND_ABI_MINOR"

scratch appended_minor
sed -i 's/^} sbio_backend_ops;$/  void (*appended)(void);\n} sbio_backend_ops;/' "$work/appended_minor/src/$header"
sed -i "s/^#define SBIO_BACKEND_ABI_MINOR $minor\\b/#define SBIO_BACKEND_ABI_MINOR $((minor + 1))/" "$work/appended_minor/src/$header"
probe appended_minor
expect appended_minor accepted "compatible with sandboxio-backend-abi-"

scratch removed
cat >"$work/removed/lib.c" <<'EOF'
#include <sandboxio/sandboxio.h>
const char *sbio_version(void) { return "0"; }
EOF
printf 'SANDBOXIO_0.1 { global: sbio_version; local: *; };\n' >"$work/removed/lib.map"
"$cc" -g -O0 -shared -fPIC -I"$work/removed/src/core/include" -I"$work/removed/build/include" \
  -Wl,-soname,libsandboxio.so.0 -Wl,--version-script="$work/removed/lib.map" \
  -o "$work/removed/build/lib/libsandboxio.so.0" "$work/removed/lib.c"
expect removed refused "libsandboxio.so.0 is not compatible with abi/libsandboxio.so.0.abi"
echo "the ABI guard refuses what it must and accepts what it may"
