#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Past the sources' re-verification window the product still does what it
# is designed to (docs/tiers.md): with the clock set 30 days past the
# window of the newest first-party source (libfaketime),
#   - every verified mechanism is reported stale, each with a warning on
#     stderr and a backend_stale audit event, and keeps its tier;
#   - a command still runs on the fake backend;
#   - under `metadata: {stale: unknown}` a stale tier counts as UNKNOWN and
#     an isolation requirement is refused (exit 78).
# The date is computed from the sources themselves, so the test means the
# same on any day. (The rest of the suite is run under such a clock too:
# scripts/test.sh --clock DATE.)
# usage: check_future_clock.sh SBIO
# Exit 77 (skipped) without faketime (Debian: faketime), unless CI=true.
set -euo pipefail
sbio=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v faketime >/dev/null; then
  [ "${CI:-}" = true ] && fail "faketime is not installed (scripts/deps.sh installs it)"
  echo "faketime is not installed (Debian: faketime): skipped"
  exit 77
fi
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset SBIO_CONFIG SBIO_BACKEND_PATH
export HOME=$work XDG_CONFIG_HOME=$work LC_ALL=C
window=92 # the default max_age_days

# name/mechanism of every mechanism with a source, and the newest date.
"$sbio" --config /dev/null backends --json >"$work/now.json" 2>/dev/null
verified=$("$py" -c '
import json, sys
for b in json.load(open(sys.argv[1]))["backends"]:
    for m in b["mechanisms"]:
        if m["verified_on"]:
            print(b["name"], m["name"], m["verified_on"])
' "$work/now.json")
[ -n "$verified" ] || fail "no backend has a verified mechanism"
echo "$verified" | grep '^fake none ' >/dev/null || fail "the fake backend's mechanism is not verified: $verified"
newest=$(echo "$verified" | awk '{print $3}' | sort | tail -1)
future=$(date -u -d "$newest + $((window + 30)) days" +%F)
echo "== clock set to $future ($window-day window, newest source $newest)"
# A clang sanitizer build links ASan's runtime as a shared library, and ASan
# refuses to start when libfaketime is preloaded ahead of it. Preloading the
# runtime first makes libfaketime hang in its own start-up, so ASan is told
# not to insist on the order (it still instruments and checks sbio).
# (grep >/dev/null, not grep -q: under pipefail, grep -q stopping at its
# first match can fail the pipeline on ldd's SIGPIPE, and did, 1 run in 8.)
if ldd "$sbio" | grep 'libclang_rt\.asan' >/dev/null; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi
# From the real clock, even when this script itself runs under a fake one
# (faketime would otherwise offset the offset).
later() { env -u LD_PRELOAD -u FAKETIME -u FAKETIME_SHARED faketime "$future" "$sbio" "$@"; }

echo "== every verified mechanism is stale, warned about and audited; tiers hold"
printf 'audit: {path: %s}\n' "$work/audit.jsonl" >"$work/audit.yaml"
later --config "$work/audit.yaml" backends --json >"$work/later.json" 2>"$work/later.err" ||
  fail "sbio backends failed: $(cat "$work/later.err")"
"$py" - "$work/later.json" <<'PY' || fail "the listing under the later clock is wrong"
import json, sys
bad = []
for b in json.load(open(sys.argv[1]))["backends"]:
    name = b["name"]
    if b["tier"] != b["claimed_tier"]:
        bad.append(f"{name}: claims {b['claimed_tier']} but is {b['tier']} under the default policy")
    for m in b["mechanisms"]:
        if m["verified_on"] and m["stale"] is not True:
            bad.append(f"{name}/{m['name']}: not stale")
for line in bad:
    print(line, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
while read -r backend mech date; do
  grep -q "^sbio: warning: backend $backend mechanism $mech: source verified [0-9]* days ago (re-verification window $window days)" \
    "$work/later.err" || fail "no stale warning for $backend/$mech: $(cat "$work/later.err")"
  grep '"event":"backend_stale"' "$work/audit.jsonl" | grep "\"backend\":\"$backend\"" >/dev/null ||
    fail "no backend_stale audit event for $backend: $(cat "$work/audit.jsonl")"
done <<<"$verified"

echo "== a command still runs"
out=$(later --config /dev/null run -b fake:// -- echo still-works 2>"$work/run.err") || fail "sbio run failed: $(cat "$work/run.err")"
[ "$out" = still-works ] || fail "sbio run printed '$out'"
grep -q 'backend fake mechanism none: source verified' "$work/run.err" || fail "sbio run did not warn: $(cat "$work/run.err")"

echo "== stale: unknown makes the stale tier UNKNOWN, and a requirement is refused"
printf 'metadata: {stale: unknown}\n' >"$work/strict.yaml"
later --config "$work/strict.yaml" backends 2>/dev/null | grep -Eq '^fake +available +UNKNOWN +CONTAINER ' ||
  fail "fake is not UNKNOWN under stale: unknown: $(later --config "$work/strict.yaml" backends 2>&1)"
set +e
later --config "$work/strict.yaml" run -b fake:// --require-isolation container -- echo no >"$work/strict.out" 2>&1
rc=$?
set -e
[ "$rc" = 78 ] || fail "a container requirement on a stale fake exited $rc: $(cat "$work/strict.out")"
grep -q 'SBX_E1000' "$work/strict.out" || fail "the refusal names no catalogue code: $(cat "$work/strict.out")"
echo "future clock ok: $(echo "$verified" | wc -l) stale mechanisms warned about at $future"
