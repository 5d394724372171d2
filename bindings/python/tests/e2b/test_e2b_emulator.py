# SPDX-License-Identifier: MIT
"""The E2B backend through Python, against the E2B emulator (tests/e2b).

The issue's snippet runs exactly as written, inside asyncio.run, in a fresh
interpreter whose only configuration is SBIO_CONFIG and E2B_API_KEY; the
same snippet with the source stale under `stale: unknown` raises
ConfigurationError and the emulator sees no create.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

import sandboxio
from sandboxio import IsolationTier

EMULATOR = os.environ.get("SBIO_TEST_E2B_EMULATOR", "")
KEY = "e2b_7e57ab1ec0ffee0ddba11f00d5eed5ca1ab1e"

#: From the issue, as written.
SNIPPET = """\
import sandboxio
from sandboxio import IsolationTier
sb = await sandboxio.create("e2b://", require_isolation=IsolationTier.MICROVM)
"""

pytestmark = pytest.mark.skipif(not EMULATOR, reason="SBIO_TEST_E2B_EMULATOR is not set (ctest sets it)")


class Emulator:
    def __init__(self, tmp: Path) -> None:
        self.dir = tmp
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


@pytest.fixture
def emu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    monkeypatch.setenv("E2B_API_KEY", KEY)
    for var in ("E2B_API_URL", "E2B_SANDBOX_URL", "E2B_DOMAIN"):
        monkeypatch.delenv(var, raising=False)
    e = Emulator(tmp_path)
    try:
        yield e
        assert e.live() == 0, "a sandbox was left in the emulator"
        assert e.admin("GET", "violations")["violations"] == []
    finally:
        e.stop()


def _snippet_program(after: str) -> str:
    body = textwrap.indent(SNIPPET + after, "    ")
    return f"import asyncio\n\n\nasync def main() -> None:\n{body}\n\nasyncio.run(main())\n"


def _run_snippet(config: Path, after: str, *prefix: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SBIO_CONFIG=str(config))
    return subprocess.run(
        [*prefix, sys.executable, "-c", _snippet_program(after)],
        env=env, capture_output=True, text=True, timeout=300,
    )


def test_the_snippet_as_written(emu: Emulator) -> None:
    after = textwrap.dedent("""\
        assert sb.isolation == IsolationTier.MICROVM, sb.isolation
        r = await sb.run(["echo", "from-e2b"])
        print(sb.id, r.exit_code, r.stdout.strip())
        await sb.close()
    """)
    r = _run_snippet(emu.config(), after)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[1:] == ["0", "from-e2b"]
    assert emu.creates() == 1
    assert KEY not in r.stdout + r.stderr


def _stale_date(config: Path) -> str:
    with sandboxio.Host(config_file=str(config)) as h:
        e2b = next(b for b in h.backends() if b.name == "e2b")
    newest = max(datetime.date.fromisoformat(m.verified_on) for m in e2b.mechanisms if m.verified_on)
    return (newest + datetime.timedelta(days=92 + 30)).isoformat()  # the default window, and then some


def test_the_snippet_on_a_stale_source_is_refused_before_create(emu: Emulator) -> None:
    config = emu.config("metadata:\n  stale: unknown\n")
    later = _stale_date(config)
    r = _run_snippet(config, "print('created', sb.id)\n", "faketime", later)
    assert r.returncode != 0
    assert "sandboxio.errors.ConfigurationError: [SBX_E1000]" in r.stderr, r.stderr
    assert "created" not in r.stdout
    assert emu.creates() == 0
    assert KEY not in r.stdout + r.stderr


async def test_e2b_operations(emu: Emulator) -> None:
    with sandboxio.Host(config_file=str(emu.config())) as host:
        async with await sandboxio.create(
            "e2b://", host=host, require_isolation=IsolationTier.MICROVM, secrets={"TOK": "s3cr3t-e2b-value"}
        ) as sb:
            assert sb.isolation is IsolationTier.MICROVM
            assert (await sb.run(["sh", "-c", "echo $TOK"])).stdout == "s3cr3t-e2b-value\n"
            await sb.files.write("blob.bin", bytes(range(256)) * 64)
            assert await sb.files.read("blob.bin") == bytes(range(256)) * 64
            assert "blob.bin" in [e.name for e in await sb.files.list(".")]
            chunks = []
            async with sb.stream(["sh", "-c", "for i in 1 2 3; do echo $i; done"]) as p:
                async for c in p:
                    chunks.append(c.data)
                assert (await p.wait()).exit_code == 0
            assert b"".join(chunks) == b"1\n2\n3\n"
            assert "s3cr3t-e2b-value" not in repr(sb)
        assert emu.creates() == 1


async def test_e2b_stale_source_in_process(emu: Emulator) -> None:
    config = emu.config("metadata:\n  max_age_days: 30\n  stale: unknown\n")
    now = int(datetime.datetime(2030, 1, 1, tzinfo=datetime.timezone.utc).timestamp())
    with sandboxio.Host(config_file=str(config), now=now) as host:
        e2b = next(b for b in await sandboxio.backends(host) if b.name == "e2b")
        assert e2b.tier is IsolationTier.UNKNOWN and e2b.claimed_tier is IsolationTier.MICROVM
        assert e2b.mechanisms[0].stale and e2b.mechanisms[0].reason
        with pytest.raises(sandboxio.ConfigurationError):
            await sandboxio.create("e2b://", host=host, require_isolation=IsolationTier.MICROVM)
    assert emu.creates() == 0
