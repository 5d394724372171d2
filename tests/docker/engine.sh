#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Starts or stops a private Docker Engine for the docker backend's tests.
#
#   engine.sh start STATE_DIR    start dockerd, build the test image, write STATE_DIR/state
#   engine.sh stop STATE_DIR     stop that dockerd (SIGTERM, then SIGKILL), wait for it
#   engine.sh kill STATE_DIR     SIGKILL dockerd at once (tests of a dying engine)
#
# STATE_DIR/state is read by the tests: lines host=, image=, runsc=0|1,
# pid=, or skip=<reason> when no engine can be had. Without an engine the
# tests are skipped with that reason (exit 77), except when CI=true: then
# failing to start is an error. SBIO_TEST_DOCKER_HOST=unix:///... uses an
# existing engine instead (nothing is started or stopped; the image is
# imported if it is missing).
#
# For the pull tests it also starts a private registry (Debian's
# docker-registry, the Distribution registry) on 127.0.0.1:<free port>,
# storage under STATE_DIR, no auth; the engine pulls from loopback
# registries over plain HTTP without configuration (127.0.0.0/8 is an
# insecure registry by default). It pushes a small image of its own (not
# the test image: its layer must be absent locally for a pull to download
# anything) and removes it from the engine: state lines registry= and
# pull_image=, or registry_skip=<reason>.
set -u
cmd=${1:?usage: engine.sh start|stop|kill STATE_DIR}
dir=${2:?usage: engine.sh start|stop|kill STATE_DIR}
image=sbio-busybox:test
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
state=$dir/state
# dockerd's exec-root holds unix sockets (107-byte path limit): keep it short.
short=$(printf '%s' "$dir" | md5sum | cut -c1-8)
execroot=/tmp/sbio-dx-$short

say() { echo "engine.sh: $*" >&2; }

no_engine() { # reason
  if [ "${CI:-}" = "true" ]; then
    say "FAILED: $1 (CI=true: the docker tests need an engine)"
    echo "error=$1" >"$state"
    exit 1
  fi
  say "SKIP: $1"
  echo "skip=$1" >"$state"
  exit 77 # ctest shows the fixture, and every docker test, as Skipped
}

dockercli() { docker -H "$host" "$@"; }

