#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A loopback TLS 1.3 server that requires a client certificate, for the
# SDK client's mutual-TLS tests: `openssl s_server -www` (it answers any
# GET with a status page), with certificates made here, at test time.
#
#   tls_server.sh start DIR   certificates, the server; writes DIR/state
#   tls_server.sh stop DIR    stops it
#
# DIR/state: port=, pid=, or skip=<reason> (error=<reason> under CI=true).
# DIR/ca.pem signed server.pem (IP:127.0.0.1) and client.pem/client.key;
# DIR/other.pem is a CA that signed nothing here.
set -u
cmd=${1:?usage: tls_server.sh start|stop DIR}
dir=${2:?usage: tls_server.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
state=$dir/state

say() { echo "tls_server.sh: $*" >&2; }

skip() {
  if [ "${CI:-}" = "true" ]; then
    say "FAILED: $1 (CI=true: the TLS tests must run)"
    echo "error=$1" >"$state"
    exit 1
  fi
  say "SKIP: $1"
  echo "skip=$1" >"$state"
  exit 77
}

stop() {
  local pid
  pid=$(sed -n 's/^pid=//p' "$state" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$state"
}

make_certs() {
  (
    set -e
    cd "$dir"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=sbio-sdk-test-ca -keyout ca.key -out ca.pem
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=sbio-sdk-other-ca -keyout other.key -out other.pem
    openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \
      -out server.pem
    openssl req -newkey rsa:2048 -nodes -subj /CN=sbio-sdk-client -keyout client.key -out client.csr
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile client.ext \
      -out client.pem
  ) >"$dir/openssl.log" 2>&1
}

case "$cmd" in
start)
  stop
  command -v openssl >/dev/null || skip "openssl is not installed (apt-get install openssl)"
  make_certs || { cat "$dir/openssl.log" >&2; skip "openssl could not make the test certificates"; }
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  openssl s_server -quiet -www -tls1_3 -accept "127.0.0.1:$port" -cert "$dir/server.pem" -key "$dir/server.key" \
    -CAfile "$dir/ca.pem" -Verify 1 </dev/null >"$dir/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    if ! kill -0 "$pid" 2>/dev/null; then cat "$dir/server.log" >&2; skip "openssl s_server did not start"; fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      printf 'port=%s\npid=%s\n' "$port" "$pid" >"$state"
      say "up at 127.0.0.1:$port (pid $pid)"
      exit 0
    fi
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null
  skip "openssl s_server did not listen on 127.0.0.1:$port"
  ;;
stop) stop ;;
*) echo "usage: tls_server.sh start|stop DIR" >&2; exit 64 ;;
esac
