#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The man pages format without a warning, each is the page its file name
# says (.TH NAME SECTION) with NAME and SEE ALSO sections, and they have not
# drifted from the programs: every command and option the programs' --help
# lists appears in their page.
# usage: check_man.sh MAN_SOURCE_DIR [SBIO [SBIO_CONFORMANCE]]
# (exit 77: groff missing, test skipped)
set -euo pipefail
dir=$1 sbio=${2:-} kit=${3:-}
fail() { echo "FAIL: $*" >&2; exit 1; }
# grep -q stops reading at its first match; under pipefail the writer's
# SIGPIPE would then fail the pipeline. This one reads everything.
quiet_grep() { grep "$@" >/dev/null; }
command -v groff >/dev/null || { echo "groff is not installed (Debian: groff-base): skipped"; exit 77; }
# Plain text of a page: no escapes, no overstrike.
render() { groff -man -Tascii -P-c "$1" 2>/dev/null | sed 's/.\x08//g'; }
pages=(sbio.1 sandboxio.yaml.5 sbio-conformance.1 sandboxio-backend.7)
for page in "${pages[@]}"; do
  f=$dir/$page
  [ -f "$f" ] || fail "$page is missing"
  warnings=$(groff -man -Tutf8 -ww -z "$f" 2>&1) || fail "$page: groff failed: $warnings"
  [ -z "$warnings" ] || fail "$page: $warnings"
  name=${page%.*} section=${page##*.}
  th=$(sed -n 's/^\.TH \([^ ]*\) \([0-9]\).*/\1 \2/p' "$f" | sed 's/\\-/-/g' | tr 'A-Z' 'a-z')
  [ "$th" = "$name $section" ] || fail "$page: .TH says '$th'"
  grep -q '^\.SH NAME' "$f" || fail "$page has no NAME section"
  grep -q '^\.SH SEE ALSO' "$f" || fail "$page has no SEE ALSO section"
  render "$f" | quiet_grep "^NAME" || fail "$page does not render a NAME heading"
done

# The first long option of each option line of a --help text.
options() { grep -E '^ +(-[A-Za-z], )?--[a-z]' | sed -E 's/^ +(-[A-Za-z], )?(--[a-z][a-z-]*).*/\2/' | sort -u; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
if [ -n "$sbio" ]; then
  text=$(render "$dir/sbio.1")
  commands=$("$sbio" --help | awk '/^Commands:/ {on = 1; next} /^$/ {on = 0} on {print $1}')
  [ -n "$commands" ] || fail "no commands in sbio --help"
  for c in $commands; do
    echo "$text" | quiet_grep -E "^ {7}$c( |\$)" || fail "sbio.1 does not describe the command '$c'"
  done
  for opt in $("$sbio" --help | options) $("$sbio" run --help | options); do
    echo "$text" | quiet_grep -E -- "$opt([^a-z-]|\$)" || fail "sbio.1 does not mention $opt"
  done
fi
if [ -n "$kit" ]; then
  text=$(render "$dir/sbio-conformance.1")
  for opt in $("$kit" --help | options); do
    echo "$text" | quiet_grep -E -- "$opt([^a-z-]|\$)" || fail "sbio-conformance.1 does not mention $opt"
  done
fi
echo "man pages ok: ${pages[*]}"
