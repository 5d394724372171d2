# SPDX-License-Identifier: MIT
"""Connect protocol wire helpers: envelopes, error codes, proto3 JSON bits.

What envd speaks (connect-go with its default protojson codec):
- a server-streaming call answers HTTP 200 with a body of envelopes:
  1 flag byte (0x01 compressed, 0x02 end of stream) + 4-byte big-endian
  length + that many bytes of JSON;
- the last envelope has flag 0x02 and holds {} or {"error": {...}};
- a unary call answers a bare JSON message, or an error with an HTTP status
  derived from the Connect code and a body {"code": "...", "message": "..."}.
"""

import base64
import binascii
import json
import struct

FLAG_COMPRESSED = 0x01
FLAG_END_STREAM = 0x02

# Connect code -> HTTP status for unary errors (Connect protocol spec).
CODE_TO_HTTP = {
    "canceled": 499,
    "unknown": 500,
    "invalid_argument": 400,
    "deadline_exceeded": 504,
    "not_found": 404,
    "already_exists": 409,
    "permission_denied": 403,
    "resource_exhausted": 429,
    "failed_precondition": 400,
    "aborted": 409,
    "out_of_range": 400,
    "unimplemented": 501,
    "internal": 500,
    "unavailable": 503,
    "data_loss": 500,
    "unauthenticated": 401,
}


class ConnectError(Exception):
    """An error a handler returns; becomes an end-of-stream or unary error."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self):
        return {"code": self.code, "message": self.message}


def envelope(payload, flags=0):
    """One envelope around bytes or a JSON-serialisable object."""
    if not isinstance(payload, (bytes, bytearray)):
        payload = json.dumps(payload, separators=(",", ":")).encode()
    return struct.pack(">BI", flags, len(payload)) + bytes(payload)


def end_stream(error=None):
    body = {} if error is None else {"error": error.to_json()}
    return envelope(body, FLAG_END_STREAM)


def parse_single_envelope(body):
    """The request body of a streaming call: exactly one uncompressed
    envelope. Returns the decoded JSON object or raises ConnectError."""
    if len(body) < 5:
        raise ConnectError("invalid_argument", "protocol error: incomplete envelope: unexpected EOF")
    flags, length = struct.unpack(">BI", body[:5])
    if flags & FLAG_COMPRESSED:
        raise ConnectError("internal", "protocol error: sent compressed message without compression support")
    if flags != 0:
        raise ConnectError("invalid_argument", "protocol error: invalid envelope flags %d" % flags)
    if len(body) - 5 != length:
        raise ConnectError(
            "invalid_argument",
            "protocol error: promised %d bytes in enveloped message, got %d bytes" % (length, len(body) - 5),
        )
    return parse_json_message(body[5:])


def parse_json_message(data):
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ConnectError("invalid_argument", "unmarshal message: %s" % e)
    if not isinstance(obj, dict):
        raise ConnectError("invalid_argument", "unmarshal message: not a JSON object")
    return obj


def b64encode(data):
    """proto3 JSON bytes: standard base64 with padding."""
    return base64.b64encode(data).decode("ascii")


def b64decode(text, field):
    """proto3 JSON accepts standard or URL-safe base64, padded or not."""
    if not isinstance(text, str):
        raise ConnectError("invalid_argument", "unmarshal message: %s: invalid value for bytes field" % field)
    t = text.replace("-", "+").replace("_", "/")
    t += "=" * (-len(t) % 4)
    try:
        return base64.b64decode(t, validate=True)
    except (binascii.Error, ValueError):
        raise ConnectError("invalid_argument", "unmarshal message: %s: invalid base64" % field)


# ---------------------------------------------------------------- field checks
def opt(obj, key, typ, field, default=None):
    """A proto3 JSON field: absent -> default; wrong type -> invalid_argument.
    Field names are matched in lowerCamel and original snake_case, as
    protojson does."""
    if key in obj:
        value = obj[key]
    else:
        snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
        if snake not in obj:
            return default
        value = obj[snake]
    if value is None:
        return default
    if typ is int and isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)  # protojson accepts integers as strings too
    ok = isinstance(value, typ) and not (typ is int and isinstance(value, bool))
    if not ok:
        raise ConnectError("invalid_argument", "unmarshal message: %s: invalid value %r" % (field, value))
    return value


def string_map(obj, key, field):
    m = opt(obj, key, dict, field, {})
    for k, v in m.items():
        if not isinstance(v, str):
            raise ConnectError("invalid_argument", "unmarshal message: %s[%s]: invalid value" % (field, k))
    return m


def string_list(obj, key, field):
    lst = opt(obj, key, list, field, [])
    for i, v in enumerate(lst):
        if not isinstance(v, str):
            raise ConnectError("invalid_argument", "unmarshal message: %s[%d]: invalid value" % (field, i))
    return lst
