# SPDX-License-Identifier: MIT
"""Files, the sync facade (and its parity with the async API), and secrets."""

from __future__ import annotations

import inspect
import logging
from typing import Any, Awaitable, Callable

import pytest

import sandboxio
import sandboxio.sync

from conftest import Fake

SECRET = "pl4nted-S3CRET-value-91f2"


async def test_files_round_trip(fake: Fake) -> None:
    blob = bytes(range(256)) * 17
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        await sb.files.mkdir("d/e", parents=True)
        await sb.files.write("d/e/blob.bin", blob)
        await sb.files.write("d/t.txt", "text ü")
        assert await sb.files.read("d/e/blob.bin") == blob
        assert await sb.files.read("/work/d/t.txt") == "text ü".encode()
        entries = await sb.files.list("d")
        assert [(e.name, e.is_dir) for e in entries] == [("e", True), ("t.txt", False)]
        assert entries[1].path == "/work/d/t.txt" and entries[1].size == len("text ü".encode())
        # A relative path means the same place for files and for commands.
        assert (await sb.run(["cat", "d/t.txt"])).stdout == "text ü"
        await sb.files.remove("d/e")
        assert [e.name for e in await sb.files.list("d")] == ["t.txt"]
        with pytest.raises(sandboxio.PathNotFound):
            await sb.files.read("d/e/blob.bin")
        with pytest.raises(sandboxio.PathNotFound):
            await sb.files.mkdir("x/y")  # no parents
        with pytest.raises(sandboxio.FileSystemError):
            await sb.files.read("d")  # a directory
    assert fake.ops("file_write") == ["file_write fake-0001 /work/d/e/blob.bin", "file_write fake-0001 /work/d/t.txt"]


def test_sync_facade(fake: Fake) -> None:
    with sandboxio.sync.create("fake://", host=fake.host, env={"A": "1"}) as sb:
        assert sb.id == "fake-0001" and sb.isolation is sandboxio.IsolationTier.CONTAINER
        r = sb.run(["printenv", "A"])
        assert (r.exit_code, r.stdout) == (0, "1\n")
        sb.files.write("f", b"\x00\x01")
        assert sb.files.read("f") == b"\x00\x01"
        assert [e.name for e in sb.files.list()] == ["f"]
        with sb.stream(["seq", "1", "5000"]) as p:
            data = b"".join(c.data for c in p)
            assert p.wait().exit_code == 0
        assert data == "".join(f"{i}\n" for i in range(1, 5001)).encode()
        with pytest.raises(sandboxio.PathNotFound):
            sb.files.read("nope")
        assert sb.capabilities == sandboxio.Capability.from_bits(sb.capabilities.value)
    assert sb.closed
    assert fake.ops("kill") == ["kill fake-0001"]
    with pytest.raises(sandboxio.ConfigurationError):
        sandboxio.sync.create("fake://", host=fake.host, require_isolation=sandboxio.IsolationTier.MICROVM)
    assert fake.ops("create") == ["create fake-0001"]
    assert any(b.name == "fake" for b in sandboxio.sync.backends(fake.host))


