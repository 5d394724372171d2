# SPDX-License-Identifier: MIT
"""Real processes for envd's process service: each runs on the host in the
sandbox's directory tree, its output read in 32 KiB chunks (envd's
stdChunkSize) into an event queue the Start stream drains."""

import os
import queue
import signal
import subprocess
import threading

CHUNK = 32 << 10


class Proc:
    def __init__(self, argv, cwd, env, want_stdin):
        self.events = queue.Queue()
        self.popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE if want_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: a kill reaches children
            close_fds=True,
        )
        self.pid = self.popen.pid
        self.stdin_open = want_stdin
        self.stdin_lock = threading.Lock()
        self.killed = False
        self._readers = [
            threading.Thread(target=self._pump, args=(self.popen.stdout, "stdout"), daemon=True),
            threading.Thread(target=self._pump, args=(self.popen.stderr, "stderr"), daemon=True),
        ]
        for t in self._readers:
            t.start()
        threading.Thread(target=self._wait, daemon=True).start()

    def _pump(self, pipe, name):
        fd = pipe.fileno()
        try:
            while True:
                data = os.read(fd, CHUNK)
                if not data:
                    break
                self.events.put(("data", name, data))
        except OSError:
            pass
        finally:
            pipe.close()

    def _wait(self):
        rc = self.popen.wait()
        for t in self._readers:
            t.join()
        self.events.put(("end", rc, None))

    def running(self):
        return self.popen.poll() is None

    def signal(self, sig):
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        if sig == signal.SIGKILL:
            self.killed = True

    def write_stdin(self, data):
        with self.stdin_lock:
            if not self.stdin_open or self.popen.stdin is None:
                return False
            try:
                self.popen.stdin.write(data)
                self.popen.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass
            return True

    def close_stdin(self):
        with self.stdin_lock:
            if not self.stdin_open or self.popen.stdin is None:
                return False
            self.stdin_open = False
            try:
                self.popen.stdin.close()
            except (BrokenPipeError, ValueError):
                pass
            return True


def end_event(rc):
    """envd's EndEvent for a Go ProcessState: exit code (omitted when 0),
    exited, and the state's String(); a signal gives exit code -1."""
    if rc is not None and rc < 0:
        name = {9: "killed", 15: "terminated", 2: "interrupt"}.get(-rc, "signal %d" % -rc)
        return {"exitCode": -1, "status": "signal: " + name}
    end = {"exited": True, "status": "exit status %d" % rc}
    if rc:
        end["exitCode"] = rc
    return end
