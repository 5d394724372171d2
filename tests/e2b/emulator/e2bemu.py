#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An E2B emulator for tests: the control plane and envd, as the published
specs say (tests/e2b/README.md). Two loopback ports chosen at run time: the
API (E2B_API_URL) and the sandbox proxy (E2B_SANDBOX_URL).

  e2bemu.py --port-file FILE [--parent-pid PID] [--idle-timeout S]
            [--envd-version V]

The accepted API key comes from E2B_EMU_API_KEY (else E2B_API_KEY); it is
never printed. The port file receives "API_PORT SANDBOX_PORT\\n" once both
listen. The emulator exits by itself when its parent dies, after
--idle-timeout seconds without a request, on SIGTERM, or on
POST /__emu__/shutdown; it kills every process it started and removes its
temporary directory.
"""

import argparse
import email.utils
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # keep the source tree clean

import connectwire  # noqa: E402
import control  # noqa: E402
import envd  # noqa: E402
import faults  # noqa: E402
import httpbase  # noqa: E402
import sandboxes  # noqa: E402

SECRET_HEADERS = ("x-api-key", "x-access-token", "authorization")
LOG_LIMIT = 5000


class Emulator:
    def __init__(self, api_key, envd_version, root):
        self.api_key = api_key
        self.root = root
        self.store = sandboxes.Store(root, envd_version)
        self.faults = faults.Faults()
        self.config = {}
        self.templates = {"base", "code-interpreter-v1", "mytemplate"}
        self.lock = threading.Lock()
        self.requests = []
        self.violations = []
        self.notes = []
        self.last_activity = time.monotonic()
        self.stop = threading.Event()

    # ------------------------------------------------------------ records
    def log_request(self, h, server):
        self.last_activity = time.monotonic()
        headers = {}
        for k, v in h.headers.items():
            # Secrets are recorded as present, never by value.
            headers[k] = "<present>" if k.lower() in SECRET_HEADERS else v
        with self.lock:
            self.requests.append({"server": server, "method": h.command, "path": h.url_path,
                                  "query": h.raw_query, "headers": headers, "status": None,
                                  "at": time.monotonic()})
            h.log_entry = self.requests[-1]
            del self.requests[:-LOG_LIMIT]

    def log_response(self, h, status):
        with self.lock:
            entry = getattr(h, "log_entry", None)
            if entry is not None:
                entry["status"] = status

    def violation(self, h, status, message):
        """A request that broke the spec (answered 4xx the way E2B would)."""
        with self.lock:
            self.violations.append({"method": h.command, "path": getattr(h, "url_path", h.path),
                                    "status": status, "message": message})

    def note(self, h, message):
        """Something allowed but unusual (unknown fields, missing optional
        protocol headers)."""
        with self.lock:
            self.notes.append({"method": h.command, "path": getattr(h, "url_path", h.path), "message": message})

    def violations_view(self):
        with self.lock:
            return {"violations": list(self.violations), "notes": list(self.notes)}

    def clear_violations(self):
        with self.lock:
            self.violations = []
            self.notes = []

    def requests_view(self):
        with self.lock:
            return {"requests": list(self.requests)}

    def clear_requests(self):
        with self.lock:
            self.requests = []

    # ------------------------------------------------------------- faults
    def apply_fault(self, h, server, method, path):
        """True when the fault answered the request itself."""
        rule = self.faults.take(server, method, path)
        if not rule:
            return False
        action = rule.get("action")
        if action == "delay":
            time.sleep(rule.get("delay_ms", 1000) / 1000.0)
            return False
        if action == "status":
            status = int(rule.get("status", 500))
            headers = {}
            if "retry_after" in rule:
                headers["Retry-After"] = str(rule["retry_after"])
            elif "retry_after_in" in rule:
                # The other form RFC 9110 allows: an HTTP date, that many seconds ahead.
                headers["Retry-After"] = email.utils.formatdate(time.time() + float(rule["retry_after_in"]),
                                                                usegmt=True)
            h.read_body()
            body = rule.get("body") or {"code": status, "message": rule.get("message", "injected fault")}
            h.send_json(status, body, headers)
            return True
        if action == "reset":
            h.read_body()
            h.cut_connection()
            return True
        if action == "body":
            h.read_body()
            if "raw" in rule:
                one = str(rule["raw"]).encode()
            else:
                one = json.dumps(rule.get("json"), separators=(",", ":")).encode()
            h.send_bytes(int(rule.get("status", 200)), one * int(rule.get("repeat", 1)),
                         rule.get("content_type", "application/json"), rule.get("headers"))
            return True
        if action == "stream":
            h.read_body()
            h.start_chunked(200, "application/connect+json")
            for e in rule.get("envelopes", []):
                payload = str(e["raw"]).encode() if "raw" in e else e.get("json")
                h.write_chunk(connectwire.envelope(payload, int(e.get("flags", 0))))
            h.end_chunked()
            return True
        h.fault = rule  # stream faults, applied by the Start handler
        return False

    def request_shutdown(self):
        self.stop.set()


def watchdog(emu, parent, idle):
    while not emu.stop.is_set():
        time.sleep(0.25)
        if parent and os.getppid() != parent:
            emu.stop.set()
        if idle and time.monotonic() - emu.last_activity > idle:
            emu.stop.set()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--parent-pid", type=int, default=0)
    ap.add_argument("--idle-timeout", type=float, default=300.0)
    ap.add_argument("--envd-version", default="0.6.4")
    args = ap.parse_args()

    key = os.environ.get("E2B_EMU_API_KEY") or os.environ.get("E2B_API_KEY")
    if not key:
        print("e2bemu: set E2B_EMU_API_KEY (the API key the emulator accepts)", file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="e2bemu-")
    emu = Emulator(key, args.envd_version, root)
    api = httpbase.Server(("127.0.0.1", 0), control.ApiHandler, emu, "api")
    sbx = httpbase.Server(("127.0.0.1", 0), envd.EnvdHandler, emu, "envd")
    for srv in (api, sbx):
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %d\n" % (api.server_address[1], sbx.server_address[1]))
    os.rename(tmp, args.port_file)

    signal.signal(signal.SIGTERM, lambda *_: emu.stop.set())
    signal.signal(signal.SIGINT, lambda *_: emu.stop.set())
    threading.Thread(target=watchdog, args=(emu, args.parent_pid, args.idle_timeout), daemon=True).start()
    while not emu.stop.wait(0.5):
        pass

    emu.store.shutdown()
    for srv in (api, sbx):
        srv.shutdown()
        srv.server_close()
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
