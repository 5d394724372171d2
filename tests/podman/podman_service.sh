#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Starts or stops a private Podman Docker-compatible service (podman system
# service) for the docker backend's Podman tests.
#
#   podman_service.sh start STATE_DIR   service, the test image; writes STATE_DIR/state
#   podman_service.sh stop STATE_DIR    removes its containers, stops it
#
# Everything is private: storage (vfs) under STATE_DIR, run root and socket
# under /tmp/sbio-pm-<hash> (socket paths are limited to 107 bytes), our own
# containers.conf (CONTAINERS_CONF). STATE_DIR/state: host=, image=,
# runtime=, pid=, or skip=<reason> (error=<reason> under CI=true, where a
# missing Podman is a failure).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../support/service.sh
. "$here/../support/service.sh"
# shellcheck source=../support/busybox_image.sh
. "$here/../support/busybox_image.sh"
svc_init podman_service.sh "the Podman tests need podman" "${1:?usage: podman_service.sh start|stop STATE_DIR}" \
  "${2:?usage: podman_service.sh start|stop STATE_DIR}"
image=sbio-busybox:test
run=$(svc_short_dir sbio-pm)
sock=$run/podman.sock
export CONTAINERS_CONF=$dir/containers.conf
# The runtime the service is told to use: runc (which docker.io also
# brings), so the test knows what the mechanism must be.
runtime=runc

pm() {
  podman --root "$dir/storage" --runroot "$run/runroot" --tmpdir "$run/tmp" --storage-driver vfs "$@"
}

pinged() { [ -S "$sock" ] && curl -fsS --unix-socket "$sock" http://d/_ping; }

write_conf() {
  # default_ulimits: Podman raises nofile/nproc of every container to its
  # own maximum as root; where the host lacks CAP_SYS_RESOURCE (some CI
  # VMs) runc then fails with "error setting rlimit ...: operation not
  # permitted". Fixed, modest values work everywhere.
  cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "$runtime"
CONF
}

stop_service() {
  # Containers first (conmon outlives the service otherwise).
  if command -v podman >/dev/null 2>&1 && [ -f "$CONTAINERS_CONF" ]; then
    pm rm -a -f -t 0 >/dev/null 2>&1
  fi
  svc_stop_pid "$(cat "$dir/service.pid" 2>/dev/null)" 100
  rm -f "$dir/service.pid"
  # Podman leaves a conmon per finished exec waiting 300 s (--exit-delay)
  # to clean up after it, even once its container is gone: ours are found
  # by our storage root on their command line.
  local f p
  for f in /proc/[0-9]*/cmdline; do
    if tr '\0' ' ' 2>/dev/null <"$f" | grep -q "^[^ ]*conmon .* -b $dir/storage/"; then
      p=${f#/proc/}
      kill -KILL "${p%/cmdline}" 2>/dev/null
    fi
  done
  # The storage's own mounts (vfs has none, but shm mounts of containers).
  svc_umount_all "$run"
  rm -rf "$run"
}

cmd_start() {
  rm -f "$state"
  svc_require podman "podman is not installed (apt-get install podman catatonit)"
  [ "$(id -u)" = 0 ] || svc_unavailable "the private Podman service runs as root"
  svc_require "$runtime" "the $runtime OCI runtime is not installed (apt-get install $runtime)"
  # The backend asks for an init (HostConfig.Init); Podman's is catatonit.
  local init
  for init in /usr/libexec/podman/catatonit /usr/bin/catatonit; do [ -x "$init" ] && break; done
  [ -x "$init" ] || svc_unavailable "podman's init (catatonit) is not installed (apt-get install catatonit)"
  [ -f "$dir/service.pid" ] && stop_service # a leftover from an interrupted run
  mkdir -p "$run/tmp" "$dir/storage"
  write_conf
  busybox_import "$image" podman pm
  rm -f "$sock"
  setsid podman --root "$dir/storage" --runroot "$run/runroot" --tmpdir "$run/tmp" --storage-driver vfs \
    system service --time=0 "unix://$sock" >"$dir/service.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$dir/service.pid"
  svc_wait_ready "podman system service" "$pid" "$dir/service.log" pinged
  printf 'host=unix://%s\nimage=%s\nruntime=%s\npid=%s\n' "$sock" "$image" "$runtime" "$pid" >"$state"
  say "podman service up at unix://$sock (pid $pid, $(podman --version))"
}

cmd_stop() {
  stop_service
  say "podman service stopped"
}

svc_main
