#!/bin/bash
# SPDX-License-Identifier: MIT
# The qemu backend end to end, under TCG (the CI machine has no hardware
# virtualisation: its /dev/kvm is kvm_pvm). One case per invocation:
#   check_qemu.sh CASE SBIO BACKEND_DIR GUEST_DIR WORK_DIR
# CASE: run, lo, console, deadline, backstop, reap, refusal, rootfs. Each case uses its own
# state directory and configuration under WORK_DIR/CASE.
set -euo pipefail
case_name=$1 sbio=$2 backends=$3 guest=$4 work=$5/$1
rm -rf "$work"
mkdir -p "$work"
state=$work/state
fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }

# A wrapper around qemu that records each start: the refusal cases check that
# none happened.
cat > "$work/qemu-wrapper" <<WRAP
#!/bin/sh
echo started >> "$work/qemu-started"
exec qemu-system-x86_64 "\$@"
WRAP
chmod +x "$work/qemu-wrapper"

config() { # config FILE ACCEL
  {
    echo "backends:"
    echo "  qemu:"
    echo "    settings:"
    [ "$2" = default ] || echo "      accel: $2"
    echo "      guest_dir: $guest"
    echo "      state_dir: $state"
    echo "      qemu: $work/qemu-wrapper"
  } > "$1"
}
config "$work/tcg.yaml" tcg
config "$work/default.yaml" default
echo "      rootfs_dir: $work/rootfs" >> "$work/tcg.yaml"
run() { SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" "$@"; }

vms() { find "$state" -mindepth 1 -maxdepth 1 -name 'qm-*' 2>/dev/null | wc -l; }

# Waits (at most $2 s) until a VM of the state directory reported its facts.
wait_booted() {
  for _ in $(seq 1 $(($1 * 10))); do
    if compgen -G "$state/qm-*/observed" > /dev/null; then return 0; fi
    sleep 0.1
  done
  fail "no VM booted within $1 s"
}

qemu_pid() { cat "$state"/qm-*/pid; }
alive() { kill -0 "$1" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; }

case $case_name in
run)
  # The guest's kernel, not the host's, and the tier is UNKNOWN.
  out=$(run run --backend qemu:// -- uname -r 2> "$work/err")
  want=$(cat "$guest/kernel.release")
  [ "$out" = "$want" ] || fail "uname -r printed '$out', expected the guest's '$want'"
  [ "$out" != "$(uname -r)" ] || fail "the guest kernel is the host's ($out)"
  grep -q UNKNOWN "$work/err" || fail "no UNKNOWN warning: $(cat "$work/err")"
  [ "$(vms)" = 0 ] || fail "a VM's state directory survived the run"
  # Nothing survives close: no QEMU, no watchdog of this state directory.
  # (The qemu tests hold one lock, so no other VM's watchdog is about.)
  if pgrep -f -- "$state/" > /dev/null; then fail "QEMU survived the run: $(pgrep -af -- "$state/")"; fi
  # The watchdog is a fork of sbio, so its environment is this case's
  # (SBIO_CONFIG=$work/tcg.yaml): that tells it from the watchdog of a VM
  # another suite on the same machine runs. A zombie is dead: one only
  # waits for a PID 1 that reaps it. The close SIGKILLs QEMU's group but
  # waits for QEMU alone (the watchdog is QEMU's child), so the watchdog
  # may take a moment to go: gone within 10 s, not at once.
  watchdog_alive() {
    local p
    for p in $(pgrep -x sbio-qemu-wd); do
      [ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" = Z ] && continue
      tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qxF "SBIO_CONFIG=$work/tcg.yaml" && return 0
    done
    return 1
  }
  for _ in $(seq 1 100); do watchdog_alive || break; sleep 0.1; done
  if watchdog_alive; then fail "the VM's watchdog survived the run"; fi
  ;;
lo)
  out=$(run run --backend qemu:// --shell -- 'ls /sys/class/net; cat /proc/net/dev | tail -n +3 | cut -d: -f1' 2> /dev/null)
  [ "$(echo "$out" | tr -d ' ' | sort -u)" = lo ] || fail "interfaces in the guest: $out"
  ;;
console)
  # A guest that floods its console fills at most 1 MiB of the host's disk
  # (console.log), and its VM keeps running.
  SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" run --backend qemu:// --timeout 120 --shell -- \
    'head -c 1200000 /dev/zero | tr "\0" x > /dev/console; echo flooded; sleep 100' > "$work/out" 2> /dev/null &
  creator=$!
  for _ in $(seq 1 900); do grep -q flooded "$work/out" && break; sleep 0.1; done
  grep -q flooded "$work/out" || fail "the flood did not finish in 90 s"
  size=$(stat -c %s "$state"/qm-*/console.log)
  [ "$size" -le 1048576 ] || fail "console.log grew to $size bytes"
  [ "$size" -ge 1000000 ] || fail "console.log has only $size bytes: the flood did not reach it"
  alive "$(qemu_pid)" || fail "QEMU died of its guest's console flood"
  kill -9 "$creator"
  wait "$creator" 2>/dev/null || true
  SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" reap --backend qemu --kill > /dev/null
  ;;
deadline)
  # The command outlives --timeout: it is killed, sbio fails, nothing is left.
  # (--timeout bounds the create too: 20 s leaves room for a boot on a
  # loaded machine.)
  start=$(date +%s)
  set +e
  run run --backend qemu:// --timeout 20 -- sleep 120 > /dev/null 2> "$work/err"
  rc=$?
  set -e
  took=$(($(date +%s) - start))
  [ "$rc" != 0 ] || fail "sleep 120 under --timeout 20 succeeded"
  # The exec's deadline or the sandbox's lifetime (the guest powers off at
  # it), whichever comes first: both are the command running out of time.
  grep -q SBX_E1302 "$work/err" || fail "no exec timeout error: $(cat "$work/err")"
  [ "$took" -lt 90 ] || fail "took $took s"
  [ "$(vms)" = 0 ] || fail "a VM's state directory survived the run"
  ;;
