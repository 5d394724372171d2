# SPDX-License-Identifier: MIT
"""The E2B backend through Python, against the E2B emulator (tests/e2b).

The issue's snippet runs exactly as written, inside asyncio.run, in a fresh
interpreter whose only configuration is SBIO_CONFIG and E2B_API_KEY; the
same snippet with the source stale under `stale: unknown` raises
ConfigurationError and the emulator sees no create.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import pytest

import sandboxio
from sandboxio import IsolationTier

from e2b_emu import EMULATOR, KEY, Emulator

#: From the issue, as written.
SNIPPET = """\
import sandboxio
from sandboxio import IsolationTier
sb = await sandboxio.create("e2b://", require_isolation=IsolationTier.MICROVM)
"""

pytestmark = pytest.mark.skipif(not EMULATOR, reason="SBIO_TEST_E2B_EMULATOR is not set (ctest sets it)")


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
    if prefix and prefix[0] == "faketime":
        # From the real clock even when the suite itself runs under a fake one
        # (faketime would otherwise offset the offset); a sanitizer runtime
        # stays first among the preloaded libraries.
        for var in ("FAKETIME", "FAKETIME_SHARED"):
            env.pop(var, None)
        kept = [p for p in env.get("LD_PRELOAD", "").split(":") if p and "faketime" not in p]
        env["LD_PRELOAD"] = ":".join(kept)
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


@pytest.mark.skipif(
    os.environ.get("SBIO_PY_PRELOAD_ASAN") == "1",
    reason="libfaketime deadlocks an uninstrumented interpreter under ASan's preloaded runtime; "
    "the plain build runs this, and test_e2b_stale_source_in_process covers the refusal here",
)
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
