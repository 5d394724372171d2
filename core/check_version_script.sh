#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks the linker version script of libsandboxio against the public
# headers, before every link of the library:
#   - every SBIO_API function of the headers is listed, exactly once, and
#     nothing else is (no wildcard: a name is exported because a release
#     added it, not because it matches a pattern);
#   - the nodes are SANDBOXIO_<major>.<minor>, oldest first, each inheriting
#     the one before, and none is newer than the project version.
# A function missing from the map would otherwise be silently hidden, and
# the first sign of it a link error in whatever calls it.
# usage: check_version_script.sh MAP PROJECT_VERSION HEADER...
set -eu
map=$1 version=$2
shift 2
major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}
current=SANDBOXIO_$major.$minor
status=0
problem() {
  echo "$map: $*" >&2
  status=1
}

# The map without comments, one token per line ({ } ; : apart).
tokens=$(awk '
  { line = $0; out = ""
    while (length(line) > 0) {
      if (incomment) { i = index(line, "*/"); if (i == 0) { line = "" } else { line = substr(line, i + 2); incomment = 0 } }
      else { i = index(line, "/*"); if (i == 0) { out = out line; line = "" } else { out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1 } }
    }
    print out }' "$map" | sed 's/\([{};:]\)/ \1 /g' | tr -s ' \t' '\n\n' | sed '/^$/d')

# "node NAME PARENT" per node and "sym NODE NAME" per global name.
parsed=$(echo "$tokens" | awk '
  state == "" && $0 != "}" && $0 != ";" { node = $0; state = "open"; next }
  state == "open" && $0 == "{" { state = "body"; section = ""; next }
  state == "body" && ($0 == "global" || $0 == "local") { section = $0; next }
  state == "body" && $0 == ":" { next }
  state == "body" && $0 == ";" { next }
  state == "body" && $0 == "}" { state = "close"; parent = "-"; next }
  state == "body" && section == "global" { print "sym", node, $0; next }
  state == "body" && section == "local" { if ($0 != "*") print "badlocal", node, $0; next }
  state == "close" && $0 == ";" { print "node", node, parent; state = ""; next }
  state == "close" { parent = $0; next }
  { print "syntax", node, $0 }')

echo "$parsed" | awk '$1 == "syntax" || $1 == "badlocal"' | while read -r kind node tok; do
  echo "$map: cannot read the version script near '$tok' in node $node" >&2
done
if echo "$parsed" | grep -q '^syntax \|^badlocal '; then status=1; fi

# Node names, order, inheritance, and none newer than the project version.
previous=-
for node_line in $(echo "$parsed" | awk '$1 == "node" { print $2 ":" $3 }'); do
  node=${node_line%%:*} parent=${node_line#*:}
  case $node in
    SANDBOXIO_[0-9]*.[0-9]*) ;;
    *) problem "node $node is not named SANDBOXIO_<major>.<minor>" ;;
  esac
  [ "$parent" = "$previous" ] || problem "node $node must inherit the node before it ($previous), not '$parent'"
  v=${node#SANDBOXIO_}
  n_major=${v%%.*} n_minor=${v#*.}
  if [ "$n_major" -gt "$major" ] 2>/dev/null || { [ "$n_major" -eq "$major" ] && [ "$n_minor" -gt "$minor" ]; } 2>/dev/null; then
    problem "node $node is newer than the project version $version"
  fi
  previous=$node
done
[ "$previous" != - ] || problem "no version node"

listed=$(echo "$parsed" | awk '$1 == "sym" { print $3 }' | sort)
for name in $listed; do
  case $name in
    sbio_[a-z]*) ;;
    *) problem "'$name' is not a public name (sbio_ and a letter; no wildcards)" ;;
  esac
  case $name in *[!a-z0-9_]*) problem "'$name' is a pattern, not a function name" ;; esac
done
for name in $(echo "$listed" | uniq -d); do problem "$name is listed more than once"; done

declared=$(grep -h 'SBIO_API' "$@" | grep -v '#[[:space:]]*define' | grep -o 'sbio_[a-z][a-z0-9_]*[[:space:]]*(' |
  sed 's/[[:space:]]*($//' | sort -u)
for name in $(printf '%s\n%s\n' "$declared" "$listed" | sort | uniq -u); do
  if echo "$declared" | grep -qx "$name"; then
    problem "$name is declared SBIO_API in the public headers but not exported: add it to the node $current" \
      "(the release being prepared; see CONTRIBUTING.md, \"Adding a public function\")"
  else
    problem "$name is exported but no public header declares it SBIO_API"
  fi
done
exit $status
