#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ABI guard (libabigail): libsandboxio.so.0 and the backend ABI against
# the baselines committed in abi/.
#
#   scripts/abi.sh check [BUILD_DIR]    compare a build with the baselines (CI: ctest abi_compatible)
#   scripts/abi.sh update [BUILD_DIR]   record a build as the baselines (the one command to refresh them)
#
# BUILD_DIR (default build/) needs debug information (RelWithDebInfo or Debug).
#
# What passes: additions. A new public function, a new enumerator, a member
# appended at the end of a backend ABI struct (which grows it; new backend
# operations are added so). Anything else fails: a function removed, a
# parameter or return type changed, a member's type or offset changed, a
# member inserted into padding, an enumerator renumbered.
#
# On top of abidiff:
#   - a public function added since the baseline must be in the version node
#     of the release being prepared (SANDBOXIO_<major>.<minor>);
#   - a backend ABI struct that grew needs SBIO_BACKEND_ABI_MINOR raised.
#
# The baselines are abi/libsandboxio.so.<SOVERSION>.abi and
# abi/sandboxio-backend-abi-<MAJOR>.<MINOR>.abi. `update` refuses to record
# an incompatible change over the baseline of the same SONAME or ABI major:
# an incompatible change is made by moving the version (SOVERSION in
# core/CMakeLists.txt, SBIO_BACKEND_ABI_MAJOR in backend.h) in the same
# change, and then gets a baseline of its own. Compatible additions need no
# refresh; refresh at each release so the next additions are measured from it.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: scripts/abi.sh check|update [BUILD_DIR]" >&2
  exit 64
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
mode=$1
build=$(cd "${2:-$src/build}" && pwd)
case $mode in check | update) ;; *) usage ;; esac
say() { echo "abi.sh: $*" >&2; }
# Missing tools or debug information: skipped (77), unless CI insists.
unable() {
  if [ "$mode" = check ] && [ "${CI:-}" != true ]; then
    say "$*: skipped"
    exit 77
  fi
  say "$*"
  exit 1
}

for tool in abidw abidiff readelf; do
  command -v "$tool" >/dev/null || unable "$tool is not installed (Debian: abigail-tools, binutils)"
done
lib=$build/lib/libsandboxio.so.0
probe=$build/abi/libsbio-backend-abi.so
[ -e "$lib" ] || unable "$lib is not built"
[ -e "$probe" ] || unable "$probe is not built (it is built with the tests: SBIO_BUILD_TESTS=ON)"
readelf -S "$lib" | grep '\.debug_info' >/dev/null ||
  unable "$lib has no debug information: build with -DCMAKE_BUILD_TYPE=RelWithDebInfo"

soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
abi_major=$(sed -n 's/^#define SBIO_BACKEND_ABI_MAJOR \([0-9][0-9]*\).*/\1/p' "$src/sdk/include/sandboxio/backend.h")
abi_minor=$(sed -n 's/^#define SBIO_BACKEND_ABI_MINOR \([0-9][0-9]*\).*/\1/p' "$src/sdk/include/sandboxio/backend.h")
version_h=$build/include/sandboxio/version.h
v_major=$(sed -n 's/^#define SBIO_VERSION_MAJOR \([0-9]*\)$/\1/p' "$version_h")
v_minor=$(sed -n 's/^#define SBIO_VERSION_MINOR \([0-9]*\)$/\1/p' "$version_h")
[ -n "$soname" ] && [ -n "$abi_major" ] && [ -n "$abi_minor" ] && [ -n "$v_major" ] && [ -n "$v_minor" ] ||
  unable "cannot read the SONAME, the backend ABI version or the project version"
node=SANDBOXIO_$v_major.$v_minor

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--exported-interfaces-only --drop-private-types --no-show-locs --no-corpus-path --no-comp-dir-path --no-elf-needed --type-id-style hash)
abidw "${common[@]}" --headers-dir "$src/core/include/sandboxio" --headers-dir "$build/include/sandboxio" \
  --out-file "$work/lib.abi" "$lib"
abidw "${common[@]}" --headers-dir "$src/sdk/include/sandboxio" --headers-dir "$src/core/include/sandboxio" \
  --out-file "$work/backend.abi" "$probe"

# compare BASELINE CURRENT: prints the report; returns 0 when compatible
# (writing the names of the structs that grew to $work/grew), 1 otherwise.
compare() {
  local rc=0
  : >"$work/grew"
  abidiff --leaf-changes-only --no-added-syms "$1" "$2" >"$work/report" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then return 0; fi
  cat "$work/report"
  # 4 alone is "changed" (8 would be "incompatible", 1 and 2 errors): only a
  # struct grown by members appended at its end is allowed.
  [ "$rc" -eq 4 ] || return 1
  awk -v grew="$work/grew" '
    /^(Leaf changes|Changed leaf types|Removed\/Changed\/Added (functions|variables)|(Function|Variable) symbols changes) summary:/ { next }
    /^$/ { next }
    /^'\''struct [A-Za-z_][A-Za-z0-9_]*'\'' changed:$/ { name = $2; old = -1; inblock = 1; print name > grew; next }
    inblock && /^  type size changed from [0-9]+ to [0-9]+ \(in bits\)$/ { old = $5 + 0; next }
    inblock && /^  [0-9]+ data member insertions?:$/ { next }
    inblock && /^    .*, at offset [0-9]+ \(in bits\)$/ {
      n = split($0, w, " "); off = w[n - 2] + 0
      if (old < 0 || off < old) { print "abi.sh: a member was inserted inside the struct (offset " off " bits), not appended"; bad = 1 }
      next }
    { print "abi.sh: not an addition: " $0; bad = 1 }
    END { exit bad }' "$work/report"
}

