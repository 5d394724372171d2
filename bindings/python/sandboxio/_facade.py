# SPDX-License-Identifier: MIT
"""What the async API (_api.py) and the sync facade (sync.py) share.

The two differ only in how they wait for the C library (an executor and an
event loop, or the calling thread); a sandbox's facts, the streaming check
and how a killed command ends are the same, so they are written once here
rather than kept in step by hand.
"""

from __future__ import annotations

from typing import Mapping, Optional, Union

from ._core import CancelToken, Command, _Handle
from ._pipe import Pipe
from .errors import Cancelled, CapabilityNotSupported, SandboxGone
from .models import Capability, ExecResult, IsolationTier

#: The exit code of a command that was killed.
KILLED_EXIT = 137


class SandboxBase:
    """A sandbox's read-only facts, read from its handle."""

    def __init__(self, handle: _Handle) -> None:
        self._h = handle

    @property
    def id(self) -> str:
        return self._h.id

    @property
    def backend(self) -> str:
        return self._h.backend

    @property
    def mechanism(self) -> str:
        return self._h.mechanism

    @property
    def isolation(self) -> IsolationTier:
        """The tier observed for this sandbox (its mechanism's)."""
        return self._h.isolation

    @property
    def capabilities(self) -> Capability:
        return self._h.capabilities

    @property
    def closed(self) -> bool:
        return self._h.closed

    def __repr__(self) -> str:
        return f"<{self._h.describe()}>"

    def _require_streaming(self) -> None:
        """stream() is refused up front on a backend that cannot stream, not
        when the command would start."""
        if Capability.STREAMING not in self._h.capabilities:
            raise CapabilityNotSupported(
                f"backend {self._h.backend} cannot stream output",
                "use run(), which returns the output when the command ends",
                backend=self._h.backend,
                sandbox_id=self._h.id,
            )


class ProcessBase:
    """A streaming command's state before it starts: the command, the pipe
    its output goes through and the token that interrupts it."""

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
        self._h = handle
        self._pipe = Pipe()
        self._token = CancelToken()
        self._args = (cmd, timeout, env, cwd, stdin)
        self._killed = False
        self.returncode: Optional[int] = None

    def _killed_outcome(self, exc: BaseException) -> Optional[ExecResult]:
        """The result of a command killed on request (kill()): that is its
        outcome, not an error. None when exc is to be raised."""
        if self._killed and isinstance(exc, (Cancelled, SandboxGone)):
            self.returncode = KILLED_EXIT
            return ExecResult(exit_code=KILLED_EXIT, stdout="", stderr="", streamed=True)
        return None
