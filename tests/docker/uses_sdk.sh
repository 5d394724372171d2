#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The docker backend talks to the engine only through the SDK (issue 10):
#   uses_sdk.sh PLUGIN.so OBJECT.o...   (the backend's own objects)
# - the plugin carries the SDK's HTTP client, upgrade and stream, settings
#   reader and error helpers (local symbols: the SDK is linked in);
# - none of the backend's own objects calls libcurl (every curl_ symbol in
#   the plugin comes from the SDK) or defines a transport of its own.
set -u
plugin=${1:?usage: uses_sdk.sh PLUGIN.so OBJECT.o...}
shift
fail=0
syms=$(nm "$plugin") || { echo "uses_sdk.sh: nm cannot read $plugin" >&2; exit 1; }
[ "$#" -gt 0 ] || { echo "uses_sdk.sh: no object files given" >&2; exit 1; }
defined=$(awk '$2 ~ /^[tT]$/ {print $3}' <<<"$syms")
for sym in sbio_sdk_http_new sbio_sdk_http_send sbio_sdk_http_upgrade sbio_sdk_http_stream_open \
           sbio_sdk_settings_parse sbio_sdk_error; do
  if ! grep -qx "$sym" <<<"$defined"; then
    echo "uses_sdk.sh: $plugin does not contain $sym: the backend does not use the SDK for it" >&2
    fail=1
  fi
done
for obj in "$@"; do
  osyms=$(nm "$obj") || { echo "uses_sdk.sh: nm cannot read $obj" >&2; fail=1; continue; }
  own_curl=$(awk '$1 == "U" && $2 ~ /^curl_/ {print $2}' <<<"$osyms" | sort -u | tr '\n' ' ')
  if [ -n "$own_curl" ]; then
    echo "uses_sdk.sh: $(basename "$obj") calls libcurl itself: $own_curl" >&2
    fail=1
  fi
  own_http=$(awk '$2 ~ /^[tT]$/ && $3 ~ /^sbio__dk_(http|hijack|pool|stream)/ {print $3}' <<<"$osyms" | tr '\n' ' ')
  if [ -n "$own_http" ]; then
    echo "uses_sdk.sh: $(basename "$obj") has its own HTTP transport: $own_http" >&2
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "uses_sdk.sh: $(basename "$plugin") uses the SDK's client; its own objects ($#) call no libcurl"
exit "$fail"
