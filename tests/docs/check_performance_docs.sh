#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/performance.md's commands, every ```sh block, run as written from a
# directory that looks like the source tree with the build in `build`, in
# quick mode (SBIO_BENCH_QUICK=1: a few iterations per row). What this
# proves is that every command shown works on this machine, not its
# figures: those are the docs' one run.
# usage: check_performance_docs.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cc hyperfine valgrind; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/deps.sh installs it)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for entry in "$src"/*; do
  case $(basename "$entry") in build*) ;; *) ln -s "$entry" "$work/$(basename "$entry")" ;; esac
done
ln -s "$build" "$work/build"
script=$work/commands.sh
{
  echo 'set -euo pipefail'
  awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0; next } on' "$src/docs/performance.md"
} >"$script"
grep -q '^bench/' "$script" || fail "docs/performance.md shows no bench command"
echo "== the documented commands:"
sed 1d "$script"
cd "$work"
SBIO_BENCH_QUICK=1 bash "$script"
