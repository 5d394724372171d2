# SPDX-License-Identifier: MIT
"""The HTTP server: routing between the API (/api), the toolbox proxy
(/toolbox/{id}/..., and the deprecated /api/toolbox/{id}/toolbox/...), and
the emulator's own control surface (/_emulator/...), with authentication,
request recording and fault injection in between."""

import json
import re
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from . import faults, httpio
from .api import Api
from .httpio import HttpError
from .toolbox import Raw, Toolbox

KEY = re.compile(r"^dtn_[A-Za-z0-9_]{32,128}$")  # apps/api/src/common/utils/api-key.ts: dtn_ + 32 random chars
BARE_502 = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n"
)
RECORDED_HEADERS = ("content-type", "user-agent", "x-daytona-source", "x-daytona-sdk-version", "x-daytona-organization-id")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, store):
        super().__init__(addr, Handler)
        self.store = store
        self.base_url = "http://%s:%d" % self.server_address[:2]
        self.api = Api(store, self.base_url)
        self.toolbox = Toolbox()
        self.last_activity = time.monotonic()
        self.stopping = threading.Event()

    def touch(self):
        self.last_activity = time.monotonic()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "daytona-emulator/0.190.0"

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % args))

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = lambda self: self.dispatch()

    # --------------------------------------------------------------- entry
    def dispatch(self):
        srv = self.server
        srv.touch()
        url = urlsplit(self.path)
        path = unquote(url.path)
        query = parse_qs(url.query, keep_blank_values=True)
        surface = "api"
        self.record_entry = None
        self.toolbox_path = path
        try:
            self.body = httpio.read_body(self)
            if path.startswith("/_emulator/"):
                surface = "control"
                return self.control(path, query)
            m = re.match(r"^/api/toolbox/([^/]+)/toolbox(/.*)$", path)
            if m:  # the deprecated toolbox route on the API host
                surface = "toolbox"
                return self.toolbox(m.group(1), m.group(2), query)
            if path == "/api" or path.startswith("/api/"):
                return self.api(path[4:] or "/", query)
            m = re.match(r"^/toolbox/([^/]+)(/.*)$", path)
            if m:
                surface = "toolbox"
                return self.toolbox(m.group(1), m.group(2), query)
            raise HttpError(404, "Cannot %s %s" % (self.command, path))
        except HttpError as e:
            self.fail(surface, path, e)
        except Exception:  # a bug in the emulator: say so loudly
            traceback.print_exc()
            self.fail(surface, path, HttpError(500, "An unexpected error occurred."))

    # ---------------------------------------------------------- plumbing
    def read_json(self):
        return httpio.parse_json_body(self, self.body)

    def read_multipart(self):
        return httpio.parse_multipart(self, self.body)

    def send(self, status, content_type, body, headers=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if body is None:
            body = b""
        else:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        try:
            self.end_headers()
            if body and self.command != "HEAD":
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away first; nothing to tell it
        if self.record_entry is not None:
            self.record_entry["status"] = status

    def send_json(self, status, obj, headers=None):
        body = None if obj is None and status == 204 else json.dumps(obj).encode()
        self.send(status, "application/json; charset=utf-8", body, headers)

    def fail(self, surface, path, e):
        kind = getattr(e, "body_kind", "json")
        if kind == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            if self.record_entry is not None:
                self.record_entry["status"] = 0
            return
        if kind == "bare":
            return self.send(e.status, "text/html", BARE_502 if e.status == 502 else b"<html></html>\r\n", e.headers)
        if kind == "empty":
            return self.send(e.status, "text/plain", b"", e.headers)
        if surface == "toolbox":
            body = httpio.toolbox_error_body(e.status, e.message, self.toolbox_path, self.command, e.code)
        elif surface == "control":
            body = {"error": e.message}
        else:
            body = httpio.api_error_body(e.status, e.message, path)
        self.send_json(e.status, body, e.headers)

    def authenticate(self):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            self.server.store.reject({"method": self.command, "authorization": auth})
            raise HttpError(401, "Unauthorized")
        key = auth[len("Bearer ") :]
        if not KEY.fullmatch(key):
            self.server.store.reject({"method": self.command, "authorization": auth})
            raise HttpError(401, "Invalid API key")
        org = self.server.store.org(key)
        if org.settings.revoked:
            raise HttpError(401, "Invalid API key")
        return org

    def record(self, org, surface, path, query):
        entry = {
            "surface": surface,
            "method": self.command,
            "path": path,
            "query": query,
            "headers": {k: self.headers[k] for k in RECORDED_HEADERS if self.headers.get(k) is not None},
            "bearer": self.headers.get("Authorization", "").startswith("Bearer "),
            "bodyBytes": len(self.body),
        }
        ctype = (self.headers.get("Content-Type") or "").lower()
        if self.body and ctype.startswith("application/json"):
            try:
                entry["json"] = json.loads(self.body)
            except ValueError:
                entry["json"] = None
        if self.body and ctype.startswith("multipart/form-data"):
            try:
                entry["parts"] = [
                    {"name": p.name, "filename": p.filename, "bytes": len(p.data)} for p in self.read_multipart()
                ]
            except HttpError:
                entry["parts"] = None
        self.record_entry = entry
        org.record(entry)

    def apply_faults(self, org, surface, path):
        out = faults.take(org, surface, self.command, path)
        if out.delay:
            time.sleep(out.delay)
        if out.fail and not out.after:
            faults.raise_failure(out.fail)
        return out

    # --------------------------------------------------------------- API
    def api(self, path, query):
        org = self.authenticate()
        self.record(org, "api", path, query)
        out = self.apply_faults(org, "api", path)
        srv = self.server
        if path == "/sandbox" and self.command == "POST" and out.final_state:
            status, body = 200, srv.api.create(org, self.read_json(), out.final_state, out.error_reason)
        else:
            status, body = srv.api.route(org, self.command, path, query, self.read_json)
        if out.fail:  # "after": done, but the answer is lost
            faults.raise_failure(out.fail)
        if out.content is not None:
            body = faults.rewrite(out.content, status, body)
            if isinstance(body, bytes):
                return self.send(status, "text/plain", body)
        self.send_json(status, body)

    # ----------------------------------------------------------- toolbox
    def toolbox(self, sandbox_id, path, query):
        self.toolbox_path = path
        org = self.authenticate()
        self.record(org, "toolbox", path, query)
        out = self.apply_faults(org, "toolbox", path)
        sb = org.find(sandbox_id)
        if sb is None or sb.id != sandbox_id:
            raise HttpError(404, "sandbox not found")
        answer = self.server.toolbox.route(
            sb, self.command, path, query, lambda: self.body, self.read_json, self.read_multipart
        )
        if out.fail:  # "after": done, but the answer is lost
            faults.raise_failure(out.fail)
        if out.content is not None:
            status, body = (answer.status, None) if isinstance(answer, Raw) else (answer[0], answer[1])
            body = faults.rewrite(out.content, status, body)
            if isinstance(body, bytes):
                return self.send(status, "text/plain", body)
            return self.send_json(status, body)
        if isinstance(answer, Raw):
            return self.send(answer.status, answer.content_type, answer.body, answer.headers)
        self.send_json(*answer)

    # ----------------------------------------------------------- control
    def control(self, path, query):
        store = self.server.store
        if path == "/_emulator/health":
            return self.send_json(200, {"ok": True})
        if path == "/_emulator/org" and self.command == "POST":
            req = json.loads(self.body or b"{}")
            key = req.get("apiKey")
            if not isinstance(key, str) or not KEY.match(key):
                raise HttpError(400, "apiKey must look like a Daytona API key")
            org = store.org(key)
            try:
                org.settings.update(req.get("settings", {}))
                if "faults" in req:
                    org.faults = faults.validate(req["faults"])
            except ValueError as e:
                raise HttpError(400, str(e))
            if req.get("resetRequests"):
                with org.lock:
                    org.requests = []
            return self.send_json(200, {"organizationId": org.id})
        if path == "/_emulator/requests" and self.command == "GET":
            org = store.org(query.get("apiKey", [""])[0])
            with org.lock:
                reqs = list(org.requests)
            return self.send_json(200, reqs)
        if path == "/_emulator/rejected" and self.command == "GET":
            with store.lock:
                rejected = list(store.rejected)
            return self.send_json(200, rejected)
        if path == "/_emulator/sandboxes" and self.command == "GET":
            key = query.get("apiKey", [None])[0]
            out = []
            for sb in store.all_sandboxes():
                if key is not None and sb.org.key != key:
                    continue
                d = sb.dto(None)
                d["alive"] = sb.alive()
                out.append(d)
            return self.send_json(200, out)
        if path == "/_emulator/shutdown" and self.command == "POST":
            self.send_json(200, {"ok": True})
            self.server.stopping.set()
            return
        raise HttpError(404, "no control route %s %s" % (self.command, path))
