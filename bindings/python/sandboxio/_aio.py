# SPDX-License-Identifier: MIT
"""Running blocking library calls off the event loop.

Each call gets its own thread rather than a slot in the loop's default
executor: a long command must not starve file operations queued behind it,
and every library call is bounded by a deadline, so the threads end.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Callable, Optional, TypeVar

T = TypeVar("T")


def _settle(fut: asyncio.Future[T], ok: bool, value: object) -> None:
    if fut.done():
        return
    if ok:
        fut.set_result(value)  # type: ignore[arg-type]
    else:
        fut.set_exception(value)  # type: ignore[arg-type]


def start(fn: Callable[[], T], name: str) -> asyncio.Future[T]:
    """Runs fn() on a new thread; the future settles on the loop's thread."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def runner() -> None:
        try:
            value: object = fn()
            ok = True
        except BaseException as exc:  # delivered to the awaiting task
            value, ok = exc, False
        try:
            loop.call_soon_threadsafe(_settle, fut, ok, value)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            pass

    threading.Thread(target=runner, name=f"sandboxio-{name}").start()
    return fut


async def call(fn: Callable[[], T], name: str, on_cancel: Optional[Callable[[], None]] = None) -> T:
    """Awaits fn() run off the loop. If the awaiting task is cancelled,
    on_cancel() is called (to stop the call in flight) and the task waits for
    the call to return before the cancellation propagates, so nothing the
    call touches outlives the task's view of it."""
    fut = start(fn, name)
    try:
        return await asyncio.shield(fut)
    except asyncio.CancelledError:
        if on_cancel is not None:
            on_cancel()
        await finish(fut)
        raise


async def finish(fut: asyncio.Future[T]) -> None:
    """Waits for fut to settle, through any number of cancellations, and
    consumes its outcome (the caller is already propagating something)."""
    while not fut.done():
        try:
            await asyncio.wait([fut])
        except asyncio.CancelledError:
            continue
    if not fut.cancelled():
        fut.exception()
