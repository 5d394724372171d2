# SPDX-License-Identifier: MIT
"""HTTP plumbing: request bodies (sized or chunked), multipart in and out,
and the two error-body shapes Daytona uses (the NestJS API's and the Go
toolbox daemon's)."""

import datetime
import http
import json
import os

MAX_BODY = 64 * 1024 * 1024


class HttpError(Exception):
    """An error answer: status, message and, for the toolbox, a code."""

    def __init__(self, status, message, code=None, headers=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}


def now_iso():
    """RFC 3339 UTC with milliseconds, as JavaScript's toISOString()."""
    t = datetime.datetime.now(datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def phrase(status):
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def api_error_body(status, message, path):
    """apps/api/src/filters/all-exceptions.filter.ts: path, timestamp,
    statusCode, error (the status text) and message."""
    if isinstance(message, list):
        message = ", ".join(message)
    return {"path": path, "timestamp": now_iso(), "statusCode": status, "error": phrase(status), "message": message}


TOOLBOX_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    408: "REQUEST_TIMEOUT",
    409: "CONFLICT",
    429: "TOO_MANY_REQUESTS",
    500: "INTERNAL_SERVER_ERROR",
    502: "BAD_GATEWAY",
    503: "SERVICE_UNAVAILABLE",
}


def toolbox_error_body(status, message, path, method, code=None):
    """libs/common-go/pkg/errors/http.go ErrorResponse."""
    return {
        "statusCode": status,
        "message": message,
        "code": code or TOOLBOX_CODES.get(status, "INTERNAL_SERVER_ERROR"),
        "timestamp": now_iso(),
        "path": path,
        "method": method,
    }


def read_body(handler):
    """The request body: Content-Length or chunked transfer coding (the
    TypeScript SDK streams uploads chunked). Malformed framing is a 400."""
    te = handler.headers.get("Transfer-Encoding", "")
    if te:
        if te.strip().lower() != "chunked":
            raise HttpError(400, "unsupported Transfer-Encoding %r" % te)
        return _read_chunked(handler.rfile)
    length = handler.headers.get("Content-Length")
    if length is None:
        return b""
    try:
        n = int(length)
    except ValueError:
        raise HttpError(400, "Content-Length %r is not a number" % length)
    if n < 0 or n > MAX_BODY:
        raise HttpError(413, "request body of %d bytes is too large" % n)
    data = handler.rfile.read(n)
    if len(data) != n:
        raise HttpError(400, "request body ended after %d of %d bytes" % (len(data), n))
    return data


def _read_chunked(rfile):
    out = bytearray()
    while True:
        line = rfile.readline(1024)
        if not line.endswith(b"\n"):
            raise HttpError(400, "malformed chunk header")
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise HttpError(400, "malformed chunk size %r" % size_text[:20])
        if size == 0:
            while True:  # trailers, up to the empty line
                trailer = rfile.readline(1024)
                if trailer in (b"\r\n", b"\n", b""):
                    return bytes(out)
        if len(out) + size > MAX_BODY:
            raise HttpError(413, "request body is too large")
        chunk = rfile.read(size)
        if len(chunk) != size or rfile.readline(8) not in (b"\r\n", b"\n"):
            raise HttpError(400, "truncated chunk")
        out += chunk


def parse_json_body(handler, body):
    ctype = handler.headers.get("Content-Type", "")
    if not ctype.lower().startswith("application/json"):
        raise HttpError(400, "Content-Type must be application/json (got %r)" % ctype)
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise HttpError(400, "request body is not valid JSON: %s" % e)


def _header_params(value):
    """'form-data; name="a"; filename="b"' -> ('form-data', {'name': 'a', ...})."""
    parts = value.split(";")
    params = {}
    for p in parts[1:]:
        if "=" not in p:
            continue
        k, v = p.split("=", 1)
        v = v.strip()
        if len(v) >= 2 and v[0] == v[-1] == '"':
            v = v[1:-1].replace('\\"', '"')
        params[k.strip().lower()] = v
    return parts[0].strip().lower(), params


class Part:
    def __init__(self, name, filename, content_type, data):
        self.name = name
        self.filename = filename
        self.content_type = content_type
        self.data = data


def parse_multipart(handler, body):
    """multipart/form-data parts in order; malformed input is a 400."""
    kind, params = _header_params(handler.headers.get("Content-Type", ""))
    if kind != "multipart/form-data" or not params.get("boundary"):
        raise HttpError(400, "request Content-Type isn't multipart/form-data")
    delim = b"--" + params["boundary"].encode("latin-1")
    if not body.startswith(delim):
        raise HttpError(400, "multipart body does not start with its boundary")
    parts = []
    pos = len(delim)
    while True:
        if body[pos : pos + 2] == b"--":
            return parts
        if body[pos : pos + 2] != b"\r\n":
            raise HttpError(400, "malformed multipart boundary line")
        pos += 2
        head_end = body.find(b"\r\n\r\n", pos)
        if head_end < 0:
            raise HttpError(400, "multipart part without a header end")
        headers = {}
        for line in body[pos:head_end].split(b"\r\n"):
            if b":" not in line:
                raise HttpError(400, "malformed multipart header line")
            k, v = line.split(b":", 1)
            headers[k.strip().lower().decode("latin-1")] = v.strip().decode("utf-8", "replace")
        end = body.find(b"\r\n" + delim, head_end + 4)
        if end < 0:
            raise HttpError(400, "multipart body has no closing boundary")
        disp, dparams = _header_params(headers.get("content-disposition", ""))
        if disp != "form-data" or "name" not in dparams:
            raise HttpError(400, "multipart part without a form-data name")
        parts.append(
            Part(dparams["name"], dparams.get("filename"), headers.get("content-type"), body[head_end + 4 : end])
        )
        pos = end + 2 + len(delim)


def build_multipart(parts):
    """(name, filename, content_type, data) tuples -> (content_type, body),
    the shape Go's mime/multipart writer produces for bulk-download."""
    boundary = os.urandom(16).hex()
    out = bytearray()
    for name, filename, ctype, data in parts:
        out += b"--" + boundary.encode() + b"\r\n"
        out += ('Content-Disposition: form-data; name="%s"; filename="%s"\r\n' % (name, filename.replace('"', '\\"'))).encode()
        out += ("Content-Type: %s\r\n\r\n" % ctype).encode()
        out += data + b"\r\n"
    out += b"--" + boundary.encode() + b"--\r\n"
    return "multipart/form-data; boundary=" + boundary, bytes(out)