build_image() {
  if dockercli image inspect "$image" >/dev/null 2>&1; then return 0; fi
  local bb
  bb=$(command -v busybox || true)
  [ -x /bin/busybox ] && bb=/bin/busybox
  # The image has no libc: busybox must be the static build.
  if [ -z "$bb" ] || ! ldd "$bb" 2>&1 | grep -q "not a dynamic executable"; then
    no_engine "no statically linked busybox for the test image (apt-get install busybox-static)"
  fi
  local root=$dir/rootfs
  rm -rf "$root"
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/work" "$root/proc" "$root/sys" "$root/dev"
  chmod 1777 "$root/tmp"
  cp "$bb" "$root/bin/busybox"
  local a
  for a in $("$bb" --list); do
    [ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
  tar -C "$root" -cf "$dir/rootfs.tar" . || no_engine "could not pack the test image"
  dockercli import "$dir/rootfs.tar" "$image" >/dev/null || no_engine "docker import of the test image failed"
  rm -rf "$root" "$dir/rootfs.tar"
}

# ------------------------------------------------------------ registry
registry_off() { # reason
  say "no registry for the pull tests: $1"
  echo "registry_skip=$1" >>"$state"
}

port_busy() { # port: something listens on it (IPv4 or IPv6)
  local hex
  hex=$(printf ':%04X ' "$1")
  grep -qi -- "$hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

stop_registry() {
  local pid
  pid=$(cat "$dir/registry.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    wait_gone "$pid" 50 || kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$dir/registry.pid"
}

# Starts the registry on a free loopback port; echoes the port, or nothing.
run_registry() {
  local bin=$1 reg=$dir/registry try port pid i
  for try in $(seq 1 20); do
    port=$((20000 + RANDOM % 40000))
    port_busy "$port" && continue
    cat >"$reg/config.yml" <<EOC
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $reg/storage
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
EOC
    setsid "$bin" serve "$reg/config.yml" >"$reg/registry.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/registry.pid"
    for i in $(seq 1 50); do # 10 s at most
      kill -0 "$pid" 2>/dev/null || break # lost the port to someone else: next one
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "$port"
        return 0
      fi
      sleep 0.2
    done
    stop_registry
  done
  return 1
}

start_registry() {
  stop_registry # a leftover from an interrupted run
  local bin
  bin=$(command -v docker-registry || true)
  if [ -z "$bin" ]; then
    registry_off "docker-registry is not installed (apt-get install docker-registry)"
    return 0
  fi
  rm -rf "$dir/registry"
  mkdir -p "$dir/registry/storage" "$dir/registry/rootfs/bin" "$dir/registry/rootfs/etc"
  local port
  port=$(run_registry "$bin")
  if [ -z "$port" ]; then
    registry_off "docker-registry did not start (log: $dir/registry/registry.log)"
    return 0
  fi
  # An image of its own: the test image's layout (build_image checked that
  # busybox is static) and a marker file the test reads back.
  local root=$dir/registry/rootfs pull_image=127.0.0.1:$port/sbio/pulltest:v1 bb a
  bb=$(command -v busybox)
  [ -x /bin/busybox ] && bb=/bin/busybox
  mkdir -p "$root/tmp" "$root/work" "$root/proc" "$root/sys" "$root/dev"
  chmod 1777 "$root/tmp"
  cp "$bb" "$root/bin/busybox"
  for a in $("$bb" --list); do
    [ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
  done
  echo "sbio pull test" >"$root/etc/sbio-pulltest"
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
  if ! tar -C "$root" -cf "$dir/registry/rootfs.tar" . ||
    ! dockercli import "$dir/registry/rootfs.tar" "$pull_image" >/dev/null ||
    ! dockercli push "$pull_image" >"$dir/registry/push.log" 2>&1 ||
    ! dockercli rmi "$pull_image" >/dev/null; then
    tail -5 "$dir/registry/push.log" >&2 2>/dev/null
    stop_registry
    registry_off "could not push the pull test image to the registry at 127.0.0.1:$port"
    return 0
  fi
  rm -rf "$root" "$dir/registry/rootfs.tar"
  printf 'registry=127.0.0.1:%s\npull_image=%s\n' "$port" "$pull_image" >>"$state"
  say "registry up at 127.0.0.1:$port with $pull_image"
}

has_runsc() {
  dockercli info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"' && echo 1 || echo 0
}

start() {
  rm -f "$state"
  if ! command -v docker >/dev/null 2>&1; then no_engine "the docker CLI is not installed (apt-get install docker.io)"; fi
  if [ -n "${SBIO_TEST_DOCKER_HOST:-}" ]; then
    host=$SBIO_TEST_DOCKER_HOST
    dockercli version >/dev/null 2>&1 || no_engine "no engine answers at SBIO_TEST_DOCKER_HOST=$host"
    build_image
    printf 'host=%s\nimage=%s\nrunsc=%s\nexternal=1\n' "$host" "$image" "$(has_runsc)" >"$state"
    start_registry
    return 0
  fi
  command -v dockerd >/dev/null 2>&1 || no_engine "dockerd is not installed (apt-get install docker.io)"
  [ "$(id -u)" = 0 ] || no_engine "starting a private dockerd needs root"
  host=unix://$dir/docker.sock
  if [ -f "$dir/docker.pid" ] && kill -0 "$(cat "$dir/docker.pid")" 2>/dev/null; then
    stop_engine # a leftover from an interrupted run
  fi
  local runtimes='{}'
  if command -v runsc >/dev/null 2>&1; then
    runtimes="{\"runtimes\":{\"runsc\":{\"path\":\"$(command -v runsc)\",\"runtimeArgs\":[\"--network=none\"]}}}"
  fi
  echo "$runtimes" >"$dir/daemon.json"
  rm -f "$dir/docker.sock"
  mkdir -p "$dir/data" "$execroot"
  setsid dockerd --host "$host" --data-root "$dir/data" --exec-root "$execroot" --pidfile "$dir/docker.pid" \
    --bridge=none --iptables=false --ip-masq=false --config-file "$dir/daemon.json" \
    >"$dir/dockerd.log" 2>&1 </dev/null &
  local pid=$! i
  for i in $(seq 1 150); do # 30 s at most
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -20 "$dir/dockerd.log" >&2
      no_engine "dockerd exited during startup (log: $dir/dockerd.log)"
    fi
    if [ -S "$dir/docker.sock" ] && dockercli version >/dev/null 2>&1; then break; fi
    sleep 0.2
  done
  if ! dockercli version >/dev/null 2>&1; then
    kill -9 "$pid" 2>/dev/null
    tail -20 "$dir/dockerd.log" >&2
    no_engine "dockerd did not answer within 30 s (log: $dir/dockerd.log)"
  fi
  build_image
  printf 'host=%s\nimage=%s\nrunsc=%s\npid=%s\n' "$host" "$image" "$(has_runsc)" "$pid" >"$state"
  say "engine up at $host (pid $pid)"
  start_registry
}

# Waits for a pid to end, up to $2 tenths of a second.
wait_gone() {
  local i
  for i in $(seq 1 "$2"); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}

stop_engine() {
  local pid
  pid=$(cat "$dir/docker.pid" 2>/dev/null || true)
  [ -z "$pid" ] && pid=$(sed -n 's/^pid=//p' "$state" 2>/dev/null)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    # Containers first, so nothing keeps running after the engine.
    local ids
    ids=$(dockercli ps -aq 2>/dev/null || true)
    [ -n "$ids" ] && dockercli rm -f $ids >/dev/null 2>&1
    kill -TERM "$pid"
    wait_gone "$pid" 200 || { kill -KILL "$pid" 2>/dev/null; wait_gone "$pid" 50; }
  fi
  # The engine's own containerd, if the engine died without stopping it.
  local cpid
  cpid=$(cat "$execroot/containerd/containerd.pid" 2>/dev/null || true)
  if [ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null; then
    kill -TERM "$cpid"
    wait_gone "$cpid" 100 || kill -KILL "$cpid" 2>/dev/null
  fi
  rm -f "$dir/docker.pid"
  # An engine that was killed can leave its data root mounted over itself
  # (it makes it a private mount) and its exec root behind.
  local i
  for i in 1 2 3; do
    grep -qs " $dir/data " /proc/mounts || break
    umount "$dir/data" 2>/dev/null || break
  done
  if [ -z "$cpid" ] || ! kill -0 "$cpid" 2>/dev/null; then rm -rf "$execroot"; fi
}

# Container shims of this engine that outlived it (found by the exec-root
# in their command line).
leftover_shims() {
  local f
  for f in /proc/[0-9]*/cmdline; do
    if tr '\0' ' ' <"$f" 2>/dev/null | grep -q -- "-address $execroot/"; then return 0; fi
  done
  return 1
}

case "$cmd" in
start) start ;;
stop)
  stop_registry
  if grep -q '^external=1' "$state" 2>/dev/null || [ -n "${SBIO_TEST_DOCKER_HOST:-}" ]; then exit 0; fi
  host=unix://$dir/docker.sock
  pid=$(cat "$dir/docker.pid" 2>/dev/null || true)
  if ! { [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; } && leftover_shims; then
    # The engine died with containers still running: a restarted engine
    # stops them (no live-restore), then the normal stop removes them.
    say "engine is gone but its containers are not: restarting it to clean up"
    start
  fi
  stop_engine
  stop_registry # again: a restart above starts one
  say "engine stopped"
  ;;
kill)
  pid=$(cat "$dir/docker.pid" 2>/dev/null || true)
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  [ -n "$pid" ] && wait_gone "$pid" 50
  ;;
*)
  say "unknown command $cmd"
  exit 64
  ;;
esac
