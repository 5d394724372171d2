#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs every component of the build on its own and checks that
#   - every installed file belongs to a named component (none "Unspecified");
#   - core, dev and each backend-NAME are disjoint and together are the whole install;
#   - lib + cli (the Debian split of core) install exactly what core installs;
#   - each holds what it should: core the library and sbio, dev headers and
#     SDK, lib only the shared library, backend-NAME its plugin and drop-in.
# usage: check_components.sh BUILD_DIR
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Files (and symlinks) a component installs, relative to the prefix.
install_list() {
  local comp=$1 dest=$work/$1
  if [ "$comp" = all ]; then
    cmake --install "$build" --prefix "$dest" >/dev/null
  else
    cmake --install "$build" --component "$comp" --prefix "$dest" >/dev/null
  fi
  if [ -d "$dest" ]; then (cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort); fi >"$work/$comp.list"
}

install_list all
backends=$(sed -n 's|.*/sandboxio/backends/sbio-backend-\([a-z0-9_]*\)\.so$|\1|p' "$work/all.list" | sort -u)
[ -n "$backends" ] || fail "no backend in the full install"
for comp in core dev lib cli Unspecified; do install_list "$comp"; done
for b in $backends; do install_list "backend-$b"; done

[ ! -s "$work/Unspecified.list" ] || fail "files outside any named component: $(cat "$work/Unspecified.list")"

lists=("$work/core.list" "$work/dev.list")
for b in $backends; do lists+=("$work/backend-$b.list"); done
dups=$(cat "${lists[@]}" | sort | uniq -d)
[ -z "$dups" ] || fail "files in more than one of core, dev, backend-*: $dups"
cat "${lists[@]}" | sort >"$work/union.list"
diff -u "$work/all.list" "$work/union.list" || fail "core + dev + backends differ from the full install"

sort -u "$work/lib.list" "$work/cli.list" >"$work/split.list"
diff -u "$work/core.list" "$work/split.list" || fail "lib + cli differ from core"
[ -z "$(comm -12 "$work/lib.list" "$work/cli.list")" ] || fail "lib and cli overlap"

has() { grep -Eq "$2" "$work/$1.list" || fail "$1 lacks a file matching $2"; }
lacks() { if grep -Eq "$2" "$work/$1.list"; then fail "$1 holds $(grep -E "$2" "$work/$1.list" | head -1)"; fi; }
has core '^lib[^/]*/libsandboxio\.so\.0$'
has core '^bin/sbio$'
has core '^libexec/sandboxio/sbio-mcp$'
has core '^share/man/man1/sbio\.1$'
has core '^share/man/man5/sandboxio\.yaml\.5$'
lacks core '^include/|\.a$|/cmake/|/pkgconfig/|/backends/|libsandboxio\.so$'
has dev '^include/sandboxio/backend\.h$'
has dev '^include/sandboxio/sdk\.h$'
has dev '^include/sandboxio/sdk/http\.h$'
has dev '^include/sandboxio/sandboxio\.h$'
has dev '^lib[^/]*/libsandboxio-backend-sdk\.a$'
has dev '^lib[^/]*/libsandboxio\.so$'
has dev '^lib[^/]*/cmake/SandboxIO/SandboxIOConfig\.cmake$'
has dev '^lib[^/]*/pkgconfig/sandboxio-backend\.pc$'
has dev '^share/man/man7/sandboxio-backend\.7$'
lacks dev '/backends/|libsandboxio\.so\.0'
[ "$(grep -cv 'libsandboxio\.so\.0' "$work/lib.list" || true)" = 0 ] || fail "lib holds more than the library: $(cat "$work/lib.list")"
for b in $backends; do
  [ "$(wc -l <"$work/backend-$b.list")" = 2 ] || fail "backend-$b holds: $(cat "$work/backend-$b.list")"
  has "backend-$b" "/sandboxio/backends/sbio-backend-$b\\.so\$"
  has "backend-$b" "/sandboxio/conf\\.d/[0-9][0-9]-$b\\.yaml\$"
done
echo "components ok: core, dev, lib, cli, backends: $(echo $backends)"
