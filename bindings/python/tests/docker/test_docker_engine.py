# SPDX-License-Identifier: MIT
"""The Docker backend through Python, on the harness's private engine
(tests/docker/engine.sh; ctest's docker_engine fixture starts it and
SBIO_TEST_DOCKER_STATE names its state file). Network mode none."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Iterator, Optional

import pytest

import sandboxio
from sandboxio import IsolationTier

STATE_DIR = os.environ.get("SBIO_TEST_DOCKER_STATE", "")
MIB = 1024 * 1024


def _state() -> dict[str, str]:
    if not STATE_DIR:
        pytest.skip("SBIO_TEST_DOCKER_STATE is not set (ctest's docker_engine fixture sets it)")
    path = Path(STATE_DIR) / "state"
    in_ci = os.environ.get("CI") == "true"
    if not path.exists():
        if in_ci:
            pytest.fail(f"no engine state at {path}")
        pytest.skip(f"no engine state at {path} (did docker_engine_start run?)")
    state = dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    if "error" in state:
        pytest.fail(f"no engine: {state['error']}")
    if "skip" in state:
        if in_ci:
            pytest.fail(f"no engine under CI=true: {state['skip']}")
        pytest.skip(f"docker tests: {state['skip']}")
    return state


@pytest.fixture
def engine() -> Iterator[dict[str, str]]:
    state = _state()
    yield state
    # Nothing this test created may be left on the engine.
    left = _managed(state)
    assert left == [], f"containers left: {left}"


def _managed(state: dict[str, str]) -> list[str]:
    out = subprocess.run(
        ["docker", "-H", state["host"], "ps", "-aq", "--filter", "label=io.sandboxio.managed=true"],
        capture_output=True, text=True, timeout=60, check=True,
    )
    return out.stdout.split()


def _host(tmp: Path, state: dict[str, str], runtime: Optional[str] = None) -> sandboxio.Host:
    config = tmp / ("config-" + (runtime or "runc") + ".yaml")
    text = (
        "backends:\n  docker:\n    settings:\n"
        f"      host: {state['host']}\n      image: {state['image']}\n      pull: never\n"
    )
    if runtime:
        text += f"      runtime: {runtime}\n"
    config.write_text(text)
    return sandboxio.Host(config_file=str(config))


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


async def test_create_run_files(engine: dict[str, str], tmp_path: Path) -> None:
    with _host(tmp_path, engine) as host:
        async with await sandboxio.create("docker://", host=host, env={"A": "b"}, metadata={"suite": "python"}) as sb:
            assert sb.backend == "docker"
            assert sb.isolation is IsolationTier.CONTAINER
            r = await sb.run(["sh", "-c", "echo $A; echo err >&2; exit 5"])
            assert (r.exit_code, r.stdout, r.stderr) == (5, "b\n", "err\n")
            assert (await sb.run("cat", stdin=b"in\x00put")).stdout_bytes == b"in\x00put"
            blob = os.urandom(MIB) + b"\x00end"
            await sb.files.mkdir("d/e", parents=True)
            await sb.files.write("d/e/blob.bin", blob)
            assert await sb.files.read("d/e/blob.bin") == blob
            assert [(e.name, e.size) for e in await sb.files.list("d/e")] == [("blob.bin", len(blob))]
            assert (await sb.run(["wc", "-c", "d/e/blob.bin"])).stdout.split()[0] == str(len(blob))
            await sb.files.remove("d")
            with pytest.raises(sandboxio.PathNotFound):
                await sb.files.read("d/e/blob.bin")
            with pytest.raises(sandboxio.ExecutionTimeout):
                await sb.run(["sleep", "30"], timeout=0.5)
        assert sb.closed


async def test_stream_64_mib_in_bounded_memory(engine: dict[str, str], tmp_path: Path) -> None:
    total = 64 * MIB
    with _host(tmp_path, engine) as host:
        async with await sandboxio.create("docker://", host=host) as sb:
            base = _rss()
            peak = base
            got = 0
            n = 0
            async with sb.stream(["head", "-c", str(total), "/dev/zero"], timeout=240) as p:
                async for chunk in p:
                    got += len(chunk.data)
                    n += 1
                    if n % 64 == 0:
                        peak = max(peak, _rss())
                        await asyncio.sleep(0)  # a reader no faster than it must be
                r = await p.wait()
            assert r.exit_code == 0
            assert got == total
            # Far less than the 64 MiB streamed is ever held: the pipe's bound
            # (4 MiB) plus the library's and the allocator's slack. (Under
            # ASan freed memory sits in its quarantine, so RSS says nothing.)
            if os.environ.get("SBIO_PY_PRELOAD_ASAN") == "1":
                return
            print(f"streamed {got / MIB:.0f} MiB in {n} chunks; RSS grew by {(peak - base) / MIB:.1f} MiB")
            assert peak - base < 32 * MIB, f"RSS grew by {(peak - base) / MIB:.1f} MiB"


async def test_kill_from_another_task(engine: dict[str, str], tmp_path: Path) -> None:
    with _host(tmp_path, engine) as host:
        async with await sandboxio.create("docker://", host=host) as sb:
            task = asyncio.create_task(sb.run(["sleep", "120"], timeout=200))
            await asyncio.sleep(1.0)
            await sb.kill()
            try:
                r = await task
                assert r.exit_code == sandboxio.KILLED_EXIT
            except sandboxio.SandboxGone:
                pass
            with pytest.raises(sandboxio.SandboxGone):
                await sb.run(["true"])


async def test_cancelling_a_task_stops_the_command(engine: dict[str, str], tmp_path: Path) -> None:
    with _host(tmp_path, engine) as host:
        async with await sandboxio.create("docker://", host=host) as sb:
            task = asyncio.create_task(sb.run(["sleep", "120"], timeout=200))
            await asyncio.sleep(1.0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            if sb._h.cancellable:
                assert (await sb.run(["echo", "still"])).stdout == "still\n"
            else:
                with pytest.raises(sandboxio.SandboxGone):
                    await sb.run(["true"])
        assert sb.closed


async def test_gvisor_under_runsc(engine: dict[str, str], tmp_path: Path) -> None:
    if engine.get("runsc") != "1":
        if os.environ.get("CI") == "true":
            pytest.fail("the engine has no runsc runtime under CI=true")
        pytest.skip("the engine has no runsc runtime")
    with _host(tmp_path, engine, runtime="runsc") as host:
        async with await sandboxio.create(
            "docker://", host=host, require_isolation=IsolationTier.GVISOR
        ) as sb:
            assert sb.isolation is IsolationTier.GVISOR
            assert sb.mechanism == "runsc"
            # gVisor's kernel announces itself.
            r = await sb.run(["dmesg"])
            assert "gVisor" in r.stdout + r.stderr, r
    with _host(tmp_path, engine, runtime="runc") as host:
        # runc cannot meet the requirement: refused, nothing made.
        with pytest.raises(sandboxio.ConfigurationError):
            await sandboxio.create("docker://", host=host, require_isolation=IsolationTier.GVISOR)
