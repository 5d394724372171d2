# SPDX-License-Identifier: MIT
"""The package against the fake backend: lookup, tiers, errors, create, run."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sandboxio
from sandboxio import IsolationTier
from sandboxio._lib import lib, text

from conftest import Fake

HANG = '      scripts:\n        - match: "hang-here"\n          hang: true\n'


def _import_with(library: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SBIO_LIBRARY=library)
    code = "import sandboxio; sandboxio.library_version()"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_importing_opens_nothing() -> None:
    # Importing the package loads no library: a missing one fails on first use.
    env = dict(os.environ, SBIO_LIBRARY="/nonexistent/libsandboxio.so.0")
    r = subprocess.run([sys.executable, "-c", "import sandboxio"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_missing_library_is_a_clear_error() -> None:
    r = _import_with("/nonexistent/libsandboxio.so.0")
    assert r.returncode != 0
    assert "LibraryNotFound" in r.stderr
    assert "/nonexistent/libsandboxio.so.0 (SBIO_LIBRARY)" in r.stderr
    assert "set SBIO_LIBRARY" in r.stderr


def test_a_library_that_is_not_libsandboxio_is_refused() -> None:
    r = _import_with("libc.so.6")
    assert r.returncode != 0
    assert "is not libsandboxio" in r.stderr


def test_an_older_library_is_refused_with_its_version() -> None:
    old = os.environ.get("SBIO_TEST_OLD_LIBRARY")
    if not old:
        pytest.skip("SBIO_TEST_OLD_LIBRARY not set (ctest sets it)")
    r = _import_with(old)
    assert r.returncode != 0
    assert "is libsandboxio 0.0.1; this binding needs 0.1.0 or newer" in r.stderr


def test_a_library_next_to_the_package_is_found(tmp_path: Path) -> None:
    # A vendored copy: the package with libsandboxio.so.0 beside it, no SBIO_LIBRARY.
    import shutil

    pkg = Path(sandboxio.__file__).parent
    shutil.copytree(pkg, tmp_path / "sandboxio", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "sandboxio" / "libsandboxio.so.0").symlink_to(os.path.realpath(os.environ["SBIO_LIBRARY"]))
    env = {k: v for k, v in os.environ.items() if k not in ("SBIO_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(tmp_path)
    code = (
        "import sandboxio, sandboxio._lib as l; "
        "print(l._candidates()[0][0]); print(sandboxio.__file__); print(sandboxio.library_version())"
    )
    # From tmp_path: `python -c` puts the current directory ahead of PYTHONPATH, and a
    # package build runs the tests from the source tree, whose sandboxio would win.
    r = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    where, path, version = r.stdout.splitlines()
    assert where == "next to the package"
    assert path == str(tmp_path / "sandboxio" / "__init__.py")
    assert version == sandboxio.library_version()


def test_library_version_is_the_loaded_one() -> None:
    assert sandboxio.library_version() == text(lib().sbio_version())
    assert sandboxio.library_version().count(".") == 2


def test_tiers_have_the_c_ranks_and_names() -> None:
    L = lib()
    for tier in IsolationTier:
        assert L.sbio_tier_rank(tier.rank) == tier.rank
        assert text(L.sbio_tier_name(tier.rank)) == tier.name
    assert [t.rank for t in IsolationTier] == [0, 10, 20, 30]
    assert IsolationTier.UNKNOWN < IsolationTier.CONTAINER < IsolationTier.GVISOR < IsolationTier.MICROVM
    assert max(IsolationTier) is IsolationTier.MICROVM
    for have in IsolationTier:
        for need in IsolationTier:
            assert have.satisfies(need) == bool(L.sbio_tier_satisfies(have.rank, need.rank)), (have, need)
    assert not IsolationTier.UNKNOWN.satisfies(IsolationTier.CONTAINER)
    assert not IsolationTier.MICROVM.satisfies(IsolationTier.UNKNOWN)


def test_capability_bits_match_the_library() -> None:
    L = lib()
    for cap in sandboxio.Capability:
        assert cap.name is not None
        assert text(L.sbio_capability_name(cap.value)) == cap.name.lower()


def test_one_class_per_catalogue_code() -> None:
    L = lib()
    seen = 0
    for number in range(1000, 2000):
        name = L.sbio_code_name(number)
        if not name:
            continue
        seen += 1
        cls = sandboxio.errors.BY_NUMBER[number]
        assert cls.code == text(name)
        assert cls.__name__ == text(L.sbio_code_class(number))
        assert getattr(sandboxio, cls.__name__) is cls
        assert issubclass(cls, sandboxio.SandboxError)
    assert seen == len(sandboxio.errors.BY_NUMBER)
    # The reference's hierarchy
    assert issubclass(sandboxio.BackendNotFound, sandboxio.ConfigurationError)
    assert issubclass(sandboxio.CreateTimeout, sandboxio.CreationError)
    assert issubclass(sandboxio.CreateTimeout, sandboxio.SandboxTimeout)
    assert issubclass(sandboxio.ExecutionTimeout, sandboxio.SandboxTimeout)
    assert issubclass(sandboxio.PathNotFound, sandboxio.FileSystemError)
    assert not issubclass(sandboxio.ExecutionTimeout, TimeoutError)
    assert not issubclass(sandboxio.SandboxGone, sandboxio.SandboxTimeout)


def test_error_text_has_code_message_and_hint() -> None:
    e = sandboxio.ConfigurationError("bad thing", "do this")
    assert (e.code, e.message, e.hint) == ("SBX_E1000", "bad thing", "do this")
    assert str(e) == "[SBX_E1000] bad thing\n  Fix:  do this"
    assert e.url.endswith("/SBX_E1000")


async def test_backends_lists_tiers_and_sources(fake: Fake) -> None:
    infos = {b.name: b for b in await sandboxio.backends(fake.host)}
    b = infos["fake"]
    assert b.tier is IsolationTier.CONTAINER
    assert b.claimed_tier is IsolationTier.CONTAINER
    assert b.status == "available"
    assert b.sources and all(s.startswith("https://") for s in b.sources)
    assert sandboxio.Capability.RUN_COMMAND in b.capabilities
    assert b.mechanisms[0].name == "none"
    assert b.path.endswith("sbio-backend-fake.so")


async def test_create_run_and_properties(fake: Fake) -> None:
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        assert sb.id == "fake-0001"
        assert sb.backend == "fake"
        assert sb.isolation is IsolationTier.CONTAINER
        assert sandboxio.Capability.FILESYSTEM in sb.capabilities
        r = await sb.run(["echo", "hi", "$X"])
        assert (r.exit_code, r.stdout, r.stderr) == (0, "hi $X\n", "")
        assert r.ok and not r.streamed
        r = await sb.run("echo out; echo err >&2; exit 3")
        assert (r.exit_code, r.stdout, r.stderr) == (3, "out\n", "err\n")
        with pytest.raises(sandboxio.ExecutionError) as ei:
            r.raise_for_status()
        assert ei.value.result is r
        assert "fake:fake-0001" in repr(sb)
    assert sb.closed
    assert fake.ops("kill") == ["kill fake-0001"]


async def test_run_env_cwd_stdin(fake: Fake) -> None:
    async with await sandboxio.create("fake://", host=fake.host, env={"A": "create"}) as sb:
        assert (await sb.run(["printenv", "A"])).stdout == "create\n"
        assert (await sb.run(["printenv", "A"], env={"A": "exec"})).stdout == "exec\n"
        assert (await sb.run(["pwd"], cwd="/tmp")).stdout == "/tmp\n"
        assert (await sb.run(["cat"], stdin=b"in\x00put")).stdout_bytes == b"in\x00put"
        assert (await sb.run(["cat"], stdin="text")).stdout == "text"


async def test_context_exit_destroys_on_exception(fake: Fake) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        async with await sandboxio.create("fake://", host=fake.host) as sb:
            raise RuntimeError("boom")
    assert sb.closed
    assert fake.ops("kill") == ["kill fake-0001"]
    with pytest.raises(sandboxio.SandboxGone):
        await sb.run(["true"])


async def test_errors_carry_class_code_message_hint(fake: Fake) -> None:
    with pytest.raises(sandboxio.BackendNotFound) as ei:
        await sandboxio.create("nosuch://", host=fake.host)
    assert ei.value.code == "SBX_E1001"
    assert "nosuch" in ei.value.message
    assert ei.value.hint
    with pytest.raises(sandboxio.ConfigurationError) as ce:
        await sandboxio.create("not a target", host=fake.host)
    assert ce.value.code == "SBX_E1000"
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        with pytest.raises(sandboxio.PathNotFound) as pe:
            await sb.files.read("/nope")
        assert pe.value.code == "SBX_E1701"
        assert isinstance(pe.value, sandboxio.FileSystemError)


async def test_timeouts_are_never_unbounded(fake: Fake) -> None:
    for bad in (None, 0, -1, float("inf"), "300"):
        with pytest.raises(sandboxio.ConfigurationError, match="timeout"):
            await sandboxio.create("fake://", host=fake.host, timeout=bad)  # type: ignore[arg-type]
    assert fake.ops("create") == []
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        with pytest.raises(sandboxio.ConfigurationError, match="timeout"):
            await sb.run(["true"], timeout=0)


async def test_exec_timeout_raises_execution_timeout(make_fake: object) -> None:
    fake = make_fake(HANG)  # type: ignore[operator]
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        with pytest.raises(sandboxio.ExecutionTimeout) as ei:
            await sb.run(["hang-here"], timeout=0.2)
        assert ei.value.code == "SBX_E1302"
        # The sandbox is still usable.
        assert (await sb.run(["echo", "after"])).stdout == "after\n"


async def test_blocking_calls_run_off_the_event_loop(make_fake: object) -> None:
    # A command that never ends on its own; the loop stays free to run the
    # task that cancels it. Were the C call on the loop's thread, nothing
    # could cancel it and the test would hang (ctest's timeout fails it).
    fake = make_fake(HANG)  # type: ignore[operator]
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        task = asyncio.create_task(sb.run(["hang-here"], timeout=120))
        for _ in range(3000):  # up to 30 s on a loaded machine
            await asyncio.sleep(0.01)
            if fake.ops("exec"):
                break
        assert fake.ops("exec") == ["exec fake-0001 hang-here"]
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The fake cancels one exec and keeps the sandbox.
        assert (await sb.run(["echo", "still"])).stdout == "still\n"
        assert fake.ops("kill") == []
    assert fake.ops("kill") == ["kill fake-0001"]


async def test_require_isolation_refused_before_create(fake: Fake) -> None:
    with pytest.raises(sandboxio.ConfigurationError) as ei:
        await sandboxio.create("fake://", host=fake.host, require_isolation=IsolationTier.MICROVM)
    assert ei.value.code == "SBX_E1000"
    assert "MICROVM" in ei.value.message
    with pytest.raises(sandboxio.ConfigurationError):
        await sandboxio.create("fake://", host=fake.host, require_isolation=IsolationTier.UNKNOWN)
    assert fake.ops("create") == []
    async with await sandboxio.create("fake://", host=fake.host, require_isolation=IsolationTier.CONTAINER) as sb:
        assert sb.isolation.satisfies(IsolationTier.CONTAINER)
    assert fake.ops("create") == ["create fake-0001"]


async def test_network_policy_fails_closed(fake: Fake) -> None:
    for policy in (
        sandboxio.NetworkPolicy(egress="learn"),
        sandboxio.NetworkPolicy(ingress_ports=(8080,)),
    ):
        with pytest.raises(sandboxio.CapabilityNotSupported):
            await sandboxio.create("fake://", host=fake.host, network=policy)
    assert fake.ops("create") == []
    policy = sandboxio.NetworkPolicy(egress="deny", allow=("example.test",))
    async with await sandboxio.create("fake://", host=fake.host, network=policy) as sb:
        assert sb.id


async def test_resources_below_a_cap_are_refused(fake: Fake) -> None:
    with pytest.raises(sandboxio.ConfigurationError, match="memory_mb"):
        await sandboxio.create("fake://", host=fake.host, resources=sandboxio.Resources(memory_mb=0))
    with pytest.raises(sandboxio.CapabilityNotSupported):
        await sandboxio.create("fake://", host=fake.host, resources=sandboxio.Resources(gpu="a100"))
    assert fake.ops("create") == []


async def test_kill_from_another_task(make_fake: object) -> None:
    fake = make_fake(HANG)  # type: ignore[operator]
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        task = asyncio.create_task(sb.run(["hang-here"], timeout=120))
        while not fake.ops("exec"):
            await asyncio.sleep(0.01)
        await sb.kill()
        r = await task
        assert r.exit_code == sandboxio.KILLED_EXIT
        with pytest.raises(sandboxio.SandboxGone):
            await sb.run(["true"])
    assert fake.ops("kill") == ["kill fake-0001"]


async def test_cancelled_create_leaves_no_sandbox(make_fake: object) -> None:
    fake = make_fake("      simulate:\n        create_takes: 200\n")  # type: ignore[operator]
    task = asyncio.create_task(sandboxio.create("fake://", host=fake.host, timeout=100))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    created = fake.ops("create")
    # Either the create was still running (then it finished and was killed) or not.
    assert [c.replace("create", "kill") for c in created] == fake.ops("kill")


def test_default_host_is_used_without_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "c.yaml").write_text(f"backend_path: [{os.environ['SBIO_TEST_BACKEND_DIR']}]\n")
    monkeypatch.setenv("SBIO_CONFIG", str(tmp_path / "c.yaml"))
    old = sandboxio.set_default_host(None)
    try:

        async def main() -> str:
            async with await sandboxio.create("fake://") as sb:
                return (await sb.run(["echo", "default"])).stdout

        assert asyncio.run(main()) == "default\n"
        assert any(b.name == "fake" for b in sandboxio.sync.backends())
    finally:
        h = sandboxio.set_default_host(old)
        if h is not None:
            h.close()