def test_sync_stream_early_exit_and_kill(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake('      scripts:\n        - match: "hang-here"\n          hang: true\n')
    with sandboxio.sync.create("fake://", host=fake.host) as sb:
        with sb.stream(["seq", "1", "100000000"]) as p:
            for _ in p:
                break
        with sb.stream(["hang-here"]) as p:
            while not fake.ops("exec")[1:]:
                pass
            p.kill()
            assert p.wait().exit_code == sandboxio.KILLED_EXIT
        assert sb.run(["echo", "ok"]).stdout == "ok\n"


def _public(cls: type) -> dict[str, Any]:
    # Inherited members too: the facades share a base (sandboxio._facade).
    return {
        n: inspect.getattr_static(cls, n)
        for n in dir(cls)
        if not n.startswith("_") or n in ("__aenter__", "__aexit__")
    }


def _params(fn: Any) -> list[tuple[str, Any, Any]]:
    if isinstance(fn, property):
        return []
    sig = inspect.signature(fn)
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


SYNC_NAME = {"__aenter__": "__enter__", "__aexit__": "__exit__", "__aiter__": "__iter__", "__anext__": "__next__"}


@pytest.mark.parametrize("name", ["Sandbox", "Files", "Process"])
def test_every_async_member_has_a_sync_twin(name: str) -> None:
    a, s = getattr(sandboxio, name), getattr(sandboxio.sync, name)
    for member, value in _public(a).items():
        twin = SYNC_NAME.get(member, member)
        assert hasattr(s, twin), f"sandboxio.sync.{name} lacks {twin}"
        other = getattr(s, twin)
        assert isinstance(other, property) == isinstance(value, property), member
        if inspect.iscoroutinefunction(value):
            assert not inspect.iscoroutinefunction(other), member
        if callable(value) and member not in SYNC_NAME:
            assert _params(value) == _params(other), f"{name}.{member}: signatures differ"


@pytest.mark.parametrize("name", ["create", "connect", "backends"])
def test_module_functions_have_sync_twins(name: str) -> None:
    assert inspect.iscoroutinefunction(getattr(sandboxio, name))
    twin = getattr(sandboxio.sync, name)
    assert not inspect.iscoroutinefunction(twin)
    assert _params(getattr(sandboxio, name)) == _params(twin)


async def test_connect_reattaches_and_never_creates(fake: Fake) -> None:
    sb = await sandboxio.create("fake://", host=fake.host)
    await sb.files.write("mark", b"here")
    again = await sandboxio.connect("fake://", sb.id, host=fake.host, require_isolation=sandboxio.IsolationTier.CONTAINER)
    assert again.id == sb.id and again.isolation is sandboxio.IsolationTier.CONTAINER
    assert await again.files.read("mark") == b"here"
    with pytest.raises(sandboxio.ConfigurationError):
        await sandboxio.connect("fake", sb.id, host=fake.host, require_isolation=sandboxio.IsolationTier.MICROVM)
    with pytest.raises(sandboxio.ConnectError):
        await sandboxio.connect("fake", "fake-9999", host=fake.host)
    with sandboxio.sync.connect("fake", sb.id, host=fake.host) as third:
        assert third.run(["cat", "mark"]).stdout == "here"
    # Closing any handle destroys the sandbox; the others then find it gone.
    assert fake.ops("create") == ["create fake-0001"]
    assert fake.ops("kill") == ["kill fake-0001"]
    with pytest.raises(sandboxio.SandboxGone):
        await again.run(["true"])
    await again.close()
    await sb.close()


async def test_a_planted_credential_appears_nowhere(fake: Fake, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="sandboxio")
    texts: list[str] = []

    def keep(exc: BaseException) -> None:
        texts.extend([str(exc), repr(exc), *(str(a) for a in exc.args)])
        if isinstance(exc, sandboxio.SandboxError):
            texts.extend([exc.message, exc.hint])

    # Refused targets carrying it.
    for target in (f"fake://?token={SECRET}", f"fake://user:{SECRET}@host/x", f"fake://x?{SECRET}=1"):
        with pytest.raises(sandboxio.ConfigurationError) as ei:
            await sandboxio.create(target, host=fake.host)
        keep(ei.value)
    # Bad values next to it are named by key, never shown.
    for bad in ({"K": 7}, {"K": SECRET + "\0"}):
        with pytest.raises(sandboxio.ConfigurationError) as ei:
            await sandboxio.create("fake://", host=fake.host, secrets=bad)  # type: ignore[arg-type]
        keep(ei.value)
    async with await sandboxio.create("fake://", host=fake.host, secrets={"TOKEN": SECRET}) as sb:
        texts.append(repr(sb))
        # It is in the sandbox (that is its purpose)...
        assert (await sb.run(["printenv", "TOKEN"])).stdout == SECRET + "\n"
        # ...and in no error the library builds from a request that names it.
        ops: list[Callable[[str], Awaitable[object]]] = [sb.files.read, sb.files.list, sb.files.remove]
        for op in ops:
            with pytest.raises(sandboxio.PathNotFound) as pe:
                await op(f"/nope/{SECRET}")
            keep(pe.value)
        with pytest.raises(sandboxio.SandboxError) as ee:
            await sb.run(["sh", "-c", f"exit 1; {SECRET}"], timeout=-1)
        keep(ee.value)
    texts.append(repr(sb))
    texts.extend(r.getMessage() for r in caplog.records)
    texts.extend(fake.calls())
    texts.append(fake.audit.read_text())
    leaked = [t for t in texts if SECRET in t]
    assert leaked == []
    assert any("***" in t or "secret" in t.lower() or "credential" in t.lower() for t in texts)
