# SPDX-License-Identifier: MIT
"""HTTP/1.1 plumbing shared by the control-plane and envd servers: request
bodies (Content-Length or chunked), JSON answers, a chunked writer that can
be cut anywhere (for fault injection), and the request log."""

import base64
import json
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

MAX_BODY = 64 * 1024 * 1024


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, handler, emu, kind):
        self.emu = emu
        self.kind = kind  # "api" or "envd"
        super().__init__(addr, handler)

    def handle_error(self, request, client_address):
        # A client that drops its connection (a cancelled exec, a reset
        # injected on purpose) is normal here; anything else is reported.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def patched(rule, obj, status, headers):
    """The answer a `patch` fault makes of the real one (faults.py)."""

    def one(o):
        if isinstance(o, dict):
            o = dict(o)
            for k in rule.get("drop", []):
                o.pop(k, None)
            o.update(rule.get("set", {}))
        return o

    obj = [one(o) for o in obj] if isinstance(obj, list) else one(obj)
    headers = dict(headers or {})
    headers.update(rule.get("headers", {}))
    if "next_token" in rule:
        # A token /v2/sandboxes accepts (pointing at no sandbox); "{n}" in
        # it becomes a number of this hit's own (the count left).
        cursor = "0__" + str(rule["next_token"]).replace("{n}", str(rule.get("times", 0)))
        headers["X-Next-Token"] = base64.urlsafe_b64encode(cursor.encode()).decode()
    return obj, int(rule.get("status", status)), headers


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "e2b-emulator"
    sys_version = ""

    def log_message(self, fmt, *args):  # quiet: the request log is in memory
        pass

    @property
    def emu(self):
        return self.server.emu

    def parse_target(self):
        # One handler object serves every request of a keep-alive
        # connection: per-request state starts here.
        self._body = None
        self.fault = None
        parts = urlsplit(self.path)
        self.url_path = parts.path
        self.raw_query = parts.query
        self.query = parse_qs(parts.query, keep_blank_values=True)

    def q1(self, name):
        """A query parameter's first value; None when absent."""
        values = self.query.get(name)
        return values[0] if values else None

    def read_body(self):
        if getattr(self, "_body", None) is not None:
            return self._body
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            chunks = []
            total = 0
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                total += size
                if total > MAX_BODY:
                    raise ValueError("body too large")
                chunks.append(self.rfile.read(size))
                self.rfile.readline(1024)
            self._body = b"".join(chunks)
        else:
            n = int(self.headers.get("Content-Length") or 0)
            if n > MAX_BODY:
                raise ValueError("body too large")
            self._body = self.rfile.read(n) if n > 0 else b""
        return self._body

    def send_bytes(self, status, body, content_type="application/json", headers=None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.emu.log_response(self, status)

    def send_json(self, status, obj, headers=None):
        rule = self.fault if getattr(self, "fault", None) and self.fault.get("action") == "patch" else None
        if rule is not None:
            self.fault = None  # once: an answer sent on the way is not patched twice
            obj, status, headers = patched(rule, obj, status, headers)
        self.send_bytes(status, json.dumps(obj, separators=(",", ":")).encode(), "application/json", headers)

    def send_empty(self, status, headers=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.emu.log_response(self, status)

    # --------------------------------------------------------- streaming
    def start_chunked(self, status, content_type, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        self.emu.log_response(self, status)

    def write_chunk(self, data):
        if not data:
            return
        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
        self.wfile.flush()

    def end_chunked(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def cut_connection(self):
        """Drops the connection mid-body: the client sees a transfer that
        ended before its terminating chunk."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