# Names the current library exports that the baseline does not, with version.
added_symbols() {
  grep -o "<elf-symbol name='[^']*' version='[^']*'" "$1" | sed "s/<elf-symbol name='\([^']*\)' version='\([^']*\)'/\1@\2/" |
    sort >"$work/old.syms"
  grep -o "<elf-symbol name='[^']*' version='[^']*'" "$2" | sed "s/<elf-symbol name='\([^']*\)' version='\([^']*\)'/\1@\2/" |
    sort >"$work/new.syms"
  comm -13 "$work/old.syms" "$work/new.syms"
}

lib_base=$src/abi/$soname.abi
backend_base=$(ls "$src/abi/sandboxio-backend-abi-$abi_major".*.abi 2>/dev/null | head -1 || true)
base_minor=${backend_base##*-abi-"$abi_major".}
base_minor=${base_minor%.abi}
status=0

check_lib() {
  if [ ! -f "$lib_base" ]; then
    say "no baseline for $soname (abi/$soname.abi): if the SONAME moved deliberately, record it: scripts/abi.sh update"
    return 1
  fi
  if ! compare "$lib_base" "$work/lib.abi"; then
    say "FAIL: $soname is not compatible with abi/$soname.abi (above). Keep the change compatible, or move the SONAME" \
      "(SOVERSION in core/CMakeLists.txt) in the same change and record its baseline: scripts/abi.sh update"
    return 1
  fi
  local wrong
  wrong=$(added_symbols "$lib_base" "$work/lib.abi" | grep -v "@$node\$" || true)
  if [ -n "$wrong" ]; then
    say "FAIL: functions added since the baseline must be in the version node $node (core/libsandboxio.map):"
    echo "$wrong" >&2
    return 1
  fi
  echo "abi.sh: $soname compatible with abi/$soname.abi ($(added_symbols "$lib_base" "$work/lib.abi" | wc -l) functions added)"
}

check_backend() {
  if [ -z "$backend_base" ]; then
    say "no baseline for the backend ABI $abi_major (abi/sandboxio-backend-abi-$abi_major.N.abi): if" \
      "SBIO_BACKEND_ABI_MAJOR moved deliberately, record it: scripts/abi.sh update"
    return 1
  fi
  if ! compare "$backend_base" "$work/backend.abi"; then
    say "FAIL: the backend ABI is not compatible with $(basename "$backend_base") (above): append, or raise" \
      "SBIO_BACKEND_ABI_MAJOR (a new entry symbol; old backends are then refused) and record its baseline"
    return 1
  fi
  if [ "$abi_minor" -lt "$base_minor" ]; then
    say "FAIL: SBIO_BACKEND_ABI_MINOR is $abi_minor, below the baseline's $base_minor"
    return 1
  fi
  if [ -s "$work/grew" ] && [ "$abi_minor" -eq "$base_minor" ]; then
    say "FAIL: $(tr '\n' ' ' <"$work/grew")grew since the baseline: raise SBIO_BACKEND_ABI_MINOR" \
      "(sdk/include/sandboxio/backend.h) and say what the new minor adds"
    return 1
  fi
  echo "abi.sh: backend ABI $abi_major.$abi_minor compatible with $(basename "$backend_base")"
}

case $mode in
  check)
    check_lib || status=1
    check_backend || status=1
    ;;
  update)
    if [ -f "$lib_base" ] && ! check_lib; then
      say "refused: not recording an incompatible change over abi/$soname.abi"
      status=1
    fi
    if [ -n "$backend_base" ] && ! check_backend; then
      if [ -s "$work/grew" ] && [ "$abi_minor" -eq "$base_minor" ] && compare "$backend_base" "$work/backend.abi" >/dev/null; then
        say "refused: raise SBIO_BACKEND_ABI_MINOR first"
      else
        say "refused: not recording an incompatible change over $(basename "$backend_base")"
      fi
      status=1
    fi
    if [ "$status" -eq 0 ]; then
      cp "$work/lib.abi" "$lib_base"
      [ -n "$backend_base" ] && rm -f "$backend_base"
      cp "$work/backend.abi" "$src/abi/sandboxio-backend-abi-$abi_major.$abi_minor.abi"
      echo "abi.sh: recorded abi/$soname.abi and abi/sandboxio-backend-abi-$abi_major.$abi_minor.abi; commit them"
    fi
    ;;
esac
exit $status
