#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A scripted fake Docker Engine API on a unix socket, for the docker
backend's tests against an engine that answers badly.

    hostile_engine.py SOCKET LOG MODE[+DELETE_FAULT]

It answers, as an engine would, every request the backend makes on the
one-shot `sbio run` path and on the create/exec path (ping, info, version,
create, inspect, attach, the two waits, start, delete, exec create, start
and inspect), on the files path (HEAD, GET and PUT of /containers/ID/archive;
a listing is an exec whose output the engine makes up), the pull
(POST /images/create) and Podman's /libpod inspect, and MODE makes exactly
one of those answers bad (MODES below; "good" makes none). Every request is appended to LOG as "METHOD PATH",
PATH without its /vX.Y prefix, before it is answered, so a test can check
what the backend asked for (a DELETE of a container it had made).

It keeps the containers it made as an engine does, and after every change
writes them to LOG.containers, one "ID NAME" a line, so a test can check
that none is left: a create that answered 201 made one, whatever the
answer's body said (create_not_json and the like); `?name=` names it
(checked as the Engine API checks a name: /?[a-zA-Z0-9][a-zA-Z0-9_.-]+,
400 when not, 409 when in use); DELETE /containers/{id-or-name} removes it
by its id, its name or a unique prefix of its id (404 for anything else);
with HostConfig.AutoRemove the command's end (its attach stream's end)
removes it. A DELETE_FAULT (delete_500, delete_drop) after a "+" makes
every DELETE of a container it holds fail that way, and AutoRemove fail
too (as autoremove_fails), on top of MODE (the fault that makes the
backend remove the container).

