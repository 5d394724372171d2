# SPDX-License-Identifier: MIT
"""Fault injection, per organisation (per API key, so tests running in
parallel never see each other's faults).

A rule:
  {"match": "POST /sandbox",       # METHOD and a path glob; the API's paths
                                   # are relative to /api, the toolbox's are
                                   # prefixed "toolbox " ("toolbox POST /process/execute")
   "times": 1,                     # how many matching requests it hits (-1: all)
   "skip": 0,                      # let this many matching requests through first
   "delay": 0.0,                   # seconds to wait before answering ("slow")
   "status": 429,                  # answer with this status instead ...
   "retryAfter": "1",              # ... and this Retry-After header
   "body": "json",                 # "json" (the surface's error shape), "bare"
                                   # (a proxy's HTML page), "empty", or "drop"
                                   # (close the connection without an answer)
   "message": "...",
   "after": false,                 # true: carry the request out first, then
                                   # answer with the fault (the answer is lost,
                                   # the effect is not)
   "finalState": "error",          # POST /sandbox only: the sandbox ends in
   "errorReason": "...",           # this state ("error", "build_failed")
   # Content faults: the request is carried out, then its answer (well-formed
   # HTTP, status kept) has the wrong content:
   "replace": <any JSON>,          # ... this JSON instead of the real body
   "raw": "text",                  # ... or these bytes (as text/plain) ...
   "repeat": 1,                    # ... that many times over
   "set": {"field": <JSON>},       # ... or the real JSON object with these
   "drop": ["field"]}              # fields set and these removed ("{n}" in a
                                   # string value: the rule's hit count)
"""

import fnmatch
import json
import threading

from .httpio import HttpError

_lock = threading.Lock()
KNOWN = {
    "match", "times", "skip", "delay", "status", "retryAfter", "body", "message", "finalState", "errorReason", "after",
    "replace", "raw", "repeat", "set", "drop",
}  # fmt: skip


def validate(rules):
    if not isinstance(rules, list):
        raise ValueError("faults must be a list")
    for r in rules:
        if not isinstance(r, dict) or not isinstance(r.get("match"), str):
            raise ValueError("each fault needs a string 'match'")
        unknown = set(r) - KNOWN
        if unknown:
            raise ValueError("unknown fault keys: %s" % ", ".join(sorted(unknown)))
        if r.get("body", "json") not in ("json", "bare", "empty", "drop"):
            raise ValueError("fault body is json, bare, empty or drop")
        if r.get("finalState") not in (None, "error", "build_failed"):
            raise ValueError("finalState is error or build_failed")
    return [dict(r, _hits=0, _seen=0) for r in rules]


class Outcome:
    """What the matching rules ask for one request."""

    def __init__(self):
        self.delay = 0.0
        self.fail = None  # (status, body kind, message, headers)
        self.final_state = None
        self.error_reason = None
        self.after = False  # the failure is sent after the request was carried out
        self.content = None  # a content fault: the rule, applied to the answer


def take(org, surface, method, path):
    """Consumes the rules matching this request; returns an Outcome."""
    key = ("toolbox " if surface == "toolbox" else "") + method + " " + path
    out = Outcome()
    with _lock:
        for r in org.faults:
            if not fnmatch.fnmatchcase(key, r["match"]):
                continue
            r["_seen"] += 1
            if r["_seen"] <= r.get("skip", 0):
                continue
            times = r.get("times", 1)
            if times >= 0 and r["_hits"] >= times:
                continue
            r["_hits"] += 1
            out.delay += float(r.get("delay", 0))
            if "status" in r and out.fail is None:
                headers = {}
                if "retryAfter" in r:
                    headers["Retry-After"] = str(r["retryAfter"])
                out.fail = (int(r["status"]), r.get("body", "json"), r.get("message"), headers)
                out.after = bool(r.get("after"))
            elif r.get("body") == "drop" and out.fail is None:
                out.fail = (0, "drop", None, {})
                out.after = bool(r.get("after"))
            if out.content is None and any(k in r for k in ("replace", "raw", "set", "drop")):
                out.content = dict(r)
            if r.get("finalState"):
                out.final_state = r["finalState"]
                out.error_reason = r.get("errorReason", "the sandbox failed to start")
    return out


def rewrite(rule, status, body):
    """The answer a content fault makes of (status, JSON body): a JSON
    value, or bytes when the rule asks for raw ones."""
    if "raw" in rule:
        return str(rule["raw"]).encode() * int(rule.get("repeat", 1))
    if "replace" in rule:
        body = rule["replace"]
    if isinstance(body, dict) and ("set" in rule or "drop" in rule):
        body = dict(body)
        for k in rule.get("drop", []):
            body.pop(k, None)
        for k, v in rule.get("set", {}).items():
            body[k] = v.replace("{n}", str(rule["_hits"])) if isinstance(v, str) else v
    if int(rule.get("repeat", 1)) > 1:
        return json.dumps(body).encode() * int(rule["repeat"])
    return body


def raise_failure(fail):
    status, kind, message, headers = fail
    default = {429: "ThrottlerException: Too Many Requests"}.get(status, "injected failure")
    err = HttpError(status, message or default, headers=headers)
    err.body_kind = kind
    raise err
