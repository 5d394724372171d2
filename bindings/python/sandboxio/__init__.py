# SPDX-License-Identifier: MIT
"""sandboxio: run code in sandboxes of any provider, with the strength of
their isolation reported and enforceable.

A Python binding over libsandboxio's C API (ctypes; no compiled extension):
every backend the C library loads, its tier logic, configuration, audit and
tracing, from Python.

    import asyncio, sandboxio

    async def main() -> None:
        async with await sandboxio.create("fake://") as sb:
            print((await sb.run(["echo", "hi"])).stdout)

    asyncio.run(main())

The blocking twin of every member is in ``sandboxio.sync``.
"""

from __future__ import annotations

from ._api import DEFAULT_TIMEOUT, Files, Process, Sandbox, backends, connect, create
from ._facade import KILLED_EXIT
from ._core import Host, default_host, set_default_host
from ._lib import LibraryNotFound
from .errors import (
    AuditSinkError,
    AuthError,
    BackendNotFound,
    BackendUnavailable,
    Cancelled,
    CapabilityNotSupported,
    ConfigurationError,
    ConnectError,
    CreateTimeout,
    CreationError,
    ExecutionError,
    ExecutionTimeout,
    FileSystemError,
    InternalError,
    InvalidArgument,
    NetworkPolicyViolation,
    OrphanedSandboxWarning,
    PathNotFound,
    RateLimitError,
    ResourceLimitExceeded,
    SandboxError,
    SandboxGone,
    SandboxTimeout,
    SandboxWarning,
)
from .models import (
    BackendInfo,
    Capability,
    ExecResult,
    FileInfo,
    IsolationTier,
    Mechanism,
    NetworkPolicy,
    OutputChunk,
    Resources,
)

__version__ = "0.1.0"


def library_version() -> str:
    """The version of the libsandboxio actually loaded ("0.1.0")."""
    from ._lib import lib, text

    return text(lib().sbio_version())


__all__ = [
    "DEFAULT_TIMEOUT",
    "KILLED_EXIT",
    "AuditSinkError",
    "AuthError",
    "BackendInfo",
    "BackendNotFound",
    "BackendUnavailable",
    "Cancelled",
    "Capability",
    "CapabilityNotSupported",
    "ConfigurationError",
    "ConnectError",
    "CreateTimeout",
    "CreationError",
    "ExecResult",
    "ExecutionError",
    "ExecutionTimeout",
    "FileInfo",
    "FileSystemError",
    "Files",
    "Host",
    "InternalError",
    "InvalidArgument",
    "IsolationTier",
    "LibraryNotFound",
    "Mechanism",
    "NetworkPolicy",
    "NetworkPolicyViolation",
    "OrphanedSandboxWarning",
    "OutputChunk",
    "PathNotFound",
    "Process",
    "RateLimitError",
    "ResourceLimitExceeded",
    "Resources",
    "Sandbox",
    "SandboxError",
    "SandboxGone",
    "SandboxTimeout",
    "SandboxWarning",
    "backends",
    "connect",
    "create",
    "default_host",
    "library_version",
    "set_default_host",
    "sync",
]

from . import sync  # noqa: E402  (the facade needs the names above)
