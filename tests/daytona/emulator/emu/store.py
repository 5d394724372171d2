# SPDX-License-Identifier: MIT
"""Organisations (one per API key: Daytona API keys are organisation-scoped),
their sandboxes, and the sandbox state machine.

States follow the spec's SandboxState enum. A sandbox's state is computed
from the time since it was created or deleted, so transitions need no
background thread and a test sees the same sequence a poller would:
creating -> starting -> started (or -> error), pending_build ->
building_snapshot -> build_failed, and destroying -> destroyed after a
delete."""

import datetime
import os
import shutil
import signal
import threading
import time
import uuid

# Snapshots the emulated organisations can use, with the sandbox class each
# implies (docs/en/linux-sandboxes: "The snapshot sets the sandbox class").
SNAPSHOTS = {
    "daytonaio/sandbox:0.4.3": {"class": "container", "cpu": 1, "memory": 1, "disk": 3},
    "daytona-small": {"class": "container", "cpu": 1, "memory": 1, "disk": 3},
    "daytona-medium": {"class": "container", "cpu": 2, "memory": 4, "disk": 8},
    "daytona-vm-small": {"class": "linux-vm", "cpu": 2, "memory": 4, "disk": 10},
}
DEFAULT_SNAPSHOT = "daytonaio/sandbox:0.4.3"
DESTROY_DELAY_S = 0.2
USER = "daytona"
HOME = "/home/daytona"


