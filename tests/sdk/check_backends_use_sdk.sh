#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every backend listed in backends_on_sdk.txt is built on the SDK's HTTP
# client, not on one of its own (issue 10). For each one that this build
# made (BACKENDS, the SBIO_BACKENDS list):
#   - its plugin carries the SDK's client: sbio_sdk_http_send is a local
#     (static, hidden) text symbol, and it is not exported;
#   - it has no HTTP client, retry loop or backoff of its own: no symbol of
#     the backend's (sbio__<prefix>_...) is named *_http*, *_retry*,
#     *_backoff*, and its sources do not use libcurl at all;
#   - it never tears libcurl down (the process-wide rule in
#     docs/backend-abi.md): curl_global_cleanup is not among its imports;
#   - the files its port removed are gone.
# usage: check_backends_use_sdk.sh BACKEND_DIR SOURCE_DIR LIST "BACKENDS"
set -euo pipefail
dir=$1 src=$2 list=$3 built=$4
failures=0 checked=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

while read -r name removed; do
  case "$name" in '' | '#'*) continue ;; esac
  case ";$built;" in *";$name;"*) ;; *) echo "skip: $name is not in this build ($built)"; continue ;; esac
  so="$dir/sbio-backend-$name.so"
  [ -f "$so" ] || { fail "$name: $so was not built"; continue; }
  checked=$((checked + 1))
  before=$failures
  symbols=$(nm "$so")
  if ! grep -Eq '^[0-9a-f]+ t sbio_sdk_http_send$' <<<"$symbols"; then
    fail "$name: sbio_sdk_http_send is not in $so as a local symbol: it does not use the SDK's HTTP client"
  fi
  if nm -D --defined-only "$so" | grep -q 'sbio_sdk_'; then
    fail "$name: $so exports SDK symbols (only the entry point may be exported)"
  fi
  own=$(grep -E '^[0-9a-f]+ [tT] sbio__[a-z0-9]+_[a-z0-9_]*(http|retry|backoff)' <<<"$symbols" || true)
  [ -z "$own" ] || fail "$name: its own HTTP or retry code is still in $so:"$'\n'"$own"
  if nm -D --undefined-only "$so" | grep -q 'curl_global_cleanup'; then
    fail "$name: $so calls curl_global_cleanup, which no plugin may (docs/backend-abi.md, process-wide libraries)"
  fi
  curl_users=$(grep -lE 'curl_[a-z]+\(|<curl/curl\.h>' "$src/plugins/$name"/*.c "$src/plugins/$name"/*.h 2>/dev/null || true)
  [ -z "$curl_users" ] || fail "$name: these sources use libcurl directly instead of the SDK:"$'\n'"$curl_users"
  for f in $removed; do
    [ ! -e "$src/plugins/$name/$f" ] || fail "$name: plugins/$name/$f is back; the SDK does what it did"
  done
  [ "$failures" -ne "$before" ] ||
    echo "ok: $name uses the SDK's HTTP client ($(grep -c ' t sbio_sdk_' <<<"$symbols") SDK functions linked in)"
done <"$list"

[ "$checked" -gt 0 ] || { echo "skip: no listed backend is in this build"; exit 77; }
[ "$failures" -eq 0 ] || exit 1
