# SPDX-License-Identifier: MIT
"""Streaming, cancellation, teardown and reference hygiene on the fake."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from typing import Callable

import pytest

import sandboxio
from sandboxio import _pipe

from conftest import Fake

HANG = '      scripts:\n        - match: "hang-here"\n          hang: true\n'


async def _started(fake: Fake, n: int = 1) -> None:
    for _ in range(1000):
        if len(fake.ops("exec")) >= n:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"no exec started: {fake.calls()}")


async def test_stream_delivers_every_byte_in_order(fake: Fake) -> None:
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        chunks: list[sandboxio.OutputChunk] = []
        async with sb.stream(["seq", "1", "20000"]) as p:
            async for chunk in p:
                chunks.append(chunk)
            r = await p.wait()
        assert r.exit_code == 0 and p.returncode == 0
        assert r.streamed and r.stdout == "" and r.stderr == ""
        assert {c.stream for c in chunks} == {"stdout"}
        assert b"".join(c.data for c in chunks) == "".join(f"{i}\n" for i in range(1, 20001)).encode()
        assert len(chunks) > 1


async def test_stream_separates_stdout_and_stderr(fake: Fake) -> None:
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        p = sb.stream("echo a; echo b >&2; echo c; exit 4")
        out, err = b"", b""
        async for chunk in p:
            if chunk.stream == "stdout":
                out += chunk.data
            else:
                err += chunk.data
        assert (out, err) == (b"a\nc\n", b"b\n")
        assert (await p.wait()).exit_code == 4
        assert (await p.wait()).exit_code == 4  # idempotent


async def test_stream_timeout_raises_from_iteration_and_wait(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake(HANG)
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        with pytest.raises(sandboxio.ExecutionTimeout):
            async with sb.stream(["hang-here"], timeout=0.2) as p:
                async for _ in p:
                    pass
        with pytest.raises(sandboxio.ExecutionTimeout):
            await sb.stream(["hang-here"], timeout=0.2).wait()
        assert (await sb.run(["echo", "ok"])).stdout == "ok\n"


async def test_wait_discards_unread_output(fake: Fake) -> None:
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        async with sb.stream(["seq", "1", "300000"]) as p:
            r = await p.wait()
        assert r.exit_code == 0


async def test_early_break_kills_the_command(fake: Fake) -> None:
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        async with sb.stream(["seq", "1", "100000000"]) as p:
            async for chunk in p:
                assert chunk.data.startswith(b"1\n")
                break
        # The block ended the command; the sandbox goes on.
        assert (await sb.run(["echo", "next"])).stdout == "next\n"
        assert fake.ops("kill") == []


async def test_process_kill_gives_137(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake(HANG)
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        async with sb.stream(["hang-here"]) as p:
            await _started(fake)
            await p.kill()
            assert (await p.wait()).exit_code == sandboxio.KILLED_EXIT
        assert p.returncode == sandboxio.KILLED_EXIT


async def test_cancelling_a_streaming_task_kills_the_command(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake(HANG)

    async def consume(sb: sandboxio.Sandbox) -> None:
        async with sb.stream(["hang-here"]) as p:
            async for _ in p:
                pass

    async with await sandboxio.create("fake://", host=fake.host) as sb:
        task = asyncio.create_task(consume(sb))
        await _started(fake)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (await sb.run(["echo", "alive"])).stdout == "alive\n"
    assert fake.ops("kill") == ["kill fake-0001"]


async def test_cancelling_the_task_that_owns_the_sandbox_destroys_it(make_fake: Callable[..., Fake]) -> None:
    fake = make_fake(HANG)

    async def job() -> None:
        async with await sandboxio.create("fake://", host=fake.host) as sb:
            await sb.run(["hang-here"], timeout=120)

    task = asyncio.create_task(job())
    await _started(fake)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert fake.ops("kill") == ["kill fake-0001"]


async def test_no_callback_after_close(monkeypatch: pytest.MonkeyPatch, fake: Fake) -> None:
    calls = 0
    lock = threading.Lock()
    real_put = _pipe.Pipe.put

    def counting_put(self: _pipe.Pipe, stream: int, data: bytes) -> None:
        nonlocal calls
        with lock:
            calls += 1
        real_put(self, stream, data)

    monkeypatch.setattr(_pipe.Pipe, "put", counting_put)
    sb = await sandboxio.create("fake://", host=fake.host)
    p = sb.stream(["seq", "1", "100000000"])
    await p.__aenter__()
    while True:
        with lock:
            if calls > 10:
                break
        await asyncio.sleep(0.01)
    # Nobody reads: the command is blocked on back-pressure when the sandbox closes.
    await sb.close()
    with lock:
        at_close = calls
    await asyncio.sleep(0.3)
    with lock:
        assert calls == at_close
    await p.__aexit__(None, None, None)
    assert fake.ops("kill") == ["kill fake-0001"]


async def test_closing_the_host_ends_an_unread_stream(make_fake: Callable[..., Fake]) -> None:
    # The command is blocked on back-pressure (nobody reads); closing the
    # host must abandon its pipe, or the close would wait for ever.
    fake = make_fake()
    sb = await sandboxio.create("fake://", host=fake.host)
    p = sb.stream(["seq", "1", "100000000"])
    await p.__aenter__()
    while p._pipe._bytes < _pipe.LIMIT:
        await asyncio.sleep(0.01)
    loop = asyncio.get_running_loop()
    await asyncio.wait_for(loop.run_in_executor(None, fake.host.close), timeout=60)
    assert sb.closed
    await p.__aexit__(None, None, None)
    assert fake.ops("kill") == ["kill fake-0001"]


async def test_buffered_output_is_bounded(monkeypatch: pytest.MonkeyPatch, fake: Fake) -> None:
    peak = 0
    real_put = _pipe.Pipe.put

    def watching_put(self: _pipe.Pipe, stream: int, data: bytes) -> None:
        nonlocal peak
        real_put(self, stream, data)
        peak = max(peak, self._bytes)

    monkeypatch.setattr(_pipe.Pipe, "put", watching_put)
    monkeypatch.setattr(_pipe, "LIMIT", 64 * 1024)
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        total = 0
        async with sb.stream(["seq", "1", "100000"]) as p:
            async for chunk in p:
                if total == 0:
                    await asyncio.sleep(0.5)  # a reader that falls behind
                total += len(chunk.data)
        assert total == sum(len(f"{i}\n") for i in range(1, 100001))
    # The writer waited for the reader: never more than the limit (plus one chunk) held.
    assert 0 < peak <= 64 * 1024 + 64


async def test_no_reference_cycle_keeps_a_sandbox_alive(fake: Fake) -> None:
    gc.collect()
    gc.disable()
    try:
        sb = await sandboxio.create("fake://", host=fake.host)
        await sb.run(["echo", "x"])
        await sb.files.write("f", b"1")
        async with sb.stream(["seq", "1", "100"]) as p:
            async for _ in p:
                pass
            await p.wait()
        refs: list[weakref.ref[object]] = [weakref.ref(sb), weakref.ref(sb._h), weakref.ref(p), weakref.ref(sb.files)]
        del sb, p
        # A call's thread may still be unwinding after its result arrived
        # (its frame holds the handle until it returns): that is no cycle.
        for t in threading.enumerate():
            if t.name.startswith("sandboxio-"):
                t.join()
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        gc.enable()
    # Dropped without close: the handle's finaliser destroyed the sandbox.
    assert fake.ops("kill") == ["kill fake-0001"]


async def test_many_sandboxes_concurrently(fake: Fake) -> None:
    async def one(i: int) -> str:
        async with await sandboxio.create("fake://", host=fake.host) as sb:
            return (await sb.run(["echo", str(i)])).stdout

    outs = await asyncio.gather(*(one(i) for i in range(12)))
    assert outs == [f"{i}\n" for i in range(12)]
    assert len(fake.ops("kill")) == 12


async def test_concurrent_calls_on_one_sandbox_are_serialised(fake: Fake) -> None:
    async with await sandboxio.create("fake://", host=fake.host) as sb:
        results = await asyncio.gather(*(sb.run(["echo", str(i)]) for i in range(20)))
        assert [r.stdout for r in results] == [f"{i}\n" for i in range(20)]
