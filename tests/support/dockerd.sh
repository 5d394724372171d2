# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the scripts that run a private Docker Engine
# (tests/docker/engine.sh, tests/docker_tls/tls_engine.sh), after
# service.sh. The caller sets:
#   dockerd_sock   the engine's unix socket (a short path: 107-byte limit)
#   execroot       its exec root, also short (svc_short_dir)
# Data root, pid file, daemon.json and log live in $dir.

dockerd_cli() { docker -H "unix://$dockerd_sock" "$@"; }

dockerd_answers() { [ -S "$dockerd_sock" ] && dockerd_cli version; }

# dockerd_start [DOCKERD ARGS...]: starts dockerd on $dockerd_sock with
# $dir/daemon.json (which the caller wrote) and the given extra arguments,
# no bridge and no iptables, and waits until it answers. Sets dockerd_pid.
dockerd_start() {
  [ "$(id -u)" = 0 ] || svc_unavailable "starting a private dockerd needs root"
  if svc_alive "$(cat "$dir/docker.pid" 2>/dev/null)"; then
    dockerd_stop # a leftover from an interrupted run
  fi
  rm -f "$dockerd_sock"
  mkdir -p "$dir/data" "$execroot"
  setsid dockerd --host "unix://$dockerd_sock" "$@" --data-root "$dir/data" --exec-root "$execroot" \
    --pidfile "$dir/docker.pid" --bridge=none --iptables=false --ip-masq=false --config-file "$dir/daemon.json" \
    >"$dir/dockerd.log" 2>&1 </dev/null &
  dockerd_pid=$!
  svc_wait_ready dockerd "$dockerd_pid" "$dir/dockerd.log" dockerd_answers
}

# dockerd_stop: removes the engine's containers (so nothing keeps running
# after it), stops it, then what a killed engine leaves: its containerd,
# the data root mounted over itself, the exec root.
dockerd_stop() {
  local pid cpid ids
  pid=$(cat "$dir/docker.pid" 2>/dev/null || true)
  [ -z "$pid" ] && pid=$(sed -n 's/^pid=//p' "$state" 2>/dev/null)
  if svc_alive "$pid"; then
    ids=$(dockerd_cli ps -aq 2>/dev/null || true)
    [ -n "$ids" ] && dockerd_cli rm -f $ids >/dev/null 2>&1
    svc_stop_pid "$pid" 200
  fi
  cpid=$(cat "$execroot/containerd/containerd.pid" 2>/dev/null || true)
  svc_stop_pid "$cpid" 100
  rm -f "$dir/docker.pid"
  svc_umount_all "$dir/data"
  svc_alive "$cpid" || rm -rf "$execroot"
}
