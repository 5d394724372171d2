# SPDX-License-Identifier: MIT
"""The async API: create(), Sandbox, Files, Process, backends()."""

from __future__ import annotations

import asyncio
import warnings
from types import TracebackType
from typing import Mapping, Optional, Union

from . import _aio
from ._core import CancelToken, Command, Host, _Handle, default_host
from ._facade import ProcessBase, SandboxBase
from ._pipe import END
from .errors import OrphanedSandboxWarning, SandboxError
from .models import (
    BackendInfo,
    ExecResult,
    FileInfo,
    IsolationTier,
    NetworkPolicy,
    OutputChunk,
    Resources,
)

DEFAULT_TIMEOUT = 300.0


async def create(
    target: Optional[str] = None,
    *,
    template: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    secrets: Optional[Mapping[str, str]] = None,
    metadata: Optional[Mapping[str, str]] = None,
    timeout: float = DEFAULT_TIMEOUT,
    require_isolation: Optional[IsolationTier] = None,
    network: Optional[NetworkPolicy] = None,
    resources: Optional[Resources] = None,
    host: Optional[Host] = None,
) -> Sandbox:
    """Creates a sandbox from a target ("docker://python:3.12-slim", "e2b://",
    "fake://"; None: the configured default backend).

    An isolation requirement is checked against the backend's plan before
    anything is provisioned. If the awaiting task is cancelled while the
    backend is creating, the new sandbox is destroyed before the
    cancellation propagates.
    """

    def work() -> _Handle:
        h = host if host is not None else default_host()
        return h.create_handle(
            target,
            template=template,
            env=env,
            secrets=secrets,
            metadata=metadata,
            timeout=timeout,
            require_isolation=require_isolation,
            network=network,
            resources=resources,
        )

    fut = _aio.start(work, "create")
    try:
        handle = await asyncio.shield(fut)
    except asyncio.CancelledError:
        await _aio.finish(fut)
        if not fut.cancelled() and fut.exception() is None:
            orphan = fut.result()
            await _aio.finish(_aio.start(orphan.close, "close"))
        raise
    return Sandbox(handle)


async def connect(
    target: str,
    sandbox_id: str,
    *,
    require_isolation: Optional[IsolationTier] = None,
    host: Optional[Host] = None,
) -> Sandbox:
    """Re-attaches to a live sandbox this project manages ("docker://" or
    "docker", and its id); never creates one. The fleet floor and
    `require_isolation` are checked against the mechanism the backend reports
    for it before a handle is returned; an unknown or dead id is a
    ConnectError. Closing the result destroys the sandbox, as for one created."""

    def work() -> _Handle:
        h = host if host is not None else default_host()
        return h.connect_handle(target, sandbox_id, require_isolation=require_isolation)

    fut = _aio.start(work, "connect")
    try:
        handle = await asyncio.shield(fut)
    except asyncio.CancelledError:
        await _aio.finish(fut)
        if not fut.cancelled() and fut.exception() is None:
            await _aio.finish(_aio.start(fut.result().close, "close"))
        raise
    return Sandbox(handle)


async def backends(host: Optional[Host] = None) -> list[BackendInfo]:
    """Every backend the library found, with its tier, claimed tier, sources
    and why it is refused or UNKNOWN."""
    return await _aio.call(lambda: (host if host is not None else default_host()).backends(), "backends")


class Sandbox(SandboxBase):
    """A live sandbox. ``async with`` destroys it on leaving the block,
    whatever happened in it; ``await sb.close()`` does the same."""

    def __init__(self, handle: _Handle) -> None:
        super().__init__(handle)
        self.files = Files(handle)

    async def run(
        self,
        cmd: Command,
        *,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        stdin: Union[bytes, str, None] = None,
    ) -> ExecResult:
        """Runs a command to completion. A list is argv (never a shell); a str
        is a script for the backend's shell. timeout=None inherits the
        sandbox's timeout (never unbounded). Cancelling the awaiting task
        kills the command (the whole sandbox where the backend cannot stop
        one command)."""
        h = self._h
        token = CancelToken()
        return await _aio.call(
            lambda: h.exec(cmd, timeout=timeout, env=env, cwd=cwd, stdin=stdin, cancel=token),
            "run",
            on_cancel=lambda: h.interrupt(token),
        )

    def stream(
        self,
        cmd: Command,
        *,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        stdin: Union[bytes, str, None] = None,
    ) -> Process:
        """A streaming command: ``async with sb.stream(cmd) as p: async for
        chunk in p: ...``, then ``await p.wait()``. It starts on entering the
        block (or on the first iteration or wait)."""
        self._require_streaming()
        p = Process(self._h, cmd, timeout=timeout, env=env, cwd=cwd, stdin=stdin)
        self._h.track(p._pipe)
        return p

    async def kill(self) -> None:
        """Ends the sandbox now (idempotent); any task, also while a command runs."""
        await _aio.call(self._h.kill, "kill")

    async def close(self) -> None:
        """Destroys the sandbox and frees it (idempotent). Runs to the end even
        if the awaiting task is cancelled meanwhile."""
        fut = _aio.start(self._h.close, "close")
        try:
            await asyncio.shield(fut)
        except asyncio.CancelledError:
            await _aio.finish(fut)
            raise

    async def __aenter__(self) -> Sandbox:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        try:
            await self.close()
        except SandboxError as teardown:
            # A failed teardown never replaces what the block raised; alone it
            # warns: the message names the id and labels for `sbio reap`.
            warnings.warn(OrphanedSandboxWarning(str(teardown)), stacklevel=2)


