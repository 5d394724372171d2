# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the scripts that start a private service for a test area
# (tests/docker/engine.sh, tests/docker_tls/tls_engine.sh,
# tests/podman/podman_service.sh): the parts of starting, stopping and
# reporting a service that do not depend on which service it is.
#
# A service script calls `svc_init NAME WHY CMD STATE_DIR` first. It then
# has $dir (STATE_DIR, absolute) and $state (STATE_DIR/state, the file the
# tests read: key=value lines, or skip=<reason> / error=<reason>).

# svc_init NAME WHY CMD STATE_DIR: NAME is the script's name for messages,
# WHY says what needs the service ("the docker tests need an engine").
svc_init() {
  svc_name=$1
  svc_why=$2
  svc_cmd=$3
  dir=$4
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  state=$dir/state
}

say() { echo "$svc_name: $*" >&2; }

# svc_unavailable REASON: no service can be had. Under CI=true that is a
# failure (error= in the state file, exit 1); elsewhere every test of the
# area is skipped with the reason (skip=, exit 77: ctest shows the fixture,
# and every test that needs it, as Skipped).
svc_unavailable() {
  if [ "${CI:-}" = "true" ]; then
    say "FAILED: $1 (CI=true: $svc_why)"
    echo "error=$1" >"$state"
    exit 1
  fi
  say "SKIP: $1"
  echo "skip=$1" >"$state"
  exit 77
}

# svc_require COMMAND REASON: svc_unavailable REASON unless COMMAND is on PATH.
svc_require() {
  command -v "$1" >/dev/null 2>&1 || svc_unavailable "$2"
}

# svc_short_dir PREFIX: /tmp/PREFIX-<8 hex of $dir>. Unix socket paths are
# limited to 107 bytes, so the sockets of a service live there, not under
# a build tree's long path; the hash keeps build trees apart.
svc_short_dir() {
  printf '/tmp/%s-%s' "$1" "$(printf '%s' "$dir" | md5sum | cut -c1-8)"
}

svc_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# svc_wait_gone PID TENTHS: waits up to TENTHS tenths of a second for PID
# to end; 0 when it did.
svc_wait_gone() {
  for _ in $(seq 1 "$2"); do
    svc_alive "$1" || return 0
    sleep 0.1
  done
  return 1
}

# svc_stop_pid PID TENTHS: SIGTERM, up to TENTHS tenths of a second to
# end, then SIGKILL (and up to 5 s more). Nothing when PID is not running.
svc_stop_pid() {
  svc_alive "$1" || return 0
  kill -TERM "$1" 2>/dev/null
  svc_wait_gone "$1" "$2" && return 0
  kill -KILL "$1" 2>/dev/null
  svc_wait_gone "$1" 50
}

# svc_port_busy PORT: something listens on PORT (IPv4 or IPv6) here.
svc_port_busy() {
  local hex
  hex=$(printf ':%04X ' "$1")
  grep -qi -- "$hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# svc_free_port: echoes a loopback port nothing listens on now. Another
# process may still take it first: a service that loses it fails to start,
# and its script says so (or tries another).
svc_free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    svc_port_busy "$port" || {
      echo "$port"
      return 0
    }
  done
  return 1
}

# svc_wait_ready WHAT PID LOG CHECK...: waits up to 30 s for the command
# CHECK... to succeed while PID runs. A PID that exits, or a CHECK that
# never succeeds, makes the service unavailable (PID killed, the log's
# tail shown).
svc_wait_ready() {
  local what=$1 pid=$2 log=$3
  shift 3
  for _ in $(seq 1 150); do
    if ! svc_alive "$pid"; then
      tail -20 "$log" >&2
      svc_unavailable "$what exited during startup (log: $log)"
    fi
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  "$@" >/dev/null 2>&1 && return 0
  kill -KILL "$pid" 2>/dev/null
  tail -20 "$log" >&2
  svc_unavailable "$what did not answer within 30 s (log: $log)"
}

# svc_umount_all UNDER: unmounts every mount point at or below UNDER,
# deepest first (a killed engine or runtime can leave them behind).
svc_umount_all() {
  local m
  for m in $(awk -v r="$1" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
  done
}

# svc_main: runs "$svc_cmd" as one of the functions cmd_start, cmd_stop,
# cmd_kill... that the script defines; an unknown command exits 64.
svc_main() {
  if declare -F "cmd_$svc_cmd" >/dev/null; then
    "cmd_$svc_cmd"
  else
    say "unknown command $svc_cmd"
    exit 64
  fi
}
