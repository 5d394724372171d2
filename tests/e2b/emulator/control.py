# SPDX-License-Identifier: MIT
"""The control plane (api.<domain>): the subset of E2B's openapi.yml that
clients use to create, inspect, list, time out and kill sandboxes, with the
spec's status codes, error bodies and validation. Also the emulator's own
admin endpoints under /__emu__/ (no auth; loopback test tool only)."""

import base64
import json
import re
from urllib.parse import unquote

import httpbase
import sandboxes

SANDBOX_ID = re.compile(r"^[a-z0-9]+$")
STATES = ("running", "paused")
MAX_TIMEOUT_S = 24 * 3600
INVALID_KEY = "Invalid API key, please visit https://e2b.dev/docs/api-key for more information."


class BadRequest(Exception):
    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status
        self.message = message


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _check_string_map(body, key):
    v = body.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
        raise BadRequest("Error when parsing request: json: cannot unmarshal %s into Go struct field "
                         "NewSandbox.%s of type map[string]string" % (type(v).__name__, key))
    return v


def _check_bool(body, key):
    v = body.get(key)
    if v is not None and not isinstance(v, bool):
        raise BadRequest("Error when parsing request: json: cannot unmarshal %s into Go struct field "
                         "NewSandbox.%s of type bool" % (type(v).__name__, key))
    return v


def _check_network(body):
    net = body.get("network")
    if net is None:
        return None
    if not isinstance(net, dict):
        raise BadRequest("Error when parsing request: json: cannot unmarshal into Go struct field "
                         "NewSandbox.network of type api.SandboxNetworkConfig")
    for key in ("allowOut", "denyOut"):
        lst = net.get(key)
        if lst is not None and (not isinstance(lst, list) or not all(isinstance(x, str) for x in lst)):
            raise BadRequest("Error when parsing request: json: cannot unmarshal into Go struct field "
                             "SandboxNetworkConfig.network.%s of type []string" % key)
    for cidr in net.get("denyOut") or []:
        if not re.match(r"^[0-9.]+(/[0-9]+)?$", cidr):
            raise BadRequest("invalid denied CIDR %s" % cidr)
    if "allowPublicTraffic" in net and not isinstance(net["allowPublicTraffic"], bool):
        raise BadRequest("Error when parsing request: allowPublicTraffic must be a boolean")
    return net


