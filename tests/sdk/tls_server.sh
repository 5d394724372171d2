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
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../support/service.sh
. "$here/../support/service.sh"
svc_init tls_server.sh "the TLS tests must run" "${1:?usage: tls_server.sh start|stop DIR}" \
  "${2:?usage: tls_server.sh start|stop DIR}"

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

# Reachable: the port accepts a connection.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; }

cmd_start() {
  cmd_stop
  svc_require openssl "openssl is not installed (apt-get install openssl)"
  make_certs || { cat "$dir/openssl.log" >&2; svc_unavailable "openssl could not make the test certificates"; }
  port=$(svc_free_port) || svc_unavailable "no free loopback port"
  openssl s_server -quiet -www -tls1_3 -accept "127.0.0.1:$port" -cert "$dir/server.pem" -key "$dir/server.key" \
    -CAfile "$dir/ca.pem" -Verify 1 </dev/null >"$dir/server.log" 2>&1 &
  local pid=$!
  svc_wait_ready "openssl s_server" "$pid" "$dir/server.log" listening
  printf 'port=%s\npid=%s\n' "$port" "$pid" >"$state"
  say "up at 127.0.0.1:$port (pid $pid)"
}

cmd_stop() {
  svc_stop_pid "$(sed -n 's/^pid=//p' "$state" 2>/dev/null)" 50
  rm -f "$state"
}

svc_main
