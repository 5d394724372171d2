# SPDX-License-Identifier: MIT
"""The Daytona REST API (control plane), under /api as on
https://app.daytona.io/api. Status codes as the v0.190 controllers answer:
create and delete are 200 (the controller sets @HttpCode(200)), not 201."""

import hashlib
import re

from . import validate
from .httpio import HttpError
from .store import DEFAULT_SNAPSHOT, SNAPSHOTS, Sandbox

SANDBOX_PATH = re.compile(r"^/sandbox/([^/]+)$")
PROXY_URL_PATH = re.compile(r"^/sandbox/([^/]+)/toolbox-proxy-url$")


class Api:
    def __init__(self, store, base_url):
        self.store = store
        self.base_url = base_url  # http://127.0.0.1:PORT

    def toolbox_url(self, org):
        if org.settings.omitToolboxProxyUrl:
            return None
        return org.settings.toolboxProxyUrlOverride or self.base_url + "/toolbox"

    def route(self, org, method, path, query, read_json):
        """Returns (status, JSON-able body). `path` is relative to /api."""
        if path == "/config" and method == "GET":
            return 200, self.config(org)
        if path == "/sandbox":
            if method == "POST":
                return 200, self.create(org, read_json())
            if method == "GET":
                return 200, self.list(org, query)
        m = PROXY_URL_PATH.match(path)
        if m and method == "GET":
            if not org.settings.toolboxProxyUrlEndpoint:
                raise HttpError(404, "Cannot GET /api%s" % path)
            self.find(org, m.group(1))
            return 200, {"url": self.base_url + "/toolbox"}
        m = SANDBOX_PATH.match(path)
        if m:
            if method == "GET":
                for k in query:
                    if k != "verbose":
                        raise HttpError(400, "property %s should not exist" % k)
                return 200, self.find(org, m.group(1)).dto(self.toolbox_url(org))
            if method == "DELETE":
                if query:
                    raise HttpError(400, "property %s should not exist" % next(iter(query)))
                sb = self.find(org, m.group(1))
                sb.delete()
                return 200, sb.dto(self.toolbox_url(org))
        raise HttpError(404, "Cannot %s /api%s" % (method, path))

    # ------------------------------------------------------------ config
    def config(self, org):
        c = {
            "version": "0.190.0",
            "oidc": {"issuer": "https://auth.invalid", "clientId": "emulator", "audience": "emulator"},
            "linkedAccountsEnabled": False,
            "announcements": {},
            "proxyTemplateUrl": "http://{{PORT}}-{{sandboxId}}.proxy.invalid",
            "defaultSnapshot": DEFAULT_SNAPSHOT,
            "dashboardUrl": "https://app.invalid/dashboard",
            "maxAutoArchiveInterval": 43200,
            "maintananceMode": False,
            "environment": "emulator",
        }
        if org.settings.configProxyToolboxUrl:
            c["proxyToolboxUrl"] = self.base_url + "/toolbox"
        return c

    # ------------------------------------------------------------ sandbox
    def find(self, org, id_or_name):
        sb = org.find(id_or_name)
        if sb is None:
            raise HttpError(404, "Sandbox with ID or name %s not found" % id_or_name)
        return sb

    def create(self, org, body, final_state=None, error_reason=None):
        validate.create_sandbox(body)
        snapshot = body.get("snapshot")
        if "buildInfo" in body:
            if snapshot:
                raise HttpError(400, "Cannot specify a snapshot when using a build info entry")
            digest = hashlib.sha256(body["buildInfo"]["dockerfileContent"].encode()).hexdigest()[:12]
            SNAPSHOTS.setdefault("daytona-" + digest, {"class": "container", "cpu": 1, "memory": 1, "disk": 3})
            body = dict(body, snapshot="daytona-" + digest)
        elif snapshot and snapshot not in SNAPSHOTS:
            raise HttpError(400, "Snapshot %s not found. Did you add it through the Daytona Dashboard?" % snapshot)
        name = body.get("name")
        if name and org.name_taken(name):
            raise HttpError(409, "Sandbox with name %s already exists" % name)
        sb = Sandbox(
            org,
            body,
            self.store.sandbox_dir,
            org.settings.startDelay,
            final_state or "started",
            error_reason,
        )
        org.add(sb)
        return sb.dto(self.toolbox_url(org))

    def list(self, org, query):
        q = validate.list_query(query)
        wanted = q.get("labels") or {}
        items = []
        for sb in org.listing():
            state = sb.state()
            if state == "destroyed":
                continue
            if not q.get("includeErroredDeleted") and sb.desired_state() == "destroyed":
                continue
            if not org.settings.ignoreLabelFilter and any(sb.labels.get(k) != v for k, v in wanted.items()):
                continue
            if "states" in q and state not in q["states"]:
                continue
            if "id" in q and not sb.id.lower().startswith(q["id"].lower()):
                continue
            if "name" in q and not sb.name.lower().startswith(q["name"].lower()):
                continue
            items.append(sb)
        if org.settings.listShape == "array":
            # Before 2026-05-24: a bare array of full Sandbox objects, no paging;
            # that API ignored query parameters it did not know (cursor, limit).
            return [sb.dto(self.toolbox_url(org)) for sb in items]
        limit = int(q.get("limit", 100))
        if org.settings.pageSize:
            limit = min(limit, org.settings.pageSize)
        start = 0
        if "cursor" in q:
            ids = [sb.id for sb in items]
            if q["cursor"] not in ids:
                raise HttpError(400, "Invalid cursor")
            start = ids.index(q["cursor"])
        page = items[start : start + limit]
        more = start + limit < len(items)
        return {
            "items": [sb.dto(self.toolbox_url(org), full=False) for sb in page],
            "nextCursor": items[start + limit].id if more else None,
        }
