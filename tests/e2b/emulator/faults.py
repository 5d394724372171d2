# SPDX-License-Identifier: MIT
"""Fault injection rules, set through the admin endpoint.

A rule: {"server": "api"|"envd"|"any", "method": "POST", "path": "<regex>",
"times": N, "action": ..., ...}. The first live rule whose server, method
and path (without the query) match is used and its `times` counted down.

Actions:
  status    answer `status` with an E2B error body (`message`), plus a
            Retry-After header when `retry_after` is given (sent as it is:
            delay-seconds) or `retry_after_in` (an HTTP date that many
            seconds ahead)
  delay     sleep `delay_ms`, then answer normally
  reset     close the connection without answering
  cut       (Process/Start) after `after_events` data envelopes, send half
            of the next one and drop the connection
  split     (Process/Start) write the stream one byte per chunk
  coalesce  (Process/Start) hold every envelope and send them in one write
  vanish    (Process/Start) after `after_events` data envelopes the sandbox
            is reclaimed by the provider and the connection dropped
  end_error (Process/Start) end the stream with the Connect error
            `code`/`message` instead of the end event

Content faults (well-formed HTTP, wrong content):
  body      answer `status` (200 unless given) with `json` (any JSON
            value, serialised) or `raw` (a string sent as it is), repeated
            `repeat` times, as `content_type` (application/json unless
            given), plus `headers`; the request is not carried out
  patch     carry the request out, then change its JSON answer: `set`
            {field: value} and `drop` [field] on the object (on each item
            when the answer is an array), `status` instead of the real
            one, `headers` added; `next_token`: an X-Next-Token the
            listing accepts, made of that text ("{n}" in it: a number of
            its own on each hit; without it the same token every time)
  stream    (Process/Start) answer 200 and send `envelopes` instead of
            running anything: each {"flags": N, "json": value} or
            {"flags": N, "raw": "text"} (flags 2: end of stream)
"""

import re
import threading


class Faults:
    def __init__(self):
        self.lock = threading.Lock()
        self.rules = []
        self.hits = []

    def add(self, rules):
        if isinstance(rules, dict):
            rules = [rules]
        with self.lock:
            for r in rules:
                r = dict(r)
                r.setdefault("server", "any")
                r.setdefault("times", 1)
                r["_re"] = re.compile(r.get("path", ".*"))
                self.rules.append(r)

    def clear(self):
        with self.lock:
            self.rules = []

    def take(self, server, method, path):
        with self.lock:
            for r in self.rules:
                if r["server"] not in ("any", server):
                    continue
                if r.get("method") and r["method"] != method:
                    continue
                if not r["_re"].search(path):
                    continue
                r["times"] -= 1
                if r["times"] <= 0:
                    self.rules.remove(r)
                self.hits.append({"server": server, "method": method, "path": path, "action": r.get("action")})
                return {k: v for k, v in r.items() if k != "_re"}
        return None

    def view(self):
        with self.lock:
            return {
                "pending": [{k: v for k, v in r.items() if k != "_re"} for r in self.rules],
                "hits": list(self.hits),
            }
