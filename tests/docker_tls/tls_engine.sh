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
cmd=${1:?usage: tls_engine.sh start|stop STATE_DIR}
dir=${2:?usage: tls_engine.sh start|stop STATE_DIR}
image=sbio-busybox:test
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
state=$dir/state
# dockerd's exec-root holds unix sockets (107-byte limit): keep it short.
short=$(printf '%s' "$dir" | md5sum | cut -c1-8)
execroot=/tmp/sbio-dt-$short
sock=$execroot/api.sock

say() { echo "tls_engine.sh: $*" >&2; }

no_engine() { # reason
  if [ "${CI:-}" = "true" ]; then
    say "FAILED: $1 (CI=true: the docker TLS tests need an engine)"
    echo "error=$1" >"$state"
    exit 1
  fi
  say "SKIP: $1"
  echo "skip=$1" >"$state"
  exit 77
}

dockercli() { docker -H "unix://$sock" "$@"; }

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
  ) >"$w/openssl.log" 2>&1 || { cat "$w/openssl.log" >&2; no_engine "openssl could not make the test certificates"; }
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

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

build_image() {
  if dockercli image inspect "$image" >/dev/null 2>&1; then return 0; fi
  local bb
  bb=$(command -v busybox || true)
  [ -x /bin/busybox ] && bb=/bin/busybox
  if [ -z "$bb" ] || ! ldd "$bb" 2>&1 | grep -q "not a dynamic executable"; then
    no_engine "no statically linked busybox for the test image (apt-get install busybox-static)"
  fi
  local root=$dir/rootfs a
  rm -rf "$root"
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/work" "$root/proc" "$root/sys" "$root/dev"
  chmod 1777 "$root/tmp"
  cp "$bb" "$root/bin/busybox"
  for a in $("$bb" --list); do
    [ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
  tar -C "$root" -cf "$dir/rootfs.tar" . || no_engine "could not pack the test image"
  dockercli import "$dir/rootfs.tar" "$image" >/dev/null || no_engine "docker import of the test image failed"
  rm -rf "$root" "$dir/rootfs.tar"
}

wait_gone() { # pid tenths
  local i
  for i in $(seq 1 "$2"); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}

stop_engine() {
  local pid cpid ids
  pid=$(cat "$dir/docker.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    ids=$(dockercli ps -aq 2>/dev/null || true)
    [ -n "$ids" ] && dockercli rm -f $ids >/dev/null 2>&1
    kill -TERM "$pid"
    wait_gone "$pid" 200 || { kill -KILL "$pid" 2>/dev/null; wait_gone "$pid" 50; }
  fi
  cpid=$(cat "$execroot/containerd/containerd.pid" 2>/dev/null || true)
  if [ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null; then
    kill -TERM "$cpid"
    wait_gone "$cpid" 100 || kill -KILL "$cpid" 2>/dev/null
  fi
  rm -f "$dir/docker.pid"
  local i
  for i in 1 2 3; do
    grep -qs " $dir/data " /proc/mounts || break
    umount "$dir/data" 2>/dev/null || break
  done
  if [ -z "$cpid" ] || ! kill -0 "$cpid" 2>/dev/null; then rm -rf "$execroot"; fi
}

start() {
  rm -f "$state"
  command -v docker >/dev/null 2>&1 || no_engine "the docker CLI is not installed (apt-get install docker.io)"
  command -v dockerd >/dev/null 2>&1 || no_engine "dockerd is not installed (apt-get install docker.io)"
  command -v openssl >/dev/null 2>&1 || no_engine "openssl is not installed (apt-get install openssl)"
  command -v python3 >/dev/null 2>&1 || no_engine "python3 is needed to find a free port"
  [ "$(id -u)" = 0 ] || no_engine "starting a private dockerd needs root"
  [ -f "$dir/docker.pid" ] && stop_engine # a leftover from an interrupted run
  make_certs
  local port pid i c=$dir/certs/server
  port=$(free_port) || no_engine "no free loopback port"
  mkdir -p "$dir/data" "$execroot"
  rm -f "$sock"
  echo '{}' >"$dir/daemon.json"
  setsid dockerd --host "unix://$sock" --host "tcp://127.0.0.1:$port" \
    --tlsverify --tlscacert "$c/ca.pem" --tlscert "$c/cert.pem" --tlskey "$c/key.pem" \
    --data-root "$dir/data" --exec-root "$execroot" --pidfile "$dir/docker.pid" \
    --bridge=none --iptables=false --ip-masq=false --config-file "$dir/daemon.json" \
    >"$dir/dockerd.log" 2>&1 </dev/null &
  pid=$!
  for i in $(seq 1 150); do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -20 "$dir/dockerd.log" >&2
      no_engine "dockerd exited during startup (log: $dir/dockerd.log)"
    fi
    if [ -S "$sock" ] && dockercli version >/dev/null 2>&1; then break; fi
    sleep 0.2
  done
  if ! dockercli version >/dev/null 2>&1; then
    kill -9 "$pid" 2>/dev/null
    no_engine "dockerd did not answer within 30 s (log: $dir/dockerd.log)"
  fi
  build_image
  # The TLS port must answer the docker CLI with the same certificates.
  DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=$dir/certs/good docker -H "tcp://127.0.0.1:$port" version >/dev/null 2>&1 ||
    no_engine "dockerd does not answer TLS on 127.0.0.1:$port (log: $dir/dockerd.log)"
  printf 'unix=unix://%s\ntcp=tcp://127.0.0.1:%s\nport=%s\nimage=%s\npid=%s\ncerts=%s\n' \
    "$sock" "$port" "$port" "$image" "$pid" "$dir/certs" >"$state"
  say "engine up at unix://$sock and tcp://127.0.0.1:$port with TLS (pid $pid)"
}

case "$cmd" in
start) start ;;
stop)
  stop_engine
  say "engine stopped"
  ;;
*)
  say "unknown command $cmd"
  exit 64
  ;;
esac
