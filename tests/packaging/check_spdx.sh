#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every file in the repository carries an SPDX-License-Identifier line in
# its first lines, except data that cannot hold a comment (JSON, lock
# files, fuzz corpora, binaries) and the licence text itself.
# usage: check_spdx.sh SOURCE_DIR
set -euo pipefail
src=$1
cd "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files --cached --others --exclude-standard)
else
  files=$(find . -type f -not -path './build*' -not -path '*/node_modules/*' -not -path './.git/*' | sed 's|^\./||')
fi
missing=0 n=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  case "$f" in
    LICENSE | *.json | *.elf | *.png | *.tar* | tests/fuzz/corpus/* | */fuzz/corpus/* | debian/source/format | \
      debian/*.symbols | abi/*.xml | *.abi) continue ;;
    # No comment syntax (changelog), or the licence statement itself (copyright).
    debian/changelog | debian/copyright) continue ;;
  esac
  n=$((n + 1))
  if ! head -n 5 "$f" | grep -q 'SPDX-License-Identifier: MIT'; then
    echo "no SPDX-License-Identifier line in the first 5 lines: $f" >&2
    missing=$((missing + 1))
  fi
done <<<"$files"
if [ "$missing" -ne 0 ]; then
  echo "FAIL: $missing of $n files lack an SPDX line (add one as a comment: see CONTRIBUTING.md)" >&2
  exit 1
fi
echo "spdx ok: $n files"