class Files:
    """The sandbox's filesystem. Relative paths resolve against the same work
    directory commands start in. Bytes in, bytes out."""

    def __init__(self, handle: _Handle) -> None:
        self._h = handle

    async def read(self, path: str) -> bytes:
        return await _aio.call(lambda: self._h.read(path), "read")

    async def write(self, path: str, data: Union[bytes, str]) -> None:
        await _aio.call(lambda: self._h.write(path, data), "write")

    async def list(self, path: str = ".") -> list[FileInfo]:
        return await _aio.call(lambda: self._h.list(path), "list")

    async def mkdir(self, path: str, *, parents: bool = False) -> None:
        await _aio.call(lambda: self._h.mkdir(path, parents), "mkdir")

    async def remove(self, path: str) -> None:
        await _aio.call(lambda: self._h.remove(path), "remove")


class Process(ProcessBase):
    """A command started by Sandbox.stream(): an async iterator of
    OutputChunk (in order within each stream) and an awaitable exit.

    Leaving the ``async with`` block kills the command if it still runs,
    after full iteration, an early break, an exception or a cancellation;
    so does cancelling a task awaiting it."""

    def __init__(
        self,
        handle: _Handle,
        cmd: Command,
        *,
        timeout: Optional[float],
        env: Optional[Mapping[str, str]],
        cwd: Optional[str],
        stdin: Union[bytes, str, None],
    ) -> None:
        super().__init__(handle, cmd, timeout=timeout, env=env, cwd=cwd, stdin=stdin)
        self._fut: Optional[asyncio.Future[ExecResult]] = None

    def _start(self) -> asyncio.Future[ExecResult]:
        if self._fut is None:
            cmd, timeout, env, cwd, stdin = self._args
            h, pipe, token = self._h, self._pipe, self._token

            # A function of locals only: the C thread never references the
            # Process, so dropping the Process abandons the pipe (__del__).
            def work() -> ExecResult:
                try:
                    return h.exec(
                        cmd, timeout=timeout, env=env, cwd=cwd, stdin=stdin, cancel=token, on_output=pipe.put
                    )
                finally:
                    pipe.end()

            self._fut = _aio.start(work, "stream")
        return self._fut

    def _interrupt(self) -> None:
        self._pipe.abandon()
        if self._fut is not None and not self._fut.done():
            self._h.interrupt(self._token)

    async def __aenter__(self) -> Process:
        self._start()
        return self

    async def __aexit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if self._fut is None:
            return
        self._interrupt()
        await _aio.finish(self._fut)
        # Leaving the block never raises the command's outcome: iteration
        # and wait() do.
        if not self._fut.cancelled() and self._fut.exception() is None:
            self.returncode = self._fut.result().exit_code

    def __aiter__(self) -> Process:
        return self

    async def __anext__(self) -> OutputChunk:
        fut = self._start()
        loop = asyncio.get_running_loop()
        while True:
            event = asyncio.Event()

            def wake(event: asyncio.Event = event) -> None:
                try:
                    loop.call_soon_threadsafe(event.set)
                except RuntimeError:  # the loop is closed: nobody is reading
                    pass

            item = self._pipe.poll(wake)
            if isinstance(item, OutputChunk):
                return item
            if item is END:
                try:
                    await asyncio.wait([fut])  # its outcome is read by _settle
                except asyncio.CancelledError:
                    self._interrupt()
                    await _aio.finish(fut)
                    raise
                self._settle()  # a failed command raises here (ExecutionTimeout, ...)
                raise StopAsyncIteration
            try:
                await event.wait()
            except asyncio.CancelledError:
                self._interrupt()
                await _aio.finish(fut)
                raise

    async def wait(self) -> ExecResult:
        """The command's end (idempotent). Output not yet read is discarded.
        The result has streamed=True and empty stdout/stderr."""
        fut = self._start()
        self._pipe.abandon()
        try:
            await asyncio.wait([fut])  # its outcome is read by _settle
        except asyncio.CancelledError:
            self._interrupt()
            await _aio.finish(fut)
            raise
        return self._settle()

    def _settle(self) -> ExecResult:
        assert self._fut is not None and self._fut.done()
        exc = self._fut.exception()
        if exc is not None:
            killed = self._killed_outcome(exc)
            if killed is not None:
                return killed
            raise exc
        result = self._fut.result()
        self.returncode = result.exit_code
        return result

    async def kill(self) -> None:
        """Stops the command (its sandbox too where the backend cannot stop
        one command); wait() then returns exit code 137."""
        if self._fut is not None and not self._fut.done():
            self._killed = True
            await _aio.call(lambda: self._h.interrupt(self._token), "kill")

    def __del__(self) -> None:
        self._pipe.abandon()
        fut = getattr(self, "_fut", None)
        if fut is not None and fut.done() and not fut.cancelled():
            fut.exception()  # consumed: nobody will ask any more