Python's standard library only. HTTP/1.1 by hand: keep-alive, chunked
answers, and the attach's "Connection: Upgrade" / "Upgrade: tcp" answered
with 101 UPGRADED and then docker's multiplexed stream (8-byte frame
headers: stream type, 3 zero bytes, big-endian length).
"""

import base64
import io
import json
import os
import re
import signal
import socket
import socketserver
import struct
import sys
import tarfile
import threading

CID = "c0ffee" + "0123456789abcdef" * 3 + "0123456789"  # 64 hex digits
EID = "e4ec" + "fedcba9876543210" * 3 + "fedcba987654"  # 64 hex digits
SECRET = "s3cr3t-value-123"  # the test plants SECRET_TOKEN=<this> in the create's env
# Podman 4.3's answer to an exec create or an inspect while it removes the
# container (OBSERVED).
PODMAN_REMOVING = {"cause": "no such container", "response": 500,
                   "message": "container %s does not exist in database: no such container" % CID}

MODES = {
    "good": "nothing is wrong (the control)",
    "create_not_json": "create answers 201 with a body that is not JSON",
    "create_no_id": "create answers 201 with JSON without an Id",
    "create_id_not_hex": "create answers 201 with an Id that is a path, not hex",
    "create_id_huge": "create answers 201 with an Id of 100000 hex digits",
    "create_id_empty": "create answers 201 with {\"Id\": \"\"}",
    "create_id_dotdot": "create answers 201 with {\"Id\": \"../x\"}",
    "create_id_short": "create answers 201 with the first 12 hex digits of the id",
    "create_echo_secret": "create answers 500 with the request's secret env value in its message",
    "create_drop": "create makes the container, then closes the connection without answering",
    "create_hangs": "create makes the container and never answers (the create's deadline comes)",
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
    # Podman 4.3's answers while a container dies (OBSERVED): the backend
    # must see that the container is gone, whatever the exec's answer said.
    "exec_create_removing": "exec create answers Podman's 500 'does not exist in database: no such container'; "
    "inspect then answers that 500 too",
    "exec_start_stopped": "the exec stream says runc 'cannot exec in a stopped container', exec inspect says "
    "ExitCode 125, Pid 0; the container is stopped",
    "exec_start_lost_removed": "exec start closes the connection without answering; inspect then answers 404",
    "exec_not_found_running": "the exec stream says runc 'executable file not found', exec inspect says ExitCode "
    "127, Pid 0; the container is still running (a command not found, not a death)",
    # ---- engine facts (/_ping, /version, /info, Podman's /libpod inspect)
    "ping_no_version": "/_ping has no Api-Version header",
    "ping_version_abc": "/_ping's Api-Version is 'abc'",
    "ping_version_old": "/_ping's Api-Version is 1.2",
    "ping_version_future": "/_ping's Api-Version is 99.99",
    "ping_version_long": "/_ping's Api-Version is 10 KiB of 'A'",
    "version_not_json": "/_ping says 1.45; /version answers 200 with a body that is not JSON",
    "version_min_huge": "/_ping says 1.45; /version's MinAPIVersion is 99.0",
    "version_min_long": "/_ping says 1.45; /version's MinAPIVersion is 10 KiB long",
    "info_not_json": "/info answers 200 with a body that is not JSON",
    "info_runtimes_not_object": "/info's Runtimes is a string (the test asks for runtime runsc)",
    "info_runtime_lies": "/info says the runtime 'runsc' the test asks for is /usr/bin/runc",
    "podman_lies": "inspect says runtime 'oci'; /libpod inspect says OCIRuntime 'crun' (runc was asked for)",
    "podman_runtime_huge": "inspect says runtime 'oci'; /libpod inspect's OCIRuntime is 10 KiB long",
    "podman_not_json": "inspect says runtime 'oci'; /libpod inspect answers 200 with a body that is not JSON",
    # ---- files: GET /archive (a read of /tmp/f.txt)
    "archive_good": "GET archive: one regular entry f.txt (the control)",
    "archive_entry_dotdot": "GET archive: the entry is named ../../etc/x",
    "archive_entry_absolute": "GET archive: the entry is named /etc/x",
    "archive_entry_other": "GET archive: the entry is named other.txt",
    "archive_symlink_out": "GET archive: f.txt is a symlink to ../../../../../outside; /outside is a file",
    "archive_symlink_loop": "GET archive: every path is a symlink to itself",
    "archive_two_entries": "GET archive: f.txt, then a second entry f.txt with other bytes",
    "archive_size_lies": "GET archive: the header says 1 MiB, 100 bytes follow, then the end",
    "archive_size_huge": "GET archive: the header says 4 TiB; 3 MiB follow, then the connection closes",
    "archive_size_huge_eof": "GET archive: the header says 4 TiB; 100 bytes follow, then the end",
    "archive_not_tar": "GET archive: 200 with an HTML body",
    "archive_empty": "GET archive: 200 with an empty body",
    "archive_put_404": "PUT archive: 404 for the directory (a write of /tmp/f.txt)",
    # ---- files: HEAD /archive (a listing of /tmp/d stats it first)
    "stat_good": "HEAD archive: a directory (the control for the listing)",
    "stat_not_base64": "HEAD archive: X-Docker-Container-Path-Stat is not base64",
    "stat_not_json": "HEAD archive: X-Docker-Container-Path-Stat is base64 of text that is not JSON",
    "stat_missing": "HEAD archive: 200 without X-Docker-Container-Path-Stat",
    "stat_size_negative": "HEAD archive: a directory of size -1",
    "stat_size_huge": "HEAD archive: a directory of size 1e300",
    "stat_mode_huge": "HEAD archive: mode 1e300",
    "stat_name_newline": "HEAD archive: a directory whose name has a newline",
    # ---- files: the listing's exec output
    "list_garbage": "the listing's output is a line of prose",
    "list_no_nul": "the listing's last record has no NUL terminator",
    "list_name_slash": "the listing has a record named ../../etc/passwd",
    "list_name_dotdot": "the listing has a record named ..",
    "list_name_empty": "the listing has a record with an empty name",
    "list_size_negative": "the listing has a record of size -5",
    "list_size_huge": "the listing has a record of size 99999999999999999999999",
    "list_type_other": "the listing has a record of type 'x'",
    # ---- pull (the test sets pull: always)
    "pull_good": "the pull streams progress and a final status (the control)",
    "pull_not_json": "the pull's lines are not JSON, then a final status",
    "pull_error_line": "the pull's stream ends with an errorDetail line carrying the secret",
    "pull_error_newline": "the pull's error message has newlines in it",
    "pull_error_no_newline": "the pull's stream ends with an error line and no newline after it",
    "pull_long_line": "the pull streams a 10 MiB line, then an error line",
    "pull_long_no_newline": "the pull streams a 10 MiB line with no newline, then ends",
    "pull_no_final_status": "the pull's stream ends after a Downloading line, no final status",
    "pull_cut": "the pull's chunked stream stops mid-line and the connection closes",
    "pull_progress_weird": "the pull's progress numbers are negative, huge, strings",
    # ---- removal
    "command_hangs": "the command never ends: its attach stream and waits stay silent (the deadline comes)",
    "autoremove_fails": "AutoRemove fails: the container stays, the removed wait answers an Error",
    # ---- DELETE faults, after a "+" (e.g. good+delete_500)
    "delete_500": "every DELETE of a container the engine holds answers 500 and removes nothing; AutoRemove fails",
    "delete_drop": "every DELETE of a container the engine holds: the connection closes, no answer; AutoRemove fails",
}
DELETE_FAULTS = ("delete_500", "delete_drop")
NAME_RE = re.compile(r"^/?[a-zA-Z0-9][a-zA-Z0-9_.-]+$")

OUTPUT = b"hello from the hostile engine\n"
FILE_BYTES = b"the right bytes of f.txt\n"
WRONG_BYTES = b"the bytes of another entry\n"
OUTSIDE_BYTES = b"the file /outside inside the sandbox\n"
LISTING = b"f 5 a.txt\0d 0 sub\0"
LISTINGS = {
    "list_garbage": b"this is not a listing at all\n",
    "list_no_nul": b"f 5 a.txt\0f 7 b.txt",
    "list_name_slash": b"f 5 a.txt\0f 5 ../../etc/passwd\0",
    "list_name_dotdot": b"f 5 a.txt\0d 0 ..\0",
    "list_name_empty": b"f 5 a.txt\0f 5 \0",
    "list_size_negative": b"f -5 a.txt\0",
    "list_size_huge": b"f 99999999999999999999999 a.txt\0",
    "list_type_other": b"x 5 a.txt\0",
}
DIR_MODE = (1 << 31) | 0o755


def tar_entry(name, data=b"", size=None, link=None):
    """One tar header (GNU: base-256 sizes) and its body, not padded."""
    info = tarfile.TarInfo(name)
    info.mtime = 0
    if link is not None:
        info.type = tarfile.SYMTYPE
        info.linkname = link
        return info.tobuf(tarfile.GNU_FORMAT)
    info.size = len(data) if size is None else size
    return info.tobuf(tarfile.GNU_FORMAT) + data


def pad(data):
    return data + b"\0" * (-len(data) % 512)


def tar_of(*entries):
    return b"".join(pad(e) for e in entries) + b"\0" * 1024


def stat_header(doc):
    text = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return base64.b64encode(text).decode()


class Engine:
    def __init__(self, log_path, mode, delete_fault=None):
        self.log_path = log_path
        self.mode = mode
        self.delete_fault = delete_fault
        self.containers = {}  # id -> {"name": ..., "auto_remove": bool}
        self.gone = threading.Event()  # a DELETE removed the container
        self.lock = threading.Lock()
        self.started = threading.Event()  # POST /containers/ID/start came
        self.exited = threading.Event()  # the attach stream ended: the command "exited"
        self.dying = threading.Event()  # an exec answered as Podman does while the container dies
        self.runtime = "runc"  # HostConfig.Runtime of the create, echoed by inspect
        self.exec_cmd = []  # the Cmd of the last exec create

    def save(self):
        """The containers it holds, to LOG.containers (under self.lock)."""
        with open(self.log_path + ".containers.tmp", "w") as f:
            for cid, c in self.containers.items():
                f.write("%s %s\n" % (cid, c["name"]))
        os.replace(self.log_path + ".containers.tmp", self.log_path + ".containers")

    def add(self, name, auto_remove):
        with self.lock:
            self.containers[CID] = {"name": name, "auto_remove": auto_remove}
            self.save()

    def find(self, key):
        """The id of the container `key` names: its id, its name, or a
        unique prefix of its id (as the engine resolves them)."""
        with self.lock:
            for cid, c in self.containers.items():
                if key == cid or key == c["name"]:
                    return cid
            hits = [cid for cid in self.containers if key and cid.startswith(key)]
            return hits[0] if len(hits) == 1 else None

    def remove(self, cid):
        with self.lock:
            self.containers.pop(cid, None)
            self.save()
        self.gone.set()

    def removal_fails(self):
        """The engine's own removal (AutoRemove) fails: autoremove_fails,
        and every DELETE fault (an engine that cannot remove a container
        cannot either way: a busy device, a broken storage driver)."""
        return self.mode == "autoremove_fails" or self.delete_fault is not None

    def exited_now(self):
        """The command ended: AutoRemove removes the container (unless the
        mode says that removal fails), then the waits may answer."""
        with self.lock:
            c = self.containers.get(CID)
            if c and c["auto_remove"] and not self.removal_fails():
                del self.containers[CID]
                self.save()
        self.exited.set()

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
            return self.ping()
        elif path == "/version":
            return self.version()
        elif path == "/info":
            return self.info()
        elif path == "/libpod/containers/%s/json" % CID and mode.startswith("podman_"):
            return self.libpod_inspect()
        elif path == "/containers/%s/archive" % CID:
            return self.archive(method, target, body)
        elif path == "/images/create" and method == "POST":
            return self.pull()
        elif path.startswith("/images/") and path.endswith("/json"):
            self.answer(200, {"Id": "sha256:" + "ab" * 32})
        elif path == "/containers/create" and method == "POST":
            return self.create(target, body)
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
        elif path.startswith("/containers/") and path.count("/") == 2 and method == "DELETE":
            return self.delete(path.split("/")[2])
        elif path == "/containers/%s/exec" % CID and method == "POST":
            try:
                ENGINE.exec_cmd = json.loads(body or b"{}").get("Cmd") or []
            except ValueError:
                ENGINE.exec_cmd = []
            if mode == "exec_create_no_id":
                self.answer(201, {"Warnings": None})
            elif mode == "exec_create_removing":
                ENGINE.dying.set()
                self.answer(500, PODMAN_REMOVING)
            else:
                self.answer(201, {"Id": EID})
        elif path == "/exec/%s/start" % EID and method == "POST":
            return self.exec_start(upgrade)
        elif path == "/exec/%s/json" % EID:
            code = "0" if mode == "exec_inspect_exit_string" else 0
            if mode in ("exec_start_stopped", "exec_not_found_running"):
                code = 125 if mode == "exec_start_stopped" else 127
                self.answer(200, {"ID": EID, "Running": False, "ExitCode": code, "Pid": 0})
            else:
                self.answer(200, {"ID": EID, "Running": False, "ExitCode": code, "Pid": 4242})
        else:
            self.answer(404, {"message": "page not found"})
        return None

    def ping(self):
        mode = ENGINE.mode
        version = {"ping_version_abc": "abc", "ping_version_old": "1.2", "ping_version_future": "99.99",
                   "ping_version_long": "A" * 10240}.get(mode, "1.45" if mode.startswith("version_") else "1.41")
        headers = [("Content-Type", "text/plain"), ("Content-Length", "2")]
        if mode != "ping_no_version":
            headers.append(("Api-Version", version))
        self.send_raw(self.head(200, "OK", headers) + b"OK")
        return None

    def version(self):
        mode = ENGINE.mode
        doc = {"ApiVersion": "1.45", "MinAPIVersion": "1.12", "Version": "26.0-hostile"}
        if mode == "version_not_json":
            self.answer(200, "<html>not json</html>", "text/html")
            return None
        if mode == "version_min_huge":
            doc["MinAPIVersion"] = "99.0"
        elif mode == "version_min_long":
            doc["MinAPIVersion"] = "1." + "9" * 10240
        self.answer(200, doc)
        return None

    def info(self):
        mode = ENGINE.mode
        doc = {"DefaultRuntime": "runc", "Runtimes": {"runc": {"path": "runc"}, "runsc": {"path": "/usr/bin/runsc"}}}
        if mode == "info_not_json":
            self.answer(200, "not json {", "text/plain")
            return None
        if mode == "info_runtimes_not_object":
            doc["Runtimes"] = "runsc"
        elif mode == "info_runtime_lies":
            doc["Runtimes"]["runsc"] = {"path": "/usr/bin/runc"}
        self.answer(200, doc)
        return None

    def libpod_inspect(self):
        mode = ENGINE.mode
        if mode == "podman_not_json":
            self.answer(200, "{{{ not json", "text/plain")
        elif mode == "podman_runtime_huge":
            self.answer(200, {"Id": CID, "OCIRuntime": "r" * 10240})
        else:
            self.answer(200, {"Id": CID, "OCIRuntime": "crun"})
        return None

    def archive(self, method, target, body):
        mode = ENGINE.mode
        want = target.split("path=", 1)[1].split("&")[0] if "path=" in target else ""
        want = re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), want)
        base = want.rstrip("/").split("/")[-1] or "/"
        if method == "HEAD":
            doc = {"name": base, "size": 4096, "mode": DIR_MODE, "mtime": "2020-01-01T00:00:00Z", "linkTarget": ""}
            stat = stat_header(doc)
            if mode == "stat_not_base64":
                stat = "!!!* not base64 at all *!!!"
            elif mode == "stat_not_json":
                stat = stat_header(b"this is not json")
            elif mode == "stat_size_negative":
                doc["size"] = -1
            elif mode == "stat_size_huge":
                doc["size"] = 1e300
            elif mode == "stat_mode_huge":
                doc["mode"] = 1e300
            elif mode == "stat_name_newline":
                doc["name"] = "d\nX-Injected: yes"
            if mode.startswith("stat_") and mode not in ("stat_not_base64", "stat_not_json"):
                stat = stat_header(doc)
            headers = [("Content-Type", "application/json"), ("Content-Length", "0")]
            if mode != "stat_missing":
                headers.append(("X-Docker-Container-Path-Stat", stat))
            self.send_raw(self.head(200, "OK", headers))
            return None
        if method == "PUT":
            if mode == "archive_put_404":
                self.answer(404, {"message": "Could not find the file /tmp in container " + CID})
            else:
                self.answer(200, "")
            return None
        # GET: a tar of `want`.
        if mode == "archive_not_tar":
            self.answer(200, "<html><body>not a tar</body></html>", "application/x-tar")
            return None
        if mode == "archive_empty":
            self.answer(200, "", "application/x-tar")
            return None
        if mode == "archive_size_huge":
            # Chunked, never ended: the connection closes after 3 MiB.
            self.send_raw(self.head(200, "OK", [("Content-Type", "application/x-tar"),
                                               ("Transfer-Encoding", "chunked")]))
            try:
                self.chunk(tar_entry(base, size=4 << 40))
                for _ in range(48):
                    self.chunk(b"A" * 65536)
            except OSError:
                pass
            self.close_now()
            return "close"
        if mode == "archive_entry_dotdot":
            tar = tar_of(tar_entry("../../etc/x", WRONG_BYTES))
        elif mode == "archive_entry_absolute":
            tar = tar_of(tar_entry("/etc/x", WRONG_BYTES))
        elif mode == "archive_entry_other":
            tar = tar_of(tar_entry("other.txt", WRONG_BYTES))
        elif mode == "archive_symlink_out" and base == "f.txt":
            tar = tar_of(tar_entry(base, link="../../../../../outside"))
        elif mode == "archive_symlink_out":
            tar = tar_of(tar_entry(base, OUTSIDE_BYTES))
        elif mode == "archive_symlink_loop":
            tar = tar_of(tar_entry(base, link=base))
        elif mode == "archive_two_entries":
            tar = tar_of(tar_entry(base, FILE_BYTES), tar_entry(base, WRONG_BYTES))
        elif mode == "archive_size_lies":
            tar = tar_entry(base, b"B" * 100, size=1 << 20)
        elif mode == "archive_size_huge_eof":
            tar = tar_entry(base, b"B" * 100, size=4 << 40)
        else:
            tar = tar_of(tar_entry(base, FILE_BYTES))
        self.answer(200, tar, "application/x-tar")
        return None

    def pull(self):
        mode = ENGINE.mode

        def line(doc):
            return (json.dumps(doc) if isinstance(doc, dict) else doc).encode() + b"\r\n"

        start = [line({"status": "Pulling from library/busybox", "id": "latest"}),
                 line({"status": "Pulling fs layer", "progressDetail": {}, "id": "aaaa"}),
                 line({"status": "Downloading", "progressDetail": {"current": 100, "total": 1000}, "id": "aaaa"})]
        end = [line({"status": "Download complete", "progressDetail": {}, "id": "aaaa"}),
               line({"status": "Pull complete", "progressDetail": {}, "id": "aaaa"}),
               line({"status": "Digest: sha256:" + "cd" * 32}),
               line({"status": "Status: Downloaded newer image for busybox:latest"})]
        error = {"errorDetail": {"message": "pull access denied: token SECRET_TOKEN=%s was refused" % SECRET},
                 "error": "pull access denied: token SECRET_TOKEN=%s was refused" % SECRET}
        if mode == "pull_not_json":
            parts = start + [b"this is not json\r\n", b"{\"status\": \r\n", b"[1, 2, 3]\r\n", b"null\r\n"] + end
        elif mode == "pull_error_line":
            parts = start + [line(error)]
        elif mode == "pull_error_newline":
            msg = "pull failed:\nline two\r\nline three"
            parts = start + [line({"errorDetail": {"message": msg}, "error": msg})]
        elif mode == "pull_error_no_newline":
            parts = start + [json.dumps(error).encode()]
        elif mode == "pull_long_line":
            parts = start + [b"x" * (10 << 20) + b"\r\n", line(error)]
        elif mode == "pull_long_no_newline":
            parts = start + [b"{\"status\": \"" + b"x" * (10 << 20)]
        elif mode == "pull_no_final_status":
            parts = start
        elif mode == "pull_progress_weird":
            weird = [{"current": -5, "total": 1000}, {"current": 1e300, "total": 1e308}, {"current": "12", "total": "abc"},
                     {"current": 2 ** 70, "total": -(2 ** 70)}, {"current": None, "total": []}, "not an object"]
            parts = start + [line({"status": "Downloading", "progressDetail": w, "id": "aaaa"}) for w in weird] + end
        else:
            parts = start + end
        self.send_raw(self.head(200, "OK", [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
        try:
            if mode == "pull_cut":
                self.chunk(b"".join(start))
                self.send_raw(b"400\r\n{\"status\": \"Downl")
                self.close_now()
                return "close"
            for part in parts:
                for i in range(0, len(part), 1 << 20):
                    self.chunk(part[i:i + (1 << 20)])
            self.chunk(b"")
        except OSError:
            return "close"
        return None

    def delete(self, key):
        key = re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), key)
        cid = ENGINE.find(key)
        if cid is None:
            self.answer(404, {"message": "No such container: " + key[:80]})
            return None
        if ENGINE.delete_fault == "delete_500":
            self.answer(500, {"message": "driver \"overlay2\" failed to remove root filesystem for %s: "
                                         "device or resource busy" % cid})
            return None
        if ENGINE.delete_fault == "delete_drop":
            self.close_now()
            return "close"
        ENGINE.remove(cid)
        self.answer(204)
        return None

    def create(self, target, body):
        mode = ENGINE.mode
        try:
            host = json.loads(body or b"{}").get("HostConfig") or {}
            ENGINE.runtime = host.get("Runtime") or "runc"
            auto_remove = host.get("AutoRemove") is True
        except (ValueError, AttributeError):
            ENGINE.runtime, auto_remove = "runc", False
        query = target.split("?", 1)[1] if "?" in target else ""
        name = ""
        for kv in query.split("&"):
            if kv.startswith("name="):
                name = re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), kv[5:])
        if name and not NAME_RE.match(name):
            self.answer(400, {"message": "Invalid container name (%s), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed"
                                         % name[:80]})
            return None
        name = name.lstrip("/")
        if name and ENGINE.find(name):
            self.answer(409, {"message": "Conflict. The container name \"/%s\" is already in use" % name[:80]})
            return None
        if mode != "create_echo_secret":  # a 201 made the container, whatever its body says
            ENGINE.add(name or "hostile_" + CID[:8], auto_remove)
        if mode == "create_drop":
            return "close"
        if mode == "create_hangs":
            self.rfile.read(1)  # until the client gives up and closes the connection
            return "close"
        if mode == "create_not_json":
            self.answer(201, "<html>this is not json</html>", "text/html")
        elif mode == "create_no_id":
            self.answer(201, {"Warnings": []})
        elif mode == "create_id_not_hex":
            self.answer(201, {"Id": "../../../../etc/passwd?x=1#", "Warnings": []})
        elif mode == "create_id_huge":
            self.answer(201, {"Id": "ab" * 50000, "Warnings": []})
        elif mode == "create_id_empty":
            self.answer(201, {"Id": "", "Warnings": []})
        elif mode == "create_id_dotdot":
            self.answer(201, {"Id": "../x", "Warnings": []})
        elif mode == "create_id_short":
            self.answer(201, {"Id": CID[:12], "Warnings": []})
        elif mode == "create_echo_secret":
            self.answer(500, {"message": "invalid environment SECRET_TOKEN=%s for container" % SECRET})
        else:
            self.answer(201, {"Id": CID, "Warnings": []})
        return None

    def inspect(self):
        mode = ENGINE.mode
        running = ENGINE.started.is_set() and not ENGINE.exited.is_set()
        if ENGINE.dying.is_set():
            if mode == "exec_create_removing":
                self.answer(500, PODMAN_REMOVING)
                return None
            if mode == "exec_start_lost_removed":
                self.answer(404, {"cause": "no such container", "response": 404,
                                  "message": "no container with name or ID \"%s\" found: no such container" % CID})
                return None
            running = False
        doc = {
            "Id": CID,
            "State": {"Status": "running" if running else "created", "Running": running, "ExitCode": 0},
            "HostConfig": {"Runtime": "oci" if mode.startswith("podman_") else ENGINE.runtime},
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
            if "sbio-ls" in ENGINE.exec_cmd:
                self.send_raw(frame(1, LISTINGS.get(ENGINE.mode, LISTING)))
            elif bad_type:
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
            ENGINE.exited_now()
            return "close"
        if not upgrade:
            self.answer(400, {"message": "attach needs Upgrade: tcp"})
            return "close"
        self.upgraded()
        ENGINE.started.wait(30)
        if mode == "command_hangs":
            # Silent until the container is removed (the backend removes
            # it by force past the deadline); then the waits end too.
            ENGINE.gone.wait(100)
            ENGINE.exited_now()
            self.close_now()
            return "close"
        self.stream(mode == "attach_bad_stream_type", mode == "attach_huge_frame")
        ENGINE.exited_now()
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
        if mode == "exec_start_lost_removed":
            ENGINE.dying.set()
            self.close_now()
            return "close"
        self.upgraded()
        if mode == "exec_start_stopped":
            ENGINE.dying.set()
            self.send_raw(frame(2, b"Error: runc: exec failed: cannot exec in a stopped container: OCI runtime error\n"))
        elif mode == "exec_not_found_running":
            self.send_raw(frame(2, b"Error: runc: exec failed: unable to start container process: exec: \"nope\": "
                                   b"executable file not found in $PATH: OCI runtime attempted to invoke a command "
                                   b"that was not found\n"))
        else:
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
        if mode == "command_hangs":
            return "close"  # the backend gave up on the waits
        if condition == "removed" and ENGINE.removal_fails():
            # What the engine says when a removal fails (SetRemovalError).
            doc["Error"] = {"Message": "driver \"overlay2\" failed to remove root filesystem: device or resource busy"}
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
    parts = sys.argv[3].split("+") if len(sys.argv) == 4 else []
    if not parts or any(p not in MODES for p in parts) or parts[0] in DELETE_FAULTS or len(parts) > 2 or (
            len(parts) == 2 and parts[1] not in DELETE_FAULTS):
        sys.stderr.write("usage: hostile_engine.py SOCKET LOG MODE[+delete_500|+delete_drop]\nmodes:\n")
        for k, v in MODES.items():
            sys.stderr.write("  %-28s %s\n" % (k, v))
        return 2
    sock, log = sys.argv[1:3]
    ENGINE = Engine(log, parts[0], parts[1] if len(parts) == 2 else None)
    open(log, "w").close()
    with ENGINE.lock:
        ENGINE.save()
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