class ApiHandler(httpbase.Handler):
    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_PUT(self):
        self.dispatch("PUT")

    def error(self, status, message, headers=None, violation=False):
        if violation:
            self.emu.violation(self, status, message)
        self.send_json(status, {"code": status, "message": message}, headers)

    # ------------------------------------------------------------ dispatch
    def dispatch(self, method):
        self.parse_target()
        self.emu.log_request(self, "api")
        # Read the whole body first: an answer given before it (a 502, a 401)
        # must not leave it in the connection for the next request to trip on.
        try:
            self.read_body()
        except ValueError:
            self.close_connection = True
            return self.send_json(413, {"code": 413, "message": "request body too large"})
        path = self.url_path
        try:
            if path.startswith("/__emu__/"):
                return self.admin(method, path)
            if self.emu.apply_fault(self, "api", method, path):
                return
            if method == "GET" and path == "/health":
                return self.send_empty(204)
            if not self.authenticate():
                return
            m = re.match(r"^/sandboxes/([^/]+)(/[a-z]+)?$", path)
            if method == "POST" and path == "/sandboxes":
                return self.create()
            if method == "GET" and path == "/v2/sandboxes":
                return self.list_v2()
            if method == "GET" and path == "/sandboxes":
                return self.list_v1()
            if m:
                sid, tail = m.group(1), m.group(2) or ""
                if not SANDBOX_ID.match(sid):
                    return self.error(400, "Invalid sandbox ID", violation=True)
                route = {
                    ("GET", ""): self.get_one,
                    ("DELETE", ""): self.kill,
                    ("POST", "/timeout"): self.set_timeout,
                    ("POST", "/connect"): self.connect_one,
                    ("POST", "/refreshes"): self.refresh,
                }.get((method, tail))
                if route:
                    return route(sid)
            self.error(404, "Not Found: %s %s" % (method, path), violation=True)
        except BadRequest as e:
            self.error(e.status, e.message, violation=True)
        except (ConnectionError, BrokenPipeError):
            self.close_connection = True

    def authenticate(self):
        key = self.headers.get("X-API-Key")
        if key is None:
            self.error(401, "authorization header is missing: X-API-Key", violation=True)
            return False
        if not key.startswith("e2b_") or key != self.emu.api_key:
            self.error(401, INVALID_KEY)
            return False
        return True

    def json_body(self, required):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        raw = self.read_body()
        if not raw and not required:
            return None
        if ctype != "application/json":
            raise BadRequest('request body has an error: header Content-Type has unexpected value: "%s"' % ctype)
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise BadRequest("Error when parsing request: %s" % e)
        if not isinstance(body, dict):
            raise BadRequest("Error when parsing request: json: cannot unmarshal %s into Go value of type "
                             "api.PostSandboxesJSONRequestBody" % type(body).__name__)
        return body

    # --------------------------------------------------------------- create
    KNOWN_NEW_SANDBOX = {"templateID", "timeout", "autoPause", "autoPauseMemory", "autoResume", "secure",
                         "allow_internet_access", "network", "metadata", "envVars", "mcp", "iam", "volumeMounts"}

    def create(self):
        body = self.json_body(required=True)
        unknown = set(body) - self.KNOWN_NEW_SANDBOX
        if unknown:
            self.emu.note(self, "NewSandbox has fields the spec does not define: %s" % sorted(unknown))
        tmpl = body.get("templateID")
        if not isinstance(tmpl, str) or not tmpl:
            raise BadRequest('request body has an error: doesn\'t match schema: Error at "/templateID": '
                             'property "templateID" is missing')
        timeout = body.get("timeout", 15)
        if not _is_int(timeout):
            raise BadRequest("Error when parsing request: json: cannot unmarshal into Go struct field "
                             "NewSandbox.timeout of type int32")
        if timeout <= 0:
            raise BadRequest("Timeout must be greater than 0")
        if timeout > MAX_TIMEOUT_S:
            raise BadRequest("Timeout cannot be greater than 24 hours")
        metadata = _check_string_map(body, "metadata")
        env_vars = _check_string_map(body, "envVars")
        secure = _check_bool(body, "secure") or False
        allow_internet = _check_bool(body, "allow_internet_access")
        _check_bool(body, "autoPause")
        network = _check_network(body)
        if network and network.get("allowPublicTraffic") is False and not secure:
            raise BadRequest("You cannot create a sandbox without public access unless you enable secure "
                             "envd access via 'secure' flag.")
        name = tmpl.split(":")[0]
        if name not in self.emu.templates:
            return self.error(404, "template '%s' not found" % tmpl)
        limit = self.emu.config.get("max_sandboxes") or 100
        if len(self.emu.store.live()) >= limit:
            return self.error(429, "you have reached the maximum number of concurrent E2B sandboxes (%d). If you "
                              "need more, please visit 'https://e2b.dev/docs/billing'" % limit)
        sb = sandboxes.Sandbox(self.emu.store, name, timeout, metadata, env_vars, secure, network,
                               allow_internet if allow_internet is not None else True)
        self.emu.store.add(sb)
        self.send_json(201, sb.created())

    # ---------------------------------------------------------- inspection
    def not_found(self, sid):
        self.error(404, "Sandbox \"%s\" doesn't exist or you don't have access to it" % sid)

    def get_one(self, sid):
        sb = self.emu.store.get(sid)
        if not sb:
            return self.not_found(sid)
        self.send_json(200, sb.detail())

    def connect_one(self, sid):
        body = self.json_body(required=True)
        timeout = body.get("timeout")
        if not _is_int(timeout) or timeout < 0:
            raise BadRequest('request body has an error: doesn\'t match schema: Error at "/timeout"')
        sb = self.emu.store.get(sid)
        if not sb:
            return self.not_found(sid)
        if timeout:
            sb.set_timeout(max(timeout, 1))
        self.send_json(200, sb.created())

    def set_timeout(self, sid):
        body = self.json_body(required=True)
        timeout = body.get("timeout")
        if not _is_int(timeout) or timeout < 0:
            raise BadRequest('request body has an error: doesn\'t match schema: Error at "/timeout": '
                             'property "timeout" is missing')
        if timeout > MAX_TIMEOUT_S:
            raise BadRequest("Timeout cannot be greater than 24 hours")
        sb = self.emu.store.get(sid)
        if not sb:
            return self.not_found(sid)
        sb.set_timeout(timeout)
        self.send_empty(204)

    def refresh(self, sid):
        body = self.json_body(required=False) or {}
        duration = body.get("duration", 0)
        if not _is_int(duration) or duration < 0 or duration > 3600:
            raise BadRequest("duration must be between 0 and 3600")
        sb = self.emu.store.get(sid)
        if not sb:
            return self.not_found(sid)
        sb.set_timeout(duration or 15)
        self.send_empty(204)

    def kill(self, sid):
        if self.emu.store.remove(sid):
            return self.send_empty(204)
        self.not_found(sid)

    # ----------------------------------------------------------------- list
    def metadata_filter(self):
        raw = self.q1("metadata")
        if raw is None:
            return {}
        filters = {}
        # parse_qs already unescaped the parameter once; each key and value
        # is escaped once more by the client.
        for pair in raw.split("&"):
            parts = pair.split("=")
            if len(parts) != 2:
                raise BadRequest("invalid key value pair in metadata query")
            filters[unquote(parts[0])] = unquote(parts[1])
        return filters

    def matching(self, filters, states):
        out = []
        for sb in self.emu.store.live():
            if "running" not in states:
                continue
            if all(sb.metadata.get(k) == v for k, v in filters.items()):
                out.append(sb)
        return out

    def list_v1(self):
        sbs = self.matching(self.metadata_filter(), ("running",))
        self.send_json(200, [s.listed() for s in sbs])

    def list_v2(self):
        filters = self.metadata_filter()
        states = STATES
        raw_state = self.q1("state")
        if raw_state is not None:
            states = raw_state.split(",")
            for s in states:
                if s not in STATES:
                    raise BadRequest('parameter "state" in query has an error: value is not one of the allowed '
                                     'values ["running","paused"]')
        limit = 100
        raw_limit = self.q1("limit")
        if raw_limit is not None:
            if not re.match(r"^-?[0-9]+$", raw_limit):
                raise BadRequest('parameter "limit" in query has an error: value %s: an invalid integer' % raw_limit)
            limit = int(raw_limit)
            if limit < 1 or limit > 100:
                raise BadRequest('parameter "limit" in query has an error: number must be at least 1 and at most 100')
        limit = min(limit, self.emu.config.get("page_size") or 100)
        order = self.q1("order") or "desc"
        if order not in ("asc", "desc"):
            raise BadRequest('parameter "order" in query has an error: value is not one of the allowed values')
        sbs = sorted(self.matching(filters, states), key=lambda s: (s.started_at, s.id), reverse=(order == "desc"))
        start = 0
        token = self.q1("nextToken")
        if token:
            try:
                cursor = base64.urlsafe_b64decode(token.encode()).decode()
                _, cid = cursor.split("__", 1)
            except (ValueError, UnicodeDecodeError):
                raise BadRequest("Invalid next token")
            ids = [s.id for s in sbs]
            start = ids.index(cid) + 1 if cid in ids else len(ids)
        page = sbs[start:start + limit]
        headers = {"X-Total-Running": str(len(sbs))}
        if start + limit < len(sbs) and page:
            last = page[-1]
            cursor = "%s__%s" % (sandboxes.rfc3339(last.started_at), last.id)
            headers["X-Next-Token"] = base64.urlsafe_b64encode(cursor.encode()).decode()
        self.send_json(200, [s.listed() for s in page], headers)

    # ---------------------------------------------------------------- admin
    def admin(self, method, path):
        emu = self.emu
        if path == "/__emu__/state" and method == "GET":
            live = emu.store.live()
            return self.send_json(200, {
                "live": len(live),
                "sandboxes": [{"id": s.id, "metadata": s.metadata, "processes": len(s.processes),
                               "template": s.template, "envVars": sorted(s.env_vars),
                               "allowInternetAccess": s.allow_internet, "network": s.network,
                               "endAt": sandboxes.rfc3339(s.end_at)} for s in live],
                "killed": sorted(emu.store.killed),
            })
        if path == "/__emu__/faults":
            if method == "POST":
                emu.faults.add(json.loads(self.read_body() or b"[]"))
            elif method == "DELETE":
                emu.faults.clear()
            return self.send_json(200, emu.faults.view())
        if path == "/__emu__/violations":
            if method == "DELETE":
                emu.clear_violations()
            return self.send_json(200, emu.violations_view())
        if path == "/__emu__/requests":
            if method == "DELETE":
                emu.clear_requests()
            return self.send_json(200, emu.requests_view())
        if path == "/__emu__/config" and method == "POST":
            cfg = json.loads(self.read_body() or b"{}")
            emu.config.update(cfg)
            if cfg.get("envd_version"):
                emu.store.envd_version = cfg["envd_version"]
            return self.send_json(200, emu.config)
        m = re.match(r"^/__emu__/vanish/([a-z0-9]+)$", path)
        if m and method == "POST":
            return self.send_json(200, {"removed": emu.store.remove(m.group(1))})
        if path == "/__emu__/shutdown" and method == "POST":
            self.send_json(200, {"bye": True})
            emu.request_shutdown()
            return None
        return self.send_json(404, {"code": 404, "message": "no such admin endpoint"})
