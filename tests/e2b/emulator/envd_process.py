# SPDX-License-Identifier: MIT
"""envd's process service (process.Process): Start as a Connect server
stream, and the unary SendSignal, SendInput, CloseStdin and List."""

import os
import queue
import signal
import socket
import threading
import time

import connectwire as cw
from connectwire import ConnectError
import processes

SIGNALS = {"SIGNAL_SIGKILL": signal.SIGKILL, "SIGNAL_SIGTERM": signal.SIGTERM, 9: signal.SIGKILL,
           15: signal.SIGTERM}
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _process_env(sb, envs, user):
    # Never the emulator's own environment: it holds the API key.
    home = sb.host_path("/home/user" if user != "root" else "/root")
    env = {"PATH": BASE_PATH, "HOME": home, "USER": user, "LANG": "C.UTF-8"}
    env.update(sb.env_vars)
    env.update(envs)
    return env


def _selector(msg, field="process"):
    sel = cw.opt(msg, field, dict, field, {})
    pid = cw.opt(sel, "pid", int, field + ".pid")
    tag = cw.opt(sel, "tag", str, field + ".tag")
    if pid is None and tag is None:
        raise ConnectError("invalid_argument", "invalid process selector")
    return pid, tag


def _find(sb, msg):
    pid, tag = _selector(msg)
    with sb.lock:
        proc = sb.processes.get(pid) if pid is not None else None
    if proc is None:
        raise ConnectError("not_found", "process with pid %s not found" % (pid if pid is not None else tag))
    return proc


# ------------------------------------------------------------------ unary
def send_signal(h, sb, msg):
    proc = _find(sb, msg)
    sig = msg.get("signal")
    if sig not in SIGNALS:
        raise ConnectError("invalid_argument", "invalid signal: %r" % (sig,))
    proc.signal(SIGNALS[sig])
    return {}


def send_input(h, sb, msg):
    proc = _find(sb, msg)
    inp = cw.opt(msg, "input", dict, "input", {})
    if "stdin" in inp:
        data = cw.b64decode(inp["stdin"], "input.stdin")
    elif "pty" in inp:
        raise ConnectError("failed_precondition", "process has no pty")
    else:
        raise ConnectError("invalid_argument", "input is empty")
    if not proc.write_stdin(data):
        raise ConnectError("failed_precondition", "stdin not enabled or closed")
    return {}


def close_stdin(h, sb, msg):
    proc = _find(sb, msg)
    if not proc.close_stdin():
        raise ConnectError("failed_precondition", "stdin not enabled or closed")
    return {}


def list_processes(h, sb, msg):
    with sb.lock:
        procs = list(sb.processes.values())
    return {"processes": [{"pid": p.pid, "config": {"cmd": p.popen.args[0], "args": list(p.popen.args[1:])}}
                          for p in procs]}


UNARY = {
    "/process.Process/SendSignal": send_signal,
    "/process.Process/SendInput": send_input,
    "/process.Process/CloseStdin": close_stdin,
    "/process.Process/List": list_processes,
}


# ----------------------------------------------------------------- Start
class StreamWriter:
    """Writes envelopes the way a fault asks: normally one chunk each, byte
    by byte (split), all at once (coalesce)."""

    def __init__(self, h, mode):
        self.h = h
        self.mode = mode
        self.held = []
        if mode == "split":
            try:
                h.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass

    def send(self, data):
        if self.mode == "coalesce":
            self.held.append(data)
        elif self.mode == "split":
            for i in range(len(data)):
                self.h.write_chunk(data[i:i + 1])
                time.sleep(0.001)
        else:
            self.h.write_chunk(data)

    def finish(self):
        if self.held:
            self.h.write_chunk(b"".join(self.held))
        self.h.end_chunked()


def _timeout_from_header(h):
    raw = h.headers.get("Connect-Timeout-Ms")
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 10:
        raise ConnectError("invalid_argument", "protocol error: invalid timeout %r" % raw)
    return int(raw) / 1000.0


def _keepalive_interval(h):
    override = h.emu.config.get("keepalive_ms")
    if override:
        return override / 1000.0
    raw = h.headers.get("Keepalive-Ping-Interval")
    try:
        return float(int(raw)) if raw else 90.0
    except ValueError:
        return 90.0


