# SPDX-License-Identifier: MIT
"""The sandbox side: E2B's edge proxy (which sandbox a request is for) and
envd behind it (access token, acting user, Connect RPC, /files, /health)."""

import base64
import gzip
import hashlib
import json
import os
import re

import connectwire as cw
from connectwire import ConnectError
import envd_fs
import envd_process
import httpbase
import multipart

UNAUTHORIZED = "unauthorized access, please provide a valid access token or method signing if supported"
USERS = ("user", "root")
AUTH_EXCLUDED = ("GET/health", "GET/files", "POST/files")


def version_tuple(text):
    nums = re.findall(r"\d+", text or "")
    return tuple(int(n) for n in nums[:3]) if nums else (0,)


class EnvdHandler(httpbase.Handler):
    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def json_error(self, status, message, violation=False):
        if violation:
            self.emu.violation(self, status, message)
        self.send_json(status, {"code": status, "message": message})

    # ----------------------------------------------------------- routing
    def route_sandbox(self):
        """The proxy: E2b-Sandbox-Id when the host is shared (sandbox.<domain>,
        localhost, an IP), else <port>-<sandboxID>.<domain>."""
        host = (self.headers.get("Host") or "").split(":")[0]
        sid = self.headers.get("E2b-Sandbox-Id")
        port = self.headers.get("E2b-Sandbox-Port")
        if not sid:
            m = re.match(r"^(\d+)-([a-z0-9]+)", host)
            if m:
                port, sid = m.group(1), m.group(2)
        if not sid:
            self.json_error(400, "missing sandbox id: send the E2b-Sandbox-Id header", violation=True)
            return None
        if port is not None and port != "49983":
            self.emu.note(self, "request routed to port %s, envd listens on 49983" % port)
        sb = self.emu.store.get(sid)
        if sb is None:
            self.send_json(502, {"sandboxId": sid, "message": "The sandbox was not found", "code": 502})
            return None
        return sb

    def dispatch(self, method):
        self.parse_target()
        self.emu.log_request(self, "envd")
        # Read the whole body first: an answer given before it (a 502, a 401)
        # must not leave it in the connection for the next request to trip on.
        try:
            self.read_body()
        except ValueError:
            self.close_connection = True
            return self.send_json(413, {"code": 413, "message": "request body too large"})
        path = self.url_path
        try:
            if self.emu.apply_fault(self, "envd", method, path):
                return
            sb = self.route_sandbox()
            if sb is None:
                return
            if sb.token and (method + path) not in AUTH_EXCLUDED:
                if self.headers.get("X-Access-Token") != sb.token:
                    return self.json_error(401, UNAUTHORIZED, violation=True)
            if method == "GET" and path == "/health":
                return self.send_empty(204)
            if path == "/files" and method in ("GET", "POST"):
                return self.files(method, sb)
            if method == "POST" and path == "/process.Process/Start":
                return self.start(sb)
            handler = envd_process.UNARY.get(path) or envd_fs.UNARY.get(path)
            if method == "POST" and handler:
                return self.unary(sb, handler)
            self.json_error(404, "404 page not found: %s %s" % (method, path), violation=True)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    # --------------------------------------------------------------- user
    def rpc_user(self):
        auth = self.headers.get("Authorization")
        if not auth:
            return "user"
        m = re.match(r"^Basic\s+(\S+)$", auth)
        if not m:
            raise ConnectError("unauthenticated", "invalid authorization header")
        try:
            user = base64.b64decode(m.group(1)).decode().split(":", 1)[0]
        except (ValueError, UnicodeDecodeError):
            raise ConnectError("unauthenticated", "invalid authorization header")
        if user not in USERS:
            raise ConnectError("unauthenticated", "invalid username: '%s'" % user)
        return user

    # ------------------------------------------------------------ Connect
    def unary(self, sb, handler):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            self.emu.violation(self, 415, "unary Connect call with Content-Type %r" % ctype)
            return self.send_empty(415, {"Accept-Post": "application/json, application/proto"})
        if self.headers.get("Connect-Protocol-Version") != "1":
            self.emu.note(self, "Connect unary call without Connect-Protocol-Version: 1")
        try:
            self.rpc_user()
            msg = cw.parse_json_message(self.read_body())
            out = handler(self, sb, msg)
        except ConnectError as e:
            if e.code == "invalid_argument":
                self.emu.violation(self, 400, e.message)
            return self.send_json(cw.CODE_TO_HTTP[e.code], e.to_json())
        self.send_json(200, out)

    def start(self, sb):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/connect+json":
            self.emu.violation(self, 415, "streaming Connect call with Content-Type %r" % ctype)
            return self.send_empty(415, {"Accept-Post": "application/connect+json, application/connect+proto"})
        try:
            user = self.rpc_user()
        except ConnectError as e:
            self.start_chunked(200, "application/connect+json")
            self.write_chunk(cw.end_stream(e))
            return self.end_chunked()
        envd_process.start(self, sb, user, self.fault)

    # -------------------------------------------------------------- files
    def files(self, method, sb):
        username = self.q1("username")
        path = self.q1("path")
        token = self.headers.get("X-Access-Token")
        if sb.token:
            if token is not None and token != sb.token:
                return self.json_error(401, "access token present in header but does not match", violation=True)
            if token is None and self.q1("signature") is None:
                return self.json_error(401, "missing signature query parameter", violation=True)
            if token is None and not self.signature_ok(sb, path, username, "read" if method == "GET" else "write"):
                return self.json_error(401, "invalid signature", violation=True)
        user = username or "user"
        if user not in USERS:
            return self.json_error(401, "error looking up user '%s': user: unknown user %s" % (user, user))
        if method == "GET":
            return self.download(sb, path or "")
        return self.upload(sb, path)

    def signature_ok(self, sb, path, username, op):
        exp = self.q1("signature_expiration")
        raw = ":".join([path or "", op, username or "", sb.token])
        if exp:
            raw += ":" + exp
        digest = base64.b64encode(hashlib.sha256(raw.encode()).digest()).decode().rstrip("=")
        return self.q1("signature") == "v1_" + digest

    def download(self, sb, path):
        host = sb.host_path(path)
        shown = sb.sandbox_path(path)
        if not os.path.lexists(host):
            return self.json_error(404, "path '%s' does not exist" % shown)
        if os.path.isdir(host):
            return self.json_error(400, "path '%s' is a directory" % shown)
        with open(host, "rb") as f:
            data = f.read()
        if "gzip" in (self.headers.get("Accept-Encoding") or ""):
            return self.send_bytes(200, gzip.compress(data), "application/octet-stream",
                                   {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
        self.send_bytes(200, data, "application/octet-stream", {"Vary": "Accept-Encoding"})

    def upload(self, sb, path):
        ctype = self.headers.get("Content-Type") or ""
        media = ctype.split(";")[0].strip().lower()
        body = self.read_body()
        if (self.headers.get("Content-Encoding") or "").lower() == "gzip":
            try:
                body = gzip.decompress(body)
            except OSError as e:
                return self.json_error(400, "error decompressing request body: %s" % e)
        files = []
        if media == "application/octet-stream":
            if path is None:
                return self.json_error(400, "path query parameter is required for raw body upload", violation=True)
            if version_tuple(sb.envd_version) < (0, 5, 7):
                # older envd reads every upload as multipart
                return self.json_error(500, "error parsing multipart form: request Content-Type isn't "
                                       "multipart/form-data", violation=True)
            files.append((path, body))
        elif media.startswith("multipart/"):
            try:
                parts = multipart.parse(body, ctype)
            except multipart.MultipartError as e:
                return self.json_error(500, "error parsing multipart form: %s" % e, violation=True)
            for name, filename, data in parts:
                if name != "file":
                    continue
                dest = path if path is not None else filename
                if not dest:
                    return self.json_error(400, "error getting multipart custom part file name", violation=True)
                files.append((dest, data))
        else:
            return self.json_error(400, "unsupported content type: %s, expected multipart/form-data or "
                                   "application/octet-stream" % ctype, violation=True)
        limit = self.emu.config.get("disk_free_bytes")
        if limit is not None and sum(len(d) for _, d in files) > limit:
            n = int(self.headers.get("Content-Length") or 0)
            msg = "not enough disk space available"
            if n > 0:
                msg = "attempted to write %d bytes: %s" % (n, msg)
            return self.json_error(507, msg)
        out = []
        for dest, data in files:
            host = sb.host_path(dest)
            shown = sb.sandbox_path(dest)
            if os.path.isdir(host):
                return self.json_error(400, "path is a directory: %s" % shown)
            os.makedirs(os.path.dirname(host), exist_ok=True)
            with open(host, "wb") as f:
                f.write(data)
            out.append({"path": shown, "name": os.path.basename(shown), "type": "file"})
        self.send_bytes(200, json.dumps(out).encode(), "application/json")
