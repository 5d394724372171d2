# SPDX-License-Identifier: MIT
"""The error catalogue: one class per stable code (docs/errors.md).

Every error carries ``code`` ("SBX_E1000"), ``message`` and ``hint`` (the
exact fix, "" when there is none), and where the library knows them the
``backend``, the ``sandbox_id`` and the provider's HTTP ``provider_status``.
The library redacts secrets from messages and hints before they reach
Python; nothing here adds a value the caller passed in.
"""

from __future__ import annotations

from typing import ClassVar, Optional

DOCS_URL = "https://docs.sandboxio.dev/errors/"


class SandboxError(Exception):
    """Base of every sandboxio error. Not raised itself."""

    code: ClassVar[str] = ""
    number: ClassVar[int] = 0

    def __init__(
        self,
        message: str,
        hint: str = "",
        *,
        backend: str = "",
        sandbox_id: str = "",
        provider_status: int = 0,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.backend = backend
        self.sandbox_id = sandbox_id
        self.provider_status = provider_status

    @property
    def url(self) -> str:
        return DOCS_URL + self.code

    def __str__(self) -> str:
        text = f"[{self.code}] {self.message}"
        if self.hint:
            text += f"\n  Fix:  {self.hint}"
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, hint={self.hint!r})"

    def __reduce__(self) -> tuple[object, ...]:
        return (
            _rebuild,
            (type(self), self.message, self.hint, self.backend, self.sandbox_id, self.provider_status),
        )


def _rebuild(
    cls: type[SandboxError], message: str, hint: str, backend: str, sandbox_id: str, provider_status: int
) -> SandboxError:
    return cls(message, hint, backend=backend, sandbox_id=sandbox_id, provider_status=provider_status)


class SandboxTimeout(SandboxError):
    """Base of the timeouts (CreateTimeout, ExecutionTimeout). Not raised itself."""


class ConfigurationError(SandboxError):
    """The request was not understood or cannot be met as asked."""

    code = "SBX_E1000"
    number = 1000


class BackendNotFound(ConfigurationError):
    """No backend has that name."""

    code = "SBX_E1001"
    number = 1001


class BackendUnavailable(ConfigurationError):
    """The backend exists but is refused, disabled or failed to load."""

    code = "SBX_E1002"
    number = 1002


class CapabilityNotSupported(SandboxError):
    """The backend does not declare a capability the call needs."""

    code = "SBX_E1101"
    number = 1101


class CreationError(SandboxError):
    """The backend failed to produce a usable sandbox."""

    code = "SBX_E1201"
    number = 1201


class ConnectError(SandboxError):
    """The backend refused a management call (connect, kill, list)."""

    code = "SBX_E1202"
    number = 1202


class CreateTimeout(CreationError, SandboxTimeout):
    """The create did not finish within its timeout."""

    code = "SBX_E1203"
    number = 1203


class SandboxGone(SandboxError):
    """The sandbox no longer exists (killed, expired, reclaimed)."""

    code = "SBX_E1204"
    number = 1204


class ExecutionError(SandboxError):
    """A command failed to run, or exited non-zero and the caller asked to raise."""

    code = "SBX_E1301"
    number = 1301

    def __init__(
        self,
        message: str,
        hint: str = "",
        *,
        backend: str = "",
        sandbox_id: str = "",
        provider_status: int = 0,
        result: Optional[object] = None,
    ) -> None:
        super().__init__(message, hint, backend=backend, sandbox_id=sandbox_id, provider_status=provider_status)
        self.result = result


class ExecutionTimeout(SandboxTimeout):
    """A command exceeded its timeout and was killed."""

    code = "SBX_E1302"
    number = 1302


class NetworkPolicyViolation(SandboxError):
    """Code in the sandbox attempted egress the policy denies."""

    code = "SBX_E1401"
    number = 1401


class ResourceLimitExceeded(SandboxError):
    """A resource cap was hit."""

    code = "SBX_E1402"
    number = 1402


class AuthError(SandboxError):
    """A credential is missing or was rejected."""

    code = "SBX_E1501"
    number = 1501


class RateLimitError(SandboxError):
    """The provider throttled the request."""

    code = "SBX_E1502"
    number = 1502


class AuditSinkError(SandboxError):
    """An audit sink failed under on_failure: fail."""

    code = "SBX_E1601"
    number = 1601


class FileSystemError(SandboxError):
    """A file operation failed (not a missing path)."""

    code = "SBX_E1700"
    number = 1700


class PathNotFound(FileSystemError):
    """A sandbox path does not exist."""

    code = "SBX_E1701"
    number = 1701


class InternalError(SandboxError):
    """A defect or a host failure (out of memory, I/O) inside the library."""

    code = "SBX_E1900"
    number = 1900


class InvalidArgument(SandboxError):
    """The library was called wrongly (a defect in this binding or its caller)."""

    code = "SBX_E1901"
    number = 1901


class Cancelled(SandboxError):
    """The caller cancelled this command; the sandbox is still usable.

    An awaiting task that is cancelled sees asyncio.CancelledError, never this."""

    code = "SBX_E1902"
    number = 1902


class SandboxWarning(UserWarning):
    """Base of sandboxio's warnings."""


class OrphanedSandboxWarning(SandboxWarning):
    """A sandbox could not be destroyed; `sbio reap` finishes the job."""


#: Catalogue number -> class.
_CLASSES: tuple[type[SandboxError], ...] = (
    ConfigurationError,
    BackendNotFound,
    BackendUnavailable,
    CapabilityNotSupported,
    CreationError,
    ConnectError,
    CreateTimeout,
    SandboxGone,
    ExecutionError,
    ExecutionTimeout,
    NetworkPolicyViolation,
    ResourceLimitExceeded,
    AuthError,
    RateLimitError,
    AuditSinkError,
    FileSystemError,
    PathNotFound,
    InternalError,
    InvalidArgument,
    Cancelled,
)
BY_NUMBER: dict[int, type[SandboxError]] = {cls.number: cls for cls in _CLASSES}


def for_number(
    number: int, message: str, hint: str = "", *, backend: str = "", sandbox_id: str = "", provider_status: int = 0
) -> SandboxError:
    """The error of a catalogue number; an unknown one is an InternalError naming it."""
    cls = BY_NUMBER.get(number)
    if cls is None:
        message = f"libsandboxio returned an unknown status {number}: {message}"
        cls = InternalError
    return cls(message, hint, backend=backend, sandbox_id=sandbox_id, provider_status=provider_status)

