#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's two commands "On a fresh Debian 12 machine", as written:
#   1. the main job (the first ```sh block) runs as root from a fresh copy of
#      the sources, with the environment of a root login on Debian 12 (no
#      sudo, nothing from this shell's PATH or variables): it installs what
#      is missing, builds, lists the fake backend as available and prints
#      the command's output;
#   2. the test command (the second block) is what CI runs: each of its
#      lines is a line of .ci/run (running the whole suite from inside the
#      suite would recurse; CI running it is its test).
# Neither command nor the scripts they start use sudo.
# The copy is built with ccache when it is installed (CMake reads
# CMAKE_C_COMPILER_LAUNCHER from the environment): the same commands, a
# faster second run.
# usage: check_readme_commands.sh SOURCE_DIR
# Exit 77 (skipped) when not root, unless CI=true.
set -euo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
  [ "${CI:-}" = true ] && fail "the README's commands are for root (CI=true: they must be run)"
  echo "the README's commands are run as root: skipped"
  exit 77
fi

# The ```sh blocks of the README's section, one file each.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk -v dir="$work" '
  /^## / { on = ($0 == "## On a fresh Debian 12 machine") }
  on && /^```sh$/ { n++; inblock = 1; next }
  inblock && /^```$/ { inblock = 0; next }
  inblock { print > (dir "/block" n) }
' "$src/README.md"
[ -s "$work/block1" ] && [ -s "$work/block2" ] && [ ! -e "$work/block3" ] ||
  fail "README.md's \"On a fresh Debian 12 machine\" has not exactly two \`\`\`sh blocks"
echo "== the main job:"; cat "$work/block1"
echo "== the test command:"; cat "$work/block2"

# No sudo anywhere on the way: the README says "as root".
for f in "$work/block1" "$work/block2" "$src/scripts/demo.sh" "$src/scripts/test.sh" "$src/scripts/deps.sh"; do
  if grep -w sudo "$f" >/dev/null; then fail "$f uses sudo; the README's commands run as root without it"; fi
done

# 2. CI runs the test command as written.
while IFS= read -r line; do
  [ -n "$line" ] || continue
  grep -Fx -- "$line" "$src/.ci/run" >/dev/null || fail "CI (.ci/run) does not run the README's '$line' as written"
done <"$work/block2"

# 1. The main job, from a fresh copy, as a root login would run it.
mkdir "$work/sandboxio" "$work/home"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/sandboxio")
else
  (cd "$src" && find . -type f -not -path './build*' -not -path './.git/*' -print0 | xargs -0 cp --parents -t "$work/sandboxio")
fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$work/sandboxio" CCACHE_NOHASHDIR=1
            CCACHE_DIR="${CCACHE_DIR:-$(ccache -k cache_dir 2>/dev/null || echo /root/.cache/ccache)}")
fi
# A login's environment on Debian 12 (root's PATH from /etc/profile); no
# fake clock either: the command is for the real machine.
(cd "$work/sandboxio" && env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME="$work/home" TERM=dumb \
  "${launcher[@]}" bash -e "$work/block1") >"$work/out" 2>"$work/err" ||
  { cat "$work/out" "$work/err"; fail "the README's main job failed"; }
cat "$work/out"
grep -E '^fake +available ' "$work/out" >/dev/null || { cat "$work/err"; fail "the main job did not list the fake backend as available"; }
grep -x hello "$work/out" >/dev/null || { cat "$work/err"; fail "the main job did not print the command's output (hello)"; }
echo "the README's commands: the main job ran, the test command is CI's"
