#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The SDK's documented commands, run exactly as written, in order, in one
# shell, as a backend author on a machine without sandboxio would:
#   1. docs/writing-a-backend.md, every ```sh block, from a copy of the
#      sources: installing the SDK from a source build into ~/.local
#      (`cmake --install --prefix`), the template with CMake and with
#      pkg-config, installing the result, the conformance kit;
#   2. sdk/template/README.md, every ```sh block, in a fresh copy of the
#      template;
#   3. the pkg-config line of sandboxio-backend(7)'s synopsis, with NAME =
#      example, in another copy.
# Then the installed sbio must list the example backend from ~/.local.
# HOME is a scratch directory; PATH, PKG_CONFIG_PATH and CMAKE_PREFIX_PATH
# are only what the documents tell the reader to set.
# usage: check_sdk_docs.sh SOURCE_DIR
set -euo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cc cmake pkg-config groff; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/deps.sh installs it)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The sources as a reader has them: the tracked files, no build trees.
mkdir "$work/sandboxio"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/sandboxio")
else
  (cd "$src" && find . -type f -not -path './build*' -not -path './.git/*' -print0 | xargs -0 cp --parents -t "$work/sandboxio")
fi

# The ```sh blocks of a Markdown file, in order.
blocks() { awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0; next } on' "$1"; }
# The synopsis' pkg-config line of a man page, rendered, NAME made example.
synopsis_cc() {
  groff -man -Tascii -P-c "$1" 2>/dev/null | sed 's/.\x08//g' | sed -n 's/^ *\(cc .*pkg-config.*\)$/\1/p' |
    sed 's/NAME/example/g'
}
man_cc=$(synopsis_cc "$src/packaging/man/sandboxio-backend.7")
[ -n "$man_cc" ] || fail "no pkg-config line in the synopsis of sandboxio-backend(7)"

{
  echo 'set -euo pipefail'
  echo "cd '$work/sandboxio'"
  echo 'echo "== docs/writing-a-backend.md"'
  blocks "$src/docs/writing-a-backend.md"
  echo 'echo "== sdk/template/README.md"'
  echo "cp -r '$work/sandboxio/sdk/template' '$work/template' && cd '$work/template'"
  blocks "$src/sdk/template/README.md"
  echo 'echo "== sandboxio-backend(7)"'
  echo "cp -r '$work/sandboxio/sdk/template' '$work/man' && cd '$work/man'"
  echo "$man_cc"
  echo 'sbio --backend-path "$PWD" inspect example'
  # What the reader should now have.
  echo 'sbio backends >"$HOME/backends.txt"'
  echo 'command -v sbio >"$HOME/which.txt"'
} >"$work/script.sh"
echo "== the documented commands:"
grep -v '^echo "==\|^set -euo\|^cd \|^cp -r' "$work/script.sh" | grep -v '>"$HOME/' | sed 's/^/   /'

mkdir "$work/home"
unset SBIO_CONFIG SBIO_BACKEND_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH CFLAGS LDFLAGS
# A sanitizer build of the suite does not reach the documented build.
unset ASAN_OPTIONS UBSAN_OPTIONS LD_PRELOAD
if ! env HOME="$work/home" PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C bash "$work/script.sh" >"$work/log" 2>&1; then
  tail -60 "$work/log"
  fail "a documented command failed (the last lines above)"
fi
grep '^==' "$work/log"
[ "$(cat "$work/home/which.txt")" = "$work/home/.local/bin/sbio" ] || fail "sbio is $(cat "$work/home/which.txt")"
grep -Eq "^example +available +UNKNOWN .* $work/home/\\.local/.*sandboxio/backends/sbio-backend-example\\.so\$" \
  "$work/home/backends.txt" || fail "the installed sbio does not list the installed example: $(cat "$work/home/backends.txt")"
[ -f "$work/home/acme-backend/report.json" ] || fail "the conformance kit wrote no report"
echo "documented SDK commands ok"
