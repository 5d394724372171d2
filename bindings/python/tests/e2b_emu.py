# SPDX-License-Identifier: MIT
"""The E2B emulator (tests/e2b/emulator) for the binding's tests: started on
loopback ports chosen at run time, driven through its admin endpoints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

EMULATOR = os.environ.get("SBIO_TEST_E2B_EMULATOR", "")
KEY = "e2b_7e57ab1ec0ffee0ddba11f00d5eed5ca1ab1e"


class Emulator:
    def __init__(self, tmp: Path) -> None:
        self.dir = tmp
        tmp.mkdir(parents=True, exist_ok=True)
        ports = tmp / "ports"
        env = dict(os.environ, E2B_EMU_API_KEY=KEY)
        env.pop("LD_PRELOAD", None)  # the emulator is plain Python, never sanitized
        self.proc = subprocess.Popen(
            [sys.executable, EMULATOR, "--port-file", str(ports), "--parent-pid", str(os.getpid()),
             "--idle-timeout", "600"],
            env=env,
        )
        deadline = time.monotonic() + 60
        while True:
            text = ports.read_text().split() if ports.exists() else []
            if len(text) == 2:
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the E2B emulator did not start (exit {self.proc.poll()})")
            time.sleep(0.05)
        self.api_url = f"http://127.0.0.1:{text[0]}"
        self.sandbox_url = f"http://127.0.0.1:{text[1]}"

    def admin(self, method: str, path: str) -> Any:
        req = urllib.request.Request(f"{self.api_url}/__emu__/{path}", method=method)
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
        return json.loads(body) if body else None

    def creates(self) -> int:
        reqs = self.admin("GET", "requests")["requests"]
        return sum(1 for r in reqs if r["method"] == "POST" and r["path"].rstrip("/") == "/sandboxes")

    def live(self) -> int:
        return int(self.admin("GET", "state")["live"])

    def config(self, extra_top: str = "") -> Path:
        path = self.dir / f"config{len(list(self.dir.glob('config*')))}.yaml"
        path.write_text(
            extra_top
            + "backends:\n  e2b:\n    settings:\n"
            + f"      api_url: {self.api_url}\n      sandbox_url: {self.sandbox_url}\n"
            + "      connect_timeout: 5\n      request_timeout: 20\n"
        )
        return path

    def stop(self) -> None:
        try:
            self.admin("POST", "shutdown")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