def start(h, sb, user, fault):
    """Answers 200 and streams StartResponse envelopes; errors before the
    process exists end the stream with a Connect error."""
    h.start_chunked(200, "application/connect+json")
    mode = fault.get("action") if fault else None
    w = StreamWriter(h, mode if mode in ("split", "coalesce") else None)
    try:
        msg = cw.parse_single_envelope(h.read_body())
        timeout = _timeout_from_header(h)
        pcfg = cw.opt(msg, "process", dict, "process", {})
        cmd = cw.opt(pcfg, "cmd", str, "process.cmd", "")
        args = cw.string_list(pcfg, "args", "process.args")
        envs = cw.string_map(pcfg, "envs", "process.envs")
        cwd = cw.opt(pcfg, "cwd", str, "process.cwd")
        want_stdin = cw.opt(msg, "stdin", bool, "stdin", True)
        if cw.opt(msg, "pty", dict, "pty") is not None:
            raise ConnectError("unimplemented", "pty is not supported by the emulator")
        home = "/home/user" if user != "root" else "/root"
        workdir = sb.host_path(cwd if cwd else home)
        if not os.path.isdir(workdir):
            raise ConnectError("invalid_argument",
                               "error starting process: chdir %s: no such file or directory" % sb.sandbox_path(cwd))
        try:
            proc = processes.Proc([cmd] + args, workdir, _process_env(sb, envs, user), want_stdin)
        except OSError as e:
            raise ConnectError("invalid_argument", "error starting process: exec: %s: %s" % (cmd, e.strerror))
    except ConnectError as e:
        w.send(cw.end_stream(e))
        w.finish()
        return
    with sb.lock:
        sb.processes[proc.pid] = proc
    try:
        _pump(h, sb, proc, w, timeout, _keepalive_interval(h), fault)
    except (BrokenPipeError, ConnectionResetError, OSError):
        # The client went away. envd does not kill the process for that.
        h.close_connection = True
    finally:
        _forget_when_done(sb, proc)


def _forget_when_done(sb, proc):
    def forget():
        proc.popen.wait()
        with sb.lock:
            sb.processes.pop(proc.pid, None)

    if proc.running():
        threading.Thread(target=forget, daemon=True).start()
    else:
        forget()


def _pump(h, sb, proc, w, timeout, keepalive, fault):
    action = fault.get("action") if fault else None
    after = int(fault.get("after_events", 1)) if fault else 0
    deadline = time.monotonic() + timeout if timeout is not None else None
    w.send(cw.envelope({"event": {"start": {"pid": proc.pid}}}))
    sent_data = 0
    while True:
        wait = keepalive
        if deadline is not None:
            wait = min(wait, max(deadline - time.monotonic(), 0))
        try:
            ev = proc.events.get(timeout=wait)
        except queue.Empty:
            ev = None
        if not sb.alive:
            h.cut_connection()
            return
        if ev is None:
            if deadline is not None and time.monotonic() >= deadline:
                # connect-go's request context ends first: the stream ends
                # with deadline_exceeded and the process is killed.
                proc.signal(signal.SIGKILL)
                w.send(cw.end_stream(ConnectError("deadline_exceeded", "context deadline exceeded")))
                w.finish()
                return
            w.send(cw.envelope({"event": {"keepalive": {}}}))
            continue
        if ev[0] == "data":
            env = cw.envelope({"event": {"data": {ev[1]: cw.b64encode(ev[2])}}})
            if action in ("cut", "vanish") and sent_data >= after:
                if action == "cut":
                    h.write_chunk(env[: max(1, len(env) // 2)])
                else:
                    h.emu.store.remove(sb.id)
                h.cut_connection()
                return
            w.send(env)
            sent_data += 1
            continue
        # the end
        if action == "end_error":
            w.send(cw.end_stream(ConnectError(fault.get("code", "internal"), fault.get("message", "injected"))))
            w.finish()
            return
        if action in ("cut", "vanish"):
            # nothing was printed to cut at: cut the end event instead
            env = cw.envelope({"event": {"end": processes.end_event(ev[1])}})
            if action == "cut":
                h.write_chunk(env[: max(1, len(env) // 2)])
            else:
                h.emu.store.remove(sb.id)
            h.cut_connection()
            return
        w.send(cw.envelope({"event": {"end": processes.end_event(ev[1])}}))
        w.send(cw.end_stream())
        w.finish()
        return
