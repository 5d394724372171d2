# SPDX-License-Identifier: MIT
"""Third-party backends (tests/api's test plugins) and injected failures:
the C core's tier logic and error mapping, seen from Python."""

from __future__ import annotations

import asyncio
import logging
import os
import warnings
from pathlib import Path
from typing import Callable

import pytest

import sandboxio
from sandboxio import IsolationTier

from conftest import BACKENDS, Fake

EXTRA = os.environ.get("SBIO_TEST_EXTRA_BACKENDS", "")
needs_extra = pytest.mark.skipif(not EXTRA, reason="SBIO_TEST_EXTRA_BACKENDS is not set (ctest sets it)")


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> sandboxio.Host:
    monkeypatch.setenv("TESTBK_DIR", str(tmp_path))  # the test plugins count their operations there
    return sandboxio.Host(no_config=True, backend_path=f"{EXTRA}:{BACKENDS}")


def _ran(tmp: Path, op: str) -> int:
    p = tmp / op
    return len(p.read_text()) if p.exists() else 0


@needs_extra
async def test_an_unverified_backend_is_unknown_and_satisfies_nothing(
    third_party: sandboxio.Host, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="sandboxio")
    with third_party as host:
        vague = next(b for b in await sandboxio.backends(host) if b.name == "vague")
        assert vague.tier is IsolationTier.UNKNOWN
        assert vague.mechanisms[0].reason  # why it is UNKNOWN
        with pytest.raises(sandboxio.ConfigurationError, match="UNKNOWN"):
            await sandboxio.create("vague://", host=host, require_isolation=IsolationTier.CONTAINER)
        assert _ran(tmp_path, "create") == 0
        for _ in range(2):
            async with await sandboxio.create("vague://", host=host) as sb:
                assert sb.isolation is IsolationTier.UNKNOWN
        warned = [r for r in caplog.records if "vague has no verified isolation tier" in r.getMessage()]
        assert len(warned) == 1 and warned[0].levelno == logging.WARNING


@needs_extra
async def test_a_backend_that_observes_less_than_it_planned_is_refused(
    third_party: sandboxio.Host, tmp_path: Path
) -> None:
    with third_party as host:
        with pytest.raises(sandboxio.CreationError) as ei:
            await sandboxio.create("liar://", host=host, require_isolation=IsolationTier.GVISOR)
        assert "GVISOR" in ei.value.message and "destroyed" in ei.value.message
        # It was created (the plan passed), then refused on what it observed, and destroyed.
        assert _ran(tmp_path, "create") == 1
        assert _ran(tmp_path, "kill") == 1


@needs_extra
async def test_an_http_source_is_no_evidence(third_party: sandboxio.Host) -> None:
    with third_party as host:
        b = next(b for b in await sandboxio.backends(host) if b.name == "plainhttp")
        assert b.claimed_tier is IsolationTier.MICROVM
        assert b.tier is IsolationTier.UNKNOWN
        assert "https" in b.mechanisms[0].reason


async def test_create_timeout(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake("      simulate:\n        create_takes: 100000\n")
    with pytest.raises(sandboxio.CreateTimeout) as ei:
        await sandboxio.create("fake://", host=fake.host, timeout=0.3)
    assert ei.value.code == "SBX_E1203"
    assert isinstance(ei.value, sandboxio.CreationError) and isinstance(ei.value, sandboxio.SandboxTimeout)


async def test_create_failure_and_auth(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake('      simulate:\n        create_fails: "quota exhausted"\n')
    with pytest.raises(sandboxio.CreationError) as ce:
        await sandboxio.create("fake://", host=fake.host)
    assert ce.value.code == "SBX_E1201" and "quota exhausted" in ce.value.message
    fake = make_fake("      simulate:\n        auth_missing: true\n")
    with pytest.raises(sandboxio.AuthError) as ae:
        await sandboxio.create("fake://", host=fake.host)
    assert "SBIO_FAKE_TOKEN" in ae.value.message + ae.value.hint


async def test_script_errors_map_to_their_classes(make_fake: Callable[..., Fake]) -> None:
    cases = {
        "network_policy": sandboxio.NetworkPolicyViolation,
        "resource_limit": sandboxio.ResourceLimitExceeded,
        "rate_limit": sandboxio.RateLimitError,
        "gone": sandboxio.SandboxGone,
    }
    scripts = "".join(f'        - match: "do-{k}"\n          error: {k}\n' for k in cases)
    fake = make_fake("      scripts:\n" + scripts)
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        for name, cls in cases.items():
            with pytest.raises(cls) as ei:
                await sb.run(["do-" + name])
            assert type(ei.value) is cls, name


async def test_a_failed_teardown_warns_and_never_replaces_the_error(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake('      simulate:\n        kill_fails: "provider said 500"\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="the block's own"):
            async with await sandboxio.create("fake://", host=fake.host, metadata={"tenant_id": "t1"}) as sb:
                raise RuntimeError("the block's own")
    orphaned = [w for w in caught if issubclass(w.category, sandboxio.OrphanedSandboxWarning)]
    assert len(orphaned) == 1
    text = str(orphaned[0].message)
    assert sb.id in text and "reap" in text
    # Alone, it warns too (never raises out of the block).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with await sandboxio.create("fake://", host=fake.host) as sb2:
            pass
    assert any(issubclass(w.category, sandboxio.OrphanedSandboxWarning) for w in caught)
    assert sb2.closed


async def test_a_hanging_kill_is_bounded(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake("      simulate:\n        kill_hangs: true\n")
    sb = await sandboxio.create("fake://", host=fake.host, timeout=2)
    with pytest.raises(sandboxio.ConnectError):
        await asyncio.wait_for(sb.kill(), timeout=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            await sb.close()
        except sandboxio.SandboxError:
            pass
    assert sb.closed
