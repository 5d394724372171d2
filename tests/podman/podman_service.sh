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
cmd=${1:?usage: podman_service.sh start|stop STATE_DIR}
dir=${2:?usage: podman_service.sh start|stop STATE_DIR}
image=sbio-busybox:test
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
state=$dir/state
short=$(printf '%s' "$dir" | md5sum | cut -c1-8)
run=/tmp/sbio-pm-$short
sock=$run/podman.sock
export CONTAINERS_CONF=$dir/containers.conf
# The runtime the service is told to use: runc (which docker.io also
# brings), so the test knows what the mechanism must be.
runtime=runc

say() { echo "podman_service.sh: $*" >&2; }

no_engine() { # reason
  if [ "${CI:-}" = "true" ]; then
    say "FAILED: $1 (CI=true: the Podman tests need podman)"
    echo "error=$1" >"$state"
    exit 1
  fi
  say "SKIP: $1"
  echo "skip=$1" >"$state"
  exit 77
}

pm() {
  podman --root "$dir/storage" --runroot "$run/runroot" --tmpdir "$run/tmp" --storage-driver vfs "$@"
}

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

build_image() {
  if pm image exists "$image" 2>/dev/null; then return 0; fi
  local bb root=$dir/rootfs a
  bb=$(command -v busybox || true)
  [ -x /bin/busybox ] && bb=/bin/busybox
  if [ -z "$bb" ] || ! ldd "$bb" 2>&1 | grep -q "not a dynamic executable"; then
    no_engine "no statically linked busybox for the test image (apt-get install busybox-static)"
  fi
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
  pm import "$dir/rootfs.tar" "$image" >"$dir/import.log" 2>&1 ||
    { cat "$dir/import.log" >&2; no_engine "podman import of the test image failed"; }
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

stop_service() {
  local pid
  pid=$(cat "$dir/service.pid" 2>/dev/null || true)
  # Containers first (conmon outlives the service otherwise).
  if command -v podman >/dev/null 2>&1 && [ -f "$CONTAINERS_CONF" ]; then
    pm rm -a -f -t 0 >/dev/null 2>&1
  fi
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    wait_gone "$pid" 100 || { kill -KILL "$pid" 2>/dev/null; wait_gone "$pid" 50; }
  fi
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
  local m
  for m in $(awk -v r="$run/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
  done
  rm -rf "$run"
}

start() {
  rm -f "$state"
  command -v podman >/dev/null 2>&1 || no_engine "podman is not installed (apt-get install podman catatonit)"
  [ "$(id -u)" = 0 ] || no_engine "the private Podman service runs as root"
  command -v "$runtime" >/dev/null 2>&1 || no_engine "the $runtime OCI runtime is not installed (apt-get install $runtime)"
  # The backend asks for an init (HostConfig.Init); Podman's is catatonit.
  local init
  for init in /usr/libexec/podman/catatonit /usr/bin/catatonit; do [ -x "$init" ] && break; done
  [ -x "$init" ] || no_engine "podman's init (catatonit) is not installed (apt-get install catatonit)"
  [ -f "$dir/service.pid" ] && stop_service # a leftover from an interrupted run
  mkdir -p "$run/tmp" "$dir/storage"
  write_conf
  build_image
  rm -f "$sock"
  setsid podman --root "$dir/storage" --runroot "$run/runroot" --tmpdir "$run/tmp" --storage-driver vfs \
    system service --time=0 "unix://$sock" >"$dir/service.log" 2>&1 </dev/null &
  local pid=$! i
  echo "$pid" >"$dir/service.pid"
  for i in $(seq 1 150); do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -20 "$dir/service.log" >&2
      no_engine "podman system service exited during startup (log: $dir/service.log)"
    fi
    if [ -S "$sock" ] && curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null 2>&1; then break; fi
    sleep 0.2
  done
  curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null 2>&1 ||
    no_engine "podman system service did not answer within 30 s (log: $dir/service.log)"
  printf 'host=unix://%s\nimage=%s\nruntime=%s\npid=%s\n' "$sock" "$image" "$runtime" "$pid" >"$state"
  say "podman service up at unix://$sock (pid $pid, $(podman --version))"
}

case "$cmd" in
start) start ;;
stop)
  stop_service
  say "podman service stopped"
  ;;
*)
  say "unknown command $cmd"
  exit 64
  ;;
esac
