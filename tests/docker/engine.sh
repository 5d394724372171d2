#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Starts or stops a private Docker Engine for the docker backend's tests.
#
#   engine.sh start STATE_DIR    start dockerd, build the test image, write STATE_DIR/state
#   engine.sh stop STATE_DIR     stop that dockerd (SIGTERM, then SIGKILL), wait for it
#   engine.sh kill STATE_DIR     SIGKILL dockerd at once (tests of a dying engine)
#
# STATE_DIR/state is read by the tests: lines host=, image=,
# image_no_timeout=, runsc=0|1, pid=, or skip=<reason> when no engine can
# be had. Without an engine the
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
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../support/service.sh
. "$here/../support/service.sh"
# shellcheck source=../support/busybox_image.sh
. "$here/../support/busybox_image.sh"
# shellcheck source=../support/dockerd.sh
. "$here/../support/dockerd.sh"
svc_init engine.sh "the docker tests need an engine" "${1:?usage: engine.sh start|stop|kill STATE_DIR}" \
  "${2:?usage: engine.sh start|stop|kill STATE_DIR}"
image=sbio-busybox:test
# The test image without its `timeout` link, for the one-shot run's error
# when the image cannot run the lifetime backstop (`timeout` by name).
image_no_timeout=sbio-busybox:notimeout
execroot=$(svc_short_dir sbio-dx)
dockerd_sock=$dir/docker.sock
host=unix://$dockerd_sock

dockercli() { docker -H "$host" "$@"; }

# ------------------------------------------------------------ registry
registry_off() { # reason
  say "no registry for the pull tests: $1"
  echo "registry_skip=$1" >>"$state"
}

stop_registry() {
  svc_stop_pid "$(cat "$dir/registry.pid" 2>/dev/null)" 50
  rm -f "$dir/registry.pid"
}

# Starts the registry on a free loopback port; echoes the port, or nothing.
run_registry() {
  local bin=$1 reg=$dir/registry port pid
  for _ in $(seq 1 20); do
    port=$(svc_free_port) || continue
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
    for _ in $(seq 1 50); do # 10 s at most
      svc_alive "$pid" || break # lost the port to someone else: next one
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
  mkdir -p "$dir/registry/storage"
  local port
  port=$(run_registry "$bin")
  if [ -z "$port" ]; then
    registry_off "docker-registry did not start (log: $dir/registry/registry.log)"
    return 0
  fi
  # An image of its own: the test image's layout and a marker file the
  # test reads back.
  local root=$dir/registry/rootfs pull_image=127.0.0.1:$port/sbio/pulltest:v1
  busybox_rootfs "$root"
  echo "sbio pull test" >"$root/etc/sbio-pulltest"
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

# The test image less /bin/timeout, unless the engine has it already.
import_no_timeout() {
  dockercli image inspect "$image_no_timeout" >/dev/null 2>&1 && return 0
  local root=$dir/rootfs-notimeout
  busybox_rootfs "$root"
  rm -f "$root/bin/timeout"
  if ! tar -C "$root" -cf "$root.tar" . || ! dockercli import "$root.tar" "$image_no_timeout" >"$dir/import.log" 2>&1; then
    cat "$dir/import.log" >&2
    svc_unavailable "docker import of the image without timeout failed"
  fi
  rm -rf "$root" "$root.tar"
}

has_runsc() {
  dockercli info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"' && echo 1 || echo 0
}

cmd_start() {
  rm -f "$state"
  svc_require docker "the docker CLI is not installed (apt-get install docker.io)"
  if [ -n "${SBIO_TEST_DOCKER_HOST:-}" ]; then
    host=$SBIO_TEST_DOCKER_HOST
    dockercli version >/dev/null 2>&1 || svc_unavailable "no engine answers at SBIO_TEST_DOCKER_HOST=$host"
    busybox_import "$image" docker dockercli
    import_no_timeout
    printf 'host=%s\nimage=%s\nimage_no_timeout=%s\nrunsc=%s\nexternal=1\n' "$host" "$image" "$image_no_timeout" \
      "$(has_runsc)" >"$state"
    start_registry
    return 0
  fi
  svc_require dockerd "dockerd is not installed (apt-get install docker.io)"
  local runtimes='{}'
  if command -v runsc >/dev/null 2>&1; then
    runtimes="{\"runtimes\":{\"runsc\":{\"path\":\"$(command -v runsc)\",\"runtimeArgs\":[\"--network=none\"]}}}"
  fi
  echo "$runtimes" >"$dir/daemon.json"
  dockerd_start
  busybox_import "$image" docker dockercli
  import_no_timeout
  printf 'host=%s\nimage=%s\nimage_no_timeout=%s\nrunsc=%s\npid=%s\n' "$host" "$image" "$image_no_timeout" \
    "$(has_runsc)" "$dockerd_pid" >"$state"
  say "engine up at $host (pid $dockerd_pid)"
  start_registry
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

cmd_stop() {
  stop_registry
  if grep -q '^external=1' "$state" 2>/dev/null || [ -n "${SBIO_TEST_DOCKER_HOST:-}" ]; then exit 0; fi
  if ! svc_alive "$(cat "$dir/docker.pid" 2>/dev/null)" && leftover_shims; then
    # The engine died with containers still running: a restarted engine
    # stops them (no live-restore), then the normal stop removes them.
    say "engine is gone but its containers are not: restarting it to clean up"
    cmd_start
  fi
  dockerd_stop
  stop_registry # again: a restart above starts one
  say "engine stopped"
}

cmd_kill() {
  local pid
  pid=$(cat "$dir/docker.pid" 2>/dev/null || true)
  svc_alive "$pid" || return 0
  kill -KILL "$pid" 2>/dev/null
  svc_wait_gone "$pid" 50
}

svc_main
