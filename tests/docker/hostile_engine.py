#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A scripted fake Docker Engine API on a unix socket, for the docker
backend's tests against an engine that answers badly.

    hostile_engine.py SOCKET LOG MODE

It answers, as an engine would, every request the backend makes on the
one-shot `sbio run` path and on the create/exec path (ping, info, version,
create, inspect, attach, the two waits, start, delete, exec create, start
and inspect), and MODE makes exactly one of those answers bad (MODES below;
"good" makes none). Every request is appended to LOG as "METHOD PATH",
PATH without its /vX.Y prefix, before it is answered, so a test can check
what the backend asked for (a DELETE of a container it had made).

Python's standard library only. HTTP/1.1 by hand: keep-alive, chunked
answers, and the attach's "Connection: Upgrade" / "Upgrade: tcp" answered
with 101 UPGRADED and then docker's multiplexed stream (8-byte frame
headers: stream type, 3 zero bytes, big-endian length).
"""

import json
import os
import re
import signal
import socket
import socketserver
import struct
import sys
import threading

CID = "c0ffee" + "0123456789abcdef" * 3 + "0123456789"  # 64 hex digits
EID = "e4ec" + "fedcba9876543210" * 3 + "fedcba987654"  # 64 hex digits
SECRET = "s3cr3t-value-123"  # the test plants SECRET_TOKEN=<this> in the create's env

MODES = {
    "good": "nothing is wrong (the control)",
    "create_not_json": "create answers 201 with a body that is not JSON",
    "create_no_id": "create answers 201 with JSON without an Id",
    "create_id_not_hex": "create answers 201 with an Id that is a path, not hex",
    "create_id_huge": "create answers 201 with an Id of 100000 hex digits",
    "create_echo_secret": "create answers 500 with the request's secret env value in its message",
    "inspect_echo_secret": "inspect answers 500 with the secret env value in its message",
    "inspect_runtime_missing": "inspect has no HostConfig.Runtime",
    "inspect_runtime_not_string": "inspect has HostConfig.Runtime 42",
    "inspect_huge_body": "inspect answers a 64 MiB body",
    "inspect_huge_headers": "inspect answers with 1 MiB of headers",
    "inspect_cut": "inspect announces 1000 bytes, sends 10 and closes the connection",
    "wait_status_string": "the next-exit wait's StatusCode is a string",
    "wait_status_negative": "the next-exit wait's StatusCode is -1",
    "wait_status_huge": "the next-exit wait's StatusCode is 2^40",
    "wait_status_missing": "the next-exit wait has no StatusCode",
    "attach_200": "the attach answers 200 with a JSON body, not 101 and a stream",
    "attach_bad_stream_type": "the attach stream's first frame has stream type 7",
    "attach_huge_frame": "the attach stream's frame says 0xFFFFFFFF bytes, then the connection closes",
    "exec_create_no_id": "exec create answers 201 with JSON without an Id",
    "exec_start_200": "exec start answers 200 with a JSON body, not 101 and a stream",
    "exec_bad_stream_type": "the exec stream's first frame has stream type 7",
    "exec_huge_frame": "the exec stream's frame says 0xFFFFFFFF bytes, then the connection closes",
    "exec_inspect_exit_string": "exec inspect's ExitCode is a string",
}

OUTPUT = b"hello from the hostile engine\n"


class Engine:
    def __init__(self, log_path, mode):
        self.log_path = log_path
        self.mode = mode
        self.lock = threading.Lock()
        self.started = threading.Event()  # POST /containers/ID/start came
        self.exited = threading.Event()  # the attach stream ended: the command "exited"

    def log(self, method, path):
        line = "%s %s\n" % (method, re.sub(r"^/v[0-9]+\.[0-9]+", "", path))
        with self.lock:
            with open(self.log_path, "a") as f:
                f.write(line)


ENGINE = None


def frame(stream, data):
    return struct.pack(">BxxxL", stream, len(data)) + data


class Handler(socketserver.StreamRequestHandler):
    timeout = 120  # a test that died leaves no thread for ever

    # ------------------------------------------------------------ output
    def send_raw(self, data):
        self.wfile.write(data)
        self.wfile.flush()

    def head(self, status, reason, headers):
        lines = ["HTTP/1.1 %d %s" % (status, reason)]
        lines += ["%s: %s" % kv for kv in headers]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    def answer(self, status, body=b"", ctype="application/json", extra=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        reason = {200: "OK", 201: "Created", 204: "No Content", 404: "Not Found", 500: "Internal Server Error"}
        headers = [("Api-Version", "1.41"), ("Server", "Docker/hostile")]
        if status != 204:
            headers += [("Content-Type", ctype), ("Content-Length", str(len(body)))]
        headers += list(extra)
        self.send_raw(self.head(status, reason.get(status, "X"), headers) + (body if status != 204 else b""))

    def chunk(self, data):
        self.send_raw(b"%x\r\n%s\r\n" % (len(data), data))

    # ------------------------------------------------------------- input
    def read_request(self):
        line = self.rfile.readline(65537)
        if not line:
            return None
        parts = line.decode("latin-1").split()
        if len(parts) != 3:
            return None
        method, target, _ = parts
        headers = {}
        while True:
            h = self.rfile.readline(65537)
            if not h or h in (b"\r\n", b"\n"):
                break
            k, _, v = h.decode("latin-1").partition(":")
            headers[k.strip().lower()] = v.strip()
        body = b""
        if "content-length" in headers:
            body = self.rfile.read(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                data = self.rfile.read(size)
                self.rfile.readline()
                if size == 0:
                    break
                body += data
        return method, target, headers, body

    def handle(self):
        while True:
            req = self.read_request()
            if req is None:
                return
            method, target, headers, body = req
            path = target.split("?")[0]
            ENGINE.log(method, target)
            if self.route(method, re.sub(r"^/v[0-9]+\.[0-9]+", "", path), target, headers, body) == "close":
                return

    # ------------------------------------------------------------ routes
    def route(self, method, path, target, headers, body):
        mode = ENGINE.mode
        upgrade = headers.get("upgrade", "").lower() == "tcp"
        if path == "/_ping":
            self.answer(200, "OK", "text/plain")
        elif path == "/version":
            self.answer(200, {"ApiVersion": "1.41", "MinAPIVersion": "1.12", "Version": "20.10-hostile"})
        elif path == "/info":
            self.answer(200, {"DefaultRuntime": "runc", "Runtimes": {"runc": {"path": "runc"}}})
        elif path == "/containers/create" and method == "POST":
            return self.create()
        elif path == "/containers/%s/json" % CID:
            return self.inspect()
        elif path.startswith("/libpod/"):
            self.answer(404, {"message": "page not found"})
        elif path == "/containers/%s/attach" % CID and method == "POST":
            return self.attach(upgrade)
        elif path == "/containers/%s/wait" % CID and method == "POST":
            return self.wait("removed" if "condition=removed" in target else "next-exit")
        elif path == "/containers/%s/start" % CID and method == "POST":
            ENGINE.started.set()
            self.answer(204)
        elif path == "/containers/%s" % CID and method == "DELETE":
            self.answer(204)
        elif path == "/containers/%s/exec" % CID and method == "POST":
            if mode == "exec_create_no_id":
                self.answer(201, {"Warnings": None})
            else:
                self.answer(201, {"Id": EID})
        elif path == "/exec/%s/start" % EID and method == "POST":
            return self.exec_start(upgrade)
        elif path == "/exec/%s/json" % EID:
            code = "0" if mode == "exec_inspect_exit_string" else 0
            self.answer(200, {"ID": EID, "Running": False, "ExitCode": code, "Pid": 4242})
        elif path.startswith("/containers/") and method == "DELETE":
            self.answer(404, {"message": "No such container: " + path.split("/")[2][:80]})
        else:
            self.answer(404, {"message": "page not found"})
        return None

    def create(self):
        mode = ENGINE.mode
        if mode == "create_not_json":
            self.answer(201, "<html>this is not json</html>", "text/html")
        elif mode == "create_no_id":
            self.answer(201, {"Warnings": []})
        elif mode == "create_id_not_hex":
            self.answer(201, {"Id": "../../../../etc/passwd?x=1#", "Warnings": []})
        elif mode == "create_id_huge":
            self.answer(201, {"Id": "ab" * 50000, "Warnings": []})
        elif mode == "create_echo_secret":
            self.answer(500, {"message": "invalid environment SECRET_TOKEN=%s for container" % SECRET})
        else:
            self.answer(201, {"Id": CID, "Warnings": []})
        return None

    def inspect(self):
        mode = ENGINE.mode
        running = ENGINE.started.is_set() and not ENGINE.exited.is_set()
        doc = {
            "Id": CID,
            "State": {"Status": "running" if running else "created", "Running": running, "ExitCode": 0},
            "HostConfig": {"Runtime": "runc"},
            "Config": {"Labels": {"io.sandboxio.managed": "true"}},
        }
        if mode == "inspect_echo_secret":
            self.answer(500, {"message": "cannot inspect: env SECRET_TOKEN=%s is invalid" % SECRET})
        elif mode == "inspect_runtime_missing":
            del doc["HostConfig"]["Runtime"]
            self.answer(200, doc)
        elif mode == "inspect_runtime_not_string":
            doc["HostConfig"]["Runtime"] = 42
            self.answer(200, doc)
        elif mode == "inspect_huge_body":
            pad = b" " * (64 << 20)
            self.send_raw(self.head(200, "OK", [("Content-Type", "application/json"),
                                               ("Content-Length", str(len(pad) + 2))]))
            try:
                self.send_raw(b"{" + pad + b"}")
            except OSError:
                pass  # the client stopped reading: what it should do
            return "close"
        elif mode == "inspect_huge_headers":
            headers = [("X-Filler-%d" % i, "f" * 1000) for i in range(1024)]
            try:
                self.send_raw(self.head(200, "OK", headers + [("Content-Length", "2")]) + b"{}")
            except OSError:
                pass
            return "close"
        elif mode == "inspect_cut":
            self.send_raw(self.head(200, "OK", [("Content-Type", "application/json"), ("Content-Length", "1000")]))
            self.send_raw(b'{"Id": "c0')
            return "close"
        else:
            self.answer(200, doc)
        return None

    def upgraded(self):
        self.send_raw(self.head(101, "UPGRADED", [("Content-Type", "application/vnd.docker.raw-stream"),
                                                  ("Connection", "Upgrade"), ("Upgrade", "tcp")]))

    def stream(self, bad_type, huge):
        """The command's output in frames, then EOF; a bad frame when asked."""
        try:
            if bad_type:
                self.send_raw(frame(7, OUTPUT))
            elif huge:
                self.send_raw(struct.pack(">BxxxL", 1, 0xFFFFFFFF) + OUTPUT)
            else:
                self.send_raw(frame(1, OUTPUT) + frame(2, b"a line on stderr\n"))
        except OSError:
            pass

    def attach(self, upgrade):
        mode = ENGINE.mode
        if mode == "attach_200":
            self.answer(200, {"message": "attached, in a way"})
            ENGINE.started.wait(30)
            ENGINE.exited.set()
            return "close"
        if not upgrade:
            self.answer(400, {"message": "attach needs Upgrade: tcp"})
            return "close"
        self.upgraded()
        ENGINE.started.wait(30)
        self.stream(mode == "attach_bad_stream_type", mode == "attach_huge_frame")
        ENGINE.exited.set()
        self.close_now()
        return "close"

    def exec_start(self, upgrade):
        mode = ENGINE.mode
        if mode == "exec_start_200":
            self.answer(200, {"message": "started, in a way"})
            return "close"
        if not upgrade:
            self.answer(400, {"message": "exec start needs Upgrade: tcp"})
            return "close"
        self.upgraded()
        self.stream(mode == "exec_bad_stream_type", mode == "exec_huge_frame")
        self.close_now()
        return "close"

    def wait(self, condition):
        mode = ENGINE.mode
        # The head at once (the backend opens the wait before the start),
        # the body once the command ended.
        self.send_raw(self.head(200, "OK", [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
        ENGINE.started.wait(30)
        ENGINE.exited.wait(30)
        doc = {"StatusCode": 0, "Error": None}
        if condition == "next-exit":
            if mode == "wait_status_string":
                doc["StatusCode"] = "0"
            elif mode == "wait_status_negative":
                doc["StatusCode"] = -1
            elif mode == "wait_status_huge":
                doc["StatusCode"] = 2**40
            elif mode == "wait_status_missing":
                del doc["StatusCode"]
        try:
            self.chunk(json.dumps(doc).encode() + b"\n")
            self.chunk(b"")
        except OSError:
            return "close"
        return None

    def close_now(self):
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that hung up on a bad answer is what the modes provoke.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def main():
    global ENGINE
    if len(sys.argv) != 4 or sys.argv[3] not in MODES:
        sys.stderr.write("usage: hostile_engine.py SOCKET LOG MODE\nmodes:\n")
        for k, v in MODES.items():
            sys.stderr.write("  %-28s %s\n" % (k, v))
        return 2
    sock, log, mode = sys.argv[1:]
    ENGINE = Engine(log, mode)
    open(log, "w").close()
    if os.path.exists(sock):
        os.unlink(sock)
    server = Server(sock, Handler)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    # Ready: the socket exists and listens.
    server.serve_forever(poll_interval=0.05)
    server.server_close()
    os.unlink(sock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