def iso(ts):
    t = datetime.datetime.fromtimestamp(ts, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


class OrgSettings:
    """Per-organisation behaviour a test can set through /_emulator/org."""

    FIELDS = {
        "startDelay": (float, 0.3),  # seconds from create to started
        "listShape": (str, "paged"),  # "paged" (v0.190) or "array" (before 2026-05-24)
        "pageSize": (int, 0),  # server-side page cap; 0 = the client's limit
        "omitToolboxProxyUrl": (bool, False),  # Sandbox DTO before 2026-02-26
        "toolboxProxyUrlEndpoint": (bool, True),  # GET /sandbox/{id}/toolbox-proxy-url exists
        "configProxyToolboxUrl": (bool, True),  # GET /config carries proxyToolboxUrl
        "revoked": (bool, False),  # the API key is rejected with 401
        "toolboxProxyUrlOverride": (str, ""),  # hand out this toolbox URL instead of our own
        "ignoreLabelFilter": (bool, False),  # list ignores ?labels= (a server that does not filter)
    }

    def __init__(self):
        for name, (_, default) in self.FIELDS.items():
            setattr(self, name, default)

    def update(self, values):
        for name, value in values.items():
            if name not in self.FIELDS:
                raise ValueError("unknown org setting %r" % name)
            kind = self.FIELDS[name][0]
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ValueError("org setting %r must be %s" % (name, kind.__name__))
            if name == "listShape" and value not in ("paged", "array"):
                raise ValueError("listShape is 'paged' or 'array'")
            setattr(self, name, value)


class Sandbox:
    def __init__(self, org, body, root_parent, start_delay, final_state, error_reason):
        self.org = org
        self.id = str(uuid.uuid4())
        self.name = body.get("name") or self.id
        self.snapshot = body.get("snapshot") or DEFAULT_SNAPSHOT
        snap = SNAPSHOTS[self.snapshot]
        self.sandbox_class = snap["class"]
        self.cpu, self.memory, self.disk = snap["cpu"], snap["memory"], snap["disk"]
        self.user = body.get("user") or USER
        self.env = dict(body.get("env") or {})
        self.labels = dict(body.get("labels") or {})
        self.public = bool(body.get("public", False))
        self.network_block_all = bool(body.get("networkBlockAll", False))
        self.network_allow_list = body.get("networkAllowList")
        self.domain_allow_list = body.get("domainAllowList")
        self.target = body.get("target") or "us"
        self.auto_stop = body.get("autoStopInterval", 15)
        self.auto_archive = body.get("autoArchiveInterval", 7 * 24 * 60)
        self.auto_delete = body.get("autoDeleteInterval", -1)
        self.volumes = body.get("volumes") or []
        self.created_wall = time.time()
        self.created = time.monotonic()
        self.start_delay = start_delay
        self.final_state = final_state
        self.error_reason = error_reason
        self.deleted = None  # monotonic time of the delete
        self.procs = set()
        self.lock = threading.Lock()
        self.root = os.path.join(root_parent, self.id)
        os.makedirs(os.path.join(self.root, HOME.lstrip("/")), mode=0o755)
        os.makedirs(os.path.join(self.root, "tmp"), mode=0o777)

    # ------------------------------------------------------------- state
    def state(self):
        now = time.monotonic()
        if self.deleted is not None:
            return "destroying" if now - self.deleted < DESTROY_DELAY_S else "destroyed"
        elapsed = now - self.created
        d = self.start_delay
        if self.final_state == "build_failed":
            phases = [("pending_build", d * 0.3), ("building_snapshot", d)]
        else:
            phases = [("creating", d * 0.4), ("starting", d)]
        for name, until in phases:
            if elapsed < until:
                return name
        return self.final_state

    def desired_state(self):
        return "destroyed" if self.deleted is not None else "started"

    def alive(self):
        """Still counts against the organisation: not deleted."""
        return self.deleted is None

    # ------------------------------------------------------------ delete
    def delete(self):
        with self.lock:
            if self.deleted is not None:
                return False
            self.deleted = time.monotonic()
            procs = list(self.procs)
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        shutil.rmtree(self.root, ignore_errors=True)
        return True

    # --------------------------------------------------------------- DTO
    def dto(self, toolbox_url, full=True):
        d = {
            "id": self.id,
            "organizationId": self.org.id,
            "name": self.name,
            "snapshot": self.snapshot,
            "user": self.user,
            "labels": self.labels,
            "public": self.public,
            "target": self.target,
            "cpu": self.cpu,
            "gpu": 0,
            "memory": self.memory,
            "disk": self.disk,
            "state": self.state(),
            "desiredState": self.desired_state(),
            "backupState": "None",
            "autoStopInterval": self.auto_stop,
            "autoArchiveInterval": self.auto_archive,
            "autoDeleteInterval": self.auto_delete,
            "createdAt": iso(self.created_wall),
            "updatedAt": iso(time.time()),
            "lastActivityAt": iso(time.time()),
            "sandboxClass": self.sandbox_class,
            "daemonVersion": "0.190.0",
            "runnerId": "runner-emulated-1",
        }
        if d["state"] in ("error", "build_failed"):
            d["errorReason"] = self.error_reason
            d["recoverable"] = False
        if toolbox_url is not None:
            d["toolboxProxyUrl"] = toolbox_url
        if full:
            d.update(
                {
                    "env": self.env,
                    "networkBlockAll": self.network_block_all,
                    "volumes": self.volumes,
                }
            )
            if self.network_allow_list is not None:
                d["networkAllowList"] = self.network_allow_list
            if self.domain_allow_list is not None:
                d["domainAllowList"] = self.domain_allow_list
        return d


class Org:
    def __init__(self, key):
        self.key = key
        self.id = str(uuid.uuid4())
        self.settings = OrgSettings()
        self.faults = []
        self.requests = []
        self.sandboxes = {}  # id -> Sandbox, creation order
        self.lock = threading.Lock()

    def find(self, id_or_name, include_destroyed=False):
        with self.lock:
            sb = self.sandboxes.get(id_or_name)
            if sb is None:
                for s in self.sandboxes.values():
                    if s.name == id_or_name and s.state() != "destroyed":
                        sb = s
                        break
        if sb is None or (not include_destroyed and sb.state() == "destroyed"):
            return None
        return sb

    def name_taken(self, name):
        with self.lock:
            return any(s.name == name and s.state() != "destroyed" for s in self.sandboxes.values())

    def add(self, sb):
        with self.lock:
            self.sandboxes[sb.id] = sb

    def listing(self):
        with self.lock:
            return list(self.sandboxes.values())

    def record(self, entry):
        with self.lock:
            self.requests.append(entry)


class Store:
    def __init__(self, state_dir):
        self.state_dir = state_dir
        self.sandbox_dir = os.path.join(state_dir, "sandboxes")
        os.makedirs(self.sandbox_dir, exist_ok=True)
        self.orgs = {}
        # Requests refused before they reached an organisation (a missing
        # or malformed key): what they presented, so a test can tell that
        # a key it spoilt never reached the emulator at all.
        self.rejected = []
        self.lock = threading.Lock()

    def reject(self, entry):
        with self.lock:
            self.rejected.append(entry)
            del self.rejected[:-1000]

    def org(self, key):
        with self.lock:
            org = self.orgs.get(key)
            if org is None:
                org = self.orgs[key] = Org(key)
            return org

    def all_sandboxes(self):
        with self.lock:
            orgs = list(self.orgs.values())
        return [sb for org in orgs for sb in org.listing()]

    def shutdown(self):
        for sb in self.all_sandboxes():
            with sb.lock:
                procs = list(sb.procs)
            for p in procs:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
