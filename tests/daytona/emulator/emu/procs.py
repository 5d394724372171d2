# SPDX-License-Identifier: MIT
"""Commands run for real, the way the v0.190 daemon runs them
(apps/daemon/pkg/toolbox/process/execute.go): the user's shell reads the
command text on stdin, stdout and stderr are one combined stream, and a
timeout kills the whole process group."""

import os
import shutil
import signal
import subprocess

from .fsmap import contained, resolve
from .store import HOME

SHELL = shutil.which("bash") or "/bin/sh"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
HARD_CAP_S = 600  # the daemon has no limit without a timeout; the emulator does


class Result:
    def __init__(self, exit_code, output, timed_out=False, killed=False):
        self.exit_code = exit_code
        self.output = output
        self.timed_out = timed_out
        self.killed = killed


def run(sb, command, cwd, envs, timeout):
    """Runs `command` in sandbox `sb`. A start failure is exit code -1 with
    the error text, as the daemon answers it."""
    vpath, host_cwd = resolve(sb, cwd)
    if not os.path.isdir(host_cwd) or not contained(sb, host_cwd):
        return Result(-1, "chdir %s: no such file or directory" % vpath)
    _, home = resolve(sb, HOME)
    env = {"PATH": PATH, "HOME": home, "USER": sb.user, "LANG": "C.UTF-8"}
    env.update(sb.env)
    env.update(envs or {})
    try:
        p = subprocess.Popen(
            [SHELL],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=host_cwd,
            env=env,
            start_new_session=True,
        )
    except OSError as e:
        return Result(-1, str(e))
    with sb.lock:
        if sb.deleted is not None:
            _kill(p)
            p.communicate()
            return Result(137, "", killed=True)
        sb.procs.add(p)
    try:
        limit = timeout if timeout else HARD_CAP_S
        try:
            out, _ = p.communicate(command.encode("utf-8"), timeout=limit)
        except subprocess.TimeoutExpired:
            _kill(p)
            out, _ = p.communicate()
            return Result(137, out.decode("utf-8", "replace"), timed_out=True)
    finally:
        with sb.lock:
            sb.procs.discard(p)
    killed = sb.deleted is not None
    code = p.returncode
    if code < 0:  # killed by a signal: the shell convention
        code = 128 - code
    return Result(code, out.decode("utf-8", "replace"), killed=killed)


def _kill(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
