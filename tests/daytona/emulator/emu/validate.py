# SPDX-License-Identifier: MIT
"""Request validation against the published schemas.

The real API validates with class-validator and silently drops unknown
properties; the emulator is stricter on purpose and refuses them too, so a
typo in a client's field name fails a test instead of being ignored. The
messages follow class-validator's wording ("cpu must be an integer number")."""

import ipaddress
import json
import re

from .httpio import HttpError

SANDBOX_STATES = [
    "creating", "restoring", "destroyed", "destroying", "started", "stopped", "starting", "stopping", "error",
    "build_failed", "pending_build", "building_snapshot", "unknown", "pulling_snapshot", "archived", "archiving",
    "resizing", "snapshotting", "forking", "pausing", "paused", "resuming",
]  # fmt: skip
SANDBOX_CLASSES = ["linux-vm", "container", "android", "windows"]
GPU_TYPES = ["H100", "H200", "A100", "L40S", "RTX-PRO-6000"]
MAX_CIDRS = 5  # docs/en/network-limits: "accepts up to 5 CIDR network blocks"
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _string_map(v):
    return isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str) for k, x in v.items())


def _check(errors, ok, message):
    if not ok:
        errors.append(message)


def create_sandbox(body):
    """Schema CreateSandbox (all optional); raises a 400 listing every
    problem."""
    if not isinstance(body, dict):
        raise HttpError(400, "request body must be a JSON object")
    errors = []
    strings = ["name", "snapshot", "user", "networkAllowList", "domainAllowList", "target", "linkedSandbox"]
    ints = ["cpu", "gpu", "memory", "disk", "autoStopInterval", "autoArchiveInterval", "autoDeleteInterval"]
    bools = ["public", "networkBlockAll"]
    known = set(strings + ints + bools + ["env", "labels", "gpuType", "volumes", "buildInfo"])
    for k in body:
        _check(errors, k in known, "property %s should not exist" % k)
    for k in strings:
        if k in body:
            _check(errors, isinstance(body[k], str), "%s must be a string" % k)
    for k in ints:
        if k in body:
            _check(errors, _is_int(body[k]), "%s must be an integer number" % k)
    for k in bools:
        if k in body:
            _check(errors, isinstance(body[k], bool), "%s must be a boolean value" % k)
    for k in ("env", "labels"):
        if k in body:
            _check(errors, _string_map(body[k]), "%s must be an object of string values" % k)
    if "gpuType" in body:
        g = body["gpuType"]
        _check(errors, isinstance(g, list) and all(x in GPU_TYPES for x in g), "each value in gpuType must be a GpuType")
    if "volumes" in body:
        v = body["volumes"]
        ok = isinstance(v, list) and all(
            isinstance(x, dict) and isinstance(x.get("volumeId"), str) and isinstance(x.get("mountPath"), str) for x in v
        )
        _check(errors, ok, "volumes must be an array of {volumeId, mountPath, subpath}")
    if "buildInfo" in body:
        b = body["buildInfo"]
        _check(
            errors,
            isinstance(b, dict) and isinstance(b.get("dockerfileContent"), str),
            "buildInfo.dockerfileContent must be a string",
        )
    if isinstance(body.get("autoStopInterval"), int) and body["autoStopInterval"] < 0:
        errors.append("autoStopInterval must not be less than 0")
    if isinstance(body.get("networkAllowList"), str):
        _check_cidrs(errors, body["networkAllowList"])
    if isinstance(body.get("domainAllowList"), str):
        for d in body["domainAllowList"].split(","):
            ok = re.fullmatch(r"(\*\.)?([A-Za-z0-9-]+\.)+[A-Za-z0-9-]+", d.strip()) is not None
            _check(errors, ok, "domainAllowList entry %r is not a domain" % d)
    if errors:
        raise HttpError(400, errors)


def _check_cidrs(errors, text):
    items = [x.strip() for x in text.split(",")]
    if len(items) > MAX_CIDRS:
        errors.append("networkAllowList accepts at most %d CIDR blocks (got %d)" % (MAX_CIDRS, len(items)))
    for item in items:
        try:
            net = ipaddress.ip_network(item, strict=False)
            ok = net.version == 4 and "/" in item
        except ValueError:
            ok = False
        _check(errors, ok, "networkAllowList entry %r is not an IPv4 CIDR block" % item)


