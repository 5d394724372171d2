# SPDX-License-Identifier: MIT
"""The toolbox API (the daemon inside each sandbox), reached as the proxy
serves it: {toolboxProxyUrl}/{sandboxId}/{endpoint}, with the caller's
Bearer key checked against the sandbox. Behaviour follows the v0.190 daemon
(apps/daemon/pkg/toolbox/...): process/execute answers 200 whatever the
exit code, 408 on its timeout; files/upload saves the multipart field
"file" (creating parent directories); bulk-download answers multipart parts
named "file" and "error"."""

import json
import os
import shutil

from . import procs, validate
from .fsmap import contained, file_info, resolve
from .httpio import HttpError, build_multipart, toolbox_error_body
from .store import HOME


class Raw:
    """A non-JSON answer."""

    def __init__(self, status, content_type, body, headers=None):
        self.status = status
        self.content_type = content_type
        self.body = body
        self.headers = headers or {}


class Toolbox:
    def route(self, sb, method, path, query, read_body, read_json, read_multipart):
        state = sb.state()
        if state != "started":
            # The proxy cannot reach a daemon that is not running.
            raise HttpError(409, "sandbox %s is not started (state: %s)" % (sb.id, state))
        key = (method, path)
        if key == ("POST", "/process/execute"):
            return self.execute(sb, read_json())
        if key == ("GET", "/work-dir") or key == ("GET", "/user-home-dir"):
            return 200, {"dir": HOME}
        if key == ("GET", "/version"):
            return 200, {"version": "0.190.0"}
        if key == ("POST", "/files/upload"):
            return self.upload(sb, validate.one_param(query, "path"), read_multipart())
        if key == ("POST", "/files/bulk-upload"):
            return self.bulk_upload(sb, read_multipart())
        if key == ("GET", "/files/download"):
            return self.download(sb, validate.one_param(query, "path"))
        if key == ("POST", "/files/bulk-download"):
            return self.bulk_download(sb, validate.download_request(read_json()))
        if key == ("GET", "/files"):
            return self.list(sb, validate.one_param(query, "path", required=False))
        if key == ("DELETE", "/files"):
            return self.delete(sb, validate.one_param(query, "path"), validate.bool_param(query, "recursive"))
        if key == ("POST", "/files/folder"):
            return self.mkdir(sb, validate.one_param(query, "path"), validate.one_param(query, "mode"))
        if key == ("GET", "/files/info"):
            return self.info(sb, validate.one_param(query, "path"))
        raise HttpError(404, "no toolbox route %s %s" % (method, path))

    # ------------------------------------------------------------ process
    def execute(self, sb, body):
        validate.execute_request(body)
        r = procs.run(sb, body["command"], body.get("cwd"), body.get("envs"), body.get("timeout", 0))
        if r.timed_out:
            raise HttpError(408, "request timeout: command execution timeout", code="REQUEST_TIMEOUT")
        if r.killed:
            # The sandbox went away under the command: the proxy loses its
            # upstream and answers as a gateway does.
            raise HttpError(502, "sandbox is gone", code="BAD_GATEWAY")
        return 200, {"exitCode": r.exit_code, "result": r.output}

    # -------------------------------------------------------------- files
    def _path(self, sb, path):
        vpath, host = resolve(sb, path)
        if not contained(sb, host):
            raise HttpError(403, "permission denied: %s" % vpath)
        return vpath, host

    def _save(self, sb, path, data):
        vpath, host = self._path(sb, path)
        if os.path.isdir(host):
            raise HttpError(400, "open %s: is a directory" % vpath)
        os.makedirs(os.path.dirname(host), mode=0o750, exist_ok=True)
        with open(host, "wb") as f:
            f.write(data)
        return vpath

    def upload(self, sb, path, parts):
        files = [p for p in parts if p.name == "file"]
        if len(files) != 1:
            raise HttpError(400, "http: no such file", code="BAD_REQUEST")
        if files[0].filename is None:  # Go's FormFile only takes file parts
            raise HttpError(400, "http: no such file", code="BAD_REQUEST")
        self._save(sb, path, files[0].data)
        return 200, {}

    def bulk_upload(self, sb, parts):
        paths, done = {}, []
        for p in parts:
            head, _, field = p.name.rpartition(".")
            if not head.startswith("files[") or field not in ("path", "file"):
                raise HttpError(400, "unexpected multipart field %r" % p.name, code="BAD_REQUEST")
            if field == "path":
                paths[head] = p.data.decode("utf-8")
            elif head not in paths:
                raise HttpError(400, "%s.file arrived before %s.path" % (head, head), code="BAD_REQUEST")
            else:
                vpath = self._save(sb, paths[head], p.data)
                done.append({"path": vpath, "bytes": len(p.data)})
        return 200, {"files": done}

    def _read(self, sb, path):
        vpath, host = self._path(sb, path)
        if not os.path.lexists(host):
            raise HttpError(404, "file not found: %s" % vpath)
        if os.path.isdir(host):
            raise HttpError(400, "path is a directory: %s" % vpath)
        with open(host, "rb") as f:
            return vpath, f.read()

    def download(self, sb, path):
        vpath, data = self._read(sb, path)
        name = os.path.basename(vpath)
        return Raw(
            200, "application/octet-stream", data, {"Content-Disposition": 'attachment; filename="%s"' % name}
        )

    def bulk_download(self, sb, paths):
        parts = []
        for p in paths:
            try:
                _, data = self._read(sb, p)
                parts.append(("file", p, "application/octet-stream", data))
            except HttpError as e:
                body = toolbox_error_body(e.status, e.message, "/files/bulk-download", "POST")
                parts.append(("error", p, "application/json", json.dumps(body).encode()))
        ctype, body = build_multipart(parts)
        return Raw(200, ctype, body)

    def list(self, sb, path):
        vpath, host = self._path(sb, path)
        if not os.path.lexists(host):
            raise HttpError(404, "directory not found: %s" % vpath)
        if not os.path.isdir(host):
            raise HttpError(400, "not a directory: %s" % vpath)
        names = sorted(os.listdir(host))
        return 200, [file_info(n, os.path.join(host, n)) for n in names]

    def info(self, sb, path):
        vpath, host = self._path(sb, path)
        if not os.path.lexists(host):
            raise HttpError(404, "file not found: %s" % vpath)
        return 200, file_info(os.path.basename(vpath) or "/", host)

    def delete(self, sb, path, recursive):
        vpath, host = self._path(sb, path)
        if not os.path.lexists(host):
            raise HttpError(404, "file not found: %s" % vpath)
        if os.path.isdir(host) and not os.path.islink(host):
            if vpath == "/":
                raise HttpError(403, "refusing to delete /")
            if not recursive:
                raise HttpError(400, "cannot delete directory without recursive flag")
            shutil.rmtree(host)
        else:
            os.remove(host)
        return 204, None

    def mkdir(self, sb, path, mode):
        try:
            perm = int(mode, 8)
        except ValueError:
            raise HttpError(400, "invalid mode %r" % mode, code="BAD_REQUEST")
        vpath, host = self._path(sb, path)
        if os.path.lexists(host) and not os.path.isdir(host):
            raise HttpError(400, "mkdir %s: not a directory" % vpath)
        os.makedirs(host, mode=perm, exist_ok=True)  # os.MkdirAll
        return 201, None
