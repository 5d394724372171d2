#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Starts or stops a private Docker Engine that listens on a unix socket AND
# on tcp://127.0.0.1:<free port> with mutual TLS, for the docker backend's
# TLS tests. Certificates are made here, at test time, with openssl.
#
#   tls_engine.sh start STATE_DIR   certs, dockerd, the test image; writes STATE_DIR/state
#   tls_engine.sh stop STATE_DIR    stops that dockerd and its containers
#
# STATE_DIR/state: lines unix=, tcp=, port=, image=, pid=, or skip=<reason>
# (error=<reason> under CI=true, where a missing engine is a failure).
# Certificate directories, each laid out as DOCKER_CERT_PATH expects:
#   STATE_DIR/certs/good     ca.pem cert.pem key.pem (the real CA and a client cert)
#   STATE_DIR/certs/wrongca  ca.pem of another CA, the good client cert
#   STATE_DIR/certs/nocert   ca.pem only (no client certificate)
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../support/service.sh
. "$here/../support/service.sh"
# shellcheck source=../support/busybox_image.sh
. "$here/../support/busybox_image.sh"
# shellcheck source=../support/dockerd.sh
. "$here/../support/dockerd.sh"
svc_init tls_engine.sh "the docker TLS tests need an engine" "${1:?usage: tls_engine.sh start|stop STATE_DIR}" \
  "${2:?usage: tls_engine.sh start|stop STATE_DIR}"
image=sbio-busybox:test
execroot=$(svc_short_dir sbio-dt)
dockerd_sock=$execroot/api.sock

# CA, server cert for IP:127.0.0.1, client cert; a second CA for the
# wrong-CA case. Short-lived, 2048-bit RSA: fast and accepted everywhere.
#
# Valid for both clocks when the suite runs under a fake one (libfaketime,
# to prove no test depends on the date): dockerd is a Go program, which
# reads the real clock whatever LD_PRELOAD says, while sbio and openssl see
# the fake one. So the certificates are made at the earlier of the two
# clocks and last until two days past the later one.
make_certs() {
  local c=$dir/certs
  rm -rf "$c"
  mkdir -p "$c/good" "$c/wrongca" "$c/nocert" "$c/server" "$c/work"
  local w=$c/work
  local real fake days=2
  real=$(env -u LD_PRELOAD date +%s)
  fake=$(date +%s)
  if [ "$fake" -gt "$real" ]; then
    days=$(((fake - real) / 86400 + 2))
    openssl() { env -u LD_PRELOAD openssl "$@"; }
  elif [ "$real" -gt "$fake" ]; then
    days=$(((real - fake) / 86400 + 2))
  fi
  (
    set -e
    cd "$w"
    openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj /CN=sbio-test-ca -keyout ca.key -out ca.pem
    openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj /CN=sbio-other-ca -keyout other.key -out other.pem
    openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days "$days" -extfile server.ext -out server.pem
    openssl req -newkey rsa:2048 -nodes -subj /CN=sbio-client -keyout client.key -out client.csr
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days "$days" -extfile client.ext -out client.pem
  ) >"$w/openssl.log" 2>&1 || { cat "$w/openssl.log" >&2; svc_unavailable "openssl could not make the test certificates"; }
  cp "$w/ca.pem" "$c/server/ca.pem"
  cp "$w/server.pem" "$c/server/cert.pem"
  cp "$w/server.key" "$c/server/key.pem"
  cp "$w/ca.pem" "$c/good/ca.pem"
  cp "$w/client.pem" "$c/good/cert.pem"
  cp "$w/client.key" "$c/good/key.pem"
  cp "$w/other.pem" "$c/wrongca/ca.pem"
  cp "$w/client.pem" "$c/wrongca/cert.pem"
  cp "$w/client.key" "$c/wrongca/key.pem"
  cp "$w/ca.pem" "$c/nocert/ca.pem"
  chmod 600 "$c"/*/key.pem
  rm -rf "$w"
}

cmd_start() {
  rm -f "$state"
  svc_require docker "the docker CLI is not installed (apt-get install docker.io)"
  svc_require dockerd "dockerd is not installed (apt-get install docker.io)"
  svc_require openssl "openssl is not installed (apt-get install openssl)"
  make_certs
  local port c=$dir/certs/server
  port=$(svc_free_port) || svc_unavailable "no free loopback port"
  echo '{}' >"$dir/daemon.json"
  dockerd_start --host "tcp://127.0.0.1:$port" \
    --tlsverify --tlscacert "$c/ca.pem" --tlscert "$c/cert.pem" --tlskey "$c/key.pem"
  busybox_import "$image" docker dockerd_cli
  # The TLS port must answer the docker CLI with the same certificates.
  DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=$dir/certs/good docker -H "tcp://127.0.0.1:$port" version >/dev/null 2>&1 ||
    svc_unavailable "dockerd does not answer TLS on 127.0.0.1:$port (log: $dir/dockerd.log)"
  printf 'unix=unix://%s\ntcp=tcp://127.0.0.1:%s\nport=%s\nimage=%s\npid=%s\ncerts=%s\n' \
    "$dockerd_sock" "$port" "$port" "$image" "$dockerd_pid" "$dir/certs" >"$state"
  say "engine up at unix://$dockerd_sock and tcp://127.0.0.1:$port with TLS (pid $dockerd_pid)"
}

cmd_stop() {
  dockerd_stop
  say "engine stopped"
}

svc_main