LIST_QUERY = {
    "cursor": "string",
    "limit": "number",
    "id": "string",
    "name": "string",
    "labels": "json",
    "includeErroredDeleted": "bool",
    "states": "states",
    "snapshots": "array",
    "regionIds": "array",
    "sandboxClasses": "classes",
    "minCpu": "number", "maxCpu": "number", "minMemoryGiB": "number", "maxMemoryGiB": "number",
    "minDiskGiB": "number", "maxDiskGiB": "number",
    "isPublic": "bool", "isRecoverable": "bool",
    "createdAtAfter": "string", "createdAtBefore": "string", "lastEventAfter": "string", "lastEventBefore": "string",
    "sort": "string", "order": "string",
    "verbose": "bool",  # the older plain-array list took it
}  # fmt: skip


def list_query(query):
    """GET /sandbox query (parse_qs output: name -> [values]); returns a
    dict of the parsed values."""
    errors, out = [], {}
    for k, values in query.items():
        kind = LIST_QUERY.get(k)
        if kind is None:
            errors.append("property %s should not exist" % k)
            continue
        if kind not in ("states", "array", "classes") and len(values) != 1:
            errors.append("%s must be given once" % k)
            continue
        v = values[0]
        if kind == "number":
            try:
                out[k] = float(v)
            except ValueError:
                errors.append("%s must be a number" % k)
        elif kind == "bool":
            if v not in ("true", "false"):
                errors.append("%s must be a boolean value" % k)
            out[k] = v == "true"
        elif kind == "json":
            try:
                labels = json.loads(v)
            except ValueError:
                labels = None
            if not _string_map(labels):
                errors.append("labels must be a JSON object of string values")
            out[k] = labels
        elif kind == "states":
            vals = [s for x in values for s in x.split(",")]
            for s in vals:
                _check(errors, s in SANDBOX_STATES, "each value in states must be one of the following values: ...")
            out[k] = vals
        elif kind == "classes":
            vals = [s for x in values for s in x.split(",")]
            for s in vals:
                _check(errors, s in SANDBOX_CLASSES, "each value in sandboxClasses must be a SandboxClass")
            out[k] = vals
        elif kind == "array":
            out[k] = [s for x in values for s in x.split(",")]
        else:
            out[k] = v
    if "limit" in out and not (1 <= out["limit"] <= 200 and out["limit"] == int(out["limit"])):
        errors.append("limit must not be greater than 200 or less than 1")
    if errors:
        raise HttpError(400, errors)
    return out


def execute_request(body):
    """Toolbox ExecuteRequest: command (required, not blank), cwd, envs,
    timeout (uint32 seconds)."""
    if not isinstance(body, dict):
        raise HttpError(400, "invalid request body", code="INVALID_REQUEST_BODY")
    unknown = sorted(set(body) - {"command", "cwd", "envs", "timeout"})
    if unknown:
        raise HttpError(400, "unknown field(s): %s" % ", ".join(unknown), code="INVALID_REQUEST_BODY")
    cmd = body.get("command")
    if not isinstance(cmd, str) or not cmd.strip():
        raise HttpError(400, "command is required", code="INVALID_REQUEST_BODY")
    if "cwd" in body and not isinstance(body["cwd"], str):
        raise HttpError(400, "cwd must be a string", code="INVALID_REQUEST_BODY")
    if "envs" in body:
        envs = body["envs"]
        if not _string_map(envs):
            raise HttpError(400, "envs must be an object of strings", code="INVALID_REQUEST_BODY")
        for k in envs:
            if not ENV_NAME.match(k):
                raise HttpError(400, "invalid environment variable name %r" % k, code="INVALID_REQUEST_BODY")
    if "timeout" in body:
        t = body["timeout"]
        if not _is_int(t) or t < 0 or t > 0xFFFFFFFF:
            raise HttpError(400, "timeout must be an unsigned 32-bit integer", code="INVALID_REQUEST_BODY")


def download_request(body):
    if not isinstance(body, dict) or set(body) != {"paths"}:
        raise HttpError(400, "body must be {\"paths\": [...]}", code="INVALID_REQUEST_BODY")
    paths = body["paths"]
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
        raise HttpError(400, "paths must be a non-empty array of strings", code="INVALID_REQUEST_BODY")
    return paths


def bool_param(query, name):
    values = query.get(name)
    if not values:
        return False
    if len(values) != 1 or values[0] not in ("true", "false"):
        raise HttpError(400, "%s must be true or false" % name, code="BAD_REQUEST")
    return values[0] == "true"


def one_param(query, name, required=True):
    values = query.get(name)
    if not values or values[0] == "":
        if required:
            raise HttpError(400, "%s is required" % name, code="BAD_REQUEST")
        return None
    if len(values) != 1:
        raise HttpError(400, "%s must be given once" % name, code="BAD_REQUEST")
    return values[0]
