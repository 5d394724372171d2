#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The conf.d drop-ins the backend packages ship: one per backend in
# plugins/, named NN-NAME.yaml, configuring that backend only, and valid
# for `sbio config check`.
# usage: check_dropins.sh SBIO SOURCE_DIR
set -euo pipefail
sbio=$1 src=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
export HOME=/nonexistent XDG_CONFIG_HOME=/nonexistent ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
unset SBIO_CONFIG SBIO_BACKEND_PATH
n=0
for f in "$src"/packaging/conf.d/*; do
  name=$(basename "$f")
  [[ $name =~ ^[0-9][0-9]-([a-z][a-z0-9_]{0,30})\.yaml$ ]] || fail "$name is not NN-NAME.yaml"
  backend=${BASH_REMATCH[1]}
  [ -f "$src/plugins/$backend/CMakeLists.txt" ] || [ -d "$src/plugins/$backend" ] || fail "$name: no backend $backend in plugins/"
  out=$("$sbio" config check "$f" 2>&1) || fail "$name: $out"
  # Exactly one backend entry, the file's own.
  keys=$(sed -n 's/^  \([a-z][a-z0-9_]*\):.*/\1/p' "$f")
  [ "$keys" = "$backend" ] || fail "$name configures '$keys', not only $backend"
  n=$((n + 1))
done
for dir in "$src"/plugins/*/; do
  b=$(basename "$dir")
  [ -f "$dir/CMakeLists.txt" ] || continue
  ls "$src/packaging/conf.d/"[0-9][0-9]-"$b".yaml >/dev/null 2>&1 || fail "backend $b has no packaging/conf.d/NN-$b.yaml"
done
echo "drop-ins ok: $n"