backstop)
  # The creating process dies (kill -9): the guest powers itself off at its
  # deadline, QEMU exits, and reap finds the state directory left behind.
  # sbio itself in the background (not a function's subshell): $! is sbio.
  SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" run --backend qemu:// --timeout 20 -- sleep 300 \
    > /dev/null 2>&1 &
  creator=$!
  wait_booted 120
  pid=$(qemu_pid)
  kill -9 "$creator"
  wait "$creator" 2>/dev/null || true
  alive "$pid" || fail "QEMU died with its creator (it must outlive it until the deadline)"
  t0=$(date +%s)
  for _ in $(seq 1 900); do alive "$pid" || break; sleep 0.1; done
  alive "$pid" && fail "QEMU $pid still runs 90 s after the creator died (timeout 20 s)"
  # The agent's power-off, not the host-side watchdog (30 s later), ended it.
  grep -q "deadline passed" "$state"/qm-*/console.log ||
    fail "the guest did not power itself off (QEMU ended $(($(date +%s) - t0)) s after the creator's death); console: $(tail -c 600 "$state"/qm-*/console.log)"
  SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" reap --backend qemu --json > "$work/reap.json"
  grep -q '"stopped"' "$work/reap.json" || fail "reap did not list the stopped VM: $(cat "$work/reap.json")"
  SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" reap --backend qemu --kill > /dev/null
  [ "$(vms)" = 0 ] || fail "reap --kill left a state directory"
  ;;
reap)
  # The creating process dies with the VM running: reap lists it, --kill ends
  # it at once and removes its state.
  SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" run --backend qemu:// --timeout 300 -- sleep 300 \
    > /dev/null 2>&1 &
  creator=$!
  wait_booted 120
  pid=$(qemu_pid)
  kill -9 "$creator"
  wait "$creator" 2>/dev/null || true
  SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" reap --backend qemu --json > "$work/reap.json"
  grep -q '"running"' "$work/reap.json" || fail "reap did not list the running VM: $(cat "$work/reap.json")"
  grep -q "io.sandboxio.session" "$work/reap.json" || fail "no session label: $(cat "$work/reap.json")"
  SBIO_CONFIG=$work/tcg.yaml "$sbio" --backend-path "$backends" reap --backend qemu --kill > /dev/null
  for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
  alive "$pid" && fail "QEMU $pid survived reap --kill"
  [ "$(vms)" = 0 ] || fail "reap --kill left a state directory"
  ;;
refusal)
  # No hardware virtualisation here: refused before any QEMU starts.
  for tier in microvm container; do
    set +e
    SBIO_CONFIG=$work/default.yaml "$sbio" --backend-path "$backends" run --require-isolation "$tier" \
      --backend qemu:// -- true > /dev/null 2> "$work/err"
    rc=$?
    set -e
    [ "$rc" = 78 ] || fail "--require-isolation $tier: exit $rc, expected 78: $(cat "$work/err")"
    grep -q SBX_E1000 "$work/err" || fail "no SBX_E1000: $(cat "$work/err")"
    if [ -d /sys/module/kvm_pvm ]; then
      grep -q kvm_pvm "$work/err" || fail "the refusal does not name kvm_pvm: $(cat "$work/err")"
      grep -q "not hardware virtualisation" "$work/err" || fail "the refusal does not say why: $(cat "$work/err")"
    fi
  done
  # Asked for TCG, a required tier is refused too: TCG is UNKNOWN.
  set +e
  run run --require-isolation microvm --backend qemu:// -- true > /dev/null 2> "$work/err"
  rc=$?
  set -e
  [ "$rc" = 78 ] || fail "tcg with --require-isolation microvm: exit $rc: $(cat "$work/err")"
  [ ! -e "$work/qemu-started" ] || fail "QEMU was started"
  [ ! -e "$state" ] || fail "a state directory was made"
  ;;
rootfs)
  # qemu://NAME runs in <rootfs_dir>/NAME: its files, not the initramfs's;
  # the guest writes to an overlay, never to the host's directory.
  mkdir -p "$work/rootfs/mini/bin" "$work/rootfs/mini/etc"
  cp /usr/bin/busybox "$work/rootfs/mini/bin/"
  for a in sh cat ls touch wc; do ln -s busybox "$work/rootfs/mini/bin/$a"; done
  echo "the mini root" > "$work/rootfs/mini/etc/marker"
  out=$(run run --backend qemu://mini --shell -- 'cat /etc/marker; touch /written && ls /written; ls /bin | wc -l' 2> "$work/err")
  want=$(printf 'the mini root\n/written\n6')
  [ "$(echo "$out" | sed "s/^ *//")" = "$want" ] || fail "in qemu://mini: '$out' (expected '$want'): $(cat "$work/err")"
  [ ! -e "$work/rootfs/mini/written" ] || fail "the guest wrote into the host's directory"
  [ "$(vms)" = 0 ] || fail "a VM's state directory survived the run"
  rm -f "$work/qemu-started"
  set +e
  run run --backend qemu://nope -- true > /dev/null 2> "$work/err"
  rc=$?
  set -e
  [ "$rc" = 78 ] || fail "qemu://nope: exit $rc: $(cat "$work/err")"
  grep -q "no root filesystem 'nope'" "$work/err" || fail "qemu://nope: $(cat "$work/err")"
  [ ! -e "$work/qemu-started" ] || fail "QEMU was started for a missing root filesystem"
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "PASS ($case_name)"
