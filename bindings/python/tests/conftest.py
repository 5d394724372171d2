# SPDX-License-Identifier: MIT
"""Fixtures for the binding's tests.

ctest runs these with SBIO_LIBRARY (the build's libsandboxio) and
SBIO_TEST_BACKEND_DIR (the build's backends). Coroutine tests run under
asyncio.run (Debian has no pytest-asyncio; nothing more is needed).
"""

from __future__ import annotations

import asyncio
import faulthandler
import inspect
import os
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pytest

import sandboxio

BACKENDS = os.environ.get("SBIO_TEST_BACKEND_DIR", "")


#: A test that hangs is a failure with every thread's stack, not a silent stall.
TEST_TIMEOUT = 120


@pytest.fixture(autouse=True)
def _hang_guard() -> Iterator[None]:
    faulthandler.dump_traceback_later(TEST_TIMEOUT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Optional[bool]:
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**args))
        return True
    return None


class Fake:
    """A host whose fake backend logs every operation to a file."""

    def __init__(self, tmp: Path, settings: str = "", extra: str = "") -> None:
        self.dir = tmp
        self.call_log = tmp / "calls.log"
        self.audit = tmp / "audit.jsonl"
        self.config = tmp / "config.yaml"
        self.config.write_text(
            f"audit:\n  path: {self.audit}\n"
            + extra
            + "backends:\n  fake:\n    settings:\n"
            + f"      time_scale: 0.001\n      call_log: {self.call_log}\n"
            + settings
        )
        self.host = sandboxio.Host(config_file=str(self.config), backend_path=BACKENDS)

    def calls(self) -> list[str]:
        return self.call_log.read_text().splitlines() if self.call_log.exists() else []

    def ops(self, op: str) -> list[str]:
        return [c for c in self.calls() if c == op or c.startswith(op + " ")]


@pytest.fixture
def make_fake(tmp_path: Path) -> Iterator[Callable[..., Fake]]:
    made: list[Fake] = []

    def make(settings: str = "", extra: str = "") -> Fake:
        d = tmp_path / f"fake{len(made)}"
        d.mkdir()
        f = Fake(d, settings, extra)
        made.append(f)
        return f

    yield make
    for f in made:
        f.host.close()


@pytest.fixture
def fake(make_fake: Callable[..., Fake]) -> Fake:
    return make_fake()


def pytest_configure(config: Any) -> None:
    if not BACKENDS:
        raise pytest.UsageError("SBIO_TEST_BACKEND_DIR is not set: run these tests through ctest")
