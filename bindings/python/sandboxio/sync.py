# SPDX-License-Identifier: MIT
"""The synchronous facade: the async API's members, blocking.

``sandboxio.sync.create(...)`` returns a Sandbox used with ``with``. The C
library is synchronous, so these call it directly on the calling thread (no
event loop, no portal thread); only a streaming command runs on a thread of
its own, so its output can be iterated while it runs. Errors are the same
classes as in the async API.
"""

from __future__ import annotations

import threading
import warnings
from types import TracebackType
from typing import Mapping, Optional, Union

from ._api import DEFAULT_TIMEOUT
from ._core import Command, Host, _Handle, default_host
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


def create(
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
    """As sandboxio.create(), blocking."""
    h = host if host is not None else default_host()
    return Sandbox(
        h.create_handle(
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
    )


def connect(
    target: str,
    sandbox_id: str,
    *,
    require_isolation: Optional[IsolationTier] = None,
    host: Optional[Host] = None,
) -> Sandbox:
    """As sandboxio.connect(), blocking."""
    h = host if host is not None else default_host()
    return Sandbox(h.connect_handle(target, sandbox_id, require_isolation=require_isolation))


def backends(host: Optional[Host] = None) -> list[BackendInfo]:
    """As sandboxio.backends(), blocking."""
    return (host if host is not None else default_host()).backends()


class Sandbox(SandboxBase):
    """As sandboxio.Sandbox; ``with`` destroys it on leaving the block."""

    def __init__(self, handle: _Handle) -> None:
        super().__init__(handle)
        self.files = Files(handle)

    def run(
        self,
        cmd: Command,
        *,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        stdin: Union[bytes, str, None] = None,
    ) -> ExecResult:
        return self._h.exec(cmd, timeout=timeout, env=env, cwd=cwd, stdin=stdin)

    def stream(
        self,
        cmd: Command,
        *,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        stdin: Union[bytes, str, None] = None,
    ) -> Process:
        self._require_streaming()
        p = Process(self._h, cmd, timeout=timeout, env=env, cwd=cwd, stdin=stdin)
        self._h.track(p._pipe)
        return p

    def kill(self) -> None:
        self._h.kill()

    def close(self) -> None:
        self._h.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        try:
            self.close()
        except SandboxError as teardown:
            warnings.warn(OrphanedSandboxWarning(str(teardown)), stacklevel=2)


class Files:
    """As sandboxio.Files, blocking."""

    def __init__(self, handle: _Handle) -> None:
        self._h = handle

    def read(self, path: str) -> bytes:
        return self._h.read(path)

    def write(self, path: str, data: Union[bytes, str]) -> None:
        self._h.write(path, data)

    def list(self, path: str = ".") -> list[FileInfo]:
        return self._h.list(path)

    def mkdir(self, path: str, *, parents: bool = False) -> None:
        self._h.mkdir(path, parents)

    def remove(self, path: str) -> None:
        self._h.remove(path)


class Process(ProcessBase):
    """As sandboxio.Process: ``with sb.stream(cmd) as p: for chunk in p: ...``."""

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
        self._thread: Optional[threading.Thread] = None
        self._outcome: list[Union[ExecResult, BaseException]] = []

    def _start(self) -> threading.Thread:
        if self._thread is None:
            cmd, timeout, env, cwd, stdin = self._args
            h, pipe, token, outcome = self._h, self._pipe, self._token, self._outcome

            def work() -> None:
                try:
                    outcome.append(
                        h.exec(cmd, timeout=timeout, env=env, cwd=cwd, stdin=stdin, cancel=token, on_output=pipe.put)
                    )
                except BaseException as exc:
                    outcome.append(exc)
                finally:
                    pipe.end()

            self._thread = threading.Thread(target=work, name="sandboxio-stream")
            self._thread.start()
        return self._thread

    def _interrupt(self) -> None:
        self._pipe.abandon()
        if self._thread is not None and self._thread.is_alive():
            self._h.interrupt(self._token)

    def __enter__(self) -> Process:
        self._start()
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if self._thread is None:
            return
        self._interrupt()
        self._thread.join()
        if self._outcome and isinstance(self._outcome[0], ExecResult):
            self.returncode = self._outcome[0].exit_code

    def __iter__(self) -> Process:
        return self

    def __next__(self) -> OutputChunk:
        thread = self._start()
        item = self._pipe.get()
        if isinstance(item, OutputChunk):
            return item
        assert item is END
        thread.join()
        self._settle()
        raise StopIteration

    def wait(self) -> ExecResult:
        thread = self._start()
        self._pipe.abandon()
        thread.join()
        return self._settle()

    def _settle(self) -> ExecResult:
        outcome = self._outcome[0]
        if isinstance(outcome, BaseException):
            killed = self._killed_outcome(outcome)
            if killed is not None:
                return killed
            raise outcome
        self.returncode = outcome.exit_code
        return outcome

    def kill(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._killed = True
            self._h.interrupt(self._token)

    def __del__(self) -> None:
        self._pipe.abandon()


__all__ = ["create", "connect", "backends", "Sandbox", "Files", "Process"]
