# SPDX-License-Identifier: MIT
"""The emulator's sandboxes: id, template, metadata, env, lifetime, the
envd access token, and a private directory tree on the host that stands in
for the VM's filesystem (sandbox path P lives at ROOT/P)."""

import datetime
import os
import posixpath
import secrets
import shutil
import signal
import string
import threading
import time

HOME = "/home/user"
ID_ALPHABET = string.ascii_lowercase + string.digits


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc)


def rfc3339(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"


class Sandbox:
    def __init__(self, store, template, timeout_s, metadata, env_vars, secure, network, allow_internet):
        self.id = "i" + "".join(secrets.choice(ID_ALPHABET) for _ in range(19))
        self.template = template
        self.metadata = dict(metadata)
        self.env_vars = dict(env_vars)
        self.secure = secure
        self.token = secrets.token_hex(16) if secure else None
        self.network = network
        self.allow_internet = allow_internet
        self.started_at = now_utc()
        self.end_at = self.started_at + datetime.timedelta(seconds=timeout_s)
        self.envd_version = store.envd_version
        self.alive = True
        self.processes = {}
        self.lock = threading.Lock()
        self.root = os.path.join(store.root, self.id)
        for d in (HOME, "/tmp"):
            os.makedirs(self.host_path(d), exist_ok=True)

    # A path inside the sandbox -> the host path standing in for it. Relative
    # paths are relative to the user's home, as envd resolves them.
    def sandbox_path(self, path):
        if not path.startswith("/"):
            path = posixpath.join(HOME, path)
        return posixpath.normpath(path) if path != "/" else "/"

    def host_path(self, path):
        p = self.sandbox_path(path)
        return self.root if p == "/" else self.root + p

    def to_sandbox(self, host):
        rel = os.path.relpath(host, self.root)
        return "/" if rel == "." else "/" + rel

    def set_timeout(self, seconds):
        self.end_at = now_utc() + datetime.timedelta(seconds=seconds)

    def kill(self):
        with self.lock:
            if not self.alive:
                return False
            self.alive = False
            procs = list(self.processes.values())
        for p in procs:
            p.signal(signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)
        return True

    def listed(self):
        """ListedSandbox JSON."""
        out = {
            "templateID": self.template,
            "alias": self.template,
            "sandboxID": self.id,
            "clientID": "6532622b",
            "startedAt": rfc3339(self.started_at),
            "endAt": rfc3339(self.end_at),
            "cpuCount": 2,
            "memoryMB": 512,
            "diskSizeMB": 1024,
            "state": "running",
            "envdVersion": self.envd_version,
        }
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        return out

    def detail(self):
        """SandboxDetail JSON."""
        out = self.listed()
        if self.token:
            out["envdAccessToken"] = self.token
        out["allowInternetAccess"] = self.allow_internet
        out["domain"] = None
        if self.network:
            out["network"] = self.network
        out["lifecycle"] = {"autoResume": False, "onTimeout": "kill"}
        return out

    def created(self):
        """Sandbox JSON, as create and connect answer."""
        out = {
            "templateID": self.template,
            "alias": self.template,
            "sandboxID": self.id,
            "clientID": "6532622b",
            "envdVersion": self.envd_version,
            "trafficAccessToken": None,
            "domain": None,
        }
        if self.token:
            out["envdAccessToken"] = self.token
        return out


class Store:
    def __init__(self, root, envd_version):
        self.root = root
        self.envd_version = envd_version
        self.lock = threading.Lock()
        self.sandboxes = {}  # id -> Sandbox, alive ones only
        self.killed = {}  # id -> Sandbox, for the admin view
        threading.Thread(target=self._reaper, daemon=True).start()

    def add(self, sb):
        with self.lock:
            self.sandboxes[sb.id] = sb

    def get(self, sid):
        with self.lock:
            sb = self.sandboxes.get(sid)
        return sb if sb and sb.alive else None

    def remove(self, sid):
        with self.lock:
            sb = self.sandboxes.pop(sid, None)
            if sb:
                self.killed[sid] = sb
        if sb:
            sb.kill()
        return sb is not None

    def live(self):
        with self.lock:
            return [s for s in self.sandboxes.values() if s.alive]

    def _reaper(self):
        # The provider-side lifetime: a sandbox past its end time is killed.
        while True:
            time.sleep(0.2)
            now = now_utc()
            for sb in self.live():
                if sb.end_at <= now:
                    self.remove(sb.id)

    def shutdown(self):
        for sb in self.live():
            self.remove(sb.id)
