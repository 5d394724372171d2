#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# NEWS.md says every tier claim that moved: for every mechanism of every
# backend built here, the newest row of a "Tier claims" table in NEWS.md
# (the file is newest first) names it, as `backend/mechanism`, with the tier
# the backend claims now; a row whose newest tier is not `-` (gone) names a
# mechanism the built backend still has. A backend whose claim changes
# without a NEWS.md row fails here.
# usage: check_news_tiers.sh SBIO SOURCE_DIR
set -euo pipefail
sbio=$1
news=$2/NEWS.md
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f "$news" ] || fail "no $news"

# The built backends' mechanisms and claimed tiers: "backend/mechanism TIER".
json=$(env -u SBIO_CONFIG "$sbio" --config /dev/null backends --json) || fail "sbio backends --json failed"
claims=$(echo "$json" | /usr/bin/python3 -c '
import json, sys
for b in json.load(sys.stdin)["backends"]:
    for m in b.get("mechanisms") or []:
        print(b["name"] + "/" + m["name"], m["claimed_tier"])
' | sort)
[ -n "$claims" ] || fail "sbio lists no backend mechanism (nothing to check against NEWS.md)"
built_backends=$(echo "$claims" | sed 's|/.*||' | sort -u)

# NEWS.md's rows: | `backend/mechanism` | TIER | change |, newest first.
rows=$(awk '/^### Tier claims/ { on = 1; next } /^#/ { on = 0 } on' "$news" |
  sed -n 's/^| `\([a-z0-9_]*\/[a-z0-9_]*\)` | \([A-Z]*\|-\) |.*/\1 \2/p')
[ -n "$rows" ] || fail "NEWS.md has no \"### Tier claims\" table rows (| \`backend/mechanism\` | TIER | change |)"
newest() { echo "$rows" | awk -v m="$1" '$1 == m { print $2; exit }'; }

bad=0
while read -r mech tier; do
  said=$(newest "$mech")
  if [ -z "$said" ]; then
    echo "NEWS.md does not say that $mech claims $tier: add | \`$mech\` | $tier | new: ... | to the" \
      "Tier claims of the release being prepared" >&2
    bad=1
  elif [ "$said" != "$tier" ]; then
    echo "NEWS.md's newest row for $mech says $said, the backend claims $tier: add | \`$mech\` | $tier |" \
      "moved from $said: why | to the Tier claims of the release being prepared" >&2
    bad=1
  fi
done <<<"$claims"
# A mechanism NEWS.md still lists for a built backend, which that backend no longer has.
for mech in $(echo "$rows" | awk '{print $1}' | sort -u); do
  echo "$built_backends" | grep -x "${mech%%/*}" >/dev/null || continue
  said=$(newest "$mech")
  [ "$said" = - ] && continue
  if ! echo "$claims" | awk '{print $1}' | grep -x "$mech" >/dev/null; then
    echo "NEWS.md says $mech claims $said, but the backend has no mechanism ${mech#*/}: add | \`$mech\` | - |" \
      "gone: why | to the Tier claims of the release being prepared" >&2
    bad=1
  fi
done
[ "$bad" = 0 ] || fail "NEWS.md's tier claims do not match the built backends"
echo "NEWS.md states the claim of each of $(echo "$claims" | wc -l) mechanisms"
