# SPDX-License-Identifier: MIT
"""Value objects: tiers, capabilities, requests and results. All frozen."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal, Optional

from .errors import ExecutionError


class IsolationTier(enum.Enum):
    """How strongly a sandbox resists kernel escape by an adversarial tenant.

    Tiers compare by rank (UNKNOWN 0 < CONTAINER 10 < GVISOR 20 < MICROVM 30),
    the same numbers as the C library's sbio_tier. The rank orders that one
    property only. UNKNOWN satisfies no requirement, not even CONTAINER.
    """

    UNKNOWN = "unknown"
    CONTAINER = "container"
    GVISOR = "gvisor"
    MICROVM = "microvm"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    def satisfies(self, required: IsolationTier) -> bool:
        """True when this tier meets `required` (never when either is UNKNOWN)."""
        if self is IsolationTier.UNKNOWN or required is IsolationTier.UNKNOWN:
            return False
        return self.rank >= required.rank

    @classmethod
    def from_rank(cls, rank: int) -> IsolationTier:
        for tier, r in _RANKS.items():
            if r == rank:
                return tier
        return cls.UNKNOWN

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, IsolationTier):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, IsolationTier):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, IsolationTier):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, IsolationTier):
            return NotImplemented
        return self.rank >= other.rank

    def __str__(self) -> str:
        return self.name


_RANKS: dict[IsolationTier, int] = {
    IsolationTier.UNKNOWN: 0,
    IsolationTier.CONTAINER: 10,
    IsolationTier.GVISOR: 20,
    IsolationTier.MICROVM: 30,
}


class Capability(enum.Flag):
    """What a backend or sandbox can do; the C library's SBIO_CAP_* bits."""

    RUN_COMMAND = 1 << 0
    RUN_CODE = 1 << 1
    STATEFUL_CODE = 1 << 2
    STREAMING = 1 << 3
    FILESYSTEM = 1 << 4
    UPLOAD_DOWNLOAD = 1 << 5
    PTY = 1 << 6
    PAUSE_RESUME = 1 << 7
    SNAPSHOT_FORK = 1 << 8
    GPU = 1 << 9
    LSP = 1 << 10
    GIT = 1 << 11
    NETWORK_POLICY = 1 << 12
    TUNNELS = 1 << 13
    COST_REPORTING = 1 << 14
    STDIN = 1 << 15
    NETWORK_ALLOWLIST = 1 << 16
    SEPARATE_STDERR = 1 << 17
    MANAGED = 1 << 18
    CONNECT = 1 << 19

    @classmethod
    def from_bits(cls, bits: int) -> Capability:
        """Known bits only: a newer library's unknown bits are dropped."""
        known = 0
        for member in cls:
            known |= member.value
        return cls(bits & known)


@dataclass(frozen=True)
class Resources:
    """Caps for a sandbox. None keeps the backend's modest default; a given
    value must be > 0 (a caller may raise a cap, never unset it)."""

    cpu: Optional[float] = None
    memory_mb: Optional[int] = None
    disk_mb: Optional[int] = None
    gpu: Optional[str] = None


@dataclass(frozen=True)
class NetworkPolicy:
    """Egress is denied unless asked otherwise; `allow` lists hosts or CIDRs
    reachable under deny (the backend must enforce allow-lists)."""

    egress: Literal["deny", "allow", "learn"] = "deny"
    allow: tuple[str, ...] = ()
    ingress_ports: tuple[int, ...] = ()


@dataclass(frozen=True)
class ExecResult:
    """A finished command. A non-zero exit is data, not an error."""

    exit_code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes = field(default=b"", repr=False)
    stderr_bytes: bytes = field(default=b"", repr=False)
    truncated: bool = False
    duration_ms: int = 0
    streamed: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def raise_for_status(self) -> ExecResult:
        """Raises ExecutionError (with .result) on a non-zero exit; else returns self."""
        if self.exit_code != 0:
            raise ExecutionError(f"command exited with status {self.exit_code}", result=self)
        return self


@dataclass(frozen=True)
class OutputChunk:
    """Bytes a streaming command wrote, in order within its stream."""

    stream: Literal["stdout", "stderr"]
    data: bytes


@dataclass(frozen=True)
class FileInfo:
    """One directory entry; `path` is the full path as the backend reports it."""

    name: str
    path: str
    size: int
    is_dir: bool


@dataclass(frozen=True)
class Mechanism:
    """One isolation mechanism a backend may use, with its evidence."""

    name: str
    tier: IsolationTier
    claimed_tier: IsolationTier
    source_url: str
    verified_on: str
    quote: str
    stale: bool
    age_days: Optional[int]
    reason: str


@dataclass(frozen=True)
class BackendInfo:
    """A backend the library found, as `sbio backends` lists it."""

    name: str
    path: str
    version: str
    summary: str
    status: str
    enabled: bool
    reason: str
    tier: IsolationTier
    claimed_tier: IsolationTier
    capabilities: Capability
    mechanisms: tuple[Mechanism, ...]

    @property
    def sources(self) -> tuple[str, ...]:
        """The provider documents the tier rests on."""
        return tuple(m.source_url for m in self.mechanisms if m.source_url)
